"""Invariants of a JobSet's status: terminalState agrees with the conditions, the
replicatedJobsStatus counters agree with a recount of the child Jobs, a suspended JobSet has no
running children, and no Job of an older attempt survives a finished restart."""

from __future__ import annotations

from jobset_ref.api import constants as c
from jobset_ref.testing.invariants.snapshot import (
    Snapshot,
    Violation,
    _bucket,
    _cond,
    _int,
    _job_is_ready,
    _labels,
    _name,
    _true,
)

__all__ = ["check_stale_attempts", "check_status_recount", "check_suspended", "check_terminal_state"]

def check_terminal_state(snap: Snapshot) -> list[Violation]:
    """``terminalState`` is set exactly when a Completed/Failed condition is True, and matches it."""
    js = snap.jobset
    if js is None or not snap.managed_here:
        return []
    state = snap.status.get("terminalState") or ""
    completed, failed = _true(js, c.JOBSET_COMPLETED), _true(js, c.JOBSET_FAILED)
    out: list[Violation] = []
    if completed and failed:
        out.append(Violation("terminal-state", f"JobSet {snap.name}", "both Completed and Failed are True"))
    want = "Completed" if completed else "Failed" if failed else ""
    if state != want:
        out.append(Violation("terminal-state", f"JobSet {snap.name}",
                             f"terminalState {state!r} but conditions say {want!r}"))
    return out


def check_status_recount(snap: Snapshot) -> list[Violation]:
    """*Settled*: ``replicatedJobsStatus`` equals a recount of the current-attempt child Jobs (§3.4)."""
    js = snap.jobset
    if js is None or not snap.managed_here or js["metadata"].get("deletionTimestamp"):
        return []
    counts: dict[str, dict[str, int]] = {r["name"]: dict.fromkeys(("ready", "succeeded", "failed", "active",
                                                                     "suspended"), 0) for r in snap.rjobs}
    for job in snap.current_jobs():
        rjob = _labels(job).get(c.REPLICATED_JOB_NAME_KEY, "")
        if not rjob or rjob not in counts:  # an empty label counts as missing (a ReplicatedJob may be named "")
            continue
        bucket = _bucket(job)
        if bucket == "successful":
            counts[rjob]["succeeded"] += 1
        elif bucket == "failed":
            counts[rjob]["failed"] += 1
        else:
            counts[rjob]["ready"] += int(_job_is_ready(job))
            counts[rjob]["active"] += int(int((job.get("status") or {}).get("active") or 0) > 0)
            counts[rjob]["suspended"] += int((job.get("spec") or {}).get("suspend") is True)
    stored = {rs["name"]: {k: int(rs.get(k) or 0) for k in ("ready", "succeeded", "failed", "active", "suspended")}
              for rs in snap.status.get("replicatedJobsStatus") or []}
    if not stored and not snap.status:
        return [Violation("status-recount", f"JobSet {snap.name}", "no status written yet")]
    out: list[Violation] = []
    for rjob, want in counts.items():
        have = stored.get(rjob)
        if have != want:
            out.append(Violation("status-recount", f"JobSet {snap.name}",
                                 f"replicatedJobsStatus[{rjob}] = {have}, recount of child Jobs = {want}"))
    extra = set(stored) - set(counts)
    if extra:
        out.append(Violation("status-recount", f"JobSet {snap.name}", f"status for unknown replicatedJobs {extra}"))
    return out


def check_suspended(snap: Snapshot) -> list[Violation]:
    """*Settled*: a suspended JobSet (``spec.suspend`` and ``Suspended=True``) has every active
    current Job suspended and no pod Pending/Running that is not being deleted."""
    js = snap.jobset
    if js is None or not snap.managed_here or snap.spec.get("suspend") is not True or not _true(js, c.JOBSET_SUSPENDED):
        return []
    if _true(js, c.JOBSET_COMPLETED) or _true(js, c.JOBSET_FAILED):
        return []
    out: list[Violation] = []
    for job in snap.current_jobs():
        if _bucket(job) == "active" and (job.get("spec") or {}).get("suspend") is not True:
            out.append(Violation("suspended", f"Job {_name(job)}", "active Job of a suspended JobSet is not suspended"))
    for pod in snap.pods:
        phase = (pod.get("status") or {}).get("phase")
        if phase in ("Pending", "Running", None) and not pod["metadata"].get("deletionTimestamp"):
            out.append(Violation("suspended", f"Pod {_name(pod)}", f"phase {phase} while the JobSet is suspended"))
    return out


def check_stale_attempts(snap: Snapshot) -> list[Violation]:
    """Once a restart has finished (``RestartingJobSet=False``, reason ``JobsReady``), no Job of an
    older restart attempt survives (not even one being deleted)."""
    js = snap.jobset
    if js is None:
        return []
    cond = _cond(js, c.JOBSET_RESTARTING)
    if cond is None or cond.get("status") != "False" or cond.get("reason") != c.RESTARTING_JOBSET_REASON_JOBS_READY:
        return []
    return [Violation("stale-attempt", f"Job {_name(j)}",
                      f"restart-attempt {_labels(j).get(c.RESTARTS_KEY)} survives the finished restart to attempt "
                      f"{snap.restarts}")
            for j in snap.jobs if _int(_labels(j).get(c.RESTARTS_KEY)) < snap.restarts]

