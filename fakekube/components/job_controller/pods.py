"""What the Job controller reads from Pods and Jobs: ``controller_utils.go``'s
``FilterTerminatingPods`` and ``ActivePods`` order (``FilterActivePods`` is the sync's own pass,
``JobController._sync``), the controller reference, ``getCompletionIndex``
and the small readers of ``job_controller.go`` (``isPodFailed``, ``onlyReplaceFailedPods``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakekube._core.clock import SimTime, parse_time
from fakekube.machinery.objects import Condition, controller_ref, find_condition, meta_of

Key = tuple[str, str]

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
POD_INDEX = "job-controller/controller-uid"
UNKNOWN_INDEX = -1

_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def phase_of(pod: dict[str, Any]) -> str:
    return (pod.get("status") or {}).get("phase") or ""


def is_terminating(pod: dict[str, Any]) -> bool:
    """``FilterTerminatingPods``: being deleted and not yet terminal."""
    return (bool((pod.get("metadata") or {}).get("deletionTimestamp"))
            and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))


def pod_condition(pod: dict[str, Any], ctype: str) -> Condition | None:
    return find_condition((pod.get("status") or {}).get("conditions"), ctype)


def is_ready(pod: dict[str, Any]) -> bool:
    conditions: list[Condition] | None = (pod.get("status") or {}).get("conditions")
    for cond in conditions or ():  # pod_condition(pod, "Ready"), inlined
        if cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return False


def job_controller_uid(pod: Mapping[str, Any]) -> list[str]:
    """The pods informer index: the UID of the controlling batch/v1 Job, if any."""
    ref = controller_ref(pod)
    if ref is not None and ref.get("kind") == "Job" and ref.get("apiVersion") == "batch/v1" and ref.get("uid"):
        return [ref["uid"]]
    return []


def completion_index(pod: dict[str, Any]) -> int:
    """``getCompletionIndex``: from the annotation; -1 when absent or malformed."""
    text = ((pod.get("metadata") or {}).get("annotations") or {}).get(COMPLETION_INDEX)
    if text is None or not text.isdigit():
        return UNKNOWN_INDEX
    return int(text)


def time_or_none(text: str | None) -> SimTime | None:
    return parse_time(text) if text else None


def active_pods_order(pod: dict[str, Any]) -> tuple[Any, ...]:
    """``controller.ActivePods`` as a sort key: pods to delete first sort first."""
    spec, meta = pod.get("spec") or {}, meta_of(pod)
    ready = is_ready(pod)
    ready_since = 0
    if ready:
        cond = pod_condition(pod, "Ready") or {}
        ready_since = time_or_none(cond.get("lastTransitionTime")) or 0
    restarts = max((int(cs.get("restartCount") or 0)
                    for cs in (pod.get("status") or {}).get("containerStatuses") or ()), default=0)
    created = time_or_none(meta.get("creationTimestamp")) or 0
    return (1 if spec.get("nodeName") else 0, _PHASE_ORDINAL.get(phase_of(pod), 0), 1 if ready else 0,
            -ready_since, -restarts, -created, meta.get("name") or "")


def spec_of(job: dict[str, Any]) -> dict[str, Any]:
    return job.get("spec") or {}


def is_indexed(job: dict[str, Any]) -> bool:
    return spec_of(job).get("completionMode") == "Indexed"


def is_suspended(job: dict[str, Any]) -> bool:
    return bool(spec_of(job).get("suspend"))


def per_index(job: dict[str, Any]) -> bool:
    return is_indexed(job) and spec_of(job).get("backoffLimitPerIndex") is not None


def only_replace_failed_pods(job: dict[str, Any]) -> bool:
    """``onlyReplaceFailedPods``: podReplacementPolicy Failed, or any podFailurePolicy."""
    spec = spec_of(job)
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def is_pod_failed(pod: dict[str, Any], job: dict[str, Any]) -> bool:
    """``isPodFailed``: Failed phase, or (TerminatingOrFailed) being deleted and not Succeeded."""
    phase = (pod.get("status") or {}).get("phase")
    if phase == "Failed":
        return True
    if phase == "Succeeded" or not (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return not only_replace_failed_pods(job)


def pod_key(pod: dict[str, Any]) -> Key:
    meta = pod.get("metadata") or {}
    return meta.get("namespace") or "", meta.get("name") or ""

