"""Policy for ``spec.ttlSecondsAfterFinished``.

API doc (``jobset_types.go``): "TTLSecondsAfterFinished limits the lifetime of a JobSet that
has finished execution (either Complete or Failed). If this field is set,
TTLSecondsAfterFinished after the JobSet finishes, it is eligible to be automatically deleted.
When the JobSet is being deleted, its lifecycle guarantees (e.g. finalizers) will be honored.
If this field is unset, the JobSet won't be automatically deleted. If this field is set to zero,
the JobSet becomes eligible to be deleted immediately after it finishes."

Mirrors upstream ``executeTTLAfterFinishedPolicy``, ``checkIfTTLExpired``, ``timeLeft``,
``getJobSetFinishAndExpireTime``, ``jobSetFinishTime`` and ``requeueJobSetAfter``
(``pkg/controllers/ttl_after_finished.go``). No KEP: it follows the batch/v1 Job's
``ttlSecondsAfterFinished`` (Kubernetes KEP-592).

The finish time is the ``lastTransitionTime`` of the first True ``Completed``/``Failed``
condition, which has one-second resolution on the wire; "now" has full resolution. The JobSet
is deleted (Foreground) once ``finish + ttl - now <= 0``; until then the pass requeues after
the remaining time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from jobset_ref.api import constants as c
from jobset_ref.api.enums import ConditionStatus
from jobset_ref.controller.plan import ReconcileError

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, JobSetStatus

__all__ = ["TtlDecision", "evaluate_ttl", "jobset_finish_time"]


@dataclass(frozen=True, slots=True)
class TtlDecision:
    """Delete the JobSet now, or requeue after ``requeue_after`` (zero: nothing to do)."""

    delete: bool = False
    requeue_after: timedelta = timedelta(0)


def jobset_finish_time(js: JobSet, status: JobSetStatus) -> datetime:
    """``jobSetFinishTime``: when the first True Completed/Failed condition became True."""
    for cond in status.conditions or ():
        if cond.type in (c.JOBSET_COMPLETED, c.JOBSET_FAILED) and cond.status == ConditionStatus.TRUE:
            if not cond.last_transition_time or cond.last_transition_time.startswith("0001-01-01"):
                raise ReconcileError(f"unable to find the time when the JobSet {js.namespace}/{js.name} finished")
            return datetime.fromisoformat(cond.last_transition_time.replace("Z", "+00:00"))
    raise ReconcileError(f"unable to find the status of the finished JobSet {js.namespace}/{js.name}")


def evaluate_ttl(js: JobSet, status: JobSetStatus, now: datetime, *, being_deleted: bool = False) -> TtlDecision:
    """``executeTTLAfterFinishedPolicy`` for a finished JobSet at virtual time ``now``."""
    ttl = js.spec.ttl_seconds_after_finished
    if ttl is None:
        return TtlDecision()
    try:
        finish = jobset_finish_time(js, status)
    except ReconcileError as err:
        raise ReconcileError(f"error checking if ttl expired: {err}") from None
    remaining = finish + timedelta(seconds=ttl) - now
    if not being_deleted and remaining <= timedelta(0):
        return TtlDecision(delete=True)
    return TtlDecision(requeue_after=remaining)
