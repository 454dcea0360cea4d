"""Frozen records of what one reconcile pass decided.

Policies (``jobset_ref.controller.policies``) are pure: they read the JobSet and its child Jobs
and return these records. ``status.StatusDraft`` folds the *status operations* into the one
status write of the pass, in order (so queued events keep upstream's order); ``apply`` carries
out the *writes*, from finished object bodies the plans carry. Nothing here touches a client.

Mirrors the in-memory side effects of upstream ``pkg/controllers`` (``setCondition``,
``enqueueEvent``, ``failurePolicyRecreateAll``, ``failurePolicyRecreateJob``,
``setJobSetFailedCondition`` …), turned into values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NORMAL",
    "WARNING",
    "BumpJobRestarts",
    "BumpRestarts",
    "ConditionIntent",
    "CreationPlan",
    "Decision",
    "Eligibility",
    "EventIntent",
    "QueueEvent",
    "ReconcileError",
    "ResumeJob",
    "ScalingPatch",
    "SetCondition",
    "SetInPlaceRestartAttempt",
    "SetTerminalState",
    "StatusOp",
]

NORMAL = "Normal"
WARNING = "Warning"


class ReconcileError(Exception):
    """A reconcile pass failed for a reason that is not an API error (upstream's ``fmt.Errorf``).

    The pass writes no status and drops its queued events; the key is retried with backoff.
    """


@dataclass(frozen=True, slots=True)
class ConditionIntent:
    """A desired ``metav1.Condition`` and the type of the event to emit if it changes anything."""

    type: str
    status: str
    reason: str
    message: str
    event_type: str = NORMAL


@dataclass(frozen=True, slots=True)
class EventIntent:
    """An event about the JobSet, emitted only after the status write succeeds."""

    type: str
    reason: str
    message: str


# --------------------------------------------------------------------------- status operations


@dataclass(frozen=True, slots=True)
class SetCondition:
    """``setCondition``: apply ``updateCondition`` semantics, queue an event if it changed."""

    condition: ConditionIntent


@dataclass(frozen=True, slots=True)
class QueueEvent:
    """``enqueueEvent``: always queue (and mark the status for update, as the callers do)."""

    event: EventIntent


@dataclass(frozen=True, slots=True)
class SetTerminalState:
    """``status.terminalState`` = ``Completed`` or ``Failed``."""

    state: str


@dataclass(frozen=True, slots=True)
class BumpRestarts:
    """``failurePolicyRecreateAll``: ``restarts += 1`` (and ``restartsCountTowardsMax`` if counted)."""

    count_towards_max: bool


@dataclass(frozen=True, slots=True)
class BumpJobRestarts:
    """``failurePolicyRecreateJob``: ``jobRestarts[index] += 1`` (and the counted array if counted).

    ``job_restarts``/``counted`` are the complete new arrays (computed from the status the
    policy saw), as upstream's ``setJobRestarts`` stores whole slices.
    """

    replicated_job: str
    job_restarts: tuple[int, ...]
    counted: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class SetInPlaceRestartAttempt:
    """``status.currentInPlaceRestartAttempt`` / ``previousInPlaceRestartAttempt`` := value."""

    which: str  # "current" | "previous"
    value: int


StatusOp = SetCondition | QueueEvent | SetTerminalState | BumpRestarts | BumpJobRestarts | SetInPlaceRestartAttempt


@dataclass(frozen=True, slots=True)
class Decision:
    """What a policy decided: status operations in order, and an optional note for the trace."""

    ops: tuple[StatusOp, ...] = ()
    note: str = ""

    def __bool__(self) -> bool:
        return bool(self.ops)


# --------------------------------------------------------------------------- writes


@dataclass(frozen=True, slots=True)
class Eligibility:
    """The ReplicatedJobs whose Jobs may be created or resumed in this pass (names, in spec order).

    ``in_order``: startupPolicy ``InOrder`` applies (the JobSet is not suspended); then at most
    one ReplicatedJob is eligible, the first whose Jobs have not all started.
    """

    replicated_jobs: tuple[str, ...]
    in_order: bool

    @property
    def in_order_in_progress(self) -> bool:
        """InOrder stopped at a ReplicatedJob that has not started yet (else the startup is complete)."""
        return self.in_order and bool(self.replicated_jobs)


@dataclass(frozen=True, slots=True)
class CreationPlan:
    """``reconcileReplicatedJobs``: create these finished Job bodies, one batch per eligible
    ReplicatedJob in spec order (a batch with a failed create ends the pass), then apply ``ops``."""

    batches: tuple[tuple[dict[str, Any], ...], ...]
    ops: tuple[StatusOp, ...]


@dataclass(frozen=True, slots=True)
class ResumeJob:
    """``resumeJob``: ``body`` is the finished update (Kueue fields merged, ``spec.suspend: false``,
    no ``status.startTime``); with ``clear_start_time`` the status is written first, because the
    pod template is immutable while ``startTime`` is set."""

    body: dict[str, Any]
    clear_start_time: bool


@dataclass(frozen=True, slots=True)
class ScalingPatch:
    """Merge-patch ``job`` to these values (``None`` means null)."""

    job: Mapping[str, Any]
    parallelism: int | None
    completions: int | None
