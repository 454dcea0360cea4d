"""Policy for ``spec.startupPolicy`` (``startupPolicyOrder``: ``AnyOrder`` | ``InOrder``; deprecated
in favour of ``dependsOn``).

API doc (``jobset_types.go``): "StartupPolicy, if set, configures in what order jobs must be
started"; ``InOrder`` "starts the replicated jobs in order. The next replicated job is started
once all the Jobs of the previous one are ready."

Mirrors upstream ``allReplicasStarted``, ``inOrderStartupPolicy``,
``setInOrderStartupPolicyInProgressCondition`` and ``setInOrderStartupPolicyCompletedCondition``
(``pkg/controllers/startup_policy.go``), as used by ``reconcileReplicatedJobs`` and
``resumeJobsIfNecessary``. KEP-104 (startup policy).

KEP-104 intended one condition with False meaning "in progress"; the implementation (and this
reference) uses two mutually exclusive condition types, ``StartupPolicyInProgress`` and
``StartupPolicyCompleted``. A suspended JobSet ignores the order for creation and writes no
startup condition.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from jobset_ref.api.enums import StartupPolicyOptions
from jobset_ref.controller import conditions
from jobset_ref.controller.plan import StatusOp

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet

__all__ = ["all_replicas_started", "completed_op", "in_order", "in_progress_op"]


def in_order(js: JobSet) -> bool:
    """``inOrderStartupPolicy``: the policy exists and says ``InOrder``."""
    policy = js.spec.startup_policy
    return policy is not None and policy.startup_policy_order == StartupPolicyOptions.IN_ORDER


def all_replicas_started(replicas: int, status: Mapping[str, Any] | None) -> bool:
    """``allReplicasStarted``: ``failed + ready + succeeded == replicas`` (this pass's counters).

    Upstream dereferences the status pointer; it always exists because the pass computes one
    entry per ReplicatedJob. A missing entry reads as all zeros.
    """
    if status is None:
        return replicas == 0
    return replicas == int(status.get("failed") or 0) + int(status.get("ready") or 0) + int(status.get("succeeded") or 0)


def in_progress_op() -> StatusOp:
    """``StartupPolicyInProgress``=True (flips a True ``StartupPolicyCompleted`` to False)."""
    return conditions.in_order_in_progress()


def completed_op() -> StatusOp:
    """``StartupPolicyCompleted``=True (flips a True ``StartupPolicyInProgress`` to False)."""
    return conditions.in_order_completed()
