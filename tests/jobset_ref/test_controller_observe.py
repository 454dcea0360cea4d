"""observe.py: child-Job buckets and the controller-owner index (spec §3.3)."""

from __future__ import annotations

import pytest

from jobset_ref.api import constants as c
from jobset_ref.api.models import JobSet, JobSetStatus
from jobset_ref.controller.observe import get_child_jobs, job_finished, jobset_controller_uid
from jobset_ref.controller.plan import ReconcileError
from jobset_ref.testing.builders import make_job, make_jobset, make_replicated_job

JS = JobSet.from_wire(make_jobset("js", "ns").replicated_job(make_replicated_job("w").replicas(3)).obj())


def job(name: str, attempt: str | None = "1", **labels: str):  # type: ignore[no-untyped-def]
    w = make_job(name).job_labels({c.REPLICATED_JOB_NAME_KEY: "w", **labels})
    if attempt is not None:
        w.job_labels({c.RESTARTS_KEY: attempt})
    return w


def names(jobs: tuple) -> list[str]:  # type: ignore[type-arg]
    return [j["metadata"]["name"] for j in jobs]


def test_buckets() -> None:
    jobs = [
        job("old", "0").obj(),
        job("done").condition("Complete").obj(),
        job("broken").condition("FailureTarget").condition("Failed").obj(),
        job("target-only").condition("FailureTarget").obj(),
        job("future", "2").obj(),
        job("deleting").obj() | {"metadata": {"name": "deleting", "deletionTimestamp": "x",
                                              "labels": {c.RESTARTS_KEY: "1"}}},
    ]
    children = get_child_jobs(JS, JobSetStatus(restarts=1), jobs, restart_job_gate=False)
    assert names(children.previous) == ["old"]
    assert names(children.successful) == ["done"]
    assert names(children.failed) == ["broken"]
    assert names(children.active) == ["target-only", "future", "deleting"]
    assert children.names == frozenset(j["metadata"]["name"] for j in jobs)


def test_first_finished_condition_wins() -> None:
    assert job_finished(make_job("j").condition("Complete", "False").condition("Failed").obj()) == "Failed"
    assert job_finished(make_job("j").condition("Complete").condition("Failed").obj()) == "Complete"


@pytest.mark.parametrize("value", [None, "x", ""])
def test_bad_restart_attempt_label_is_an_error(value: str | None) -> None:
    with pytest.raises(ReconcileError):
        get_child_jobs(JS, JobSetStatus(), [job("j", value).obj()], restart_job_gate=False)


def test_restart_job_gate_uses_per_index_attempts() -> None:
    status = JobSetStatus.from_wire({"restarts": 0, "replicatedJobsStatus": [
        {"name": "w", "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0, "jobRestarts": [0, 2, 0]}]})
    jobs = [job("js-w-0", "0", **{c.JOB_INDEX_KEY: "0", c.JOB_RESTART_ATTEMPT_KEY: "0"}).obj(),
            job("js-w-1", "0", **{c.JOB_INDEX_KEY: "1", c.JOB_RESTART_ATTEMPT_KEY: "1"}).obj(),
            job("js-w-2", "0", **{c.JOB_INDEX_KEY: "2"}).obj()]  # missing attempt label: kept (logged)
    children = get_child_jobs(JS, status, jobs, restart_job_gate=True)
    assert names(children.previous) == ["js-w-1"]
    assert names(children.active) == ["js-w-0", "js-w-2"]
    with pytest.raises(ReconcileError, match="job index 7 is out of bounds for replicated job w"):
        get_child_jobs(JS, status, [job("j", "0", **{c.JOB_INDEX_KEY: "7", c.JOB_RESTART_ATTEMPT_KEY: "0"}).obj()],
                       restart_job_gate=True)


def test_controller_owner_index_only_for_jobsets() -> None:
    owned = make_job("j").owner({"metadata": {"name": "js", "uid": "u1"}}).obj()
    assert jobset_controller_uid(owned) == ["u1"]
    owned["metadata"]["ownerReferences"][0]["kind"] = "Deployment"
    assert jobset_controller_uid(owned) == []
    owned["metadata"]["ownerReferences"][0].update(kind="JobSet", controller=False)
    assert jobset_controller_uid(owned) == []
