"""Policy for ``spec.failurePolicy.restartStrategy: InPlaceRestart`` (feature gate ``InPlaceRestart``)
and ``status.{previous,current}InPlaceRestartAttempt``.

API doc (``jobset_types.go``): ``InPlaceRestart`` "restarts the pods in place instead of
recreating the Jobs … coordinated by an agent sidecar through the JobSet status".
``PreviousInPlaceRestartAttempt``: "pods whose in-place restart attempt is at or below this
value should restart in place"; ``CurrentInPlaceRestartAttempt``: "pods at this attempt may
lift their start barrier".

Mirrors upstream ``reconcileInPlaceRestart``, ``getMaxContainerRestartCount``,
``getPodInPlaceRestartAttempts``, ``exceededMaxRestarts``, ``getTotalNumberOfPods``,
``allEqual``, ``updateCurrentInPlaceRestartAttempt`` and ``updatePreviousInPlaceRestartAttempt``
(``pkg/controllers/in_place_restart.go``). KEP-467 (in-place restart).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jobset_ref.api import constants as c
from jobset_ref.api.enums import JobSetRestartStrategy
from jobset_ref.controller import conditions
from jobset_ref.controller.plan import Decision, ReconcileError, SetInPlaceRestartAttempt

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, JobSetStatus

__all__ = ["evaluate_in_place_restart", "is_in_place_restart_strategy"]

Pod = Mapping[str, Any]


def is_in_place_restart_strategy(js: JobSet) -> bool:
    """``isInPlaceRestartStrategy``."""
    policy = js.spec.failure_policy
    return policy is not None and policy.restart_strategy == JobSetRestartStrategy.IN_PLACE_RESTART


def _max_container_restart_count(pods: Sequence[Pod]) -> int:
    best = 0
    for pod in pods:
        status = pod.get("status") or {}
        for key in ("initContainerStatuses", "containerStatuses"):
            for cs in status.get(key) or ():
                best = max(best, int(cs.get("restartCount") or 0))
    return best


def _attempts(pods: Sequence[Pod]) -> list[int]:
    out: list[int] = []
    for pod in pods:
        if (pod.get("status") or {}).get("phase") == c.POD_PHASE_FAILED:
            continue
        raw = ((pod.get("metadata") or {}).get("annotations") or {}).get(c.IN_PLACE_RESTART_ATTEMPT_KEY)
        if raw is None:
            continue
        text = raw[1:] if raw[:1] in "+-" else raw
        if not text.isascii() or not text.isdigit() or int(raw) < 0:
            raise ReconcileError(f"invalid value for annotation {c.IN_PLACE_RESTART_ATTEMPT_KEY}, "
                                 "must be non-negative integer")
        out.append(int(raw))
    return out


def _total_pods(js: JobSet) -> int:
    total = 0
    for rjob in js.replicated_jobs:
        if rjob.completions is None or rjob.parallelism is None or rjob.completions != rjob.parallelism:
            raise ReconcileError(f"{rjob.name}: in-place restart requires jobTemplate.spec.completions == "
                                 "jobTemplate.spec.parallelism != nil")
        total += rjob.replicas * rjob.parallelism
    return total


def evaluate_in_place_restart(js: JobSet, status: JobSetStatus, pods: Sequence[Pod]) -> Decision:
    """``reconcileInPlaceRestart`` over the JobSet's pods (label ``jobset-name``)."""
    max_restarts = js.spec.failure_policy.max_restarts if js.spec.failure_policy else 0
    if _max_container_restart_count(pods) > max_restarts:
        return Decision(conditions.failed(c.REACHED_MAX_RESTARTS_REASON, c.REACHED_MAX_RESTARTS_MESSAGE),
                        note="container restart count exceeded max restarts")
    attempts = _attempts(pods)
    highest = max(attempts, default=0)
    if highest - (status.restarts - status.restarts_count_towards_max) > max_restarts:
        return Decision(conditions.failed(c.REACHED_MAX_RESTARTS_REASON, c.REACHED_MAX_RESTARTS_MESSAGE),
                        note="in-place restart attempts exceeded max restarts")
    total = _total_pods(js)
    if attempts and len(attempts) == total and all(a == attempts[0] for a in attempts):
        if status.current_in_place_restart_attempt == attempts[0]:
            return Decision()
        return Decision((SetInPlaceRestartAttempt("current", attempts[0]),))
    if not attempts or highest == 0:
        return Decision()
    previous = highest - 1
    old = status.previous_in_place_restart_attempt
    if old is not None and previous <= old:
        return Decision()
    return Decision((SetInPlaceRestartAttempt("previous", previous),))
