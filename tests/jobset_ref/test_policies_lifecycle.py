"""policies: suspend, ttl_after_finished, managed_by, network, elastic, in_place_restart,
volume_claim_policies (spec §5, §9.3 to §9.9)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from jobset_ref.api import constants as c
from jobset_ref.api.models import JobSet, JobSetStatus
from jobset_ref.controller.plan import ReconcileError, SetInPlaceRestartAttempt
from jobset_ref.controller.policies import (
    elastic,
    eligibility,
    in_place_restart,
    managed_by,
    network,
    suspend,
    ttl_after_finished,
    volume_claim_policies,
)
from jobset_ref.testing.builders import make_job, make_job_template, make_jobset, make_replicated_job


def model(builder) -> JobSet:  # type: ignore[no-untyped-def]
    return JobSet.from_wire(builder.obj())


def test_merge_helpers_are_deterministic() -> None:
    assert suspend.merge_maps({"a": "1", "b": "1"}, {"b": "2"}) == {"a": "1", "b": "2"}
    assert suspend.merge_maps(None, None) == {}
    t1, t2 = {"key": "x"}, {"key": "y"}
    assert suspend.merge_slices([t2, t1, t2], [t1, {"key": "z"}]) == [t2, t1, {"key": "z"}]


def test_resumed_pod_template_merges_kueue_fields() -> None:
    job_tpl = {"metadata": {"labels": {"keep": "1", "x": "old"}},
               "spec": {"nodeSelector": {"n": "1"}, "tolerations": [{"key": "a"}], "containers": []}}
    rjob_tpl = {"metadata": {"labels": {"x": "new"}, "annotations": {"an": "1"}},
                "spec": {"nodeSelector": {"m": "2"}, "tolerations": [{"key": "b"}, {"key": "a"}],
                         "schedulingGates": [{"name": "g"}]}}
    out = suspend.resumed_pod_template(job_tpl, rjob_tpl)
    assert out["metadata"] == {"labels": {"keep": "1", "x": "new"}, "annotations": {"an": "1"}}
    assert out["spec"] == {"nodeSelector": {"m": "2", "n": "1"}, "tolerations": [{"key": "a"}, {"key": "b"}],
                           "containers": [], "schedulingGates": [{"name": "g"}]}
    assert job_tpl["metadata"]["labels"]["x"] == "old"  # pure


def test_plan_resume_in_order_stops_at_first_unstarted_rjob() -> None:
    js = model(make_jobset("js").startup_policy("InOrder").replicated_job(make_replicated_job("a").replicas(1))
               .replicated_job(make_replicated_job("b").replicas(1)))
    jobs = [make_job(f"js-{r}-0").job_labels({c.REPLICATED_JOB_NAME_KEY: r}).suspend(True).obj() for r in "ab"]
    statuses = [{"name": "a", "ready": 0}, {"name": "b", "ready": 0}]
    plan = suspend.plan_resume(js, jobs, eligibility.eligible_replicated_jobs(js, statuses))
    assert [j.body["metadata"]["name"] for j in plan.jobs] == ["js-a-0"]
    assert plan.ops[0].condition.type == c.JOBSET_STARTUP_POLICY_IN_PROGRESS  # type: ignore[union-attr]
    statuses[0]["ready"] = 1
    plan = suspend.plan_resume(js, jobs, eligibility.eligible_replicated_jobs(js, statuses))
    assert [j.body["metadata"]["name"] for j in plan.jobs] == ["js-b-0"]


def test_plan_suspend_only_unsuspended_jobs() -> None:
    jobs = [make_job("a").suspend(True).obj(), make_job("b").obj()]
    plan = suspend.plan_suspend(jobs)
    assert [j["metadata"]["name"] for j in plan.jobs] == ["b"]
    assert plan.ops[0].condition.reason == "SuspendedJobs"  # type: ignore[union-attr]


def finished(at: str | None) -> JobSetStatus:
    conds = [] if at is None else [{"type": "Completed", "status": "True", "lastTransitionTime": at,
                                    "reason": "AllJobsCompleted", "message": "m"}]
    return JobSetStatus.from_wire({"restarts": 0, "conditions": conds})


def test_ttl() -> None:
    js = model(make_jobset("js").ttl_seconds_after_finished(10))
    now = datetime(2030, 1, 1, 0, 0, 4, 500_000, tzinfo=UTC)
    d = ttl_after_finished.evaluate_ttl(js, finished("2030-01-01T00:00:02Z"), now)
    assert d == ttl_after_finished.TtlDecision(requeue_after=timedelta(seconds=7, microseconds=500_000))
    assert ttl_after_finished.evaluate_ttl(js, finished("2030-01-01T00:00:02Z"), now + timedelta(seconds=8)).delete
    assert ttl_after_finished.evaluate_ttl(model(make_jobset("js")), finished("2030-01-01T00:00:02Z"), now) == (
        ttl_after_finished.TtlDecision())
    with pytest.raises(ReconcileError, match="error checking if ttl expired: unable to find the status of the "
                                             "finished JobSet /js"):
        ttl_after_finished.evaluate_ttl(model(make_jobset("js", "").ttl_seconds_after_finished(1)), finished(None), now)


def test_managed_by() -> None:
    assert managed_by.managed_by_external_controller(model(make_jobset("js"))) is None
    assert managed_by.managed_by_external_controller(model(make_jobset("js").managed_by(c.JOBSET_CONTROLLER_NAME))) is None
    assert managed_by.managed_by_external_controller(model(make_jobset("js").managed_by("x.io/y"))) == "x.io/y"


def test_network() -> None:
    plain = model(make_jobset("js"))
    assert not network.dns_hostnames_enabled(plain)
    assert network.get_subdomain(plain) == "js" and network.publish_not_ready_addresses(plain)
    js = model(make_jobset("js").enable_dns_hostnames(True).network_subdomain("s").coordinator("w", 2, 3))
    assert network.coordinator_endpoint(js) == "js-w-2-3.s"
    assert network.needs_headless_service(js, service_exists=False)
    assert not network.needs_headless_service(js, service_exists=True)


def test_elastic_scaling_patches_only_consistent_drift() -> None:
    js = model(make_jobset("js").replicated_job(make_replicated_job("w").job(
        make_job_template().completion_mode("Indexed").parallelism(4).completions(4))))
    drifted = make_job("js-w-0").job_labels({c.REPLICATED_JOB_NAME_KEY: "w"}).parallelism(2).completions(2).obj()
    same = make_job("js-w-1").job_labels({c.REPLICATED_JOB_NAME_KEY: "w"}).parallelism(4).completions(4).obj()
    patches = elastic.plan_scaling(js, [drifted, same])
    assert [(p.job["metadata"]["name"], p.parallelism, p.completions) for p in patches] == [("js-w-0", 4, 4)]
    assert not elastic.job_scaling_needs_patch(drifted, 4, 3)


def pod(attempt: str | None, phase: str = "Running", restarts: int = 0) -> dict:  # type: ignore[type-arg]
    ann = {} if attempt is None else {c.IN_PLACE_RESTART_ATTEMPT_KEY: attempt}
    return {"metadata": {"annotations": ann},
            "status": {"phase": phase, "containerStatuses": [{"restartCount": restarts}]}}


def test_in_place_restart() -> None:
    js = model(make_jobset("js").failure_policy(2, restart_strategy="InPlaceRestart").replicated_job(
        make_replicated_job("w").replicas(1).job(make_job_template().parallelism(2).completions(2))))
    status = JobSetStatus()
    ev = in_place_restart.evaluate_in_place_restart
    assert ev(js, status, [pod("1"), pod("1")]).ops == (SetInPlaceRestartAttempt("current", 1),)
    assert ev(js, JobSetStatus(current_in_place_restart_attempt=1), [pod("1"), pod("1")]).ops == ()
    assert ev(js, status, [pod("2"), pod("1")]).ops == (SetInPlaceRestartAttempt("previous", 1),)
    assert ev(js, status, [pod("3"), pod("1")]).ops[0].condition.reason == "ReachedMaxRestarts"  # type: ignore[union-attr]
    assert ev(js, status, [pod("0", restarts=3)]).ops[0].condition.message == c.REACHED_MAX_RESTARTS_MESSAGE  # type: ignore[union-attr]
    assert ev(js, status, [pod("5", phase="Failed"), pod(None)]).ops == ()
    with pytest.raises(ReconcileError, match="must be non-negative integer"):
        ev(js, status, [pod("-1")])


def test_volume_claim_pvcs() -> None:
    js = model(make_jobset("js", "ns").volume_claim_policies([
        {"templates": [{"metadata": {"name": "data", "labels": {"l": "v"}}, "spec": {"resources": {}}}],
         "retentionPolicy": {"whenDeleted": "Delete"}},
        {"templates": [{"metadata": {"name": "keep"}, "spec": {}}], "retentionPolicy": {"whenDeleted": "Retain"}}]))
    groups = volume_claim_policies.construct_pvcs(js)
    (data, owned_data), = groups[0]
    (keep, owned_keep), = groups[1]
    assert data["metadata"] == {"name": "data-js", "namespace": "ns", "labels": {c.JOBSET_NAME_KEY: "js", "l": "v"}}
    assert (owned_data, owned_keep, keep["metadata"]["name"]) == (True, False, "keep-js")
