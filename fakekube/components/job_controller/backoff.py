"""``backoff_utils.go``: the pod failure backoff of a Job (10 s doubling, capped at 10 min, from the
last failure; a success resets it) and the finish time of a pod it counts from. Kept per Job by
:class:`.controller.JobController` between syncs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakekube._core.clock import SECOND, SimTime, parse_time
from fakekube.machinery.objects import meta_of

from .pods import pod_condition, time_or_none

DEFAULT_POD_FAILURE_BACKOFF: SimTime = 10 * SECOND
MAX_POD_FAILURE_BACKOFF: SimTime = 600 * SECOND


@dataclass
class BackoffRecord:
    """A Job's failed pods since its last success, and when the last of them finished."""

    failures: int = 0
    last_failure: SimTime | None = None


def new_backoff_record(old: BackoffRecord | None, succeeded: list[dict[str, Any]],
                       failed: list[dict[str, Any]]) -> BackoffRecord:
    """``newBackoffRecord``: the Job's record ``old`` (None: none yet) after this sync's newly
    finished pods."""
    old = old or BackoffRecord()
    record = BackoffRecord(old.failures, old.last_failure)
    failed_times = sorted(finished_time(p) for p in failed)
    if not succeeded:
        if not failed_times:
            return record
        record.failures += len(failed_times)
        record.last_failure = failed_times[-1]
        return record
    record.failures, record.last_failure = 0, None
    last_success = max(finished_time(p) for p in succeeded)
    for t in reversed(failed_times):
        if t <= last_success:
            break
        if record.last_failure is None:
            record.last_failure = t
        record.failures += 1
    return record


def remaining_backoff(now: SimTime, failures: int, last_failure: SimTime | None) -> SimTime:
    """``getRemainingTimeForFailuresCount``: 10 s doubling, capped at 10 min, from the last failure."""
    if failures == 0 or last_failure is None:
        return 0
    delay = DEFAULT_POD_FAILURE_BACKOFF
    for _ in range(1, failures):
        delay *= 2
        if delay >= MAX_POD_FAILURE_BACKOFF:
            delay = MAX_POD_FAILURE_BACKOFF
            break
    elapsed = now - last_failure
    return 0 if delay < elapsed else delay - elapsed


def finished_time(pod: dict[str, Any]) -> SimTime:
    """``getFinishedTime``: latest container finishedAt, else Ready=False transition, else
    deletionTimestamp - grace, else creation time."""
    # SIMPLIFICATION: restartable init containers (sidecars) are not considered for the finish time.
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    latest: SimTime | None = None
    for cs in statuses:
        terminated = (cs.get("state") or {}).get("terminated")
        finished = time_or_none((terminated or {}).get("finishedAt"))
        if terminated is None or finished is None:
            latest = None
            break
        latest = finished if latest is None else max(latest, finished)
    if latest is not None:
        return latest
    ready = pod_condition(pod, "Ready")
    if ready is not None and ready.get("status") == "False" and ready.get("lastTransitionTime"):
        return parse_time(ready["lastTransitionTime"])
    meta = meta_of(pod)
    if meta.get("deletionTimestamp"):
        return parse_time(meta["deletionTimestamp"]) - int(meta.get("deletionGracePeriodSeconds") or 0) * SECOND
    return time_or_none(meta.get("creationTimestamp")) or 0
