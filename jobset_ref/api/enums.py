"""The enumerations of ``jobset.x-k8s.io/v1alpha2`` (re-exported by :mod:`jobset_ref.api.models`).

Kept apart from the pydantic models so that the controllers can compare against them without
importing pydantic (cold start).
"""

from __future__ import annotations

from enum import StrEnum

from jobset_ref.api import constants as c

__all__ = ["ConditionStatus", "DependsOnStatus", "FailurePolicyAction", "JobSetConditionType",
           "JobSetRestartStrategy", "Operator", "RetentionPolicyType", "StartupPolicyOptions"]


class Operator(StrEnum):
    """``Operator`` of a success policy: All or Any of the targeted Jobs."""

    ALL = "All"
    ANY = "Any"


class FailurePolicyAction(StrEnum):
    """``FailurePolicyAction``: what a matching failure policy rule does."""

    FAIL_JOBSET = "FailJobSet"
    RESTART_JOBSET = "RestartJobSet"
    RESTART_JOBSET_AND_IGNORE_MAX_RESTARTS = "RestartJobSetAndIgnoreMaxRestarts"
    RESTART_JOB = "RestartJob"
    RESTART_JOB_AND_IGNORE_MAX_RESTARTS = "RestartJobAndIgnoreMaxRestarts"


class JobSetRestartStrategy(StrEnum):
    """``JobSetRestartStrategy``: how a JobSet restart replaces its Jobs."""

    RECREATE = "Recreate"
    BLOCKING_RECREATE = "BlockingRecreate"
    IN_PLACE_RESTART = "InPlaceRestart"


class StartupPolicyOptions(StrEnum):
    """``StartupPolicyOptions``: start replicated jobs in any order or in order."""

    ANY_ORDER = "AnyOrder"
    IN_ORDER = "InOrder"


class DependsOnStatus(StrEnum):
    """``DependsOnStatus``: the state a replicated job waits for in another."""

    READY = "Ready"
    COMPLETE = "Complete"


class RetentionPolicyType(StrEnum):
    """``RetentionPolicyType``: delete or retain the JobSet's claims with it."""

    DELETE = "Delete"
    RETAIN = "Retain"


class JobSetConditionType(StrEnum):
    """``JobSetConditionType``: the condition types of a JobSet's status."""

    COMPLETED = c.JOBSET_COMPLETED
    FAILED = c.JOBSET_FAILED
    SUSPENDED = c.JOBSET_SUSPENDED
    RESTARTING = c.JOBSET_RESTARTING
    STARTUP_POLICY_IN_PROGRESS = c.JOBSET_STARTUP_POLICY_IN_PROGRESS
    STARTUP_POLICY_COMPLETED = c.JOBSET_STARTUP_POLICY_COMPLETED


class ConditionStatus(StrEnum):
    """``metav1.ConditionStatus``."""

    TRUE = "True"
    FALSE = "False"
    UNKNOWN = "Unknown"
