"""Status: ``replicatedJobsStatus``, conditions, ``terminalState`` and the events that follow a write.

Mirrors upstream ``calculateReplicatedJobStatuses``, ``updateReplicatedJobsStatuses``,
``replicatedJobStatusesEqual``, ``setCondition``, ``updateCondition``, ``exclusiveConditions``,
``enqueueEvent``, ``failurePolicyRecreateAll`` / ``failurePolicyRecreateJob`` (their status
half) and the ``statusUpdateOpts`` pattern of ``pkg/controllers/jobset_controller.go``.

A :class:`StatusDraft` is the pass's working copy of ``status`` (wire form). Every step folds its
decision in; at the end the reconciler writes it once (if ``should_update``) and only then emits
the queued events, in the order they were queued.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fakekube.clock import SimTime, format_time
from jobset_ref.api import constants as c
from jobset_ref.controller.observe import ChildJobs, Job, job_labels
from jobset_ref.controller.plan import (
    BumpJobRestarts,
    BumpRestarts,
    EventIntent,
    QueueEvent,
    SetCondition,
    SetInPlaceRestartAttempt,
    SetTerminalState,
    StatusOp,
)

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, JobSetStatus

__all__ = [
    "StatusDraft",
    "calculate_replicated_job_statuses",
    "replicated_job_statuses_equal",
]

_EXCLUSIVE_PAIRS = frozenset({(c.JOBSET_STARTUP_POLICY_IN_PROGRESS, c.JOBSET_STARTUP_POLICY_COMPLETED),
                              (c.JOBSET_STARTUP_POLICY_COMPLETED, c.JOBSET_STARTUP_POLICY_IN_PROGRESS)})


# --------------------------------------------------------------------------- replicatedJobsStatus


def _pods_count(job: Job) -> int:
    """``*spec.parallelism`` (defaulted to 1 by the API server), capped by ``completions``."""
    spec = job.get("spec") or {}
    pods = spec.get("parallelism")
    pods = 1 if pods is None else int(pods)
    completions = spec.get("completions")
    if completions is not None and int(completions) < pods:
        pods = int(completions)
    return pods


def _rjob_of(job: Job, counters: dict[str, dict[str, int]]) -> dict[str, int] | None:
    name = job_labels(job).get(c.REPLICATED_JOB_NAME_KEY) or ""
    return counters.get(name) if name else None  # missing label or unknown rjob: ignored (logged upstream)


def calculate_replicated_job_statuses(js: JobSet, status: JobSetStatus, children: ChildJobs, *,
                                      restart_job_gate: bool) -> list[dict[str, Any]]:
    """``calculateReplicatedJobStatuses``: one entry per ReplicatedJob, in spec order (wire form).

    # DEVIATION(upstream): upstream builds this list from a Go map (random order); the persisted
    # list is then sorted by name descending (see ``replicated_job_statuses_equal``), which we do
    # deterministically.
    """
    counters: dict[str, dict[str, int]] = {
        r.name: {"ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0} for r in js.replicated_jobs}
    for job in children.active:
        bucket = _rjob_of(job, counters)
        if bucket is None:
            continue
        job_status = job.get("status") or {}
        if int(job_status.get("succeeded") or 0) + int(job_status.get("ready") or 0) >= _pods_count(job):
            bucket["ready"] += 1
        if int(job_status.get("active") or 0) > 0:
            bucket["active"] += 1
        if (job.get("spec") or {}).get("suspend") is True:
            bucket["suspended"] += 1
    for jobs, key in ((children.successful, "succeeded"), (children.failed, "failed")):
        for job in jobs:
            bucket = _rjob_of(job, counters)
            if bucket is not None:
                bucket[key] += 1
    existing = {r.name: r for r in status.replicated_jobs_status or ()}
    out: list[dict[str, Any]] = []
    for name, counts in counters.items():
        entry: dict[str, Any] = {"name": name, **counts}
        if restart_job_gate and name in existing:
            if existing[name].job_restarts:
                entry["jobRestarts"] = list(existing[name].job_restarts or ())
            if existing[name].job_restarts_count_towards_max:
                entry["jobRestartsCountTowardsMax"] = list(existing[name].job_restarts_count_towards_max or ())
        out.append(entry)
    return out


def _sorted_desc(statuses: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(statuses, key=lambda s: s.get("name", ""), reverse=True)


def _normalized(entry: dict[str, Any]) -> tuple[Any, ...]:
    """Semantic equality: counters default 0, nil and empty arrays are equal."""
    return (entry.get("name", ""), *(int(entry.get(k) or 0) for k in ("ready", "succeeded", "failed", "active",
                                                                         "suspended")),
            tuple(entry.get("jobRestarts") or ()), tuple(entry.get("jobRestartsCountTowardsMax") or ()))


def replicated_job_statuses_equal(old: Iterable[dict[str, Any]], new: Iterable[dict[str, Any]]) -> bool:
    """``replicatedJobStatusesEqual``: compare after sorting both by name descending."""
    return [_normalized(e) for e in _sorted_desc(old)] == [_normalized(e) for e in _sorted_desc(new)]


# --------------------------------------------------------------------------- the draft


class StatusDraft:
    """The pass's working copy of ``status`` plus ``shouldUpdate`` and the queued events."""

    def __init__(self, status: dict[str, Any] | None, now: SimTime) -> None:
        self.wire: dict[str, Any] = copy.deepcopy(status) if status else {}
        self.wire.setdefault("restarts", 0)
        self.now = now
        self.should_update = False
        self.events: list[EventIntent] = []
        self._model: JobSetStatus | None = None

    # ------------------------------------------------------------------ reads
    @property
    def model(self) -> JobSetStatus:
        """A typed view of the current draft (re-parsed after each change)."""
        if self._model is None:
            from jobset_ref.api.models import JobSetStatus  # lazy: pydantic

            self._model = JobSetStatus.from_wire(self.wire)
        return self._model

    def _changed(self) -> None:
        self._model = None

    # ------------------------------------------------------------------ replicatedJobsStatus
    def set_replicated_jobs_status(self, statuses: list[dict[str, Any]]) -> None:
        """``updateReplicatedJobsStatuses``: replace (sorted by name descending) if it changed."""
        old = self.wire.get("replicatedJobsStatus") or []
        if old:
            # Upstream's equality check sorts the stored slice in place too.
            self.wire["replicatedJobsStatus"] = _sorted_desc(old)
        if replicated_job_statuses_equal(old, statuses):
            self._changed()
            return
        self.wire["replicatedJobsStatus"] = _sorted_desc(copy.deepcopy(statuses))
        self.should_update = True
        self._changed()

    # ------------------------------------------------------------------ operations
    def apply(self, ops: Iterable[StatusOp]) -> None:
        for op in ops:
            self._apply_one(op)

    def _apply_one(self, op: StatusOp) -> None:
        match op:
            case SetCondition(condition=cond):
                if self._update_condition(cond.type, cond.status, cond.reason, cond.message):
                    self.should_update = True
                    self.events.append(EventIntent(cond.event_type, cond.reason, cond.message))
            case QueueEvent(event=event):
                self.events.append(event)
            case SetTerminalState(state=state):
                self.wire["terminalState"] = state
            case BumpRestarts(count_towards_max=counted):
                self.wire["restarts"] = int(self.wire.get("restarts") or 0) + 1
                if counted:
                    self.wire["restartsCountTowardsMax"] = int(self.wire.get("restartsCountTowardsMax") or 0) + 1
                self.should_update = True
            case BumpJobRestarts(replicated_job=name, job_restarts=restarts, counted=counted):
                for entry in self.wire.get("replicatedJobsStatus") or []:
                    if entry.get("name") == name:
                        entry["jobRestarts"] = list(restarts)
                        if counted is not None:
                            entry["jobRestartsCountTowardsMax"] = list(counted)
                self.should_update = True
            case SetInPlaceRestartAttempt(which=which, value=value):
                key = "currentInPlaceRestartAttempt" if which == "current" else "previousInPlaceRestartAttempt"
                self.wire[key] = value
                self.should_update = True
            case _:  # pragma: no cover - exhaustive over StatusOp
                raise TypeError(f"unknown status operation {op!r}")
        self._changed()

    def _update_condition(self, type_: str, status: str, reason: str, message: str) -> bool:
        """``updateCondition``: the exact upstream semantics (spec §3.5)."""
        # DEVIATION(upstream): upstream stamps ``metav1.Now()`` (wall clock); we use the virtual clock.
        now = format_time(self.now)
        new = {"type": type_, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}
        conditions: list[dict[str, Any]] = self.wire.get("conditions") or []
        found = changed = False
        for i, cur in enumerate(conditions):
            if cur.get("type") == type_:
                if cur.get("status") != status:
                    conditions[i] = new
                    changed = True
                elif cur.get("reason") != reason or cur.get("message") != message:
                    conditions[i] = {**new, "lastTransitionTime": cur.get("lastTransitionTime", now)}
                    changed = True
                found = True
            elif ((cur.get("type"), type_) in _EXCLUSIVE_PAIRS and cur.get("status") == "True"
                  and status == "True"):
                conditions[i] = {**cur, "status": "False"}
                changed = True
        if not found and status == "True":
            conditions.append(new)
            changed = True
        if conditions:
            self.wire["conditions"] = conditions
        return changed

    # ------------------------------------------------------------------ output
    def to_wire(self) -> dict[str, Any]:
        """The status as Go's JSON encoder would send it (``omitempty`` fields dropped when zero)."""
        out: dict[str, Any] = {}
        if self.wire.get("conditions"):
            out["conditions"] = copy.deepcopy(self.wire["conditions"])
        out["restarts"] = int(self.wire.get("restarts") or 0)
        if self.wire.get("restartsCountTowardsMax"):
            out["restartsCountTowardsMax"] = int(self.wire["restartsCountTowardsMax"])
        if self.wire.get("terminalState"):
            out["terminalState"] = self.wire["terminalState"]
        if self.wire.get("replicatedJobsStatus"):
            out["replicatedJobsStatus"] = [_rjob_status_wire(e) for e in self.wire["replicatedJobsStatus"]]
        for key in ("previousInPlaceRestartAttempt", "currentInPlaceRestartAttempt"):
            if self.wire.get(key) is not None:
                out[key] = int(self.wire[key])
        return out


def _rjob_status_wire(entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": entry.get("name", "")}
    for key in ("ready", "succeeded", "failed", "active", "suspended"):
        out[key] = int(entry.get(key) or 0)
    for key in ("jobRestarts", "jobRestartsCountTowardsMax"):
        if entry.get(key):
            out[key] = list(entry[key])
    return out
