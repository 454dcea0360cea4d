"""policies/success_policy.py, startup_policy.py, depends_on.py (spec §7, §9.1, §9.2)."""

from __future__ import annotations

import pytest

from jobset_ref.api import constants as c
from jobset_ref.api.models import JobSet
from jobset_ref.controller.policies import depends_on, startup_policy, success_policy
from jobset_ref.testing.builders import make_job, make_jobset, make_replicated_job


def js(operator: str = "All", targets: list[str] | None = None) -> JobSet:
    return JobSet.from_wire(make_jobset("js").success_policy(operator, targets)
                            .replicated_job(make_replicated_job("a").replicas(2))
                            .replicated_job(make_replicated_job("b").replicas(3)).obj())


def done(rjob: str) -> dict:  # type: ignore[type-arg]
    return make_job(f"j-{rjob}").job_labels({c.REPLICATED_JOB_NAME_KEY: rjob}).condition("Complete").obj()


@pytest.mark.parametrize(("operator", "targets", "successful", "complete"), [
    ("All", None, ["a", "a", "b", "b"], False),
    ("All", None, ["a", "a", "b", "b", "b"], True),
    ("All", ["a"], ["a", "a"], True),
    ("All", ["a"], ["b", "b", "b", "a"], False),
    ("Any", None, ["b"], True),
    ("Any", ["a"], ["b", "b"], False),
    ("Any", ["a"], ["a"], True),
])
def test_success_policy(operator: str, targets: list[str] | None, successful: list[str], complete: bool) -> None:
    decision = success_policy.evaluate_success_policy(js(operator, targets), [done(r) for r in successful])
    assert bool(decision) is complete
    if complete:
        assert decision.ops[0].condition.reason == "AllJobsCompleted"  # type: ignore[union-attr]


def test_expected_counts() -> None:
    assert success_policy.jobs_expected_to_succeed(js("All")) == 5
    assert success_policy.jobs_expected_to_succeed(js("All", ["b"])) == 3
    assert success_policy.jobs_expected_to_succeed(js("Any", ["b"])) == 1


def test_all_replicas_started_and_in_order() -> None:
    assert startup_policy.all_replicas_started(3, {"failed": 1, "ready": 1, "succeeded": 1, "active": 9})
    assert not startup_policy.all_replicas_started(3, {"ready": 2, "active": 3})
    in_order = JobSet.from_wire(make_jobset("js").startup_policy("InOrder").obj())
    assert startup_policy.in_order(in_order) and not startup_policy.in_order(js())


def status(name: str, **counts: int) -> dict:  # type: ignore[type-arg]
    return {"name": name, "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0, **counts}


@pytest.mark.parametrize(("dep", "counts", "reached"), [
    ("Ready", {"ready": 1, "failed": 1}, True),
    ("Ready", {"ready": 1}, False),
    ("Complete", {"succeeded": 2}, True),
    ("Complete", {"succeeded": 1, "ready": 1}, False),
])
def test_depends_on(dep: str, counts: dict[str, int], reached: bool) -> None:
    model = JobSet.from_wire(make_jobset("js").replicated_job(make_replicated_job("a").replicas(2))
                             .replicated_job(make_replicated_job("b").depends_on([("a", dep)])).obj())
    seen = {"a": 2, "b": 1}
    assert depends_on.dependency_reached_status(model.replicated_jobs[1], seen, [status("a", **counts)]) is reached
    assert not depends_on.dependency_reached_status(model.replicated_jobs[1], seen, [])
    assert depends_on.dependency_reached_status(model.replicated_jobs[0], seen, [])
