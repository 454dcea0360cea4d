"""What the job framework reads and writes on a Workload: the core's pure helpers
(:mod:`fakekube.components.kueue.workload`, upstream's ``pkg/workload``) applied to a private copy,
plus the few the job reconciler alone uses (``PodsReady``, ``Finish``).

Every change returns a new ``status`` dict (nothing stored is edited in place) and whether
anything changed, as upstream's ``func(wl) bool`` updaters do.
"""

from __future__ import annotations

import copy
from typing import Any

from fakekube.components.kueue import workload as core

from . import constants as k

Workload = dict[str, Any]

conditions_of = core.conditions
is_admitted = core.is_admitted
has_quota_reservation = core.has_quota_reservation
is_finished = core.is_finished
is_evicted = core.is_evicted
is_active = core.is_active
truncate_condition_message = core.truncate_condition_message
truncate_event_message = core.truncate_event_message


def find(wl: Workload, type_: str) -> dict[str, Any] | None:
    return core.find_condition(wl, type_)


def key(wl: Workload) -> str:
    namespace, name = core.key(wl)
    return f"{namespace}/{name}"


def generation(wl: Workload) -> int:
    return int(wl["metadata"].get("generation") or 0)


def _private(wl: Workload) -> Workload:
    return {"metadata": wl["metadata"], "status": copy.deepcopy(wl.get("status") or {})}


def with_condition(wl: Workload, cond: dict[str, Any], now: str) -> tuple[dict[str, Any], bool]:
    """``SetConditionAndUpdate``'s change: ``cond`` with the Workload's generation."""
    mine = _private(wl)
    cond = {**cond, "message": truncate_condition_message(cond.get("message", ""))}
    if generation(wl):
        cond["observedGeneration"] = generation(wl)
    changed = core.set_condition(mine, cond, now)
    return mine["status"], changed


def finish(wl: Workload, reason: str, message: str, now: str) -> tuple[dict[str, Any], bool]:
    """``workloadfinish.Finish``'s change: ``Finished=True`` with ``reason``."""
    if is_finished(wl):
        return dict(wl.get("status") or {}), False
    return with_condition(wl, {"type": k.FINISHED, "status": "True", "lastTransitionTime": now, "reason": reason,
                               "message": message}, now)


def requeue_and_release(wl: Workload, reason: str, message: str, requeued: bool, pending_reason: str,
                        now: str) -> tuple[dict[str, Any], bool]:
    """The evicted job's last step: ``SetRequeuedCondition`` then
    ``UnsetQuotaReservationWithCondition`` (QuotaReserved=False, no admission, Admitted synced)."""
    mine = _private(wl)
    changed = core.set_requeued_condition(mine, reason, message, requeued, now)
    changed = core.unset_quota_reservation_with_condition(mine, pending_reason, message, now) or changed
    return mine["status"], changed


def pods_ready_condition(status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    """``CreatePodsReadyCondition`` (observedGeneration is added when it is written)."""
    return {"type": k.PODS_READY, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}


def has_condition_with_type_and_reason(wl: Workload, cond: dict[str, Any]) -> bool:
    """``HasConditionWithTypeAndReason``: same type, reason and status."""
    return any(c.get("type") == cond["type"] and c.get("reason") == cond["reason"] and
               c.get("status") == cond["status"] for c in conditions_of(wl))


def controller_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    """``metav1.GetControllerOf``."""
    refs: list[dict[str, Any]] = obj["metadata"].get("ownerReferences") or []
    for ref in refs:
        if ref.get("controller"):
            return ref
    return None
