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
    ALL = "All"
    ANY = "Any"


class FailurePolicyAction(StrEnum):
    FAIL_JOBSET = "FailJobSet"
    RESTART_JOBSET = "RestartJobSet"
    RESTART_JOBSET_AND_IGNORE_MAX_RESTARTS = "RestartJobSetAndIgnoreMaxRestarts"
    RESTART_JOB = "RestartJob"
    RESTART_JOB_AND_IGNORE_MAX_RESTARTS = "RestartJobAndIgnoreMaxRestarts"


class JobSetRestartStrategy(StrEnum):
    RECREATE = "Recreate"
    BLOCKING_RECREATE = "BlockingRecreate"
    IN_PLACE_RESTART = "InPlaceRestart"


class StartupPolicyOptions(StrEnum):
    ANY_ORDER = "AnyOrder"
    IN_ORDER = "InOrder"


class DependsOnStatus(StrEnum):
    READY = "Ready"
    COMPLETE = "Complete"


class RetentionPolicyType(StrEnum):
    DELETE = "Delete"
    RETAIN = "Retain"


class JobSetConditionType(StrEnum):
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
