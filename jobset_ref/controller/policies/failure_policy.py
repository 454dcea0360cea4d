"""Policy for ``spec.failurePolicy`` (``maxRestarts``, ``restartStrategy``, ``rules[]``) and the
restart bookkeeping in ``status.restarts``, ``status.restartsCountTowardsMax`` and
``status.replicatedJobsStatus[].jobRestarts[CountTowardsMax]``.

API doc (``jobset_types.go``): "FailurePolicy, if set, configures when to declare the JobSet as
failed. The JobSet is always declared failed if any job in the set finished with status failed."
``MaxRestarts`` "defines the limit on the number of JobSet restarts"; ``Rules`` "is a list of
failure policy rules for this JobSet. For a given Job failure, the rules will be evaluated in
order, and only the first failure policy rule that matches the Job failure will be applied. If
no matching rule is found, then the RestartJobSet action is applied."

Mirrors upstream ``executeFailurePolicy``, ``findFirstFailedPolicyRuleAndJob``,
``ruleIsApplicable``, ``anyMatchFound``, ``actionFunctionMap`` and its five appliers,
``failurePolicyRecreateAll``, ``failurePolicyRecreateJob``, ``findFirstFailedJob``,
``messageWithFirstFailedJob``, ``totalRestartsCountTowardsMax``
(``pkg/controllers/failure_policy.go``). KEP-262 (configurable failure policy; its later
amendment adds the RestartJob actions behind gate ``RestartJob``).

Counting, exactly as upstream: a restart action fails the JobSet instead when the counter of
restarts that count towards the maximum is already ``>= maxRestarts``; so ``maxRestarts: 3``
allows three restarts and the fourth failure is terminal (``ReachedMaxRestarts``).
``*AndIgnoreMaxRestarts`` actions never count and never fail.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from jobset_ref.api import constants as c
from jobset_ref.api.enums import FailurePolicyAction
from jobset_ref.controller import conditions
from jobset_ref.controller.observe import (
    Job,
    get_job_restarts,
    get_job_restarts_count_towards_max,
    job_labels,
    job_name,
)
from jobset_ref.controller.plan import (
    WARNING,
    BumpJobRestarts,
    BumpRestarts,
    ConditionIntent,
    Decision,
    EventIntent,
    QueueEvent,
    ReconcileError,
    SetCondition,
)

if TYPE_CHECKING:
    from jobset_ref.api.models import FailurePolicyRule, JobSet, JobSetStatus

__all__ = [
    "DEFAULT_FAILURE_POLICY_RULE_ACTION",
    "FAILURE_ACTIONS",
    "FailureContext",
    "evaluate_failure_policy",
    "find_first_failed_job",
    "find_first_failed_policy_rule_and_job",
    "message_with_first_failed_job",
    "rule_is_applicable",
    "total_restarts_count_towards_max",
]

#: "The source of truth for the definition of defaultFailurePolicyRuleAction is the
#: Configurable Failure Policy KEP."
DEFAULT_FAILURE_POLICY_RULE_ACTION = FailurePolicyAction.RESTART_JOBSET

_ZERO_TIME = datetime.min


@dataclass(frozen=True, slots=True)
class FailureContext:
    """What an action applier sees: the JobSet, its draft status, the matched Job and rule."""

    js: JobSet
    status: JobSetStatus
    job: Job
    rule: FailurePolicyRule | None
    restart_job_gate: bool


# --------------------------------------------------------------------------- matching


def _failure_condition(job: Job) -> dict[str, Any] | None:
    """``findJobFailureCondition``: the first ``Failed=True`` condition."""
    for cond in (job.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "Failed" and cond.get("status") == "True":
            return dict(cond)
    return None


def _failure_time(cond: dict[str, Any]) -> datetime:
    """``lastTransitionTime`` (absent → Go's zero time, earlier than everything)."""
    text = cond.get("lastTransitionTime")
    if not text:
        return _ZERO_TIME
    return datetime.fromisoformat(str(text).replace("Z", "+00:00")).replace(tzinfo=None)


def find_first_failed_job(failed: Sequence[Job]) -> Job | None:
    """``findFirstFailedJob``: earliest ``Failed`` transition; ties keep list (name) order."""
    first: Job | None = None
    first_time = _ZERO_TIME
    for job in failed:
        cond = _failure_condition(job)
        if cond is None:
            continue
        when = _failure_time(cond)
        if first is None or when < first_time:
            first, first_time = job, when
    return first


def _any_match_found(patterns: Sequence[str], message: str) -> bool:
    """``anyMatchFound``: unanchored regex search; invalid patterns are skipped (logged upstream).

    Python's ``re`` stands in for Go's RE2; the two agree on the patterns the webhook lets
    through in practice (no back-references or look-around in RE2).
    """
    for pattern in patterns:
        try:
            if re.search(pattern, message):
                return True
        except re.error:
            continue
    return False


def rule_is_applicable(rule: FailurePolicyRule, job: Job, reason: str, message: str) -> bool:
    """``ruleIsApplicable``: reasons, then message patterns, then the Job's ReplicatedJob."""
    if rule.on_job_failure_reasons and reason not in rule.on_job_failure_reasons:
        return False
    if rule.on_job_failure_message_patterns and not _any_match_found(rule.on_job_failure_message_patterns,
                                                                      message):
        return False
    parent = job_labels(job).get(c.REPLICATED_JOB_NAME_KEY, "")
    if not parent:
        return False
    return not rule.target_replicated_jobs or parent in rule.target_replicated_jobs


def find_first_failed_policy_rule_and_job(rules: Sequence[FailurePolicyRule], failed: Sequence[Job],
                                          ) -> tuple[FailurePolicyRule | None, Job | None]:
    """``findFirstFailedPolicyRuleAndJob``: first rule (spec order) with a matching Job; that
    rule's earliest-failed matching Job."""
    conds = [(job, _failure_condition(job)) for job in failed]
    for rule in rules:
        matched: Job | None = None
        matched_time = _ZERO_TIME
        for job, cond in conds:
            if cond is None:
                continue
            when = _failure_time(cond)
            earlier = matched is None or when < matched_time
            if earlier and rule_is_applicable(rule, job, str(cond.get("reason") or ""),
                                              str(cond.get("message") or "")):
                matched, matched_time = job, when
        if matched is not None:
            return rule, matched
    return None, None


def message_with_first_failed_job(message: str, job: str) -> str:
    """``messageWithFirstFailedJob``."""
    return f"{message} (first failed job: {job})"


def total_restarts_count_towards_max(status: JobSetStatus) -> int:
    """``totalRestartsCountTowardsMax``: global counted restarts + Σ per-Job counted restarts."""
    per_job = sum(sum(r.job_restarts_count_towards_max or ()) for r in status.replicated_jobs_status or ())
    return status.restarts_count_towards_max + per_job


def _max_restarts(js: JobSet) -> int:
    policy = js.spec.failure_policy
    return policy.max_restarts if policy is not None else 0


# --------------------------------------------------------------------------- the five actions


def _reached_max_restarts(ctx: FailureContext) -> Decision:
    message = message_with_first_failed_job(c.REACHED_MAX_RESTARTS_MESSAGE, job_name(ctx.job))
    return Decision(conditions.failed(c.REACHED_MAX_RESTARTS_REASON, message), note="reached max restarts")


def _restarting_reason(rule: FailurePolicyRule | None) -> str:
    if rule is None:
        return c.RESTARTING_JOBSET_REASON_DEFAULT_FAILURE_POLICY
    return c.RESTARTING_JOBSET_REASON_FAILURE_POLICY_FORMAT % rule.name


def _recreate_all(ctx: FailureContext, *, counted: bool, base_message: str, event_reason: str) -> Decision:
    """``failurePolicyRecreateAll``: bump restarts, set RestartingJobSet=True, queue the action event."""
    message = message_with_first_failed_job(base_message, job_name(ctx.job))
    return Decision((
        BumpRestarts(count_towards_max=counted),
        SetCondition(ConditionIntent(c.JOBSET_RESTARTING, "True", _restarting_reason(ctx.rule), message, WARNING)),
        QueueEvent(EventIntent(WARNING, event_reason, message)),
    ), note=f"restart jobset (counted={counted})")


def _recreate_job(ctx: FailureContext, *, counted: bool, base_message: str, event_reason: str) -> Decision:
    """``failurePolicyRecreateJob``: bump the failed Job's per-index restart counters."""
    name = job_name(ctx.job)
    labels = job_labels(ctx.job)
    rjob = labels.get(c.REPLICATED_JOB_NAME_KEY)
    if rjob is None:
        raise ReconcileError(f"failed job {name} missing {c.REPLICATED_JOB_NAME_KEY} label")
    index_text = labels.get(c.JOB_INDEX_KEY)
    if index_text is None:
        raise ReconcileError(f"failed job {name} missing {c.JOB_INDEX_KEY} label")
    try:
        index = int(index_text)
    except ValueError:
        raise ReconcileError(f'failed job {name} has invalid {c.JOB_INDEX_KEY} label: {index_text}: '
                             f'strconv.Atoi: parsing "{index_text}": invalid syntax') from None
    restarts = get_job_restarts(ctx.js, ctx.status, rjob)
    if not 0 <= index < len(restarts):
        raise ReconcileError(f"failed job {name} has index {index} out of bounds for replicated job {rjob} "
                             f"(replicas: {len(restarts)})")
    restarts[index] += 1
    counted_arr: tuple[int, ...] | None = None
    if counted:
        towards = get_job_restarts_count_towards_max(ctx.js, ctx.status, rjob)
        if index >= len(towards):
            raise ReconcileError(f"failed job {name} has index {index} out of bounds for replicated job {rjob} "
                                 f"(replicas: {len(restarts)})")
        towards[index] += 1
        counted_arr = tuple(towards)
    message = message_with_first_failed_job(base_message, name)
    return Decision((
        BumpJobRestarts(rjob, tuple(restarts), counted_arr),
        QueueEvent(EventIntent(WARNING, event_reason, message)),
    ), note=f"restart job {name} (counted={counted})")


def fail_jobset(ctx: FailureContext) -> Decision:
    """``FailJobSet``: fail at once with ``FailJobSetFailurePolicyAction``."""
    message = message_with_first_failed_job(c.FAIL_JOBSET_ACTION_MESSAGE, job_name(ctx.job))
    return Decision(conditions.failed(c.FAIL_JOBSET_ACTION_REASON, message), note="fail jobset")


def restart_jobset(ctx: FailureContext) -> Decision:
    """``RestartJobSet``: restart everything, or fail with ``ReachedMaxRestarts`` at the limit."""
    max_restarts = _max_restarts(ctx.js)
    if ((ctx.restart_job_gate and total_restarts_count_towards_max(ctx.status) >= max_restarts)
            or ctx.status.restarts_count_towards_max >= max_restarts):
        return _reached_max_restarts(ctx)
    return _recreate_all(ctx, counted=True, base_message=c.RESTART_JOBSET_ACTION_MESSAGE,
                         event_reason=c.RESTART_JOBSET_ACTION_REASON)


def restart_jobset_and_ignore_max_restarts(ctx: FailureContext) -> Decision:
    """``RestartJobSetAndIgnoreMaxRestarts``: restart everything; never counts, never fails."""
    return _recreate_all(ctx, counted=False, base_message=c.RESTART_JOBSET_AND_IGNORE_MAX_RESTARTS_ACTION_MESSAGE,
                         event_reason=c.RESTART_JOBSET_AND_IGNORE_MAX_RESTARTS_ACTION_REASON)


def restart_job(ctx: FailureContext) -> Decision:
    """``RestartJob`` (gate ``RestartJob``): recreate only the failed Job; counts towards the max."""
    if not ctx.restart_job_gate:
        raise ReconcileError("RestartJob failure policy action cannot be used when the feature gate RestartJob "
                             "is disabled")
    if total_restarts_count_towards_max(ctx.status) >= _max_restarts(ctx.js):
        return _reached_max_restarts(ctx)
    return _recreate_job(ctx, counted=True, base_message=c.RESTART_JOB_ACTION_MESSAGE,
                         event_reason=c.RESTART_JOB_ACTION_REASON)


def restart_job_and_ignore_max_restarts(ctx: FailureContext) -> Decision:
    """``RestartJobAndIgnoreMaxRestarts`` (gate ``RestartJob``): recreate the failed Job, uncounted."""
    if not ctx.restart_job_gate:
        raise ReconcileError("RestartJobAndIgnoreMaxRestarts failure policy action cannot be used when the "
                             "feature gate RestartJob is disabled")
    return _recreate_job(ctx, counted=False, base_message=c.RESTART_JOB_AND_IGNORE_MAX_RESTARTS_ACTION_MESSAGE,
                         event_reason=c.RESTART_JOB_AND_IGNORE_MAX_RESTARTS_ACTION_REASON)


ActionApplier = Callable[[FailureContext], Decision]

#: ``actionFunctionMap``: every ``FailurePolicyAction`` has exactly one applier.
FAILURE_ACTIONS: dict[FailurePolicyAction, ActionApplier] = {
    FailurePolicyAction.FAIL_JOBSET: fail_jobset,
    FailurePolicyAction.RESTART_JOBSET: restart_jobset,
    FailurePolicyAction.RESTART_JOBSET_AND_IGNORE_MAX_RESTARTS: restart_jobset_and_ignore_max_restarts,
    FailurePolicyAction.RESTART_JOB: restart_job,
    FailurePolicyAction.RESTART_JOB_AND_IGNORE_MAX_RESTARTS: restart_job_and_ignore_max_restarts,
}


# --------------------------------------------------------------------------- entry point


def evaluate_failure_policy(js: JobSet, status: JobSetStatus, failed: Sequence[Job], *,
                            restart_job_gate: bool) -> Decision:
    """``executeFailurePolicy``: exactly one action for this pass (``failed`` is non-empty)."""
    if js.spec.failure_policy is None:
        first = find_first_failed_job(failed)
        message = message_with_first_failed_job(c.FAILED_JOBS_MESSAGE, job_name(first) if first else "")
        return Decision(conditions.failed(c.FAILED_JOBS_REASON, message), note="no failure policy")
    rule, job = find_first_failed_policy_rule_and_job(js.spec.failure_policy.rules or [], failed)
    if rule is None:
        action = DEFAULT_FAILURE_POLICY_RULE_ACTION
        job = find_first_failed_job(failed)
    else:
        action = FailurePolicyAction(rule.action)
    if job is None:  # only Jobs without a Failed=True condition: cannot happen for the failed bucket
        raise ReconcileError("no failed job found")
    applier = FAILURE_ACTIONS.get(action)
    if applier is None:
        raise ReconcileError(f"failed to find a corresponding action for the FailurePolicyRuleAction {action}")
    return applier(FailureContext(js, status, job, rule, restart_job_gate))
