"""policies/failure_policy.py: rule matching, the five actions and restart counting (spec §8).

Cases ported from upstream ``pkg/controllers/failure_policy_test.go``
(``TestFindFirstFailedPolicyRuleAndJob``, ``TestApplyFailurePolicyRuleAction``,
``TestFailurePolicyRecreateJob``) plus the counting rule "maxRestarts + 1 counted failures fail".
"""

from __future__ import annotations

from typing import Any

import pytest

from jobset_ref.api import constants as c
from jobset_ref.api.models import FailurePolicyAction, FailurePolicyRule, JobSet, JobSetStatus
from jobset_ref.controller.plan import (
    BumpJobRestarts,
    BumpRestarts,
    ConditionIntent,
    EventIntent,
    QueueEvent,
    ReconcileError,
    SetCondition,
    SetTerminalState,
)
from jobset_ref.controller.policies import failure_policy as fp
from jobset_ref.testing.builders import make_job, make_jobset, make_replicated_job


def jobset(max_restarts: int | None = 3, rules: list[dict[str, Any]] | None = None) -> JobSet:
    b = (make_jobset("js", "ns").replicated_job(make_replicated_job("a").replicas(2))
         .replicated_job(make_replicated_job("b").replicas(1)))
    if max_restarts is not None:
        b.failure_policy(max_restarts, rules=rules)
    return JobSet.from_wire(b.obj())


def failed(name: str, rjob: str = "a", index: str = "0", *, reason: str = "BackoffLimitExceeded",
           message: str = "boom", at: str | None = "2030-01-01T00:00:05Z") -> dict[str, Any]:
    return (make_job(name).job_labels({c.REPLICATED_JOB_NAME_KEY: rjob, c.JOB_INDEX_KEY: index})
            .condition("Failed", reason=reason, message=message, last_transition_time=at).obj())


def test_every_action_has_an_applier() -> None:
    assert set(fp.FAILURE_ACTIONS) == set(FailurePolicyAction)


def test_no_failure_policy_fails_with_failed_jobs() -> None:
    d = fp.evaluate_failure_policy(jobset(None), JobSetStatus(), [failed("js-a-0")], restart_job_gate=False)
    msg = "jobset failed due to one or more job failures (first failed job: js-a-0)"
    assert d.ops == (
        SetCondition(ConditionIntent("Failed", "True", "FailedJobs", msg, "Warning")),
        SetCondition(ConditionIntent("RestartingJobSet", "False", "JobSetFailed", "jobset failed", "Normal")),
        SetTerminalState("Failed"),
    )


@pytest.mark.parametrize(("counted", "expect_fail"), [(0, False), (2, False), (3, True), (4, True)])
def test_restart_jobset_counts_towards_max_restarts(counted: int, expect_fail: bool) -> None:
    status = JobSetStatus(restarts=counted + 5, restarts_count_towards_max=counted)
    d = fp.evaluate_failure_policy(jobset(3), status, [failed("js-a-1")], restart_job_gate=False)
    if expect_fail:
        assert d.ops[0] == SetCondition(ConditionIntent(
            "Failed", "True", "ReachedMaxRestarts",
            "jobset failed due to reaching max number of restarts (first failed job: js-a-1)", "Warning"))
    else:
        msg = "applying RestartJobSet failure policy action (first failed job: js-a-1)"
        assert d.ops == (BumpRestarts(True),
                         SetCondition(ConditionIntent("RestartingJobSet", "True", "DefaultFailurePolicy", msg,
                                                      "Warning")),
                         QueueEvent(EventIntent("Warning", "RestartJobSetFailurePolicyAction", msg)))


def test_max_restarts_zero_fails_on_first_failure() -> None:
    d = fp.evaluate_failure_policy(jobset(0), JobSetStatus(), [failed("js-a-0")], restart_job_gate=False)
    assert d.ops[0].condition.reason == "ReachedMaxRestarts"  # type: ignore[union-attr]


def test_gate_adds_per_job_counted_restarts_to_the_total() -> None:
    status = JobSetStatus.from_wire({"restarts": 1, "restartsCountTowardsMax": 1, "replicatedJobsStatus": [
        {"name": "a", "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0,
         "jobRestartsCountTowardsMax": [1, 1]}]})
    assert fp.total_restarts_count_towards_max(status) == 3
    with_gate = fp.evaluate_failure_policy(jobset(3), status, [failed("js-a-0")], restart_job_gate=True)
    without = fp.evaluate_failure_policy(jobset(3), status, [failed("js-a-0")], restart_job_gate=False)
    assert with_gate.ops[0].condition.reason == "ReachedMaxRestarts"  # type: ignore[union-attr]
    assert isinstance(without.ops[0], BumpRestarts)


def test_first_matching_rule_wins_and_picks_its_earliest_job() -> None:
    rules = [
        FailurePolicyRule(name="r0", action=FailurePolicyAction.FAIL_JOBSET, on_job_failure_reasons=["DeadlineExceeded"]),
        FailurePolicyRule(name="r1", action=FailurePolicyAction.RESTART_JOBSET, target_replicated_jobs=["b"]),
        FailurePolicyRule(name="r2", action=FailurePolicyAction.FAIL_JOBSET),
    ]
    jobs = [failed("js-a-0", at="2030-01-01T00:00:01Z"), failed("js-b-0", "b", at="2030-01-01T00:00:09Z"),
            failed("js-b-1", "b", at="2030-01-01T00:00:07Z")]
    rule, job = fp.find_first_failed_policy_rule_and_job(rules, jobs)
    assert rule is rules[1] and job is jobs[2]
    rule, job = fp.find_first_failed_policy_rule_and_job(rules[:1], jobs)
    assert (rule, job) == (None, None)


def test_zero_transition_times_tie_to_list_order() -> None:
    jobs = [failed("js-a-0", at=None), failed("js-a-1", at=None)]
    assert fp.find_first_failed_job(jobs) is jobs[0]
    assert fp.find_first_failed_job([failed("x", at="2030-01-01T00:00:01Z"), jobs[1]]) is jobs[1]


@pytest.mark.parametrize(("rule", "applies"), [
    ({"onJobFailureMessagePatterns": ["some message"]}, True),  # unanchored search
    ({"onJobFailureMessagePatterns": ["^some message$"]}, False),
    ({"onJobFailureMessagePatterns": ["(", "critical"]}, True),  # invalid pattern skipped
    ({"onJobFailureReasons": ["PodFailurePolicy"]}, False),
    ({"onJobFailureReasons": ["BackoffLimitExceeded"], "targetReplicatedJobs": ["a"]}, True),
    ({"targetReplicatedJobs": ["b"]}, False),
])
def test_rule_is_applicable(rule: dict[str, Any], applies: bool) -> None:
    r = FailurePolicyRule.from_wire({"name": "r", "action": "FailJobSet", **rule})
    assert fp.rule_is_applicable(r, failed("js-a-0"), "BackoffLimitExceeded",
                                 "this is some message with critical error") is applies


def test_rule_never_applies_to_a_job_without_replicated_job_label() -> None:
    r = FailurePolicyRule(name="r", action=FailurePolicyAction.FAIL_JOBSET)
    assert not fp.rule_is_applicable(r, make_job("j").obj(), "", "")


def test_ignore_max_restarts_does_not_count() -> None:
    js = jobset(0, rules=[{"name": "x", "action": "RestartJobSetAndIgnoreMaxRestarts"}])
    d = fp.evaluate_failure_policy(js, JobSetStatus(restarts_count_towards_max=7), [failed("js-a-0")],
                                   restart_job_gate=False)
    assert d.ops[0] == BumpRestarts(False)
    assert d.ops[1].condition.reason == "FailurePolicy_x"  # type: ignore[union-attr]
    assert d.ops[2] == QueueEvent(EventIntent(
        "Warning", "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction",
        "applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: js-a-0)"))


def test_restart_job_bumps_per_index_arrays() -> None:
    js = jobset(3, rules=[{"name": "x", "action": "RestartJob"}])
    d = fp.evaluate_failure_policy(js, JobSetStatus(), [failed("js-a-1", index="1")], restart_job_gate=True)
    assert d.ops == (BumpJobRestarts("a", (0, 1), (0, 1)), QueueEvent(EventIntent(
        "Warning", "RestartJobFailurePolicyAction", "applying RestartJob failure policy action (first failed job: js-a-1)")))
    js = jobset(0, rules=[{"name": "x", "action": "RestartJobAndIgnoreMaxRestarts"}])
    d = fp.evaluate_failure_policy(js, JobSetStatus(), [failed("js-a-1", index="1")], restart_job_gate=True)
    assert d.ops[0] == BumpJobRestarts("a", (0, 1), None)


@pytest.mark.parametrize(("action", "message"), [
    ("RestartJob", "RestartJob failure policy action cannot be used when the feature gate RestartJob is disabled"),
    ("RestartJobAndIgnoreMaxRestarts", "RestartJobAndIgnoreMaxRestarts failure policy action cannot be used when "
                                       "the feature gate RestartJob is disabled"),
])
def test_restart_job_actions_need_the_gate(action: str, message: str) -> None:
    js = jobset(3, rules=[{"name": "x", "action": action}])
    with pytest.raises(ReconcileError) as err:
        fp.evaluate_failure_policy(js, JobSetStatus(), [failed("js-a-0")], restart_job_gate=False)
    assert str(err.value) == message


def test_restart_job_index_out_of_bounds_is_an_error() -> None:
    js = jobset(3, rules=[{"name": "x", "action": "RestartJob"}])
    with pytest.raises(ReconcileError, match=r"failed job js-a-5 has index 5 out of bounds for replicated job a "
                                             r"\(replicas: 2\)"):
        fp.evaluate_failure_policy(js, JobSetStatus(), [failed("js-a-5", index="5")], restart_job_gate=True)
