"""Pure helpers on Workload dicts (``pkg/workload``, ``pkg/workload/evict``, ``pkg/util/priority``).

Every function works on a plain Workload dict (``status.conditions`` as the API stores them) and
takes the time as the RFC 3339 text the API stores (``now``). Mutating helpers edit the dict in
place and return whether they changed it, as upstream's do; callers own a private copy.

:class:`Info` is ``workload.Info``: the workload's ClusterQueue and its total requests per pod
set (after reclaimable pods), from the spec when pending and from ``status.admission`` when it
holds quota.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import constants as c
from .resources import FlavorResource, pod_requests, resource_value

__all__ = [
    "Info",
    "PodSetResources",
    "find_condition",
    "has_quota_reservation",
    "is_active",
    "is_admitted",
    "is_evicted",
    "is_finished",
    "key",
    "priority",
    "queue_order_timestamp",
    "set_condition",
    "set_evicted_condition",
    "set_preempted_condition",
    "set_quota_reservation",
    "set_requeued_condition",
    "sync_admitted_condition",
    "unset_quota_reservation_with_condition",
]

MAX_CONDITION_MESSAGE = 32 * 1024
MAX_EVENT_MESSAGE = 1024


def truncate_condition_message(message: str) -> str:
    """``api.TruncateConditionMessage``."""
    return _truncate(message, MAX_CONDITION_MESSAGE)


def truncate_event_message(message: str) -> str:
    """``api.TruncateEventMessage``."""
    return _truncate(message, MAX_EVENT_MESSAGE)


def _truncate(message: str, limit: int) -> str:
    """``truncateMessage``: cut to ``limit`` bytes with a `` ...`` suffix."""
    if len(message.encode()) <= limit:
        return message
    return message.encode()[:limit - 4].decode(errors="ignore") + " ..."


def key(wl: dict[str, Any]) -> tuple[str, str]:
    meta = wl["metadata"]
    return (meta.get("namespace") or "", meta["name"])


# ---------------------------------------------------------------------------------- conditions
def conditions(wl: dict[str, Any]) -> list[dict[str, Any]]:
    return (wl.get("status") or {}).get("conditions") or []


def find_condition(wl: dict[str, Any], type_: str) -> dict[str, Any] | None:
    for cond in conditions(wl):
        if cond.get("type") == type_:
            return cond
    return None


def condition_true(wl: dict[str, Any], type_: str) -> bool:
    cond = find_condition(wl, type_)
    return cond is not None and cond.get("status") == "True"


def condition_false(wl: dict[str, Any], type_: str) -> bool:
    cond = find_condition(wl, type_)
    return cond is not None and cond.get("status") == "False"


def set_condition(wl: dict[str, Any], new: dict[str, Any], now: str) -> bool:
    """``apimeta.SetStatusCondition``: the transition time moves only when the status changes
    (an empty ``lastTransitionTime`` is ``now``); reason, message and observedGeneration follow."""
    status = wl.setdefault("status", {})
    conds = status.get("conditions")
    if conds is None:
        conds = status["conditions"] = []
    for i, existing in enumerate(conds):
        if existing.get("type") != new["type"]:
            continue
        updated = dict(existing)
        changed = False
        if existing.get("status") != new["status"]:
            updated["status"] = new["status"]
            updated["lastTransitionTime"] = new.get("lastTransitionTime") or now
            changed = True
        for field_name in ("reason", "message"):
            if existing.get(field_name) != new.get(field_name, ""):
                updated[field_name] = new.get(field_name, "")
                changed = True
        if existing.get("observedGeneration", 0) != new.get("observedGeneration", 0):
            if new.get("observedGeneration"):
                updated["observedGeneration"] = new["observedGeneration"]
            else:
                updated.pop("observedGeneration", None)
            changed = True
        if changed:
            conds[i] = updated
        return changed
    cond = {"type": new["type"], "status": new["status"]}
    if new.get("observedGeneration"):
        cond["observedGeneration"] = new["observedGeneration"]
    cond["lastTransitionTime"] = new.get("lastTransitionTime") or now
    cond["reason"] = new.get("reason", "")
    cond["message"] = new.get("message", "")
    conds.append(cond)
    return True


def remove_condition(wl: dict[str, Any], type_: str) -> bool:
    status = wl.get("status") or {}
    conds = status.get("conditions") or []
    kept = [cond for cond in conds if cond.get("type") != type_]
    if len(kept) == len(conds):
        return False
    status["conditions"] = kept
    return True


def _cond(wl: dict[str, Any], type_: str, status: bool, reason: str, message: str, *,
          generation: bool = True) -> dict[str, Any]:
    cond = {"type": type_, "status": "True" if status else "False", "reason": reason,
            "message": truncate_condition_message(message)}
    if generation:
        cond["observedGeneration"] = wl["metadata"].get("generation", 0)
    return cond


# ---------------------------------------------------------------------------------- predicates
def has_quota_reservation(wl: dict[str, Any]) -> bool:
    return condition_true(wl, c.WORKLOAD_QUOTA_RESERVED)


def is_admitted(wl: dict[str, Any]) -> bool:
    return condition_true(wl, c.WORKLOAD_ADMITTED)


def is_finished(wl: dict[str, Any]) -> bool:
    return condition_true(wl, c.WORKLOAD_FINISHED)


def is_evicted(wl: dict[str, Any]) -> bool:
    return condition_true(wl, c.WORKLOAD_EVICTED)


def is_active(wl: dict[str, Any]) -> bool:
    return (wl.get("spec") or {}).get("active", True) is not False


def is_evicted_by_pods_ready_timeout(wl: dict[str, Any]) -> dict[str, Any] | None:
    cond = find_condition(wl, c.WORKLOAD_EVICTED)
    if cond is None or cond.get("status") != "True" or cond.get("reason") != c.EVICTED_BY_PODS_READY_TIMEOUT:
        return None
    return cond


def is_admissible(wl: dict[str, Any]) -> bool:
    """``workload.IsAdmissible``: it may wait in a queue."""
    return is_active(wl) and not is_finished(wl) and not has_quota_reservation(wl)


def priority(wl: dict[str, Any]) -> int:
    """``priority.Priority``: ``spec.priority``, 0 when unset."""
    value = (wl.get("spec") or {}).get("priority")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def queue_order_timestamp(wl: dict[str, Any], requeuing_timestamp: str) -> str:
    """``Ordering.GetQueueOrderTimestamp``: the eviction time after a PodsReady timeout (with
    the Eviction strategy) or an admission check, else the creation time. (Times compare as
    their RFC 3339 text: the fake writes them all in one width.)"""
    evicted = is_evicted_by_pods_ready_timeout(wl) if requeuing_timestamp == "Eviction" else None
    if evicted is None:
        cond = find_condition(wl, c.WORKLOAD_EVICTED)
        if cond is not None and cond.get("status") == "True" and cond.get("reason") == c.EVICTED_BY_ADMISSION_CHECK:
            evicted = cond
    stamp: str = wl["metadata"].get("creationTimestamp", "") if evicted is None else evicted["lastTransitionTime"]
    return stamp


# ---------------------------------------------------------------------------------- mutations
def sync_admitted_condition(wl: dict[str, Any], now: str) -> bool:
    """``workload.SyncAdmittedCondition`` with no admission checks and no delayed topology
    requests (UnadmittedWorkloadsObservability off): Admitted follows QuotaReserved."""
    reserved = has_quota_reservation(wl)
    admitted = is_admitted(wl)
    if admitted == reserved:
        return False
    if reserved:
        new = _cond(wl, c.WORKLOAD_ADMITTED, True, "Admitted", "The workload is admitted")
    else:
        new = _cond(wl, c.WORKLOAD_ADMITTED, False, c.REASON_NO_RESERVATION, "The workload has no reservation")
        old = find_condition(wl, c.WORKLOAD_ADMITTED)
        if old is not None:
            from fakekube._core.clock import SECOND, parse_time

            elapsed = int((parse_time(now) - parse_time(old["lastTransitionTime"])) // SECOND)
            status = wl.setdefault("status", {})
            status["accumulatedPastExecutionTimeSeconds"] = status.get("accumulatedPastExecutionTimeSeconds", 0) \
                + elapsed
    new["lastTransitionTime"] = now
    return set_condition(wl, new, now)


def set_quota_reservation(wl: dict[str, Any], admission: dict[str, Any], now: str) -> bool:
    """``workload.SetQuotaReservation``: admission, QuotaReserved=True, and the active Evicted,
    Preempted and BlockedOnPreemptionGates conditions reset to False (``Previously: ...``)."""
    wl.setdefault("status", {})["admission"] = admission
    reason = c.REASON_QUOTA_RESERVED
    changed = set_condition(wl, {**_cond(wl, c.WORKLOAD_QUOTA_RESERVED, True, reason,
                                         f"Quota reserved in ClusterQueue {admission['clusterQueue']}"),
                                 "lastTransitionTime": now}, now)
    for type_ in (c.WORKLOAD_EVICTED, c.WORKLOAD_PREEMPTED, c.WORKLOAD_BLOCKED_ON_PREEMPTION_GATES):
        prev = find_condition(wl, type_)
        if prev is None or prev.get("status") != "True":
            continue
        changed = set_condition(wl, {**_cond(wl, type_, False, reason, "Previously: " + prev.get("message", "")),
                                     "lastTransitionTime": now}, now) or changed
    return changed


def unset_quota_reservation_with_condition(wl: dict[str, Any], reason: str, message: str, now: str) -> bool:
    """``workload.UnsetQuotaReservationWithCondition``: QuotaReserved=False, no admission, and
    Admitted synced."""
    changed = set_condition(wl, {**_cond(wl, c.WORKLOAD_QUOTA_RESERVED, False, reason, message),
                                 "lastTransitionTime": now}, now)
    status = wl.setdefault("status", {})
    if status.get("admission") is not None:
        status.pop("admission", None)
        changed = True
    if sync_admitted_condition(wl, now):
        changed = True
    return changed


def set_requeued_condition(wl: dict[str, Any], reason: str, message: str, status: bool, now: str) -> bool:
    return set_condition(wl, _cond(wl, c.WORKLOAD_REQUEUED, status, reason, message), now)


def set_evicted_condition(wl: dict[str, Any], reason: str, message: str, now: str) -> bool:
    return set_condition(wl, {**_cond(wl, c.WORKLOAD_EVICTED, True, reason, message), "lastTransitionTime": now},
                         now)


def set_preempted_condition(wl: dict[str, Any], reason: str, message: str, now: str) -> bool:
    return set_condition(wl, {**_cond(wl, c.WORKLOAD_PREEMPTED, True, reason, message, generation=False),
                              "lastTransitionTime": now}, now)


def set_deactivation_target(wl: dict[str, Any], reason: str, message: str, now: str) -> bool:
    return set_condition(wl, _cond(wl, c.WORKLOAD_DEACTIVATION_TARGET, True, reason, message), now)


def record_eviction(wl: dict[str, Any], reason: str, underlying_cause: str) -> None:
    """``workloadEvictionStateInc``: count the eviction in ``status.schedulingStats``."""
    stats = wl.setdefault("status", {}).setdefault("schedulingStats", {})
    evictions = stats.setdefault("evictions", [])
    for i, entry in enumerate(evictions):
        if entry.get("reason") == reason and entry.get("underlyingCause", "") == underlying_cause:
            evictions[i] = {**entry, "count": entry.get("count", 0) + 1}
            return
    evictions.append({"reason": reason, "underlyingCause": underlying_cause, "count": 1})


def prepare_for_eviction(wl: dict[str, Any], reason: str, message: str, now: str) -> None:
    """``evict.prepareForEviction`` (no admission checks, no MultiKueue): the Evicted condition."""
    set_evicted_condition(wl, reason, message, now)
    status = wl.setdefault("status", {})
    status.pop("clusterName", None)
    status.pop("nominatedClusterNames", None)
    status.pop("unhealthyNodes", None)


def propagate_resource_requests(wl: dict[str, Any], info: Info) -> bool:
    """``PropagateResourceRequests``: ``status.resourceRequests`` from the total requests."""
    from .resources import format_amount

    wanted = []
    for ps in info.total_requests:
        entry: dict[str, Any] = {"name": ps.name}
        if ps.requests:
            entry["resources"] = {res: format_amount(res, v) for res, v in sorted(ps.requests.items())}
        wanted.append(entry)
    status = wl.setdefault("status", {})
    if status.get("resourceRequests") == wanted:
        return False
    status["resourceRequests"] = wanted
    return True


# ---------------------------------------------------------------------------------- info
@dataclass(slots=True)
class PodSetResources:
    """``workload.PodSetResources``: a pod set's total requests (count pods), and its flavors."""

    name: str
    count: int
    requests: dict[str, int]
    flavors: dict[str, str] = field(default_factory=dict)

    def single_pod(self) -> dict[str, int]:
        if self.count == 0:
            return dict.fromkeys(self.requests, 0)
        return {name: v // self.count for name, v in self.requests.items()}

    def scaled_to(self, count: int) -> PodSetResources:
        single = self.single_pod()
        return PodSetResources(self.name, count, {name: v * count for name, v in single.items()}, dict(self.flavors))


def _reclaimable(wl: dict[str, Any]) -> dict[str, int]:
    return {entry["name"]: entry.get("count", 0) for entry in (wl.get("status") or {}).get("reclaimablePods") or []}


def total_requests_from_pod_sets(wl: dict[str, Any], reclaimable: bool = True) -> list[PodSetResources]:
    reclaim = _reclaimable(wl) if reclaimable else {}
    out = []
    for ps in wl["spec"].get("podSets") or []:
        count = ps.get("count", 1)
        count -= min(reclaim.get(ps.get("name", "main"), 0), count)
        single = pod_requests((ps.get("template") or {}).get("spec") or {})
        out.append(PodSetResources(ps.get("name", "main"), count, {name: v * count for name, v in single.items()}))
    return out


def total_requests_from_admission(wl: dict[str, Any], reclaimable: bool = True) -> list[PodSetResources]:
    admission = (wl.get("status") or {}).get("admission") or {}
    totals = {ps.get("name", "main"): ps.get("count", 1) for ps in wl["spec"].get("podSets") or []}
    reclaim = _reclaimable(wl) if reclaimable else {}
    out = []
    for psa in admission.get("podSetAssignments") or []:
        name = psa["name"]
        count = psa.get("count", totals.get(name, 0))
        requests = {res: resource_value(res, q) for res, q in (psa.get("resourceUsage") or {}).items()}
        after = totals.get(name, 0) - min(reclaim.get(name, 0), totals.get(name, 0))
        if after < count:
            if count:
                requests = {res: v // count * after for res, v in requests.items()}
            count = after
        out.append(PodSetResources(name, count, requests, dict(psa.get("flavors") or {})))
    return out


@dataclass(slots=True)
class Info:
    """``workload.Info``: the object, its ClusterQueue and its total requests per pod set."""

    obj: dict[str, Any]
    cluster_queue: str
    total_requests: list[PodSetResources]
    last_assignment: Any = None

    @classmethod
    def of(cls, wl: dict[str, Any], cluster_queue: str = "", *, reclaimable: bool = True) -> Info:
        """``reclaimable``: the ReclaimablePods gate (off: ``status.reclaimablePods`` is ignored)."""
        admission = (wl.get("status") or {}).get("admission")
        if admission is not None:
            return cls(wl, admission.get("clusterQueue", cluster_queue),
                       total_requests_from_admission(wl, reclaimable))
        return cls(wl, cluster_queue, total_requests_from_pod_sets(wl, reclaimable))

    @property
    def key(self) -> tuple[str, str]:
        return key(self.obj)

    def usage(self) -> dict[FlavorResource, int]:
        """``Info.Usage().Quota``: the admitted requests by (flavor, resource)."""
        out: dict[FlavorResource, int] = {}
        for ps in self.total_requests:
            for res, v in ps.requests.items():
                flavor = ps.flavors.get(res)
                if flavor is None:
                    continue
                out[(flavor, res)] = out.get((flavor, res), 0) + v
        return out
