"""``pod_failure_policy.go``: ``matchPodFailurePolicy`` with ``matchOnExitCodes`` and
``matchOnPodConditions``, and ``getFailJobMessage`` of ``job_controller.go`` (the FailJob rule that
fails the Job)."""

from __future__ import annotations

from typing import Any

from fakekube.machinery.objects import Condition, meta_of

from .pods import is_pod_failed, spec_of


def _match_on_exit_codes(pod: dict[str, Any], req: dict[str, Any]) -> dict[str, Any] | None:
    """``matchOnExitCodes``: containers first, then init containers; non-zero exits only."""
    status = pod.get("status") or {}
    containers: list[dict[str, Any]] = status.get("containerStatuses") or []
    init_containers: list[dict[str, Any]] = status.get("initContainerStatuses") or []
    for statuses in (containers, init_containers):
        for cs in statuses:
            terminated = (cs.get("state") or {}).get("terminated")
            if terminated is None:
                continue
            name = req.get("containerName")
            if name is not None and name != cs.get("name"):
                continue
            code = int(terminated.get("exitCode") or 0)
            if code == 0:
                continue
            values = req.get("values") or []
            matched = code in values if req.get("operator") == "In" else code not in values
            if matched:
                return cs
    return None


def _match_on_pod_conditions(pod: dict[str, Any], patterns: list[dict[str, Any]]) -> Condition | None:
    conditions: list[Condition] | None = (pod.get("status") or {}).get("conditions")
    for cond in conditions or ():
        for pattern in patterns:
            if cond.get("type") == pattern.get("type") and cond.get("status") == (pattern.get("status") or "True"):
                return cond
    return None


def match_pod_failure_policy(policy: dict[str, Any] | None,
                             pod: dict[str, Any]) -> tuple[str | None, bool, str | None]:
    """``matchPodFailurePolicy``: (FailJob message, count the failure?, matched action)."""
    if policy is None:
        return None, True, None
    meta = meta_of(pod)
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule.get("action")
        if rule.get("onExitCodes") is not None:
            cs = _match_on_exit_codes(pod, rule["onExitCodes"])
            if cs is None:
                continue
            if action == "FailJob":
                code = ((cs.get("state") or {}).get("terminated") or {}).get("exitCode")
                return (f"Container {cs.get('name')} for pod {meta.get('namespace')}/{meta.get('name')} failed with "
                        f"exit code {code} matching FailJob rule at index {index}"), True, action
        elif rule.get("onPodConditions") is not None:
            cond = _match_on_pod_conditions(pod, rule["onPodConditions"])
            if cond is None:
                continue
            if action == "FailJob":
                return (f"Pod {meta.get('namespace')}/{meta.get('name')} has condition {cond.get('type')} "
                        f"matching FailJob rule at index {index}"), True, action
        else:
            continue
        if action == "Ignore":
            return None, False, action
        if action in ("FailIndex", "Count"):
            return None, True, action
    return None, True, None


def fail_job_message(job: dict[str, Any], pods: list[dict[str, Any]]) -> str | None:
    """``getFailJobMessage``."""
    policy = spec_of(job).get("podFailurePolicy")
    if policy is None:
        return None
    for pod in pods:
        if is_pod_failed(pod, job):
            message, _, _ = match_pod_failure_policy(policy, pod)
            if message is not None:
                return message
    return None
