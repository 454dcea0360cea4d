"""status.py: updateCondition semantics, replicatedJobsStatus and the wire form of a status write.

Cases ported from upstream ``TestUpdateConditions``, ``TestCalculateReplicatedJobStatuses`` and
``TestReplicatedJobStatusesEqual`` (``pkg/controllers/jobset_controller_test.go``).
"""

from __future__ import annotations

from jobset_ref.api import constants as c
from jobset_ref.api.models import JobSet, JobSetStatus
from jobset_ref.controller import conditions
from jobset_ref.controller.observe import ChildJobs
from jobset_ref.controller.plan import BumpRestarts, ConditionIntent, EventIntent, SetCondition
from jobset_ref.controller.status import (
    StatusDraft,
    calculate_replicated_job_statuses,
    replicated_job_statuses_equal,
)
from jobset_ref.testing.builders import make_job, make_jobset, make_replicated_job

SECOND = 1_000_000_000


def cond(type_: str, status: str, reason: str = "R", message: str = "M", at: str = "2030-01-01T00:00:00Z") -> dict:
    return {"type": type_, "status": status, "lastTransitionTime": at, "reason": reason, "message": message}


def test_new_true_condition_is_appended_with_an_event() -> None:
    draft = StatusDraft({}, 3 * SECOND)
    draft.apply(conditions.completed())
    assert draft.wire["conditions"] == [cond("Completed", "True", "AllJobsCompleted", "jobset completed successfully",
                                             "2030-01-01T00:00:03Z")]
    assert draft.wire["terminalState"] == "Completed"
    assert draft.events == [EventIntent("Normal", "AllJobsCompleted", "jobset completed successfully")]
    assert draft.should_update


def test_false_condition_is_never_created_from_nothing() -> None:
    draft = StatusDraft({}, 0)
    draft.apply((conditions.restarting_false("JobsReady", "all jobs are ready"), conditions.resumed()))
    assert "conditions" not in draft.wire and draft.events == [] and not draft.should_update


def test_same_status_new_reason_keeps_transition_time() -> None:
    draft = StatusDraft({"conditions": [cond("RestartingJobSet", "True", "A", "m1", "2030-01-01T00:00:01Z")]}, 9 * SECOND)
    draft.apply((SetCondition(ConditionIntent("RestartingJobSet", "True", "B", "m2", "Warning")),))
    assert draft.wire["conditions"] == [cond("RestartingJobSet", "True", "B", "m2", "2030-01-01T00:00:01Z")]
    assert draft.events == [EventIntent("Warning", "B", "m2")]


def test_identical_condition_changes_nothing() -> None:
    draft = StatusDraft({"conditions": [cond("Suspended", "True", "SuspendedJobs", "jobset is suspended")]}, 5 * SECOND)
    draft.apply(conditions.suspended())
    assert not draft.should_update and draft.events == []


def test_startup_conditions_are_mutually_exclusive() -> None:
    draft = StatusDraft({"conditions": [cond("StartupPolicyInProgress", "True", "X", "x")]}, SECOND)
    draft.apply((conditions.in_order_completed(),))
    assert [(x["type"], x["status"], x["reason"]) for x in draft.wire["conditions"]] == [
        ("StartupPolicyInProgress", "False", "X"), ("StartupPolicyCompleted", "True", "InOrderStartupPolicyCompleted")]


def test_status_change_updates_transition_time() -> None:
    draft = StatusDraft({"conditions": [cond("Suspended", "True", "SuspendedJobs", "jobset is suspended")]}, 61 * SECOND)
    draft.apply((conditions.resumed(),))
    assert draft.wire["conditions"] == [cond("Suspended", "False", "ResumeJobs", "jobset is resumed",
                                             "2030-01-01T00:01:01Z")]


def test_replicated_job_statuses() -> None:
    obj = (make_jobset("js", "ns").replicated_job(make_replicated_job("a").replicas(2))
           .replicated_job(make_replicated_job("b").replicas(2)).obj())
    js = JobSet.from_wire(obj)
    rj = {c.REPLICATED_JOB_NAME_KEY: "a"}
    active = (
        make_job("js-a-0").job_labels(rj).parallelism(2).ready(1).succeeded(1).active(1).obj(),  # ready, active
        make_job("js-a-1").job_labels(rj).parallelism(3).completions(1).ready(1).suspend(True).obj(),  # ready, susp.
        make_job("x").job_labels({c.REPLICATED_JOB_NAME_KEY: "zzz"}).active(1).obj(),  # unknown rjob: ignored
        make_job("y").active(1).obj(),  # no label: ignored
    )
    children = ChildJobs(active=active, successful=(make_job("js-b-0").job_labels({c.REPLICATED_JOB_NAME_KEY: "b"}).obj(),),
                         failed=(make_job("js-b-1").job_labels({c.REPLICATED_JOB_NAME_KEY: "b"}).obj(),))
    statuses = calculate_replicated_job_statuses(js, JobSetStatus(), children, restart_job_gate=False)
    assert statuses == [
        {"name": "a", "ready": 2, "succeeded": 0, "failed": 0, "active": 1, "suspended": 1},
        {"name": "b", "ready": 0, "succeeded": 1, "failed": 1, "active": 0, "suspended": 0},
    ]
    draft = StatusDraft({}, 0)
    draft.set_replicated_jobs_status(statuses)
    assert [s["name"] for s in draft.to_wire()["replicatedJobsStatus"]] == ["b", "a"]  # name descending


def test_statuses_equal_ignores_order_and_nil_vs_empty() -> None:
    a = [{"name": "x", "ready": 1, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0, "jobRestarts": []},
         {"name": "y", "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}]
    b = [dict(a[1]), {k: v for k, v in a[0].items() if k != "jobRestarts"}]
    assert replicated_job_statuses_equal(a, b)
    assert not replicated_job_statuses_equal(a, [dict(a[0], ready=2), a[1]])


def test_to_wire_omits_go_omitempty_fields() -> None:
    draft = StatusDraft(None, 0)
    assert draft.to_wire() == {"restarts": 0}
    draft.apply((BumpRestarts(count_towards_max=False),))
    assert draft.to_wire() == {"restarts": 1}
    draft.apply((BumpRestarts(count_towards_max=True),))
    assert draft.to_wire() == {"restarts": 2, "restartsCountTowardsMax": 1}
