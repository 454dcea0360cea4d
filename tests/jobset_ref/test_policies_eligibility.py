"""policies/eligibility.py and the plans built on it: which ReplicatedJobs get Jobs created or resumed
(dependsOn, then startupPolicy InOrder), ``construct.plan_creation`` and ``suspend.plan_resume`` (spec §3.6, §9.1,
§9.2, §9.3)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from jobset_ref.api import constants as c
from jobset_ref.api.models import JobSet, JobSetStatus
from jobset_ref.controller import construct
from jobset_ref.controller.observe import ChildJobs
from jobset_ref.controller.plan import Eligibility, SetCondition
from jobset_ref.controller.policies import eligibility, suspend
from jobset_ref.testing.builders import make_job, make_jobset, make_replicated_job


def jobset(*, order: str | None = None, suspended: bool = False, b_depends_on: str | None = None) -> JobSet:
    """a (2 replicas), b (1, optionally dependsOn a), c (1)."""
    builder = make_jobset("js", "ns").replicated_job(make_replicated_job("a").replicas(2))
    b = make_replicated_job("b").replicas(1)
    if b_depends_on is not None:
        b = b.depends_on([("a", b_depends_on)])
    builder = builder.replicated_job(b).replicated_job(make_replicated_job("c").replicas(1))
    if order is not None:
        builder = builder.startup_policy(order)
    if suspended:
        builder = builder.suspend(True)
    return JobSet.from_wire(builder.obj())


def statuses(**counts: dict[str, int]) -> list[dict[str, Any]]:
    zero = {"ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}
    return [{"name": name, **zero, **counts.get(name, {})} for name in "abc"]


@pytest.mark.parametrize(("js", "counts", "eligible", "in_order"), [
    # No ordering: every ReplicatedJob, every pass.
    (jobset(), {}, ("a", "b", "c"), False),
    (jobset(order="AnyOrder"), {}, ("a", "b", "c"), False),
    # InOrder: the first ReplicatedJob whose replicas have not all started (failed + ready + succeeded).
    (jobset(order="InOrder"), {}, ("a",), True),
    (jobset(order="InOrder"), {"a": {"ready": 1}}, ("a",), True),
    (jobset(order="InOrder"), {"a": {"ready": 1, "failed": 1}}, ("b",), True),
    (jobset(order="InOrder"), {"a": {"succeeded": 2}, "b": {"ready": 1}}, ("c",), True),
    (jobset(order="InOrder"), {"a": {"ready": 2}, "b": {"ready": 1}, "c": {"succeeded": 1}}, (), True),
    # A suspended JobSet ignores InOrder.
    (jobset(order="InOrder", suspended=True), {}, ("a", "b", "c"), False),
    # dependsOn Ready: ready + failed + succeeded == replicas of the dependency.
    (jobset(b_depends_on="Ready"), {"a": {"ready": 1}}, ("a", "c"), False),
    (jobset(b_depends_on="Ready"), {"a": {"ready": 1, "succeeded": 1}}, ("a", "b", "c"), False),
    # dependsOn Complete: succeeded == replicas.
    (jobset(b_depends_on="Complete"), {"a": {"ready": 2}}, ("a", "c"), False),
    (jobset(b_depends_on="Complete"), {"a": {"succeeded": 2}}, ("a", "b", "c"), False),
    # dependsOn first, then InOrder: a ReplicatedJob waiting for its dependency is skipped, not waited for.
    (jobset(order="InOrder", b_depends_on="Complete"), {"a": {"ready": 2}}, ("c",), True),
    (jobset(order="InOrder", b_depends_on="Complete"), {"a": {"succeeded": 2}}, ("b",), True),
    # A suspended JobSet still waits for dependsOn.
    (jobset(suspended=True, b_depends_on="Ready"), {}, ("a", "c"), False),
])
def test_eligible_replicated_jobs(js: JobSet, counts: dict[str, dict[str, int]], eligible: tuple[str, ...],
                                  in_order: bool) -> None:
    assert eligibility.eligible_replicated_jobs(js, statuses(**counts)) == Eligibility(eligible, in_order)


def test_a_dependency_without_a_status_is_not_reached() -> None:
    assert eligibility.eligible_replicated_jobs(jobset(b_depends_on="Ready"), []).replicated_jobs == ("a", "c")


# --------------------------------------------------------------------------- creation


def names(batches: tuple[tuple[dict[str, Any], ...], ...]) -> list[list[str]]:
    return [[job["metadata"]["name"] for job in batch] for batch in batches]


def condition_types(ops: tuple[Any, ...]) -> list[str]:
    return [op.condition.type for op in ops if isinstance(op, SetCondition)]


@pytest.mark.parametrize(("js", "counts", "existing", "batches", "ops"), [
    # Existing Jobs (any bucket) are not created again; each eligible ReplicatedJob is one batch.
    (jobset(), {}, ["js-a-1", "js-c-0"], [["js-a-0"], ["js-b-0"], []], []),
    # InOrder: a ReplicatedJob whose Jobs all exist but have not started still holds the next one back.
    (jobset(order="InOrder"), {}, ["js-a-0", "js-a-1"], [[]], [c.JOBSET_STARTUP_POLICY_IN_PROGRESS]),
    (jobset(order="InOrder"), {"a": {"ready": 2}}, ["js-a-0", "js-a-1"], [["js-b-0"]],
     [c.JOBSET_STARTUP_POLICY_IN_PROGRESS]),
    (jobset(order="InOrder"), {"a": {"ready": 2}, "b": {"ready": 1}, "c": {"ready": 1}}, ["js-a-0"], [],
     [c.JOBSET_STARTUP_POLICY_COMPLETED]),
    # Suspended: everything at once, and no startup condition.
    (jobset(order="InOrder", suspended=True), {}, [], [["js-a-0", "js-a-1"], ["js-b-0"], ["js-c-0"]], []),
])
def test_plan_creation(js: JobSet, counts: dict[str, dict[str, int]], existing: list[str],
                       batches: list[list[str]], ops: list[str]) -> None:
    children = ChildJobs(active=tuple({"metadata": {"name": n}} for n in existing), names=frozenset(existing))
    eligible = eligibility.eligible_replicated_jobs(js, statuses(**counts))
    plan = construct.plan_creation(js, JobSetStatus(), eligible, children, restart_job_gate=False)
    assert names(plan.batches) == batches
    assert condition_types(plan.ops) == ops
    for batch in plan.batches:  # finished bodies, as constructJob builds them
        for job in batch:
            assert job["spec"]["suspend"] is bool(js.spec.suspend)
            assert job["metadata"]["ownerReferences"] == [construct.owner_reference(js)]


# --------------------------------------------------------------------------- resume


def child(rjob: str, index: int, *, suspended: bool = True, started: bool = False) -> dict[str, Any]:
    job = (make_job(f"js-{rjob}-{index}", "ns").job_labels({c.REPLICATED_JOB_NAME_KEY: rjob})
           .suspend(suspended).obj())
    if started:
        job["status"] = {"startTime": "2025-01-01T00:00:00Z", "active": 0}
    return job


def test_plan_resume_follows_the_same_walk_as_creation() -> None:
    js = jobset(order="InOrder")
    active = [child("a", 0), child("a", 1, suspended=False), child("b", 0), child("c", 0)]
    plan = suspend.plan_resume(js, active, eligibility.eligible_replicated_jobs(js, statuses()))
    assert [r.body["metadata"]["name"] for r in plan.jobs] == ["js-a-0"]  # js-a-1 is not suspended
    assert condition_types(plan.ops) == [c.JOBSET_STARTUP_POLICY_IN_PROGRESS]
    started = statuses(a={"ready": 2}, b={"ready": 1}, c={"ready": 1})
    plan = suspend.plan_resume(js, active, eligibility.eligible_replicated_jobs(js, started))
    assert plan.jobs == ()
    assert condition_types(plan.ops) == [c.JOBSET_SUSPENDED]  # Suspended=False: resumed
    plan = suspend.plan_resume(jobset(b_depends_on="Complete"), active,
                               eligibility.eligible_replicated_jobs(jobset(b_depends_on="Complete"), statuses()))
    assert [r.body["metadata"]["name"] for r in plan.jobs] == ["js-a-0", "js-c-0"]


def test_resumed_job_is_a_finished_body_and_says_whether_start_time_must_be_cleared() -> None:
    js = JobSet.from_wire(make_jobset("js", "ns").replicated_job(make_replicated_job("a").replicas(1)).obj())
    job = child("a", 0, started=True)
    job["spec"]["template"]["metadata"] = {"labels": {"keep": "1"}}
    before = copy.deepcopy(job)
    rjob_template = {"metadata": {"labels": {"kueue": "x"}}, "spec": {"nodeSelector": {"pool": "p"}}}
    resumed = suspend.resumed_job(job, rjob_template)
    assert resumed.clear_start_time
    assert resumed.body["spec"]["suspend"] is False
    assert "startTime" not in resumed.body["status"]
    assert resumed.body["spec"]["template"]["metadata"]["labels"] == {"keep": "1", "kueue": "x"}
    assert resumed.body["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "p"}
    assert job == before  # pure
    assert not suspend.resumed_job(child("a", 0), js.replicated_jobs[0].pod_template).clear_start_time


def test_plan_suspend_carries_suspended_bodies() -> None:
    jobs = [child("a", 0), child("a", 1, suspended=False)]
    before = copy.deepcopy(jobs)
    plan = suspend.plan_suspend(jobs)
    assert [(j["metadata"]["name"], j["spec"]["suspend"]) for j in plan.jobs] == [("js-a-1", True)]
    assert jobs == before
