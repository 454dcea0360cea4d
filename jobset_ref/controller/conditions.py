"""The JobSet's conditions as values, and the standard status transitions built from them.

Mirrors upstream ``makeCompletedConditionsOpts``, ``makeFailedConditionOpts``,
``makeSuspendedConditionOpts``, ``makeResumedConditionOpts``, ``setRestartingConditionFalse``,
``setJobSetCompletedCondition``, ``setJobSetFailedCondition``, ``setJobSetSuspendedCondition``,
``setInOrderStartupPolicy{InProgress,Completed}Condition`` (``pkg/controllers``).
Pure: returns status operations for ``status.StatusDraft`` to fold in.
"""

from __future__ import annotations

from jobset_ref.api import constants as c
from jobset_ref.controller.plan import (
    NORMAL,
    WARNING,
    ConditionIntent,
    SetCondition,
    SetTerminalState,
    StatusOp,
)

__all__ = [
    "completed",
    "failed",
    "in_order_completed",
    "in_order_in_progress",
    "restarting_false",
    "resumed",
    "suspended",
]

TRUE, FALSE = "True", "False"


def restarting_false(reason: str, message: str) -> StatusOp:
    """``setRestartingConditionFalse``: only changes something if ``RestartingJobSet`` exists."""
    return SetCondition(ConditionIntent(c.JOBSET_RESTARTING, FALSE, reason, message, NORMAL))


def completed() -> tuple[StatusOp, ...]:
    """``setJobSetCompletedCondition``: Completed=True, Restarting=False, terminalState."""
    return (
        SetCondition(ConditionIntent(c.JOBSET_COMPLETED, TRUE, c.ALL_JOBS_COMPLETED_REASON,
                                     c.ALL_JOBS_COMPLETED_MESSAGE, NORMAL)),
        restarting_false(c.RESTARTING_JOBSET_REASON_JOBSET_COMPLETED, c.ALL_JOBS_COMPLETED_MESSAGE),
        SetTerminalState(c.JOBSET_COMPLETED),
    )


def failed(reason: str, message: str) -> tuple[StatusOp, ...]:
    """``setJobSetFailedCondition``: Failed=True (Warning), Restarting=False, terminalState."""
    return (
        SetCondition(ConditionIntent(c.JOBSET_FAILED, TRUE, reason, message, WARNING)),
        restarting_false(c.RESTARTING_JOBSET_REASON_JOBSET_FAILED, c.RESTARTING_JOBSET_MESSAGE_JOBSET_FAILED),
        SetTerminalState(c.JOBSET_FAILED),
    )


def suspended() -> tuple[StatusOp, ...]:
    """``setJobSetSuspendedCondition``: Suspended=True, Restarting=False/JobSetSuspended."""
    return (
        SetCondition(ConditionIntent(c.JOBSET_SUSPENDED, TRUE, c.JOBSET_SUSPENDED_REASON,
                                     c.JOBSET_SUSPENDED_MESSAGE, NORMAL)),
        restarting_false(c.RESTARTING_JOBSET_REASON_JOBSET_SUSPENDED, c.JOBSET_SUSPENDED_MESSAGE),
    )


def resumed() -> StatusOp:
    """``setJobSetResumedCondition``: Suspended=False/ResumeJobs (only if Suspended exists)."""
    return SetCondition(ConditionIntent(c.JOBSET_SUSPENDED, FALSE, c.JOBSET_RESUMED_REASON,
                                        c.JOBSET_RESUMED_MESSAGE, NORMAL))


def in_order_in_progress() -> StatusOp:
    """``setInOrderStartupPolicyInProgressCondition``."""
    return SetCondition(ConditionIntent(c.JOBSET_STARTUP_POLICY_IN_PROGRESS, TRUE,
                                        c.IN_ORDER_STARTUP_POLICY_IN_PROGRESS_REASON,
                                        c.IN_ORDER_STARTUP_POLICY_IN_PROGRESS_MESSAGE, NORMAL))


def in_order_completed() -> StatusOp:
    """``setInOrderStartupPolicyCompletedCondition``."""
    return SetCondition(ConditionIntent(c.JOBSET_STARTUP_POLICY_COMPLETED, TRUE,
                                        c.IN_ORDER_STARTUP_POLICY_COMPLETED_REASON,
                                        c.IN_ORDER_STARTUP_POLICY_COMPLETED_MESSAGE, NORMAL))
