"""Observe: a JobSet's child Jobs, sorted into the four buckets one reconcile works from.

Mirrors upstream ``getChildJobs``, ``JobFinished``, ``getJobRestarts``,
``getJobRestartsCountTowardsMax`` and the ``.metadata.controller`` field index
(``SetupJobSetIndexes``) in ``pkg/controllers/jobset_controller.go`` / ``failure_policy.go``.

Buckets (spec §3.3):

* **previous**: ``restart-attempt`` label < ``status.restarts`` or, with gate ``RestartJob``,
  ``job-restart-attempt`` label < ``jobRestarts[job-index]``. Deleted, never counted.
* **failed** / **successful**: first ``Failed``/``Complete`` condition with status True.
* **active**: everything else (``FailureTarget``, ``SuccessCriteriaMet`` … are ignored).

A Job's ``deletionTimestamp`` is *not* considered. Jobs arrive sorted by name (the informer
index returns (namespace, name) order, as the API server lists them), so "first in list order"
is the lexicographically smallest name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jobset_ref.api import constants as c
from jobset_ref.controller.plan import ReconcileError

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, JobSetStatus

__all__ = [
    "ChildJobs",
    "Job",
    "get_child_jobs",
    "get_job_restarts",
    "get_job_restarts_count_towards_max",
    "job_finished",
    "job_labels",
    "job_name",
    "jobset_controller_uid",
]

Job = Mapping[str, Any]
"""A batch/v1 Job in wire form (read-only: it may be the informer's own object)."""

JOB_COMPLETE, JOB_FAILED = "Complete", "Failed"


def job_name(job: Job) -> str:
    return str(job["metadata"]["name"])


def job_labels(job: Job) -> Mapping[str, str]:
    return job["metadata"].get("labels") or {}


def jobset_controller_uid(obj: Job) -> list[str]:
    """Index function of ``.metadata.controller``: the UID of a JobSet controller owner, if any.

    ``metav1.GetControllerOf`` then "…make sure it's a JobSet…" (apiVersion and kind).
    """
    for ref in obj["metadata"].get("ownerReferences") or ():
        if ref.get("controller"):
            if ref.get("apiVersion") == c.API_VERSION and ref.get("kind") == c.KIND:
                return [str(ref.get("uid", ""))]
            return []
    return []


def job_finished(job: Job) -> str:
    """``JobFinished``: ``Complete``, ``Failed`` or ``""`` (first True one of the two wins)."""
    for cond in (job.get("status") or {}).get("conditions") or ():
        if cond.get("type") in (JOB_COMPLETE, JOB_FAILED) and cond.get("status") == "True":
            return str(cond["type"])
    return ""


def _replicas(js: JobSet, rjob_name: str) -> int:
    """``getReplicatedJobReplicas``: 0 when the ReplicatedJob does not exist."""
    return next((r.replicas for r in js.replicated_jobs if r.name == rjob_name), 0)


def get_job_restarts(js: JobSet, status: JobSetStatus, rjob_name: str) -> list[int]:
    """``getJobRestarts``: the rjob's ``jobRestarts`` or ``replicas`` zeros when absent/empty."""
    for rjs in status.replicated_jobs_status or ():
        if rjs.name == rjob_name:
            if not rjs.job_restarts:
                return [0] * _replicas(js, rjob_name)
            return list(rjs.job_restarts)
    return [0] * _replicas(js, rjob_name)


def get_job_restarts_count_towards_max(js: JobSet, status: JobSetStatus, rjob_name: str) -> list[int]:
    """``getJobRestartsCountTowardsMax``: like :func:`get_job_restarts` for the counted array."""
    for rjs in status.replicated_jobs_status or ():
        if rjs.name == rjob_name:
            if not rjs.job_restarts_count_towards_max:
                return [0] * _replicas(js, rjob_name)
            return list(rjs.job_restarts_count_towards_max)
    return [0] * _replicas(js, rjob_name)


@dataclass(frozen=True, slots=True)
class ChildJobs:
    """The four buckets, each in list (name) order."""

    active: tuple[Job, ...] = ()
    successful: tuple[Job, ...] = ()
    failed: tuple[Job, ...] = ()
    previous: tuple[Job, ...] = ()
    names: frozenset[str] = field(default=frozenset())
    """Names of every Job in any bucket (``shouldCreateJob`` by name, in O(1))."""

    def all(self) -> tuple[Job, ...]:
        return self.active + self.successful + self.failed + self.previous


def _atoi(value: str | None) -> int | None:
    """Go ``strconv.Atoi``: optional sign and decimal digits only."""
    if value is None:
        return None
    text = value[1:] if value[:1] in ("+", "-") else value
    if not text or not text.isascii() or not text.isdigit():
        return None
    return int(value)


def get_child_jobs(js: JobSet, status: JobSetStatus, jobs: Iterable[Job], *, restart_job_gate: bool) -> ChildJobs:
    """``getChildJobs``: classify ``jobs`` (already the JobSet's own, by controller UID).

    Raises :class:`ReconcileError` where upstream's ``getChildJobs`` returns an error.
    """
    active: list[Job] = []
    successful: list[Job] = []
    failed: list[Job] = []
    previous: list[Job] = []
    names: list[str] = []
    restarts_by_rjob: dict[str, list[int]] = {}
    for job in jobs:
        name = job_name(job)
        names.append(name)
        labels = job_labels(job)
        attempt = _atoi(labels.get(c.RESTARTS_KEY))
        if attempt is None:
            raise ReconcileError(f'strconv.Atoi: parsing "{labels.get(c.RESTARTS_KEY, "")}": invalid syntax')
        if attempt < status.restarts:
            previous.append(job)
            continue
        if restart_job_gate and _is_previous_job_restart(js, status, job, labels, restarts_by_rjob):
            previous.append(job)
            continue
        finished = job_finished(job)
        if finished == JOB_FAILED:
            failed.append(job)
        elif finished == JOB_COMPLETE:
            successful.append(job)
        else:
            active.append(job)
    return ChildJobs(tuple(active), tuple(successful), tuple(failed), tuple(previous), frozenset(names))


def _is_previous_job_restart(js: JobSet, status: JobSetStatus, job: Job, labels: Mapping[str, str],
                             cache: dict[str, list[int]]) -> bool:
    """Gate ``RestartJob``: is the Job's ``job-restart-attempt`` behind ``jobRestarts[index]``?"""
    rjob_name = labels.get(c.REPLICATED_JOB_NAME_KEY)
    if rjob_name is None:
        raise ReconcileError(f"missing label {c.REPLICATED_JOB_NAME_KEY}")
    index_text = labels.get(c.JOB_INDEX_KEY)
    if index_text is None:
        raise ReconcileError(f"missing label {c.JOB_INDEX_KEY}")
    index = _atoi(index_text)
    if index is None:
        raise ReconcileError(f'strconv.Atoi: parsing "{index_text}": invalid syntax')
    attempt_text = labels.get(c.JOB_RESTART_ATTEMPT_KEY)
    if attempt_text is None:
        return False  # upstream only logs: backward compatibility with Jobs made before the gate
    attempt = _atoi(attempt_text)
    if attempt is None:
        raise ReconcileError(f'strconv.Atoi: parsing "{attempt_text}": invalid syntax')
    targets = cache.get(rjob_name)
    if targets is None:
        targets = cache[rjob_name] = get_job_restarts(js, status, rjob_name)
    if index >= len(targets) or index < 0:
        raise ReconcileError(f"job index {index} is out of bounds for replicated job {rjob_name}")
    return attempt < targets[index]
