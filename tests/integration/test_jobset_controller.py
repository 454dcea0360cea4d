"""JobSet controller on a fake API server, as upstream's envtest integration suite runs it.

Ported from ``test/integration/controller/jobset_controller_test.go`` (kubernetes-sigs/jobset
@ 08dfbdf): no webhooks, no Job controller, no garbage collector; the test writes Job status by
hand and finishes foreground deletions itself. Each step advances virtual time instead of
polling, so every assertion is about an exact instant.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from fakekube import Conflict, FakeCluster, Reactor
from fakekube._core.clock import SECOND
from jobset_ref import install
from jobset_ref.api import constants as c
from jobset_ref.testing.builders import (
    active_job_status,
    complete_job_status,
    fail_job_status,
    make_job_template,
    make_jobset,
    make_replicated_job,
    ready_job_status,
    remove_foreground_finalizers,
    update_job_status,
)

NS = "default"
JS = "test-js"
JOB_A0 = "test-js-replicated-job-a-0"
ALL_JOBS = [JOB_A0, "test-js-replicated-job-b-0", "test-js-replicated-job-b-1", "test-js-replicated-job-b-2"]


def t(seconds: int) -> str:
    """The wire form of virtual second ``seconds``."""
    return f"2030-01-01T00:{seconds // 60:02d}:{seconds % 60:02d}Z"


def test_jobset(**_: Any) -> Any:
    """``testJobSet``: rjob a (1 replica, NonIndexed), rjob b (3 replicas, Indexed)."""
    return (make_jobset(JS, NS).success_policy("All", []).enable_dns_hostnames(True)
            .replicated_job(make_replicated_job("replicated-job-a").replicas(1)
                            .job(make_job_template("test-job-A", NS)))
            .replicated_job(make_replicated_job("replicated-job-b").replicas(3)
                            .job(make_job_template("test-job-B", NS).completion_mode("Indexed").completions(1)
                                 .parallelism(1))))


test_jobset.__test__ = False  # type: ignore[attr-defined]  # a fixture builder, not a test


class Env:
    """One envtest namespace: a cluster without webhooks or workload simulation."""

    def __init__(self, feature_gates: dict[str, bool] | None = None, *, webhooks: bool = False) -> None:
        self.cluster = FakeCluster(seed=0, simulate=False)
        self.installation = install(self.cluster, feature_gates, webhooks=webhooks)

    # ---------------------------------------------------------------- reads
    def js(self, name: str = JS) -> dict[str, Any]:
        return self.cluster.get("JobSet", name, NS)

    def status(self, name: str = JS) -> dict[str, Any]:
        return self.js(name).get("status") or {}

    def condition(self, type_: str, name: str = JS) -> dict[str, Any] | None:
        return next((x for x in self.status(name).get("conditions") or [] if x["type"] == type_), None)

    def jobs(self) -> list[dict[str, Any]]:
        return self.cluster.list("jobs.batch", NS)

    def job_names(self, *, live_only: bool = False) -> list[str]:
        return [j["metadata"]["name"] for j in self.jobs()
                if not (live_only and j["metadata"].get("deletionTimestamp"))]

    def job(self, name: str) -> dict[str, Any]:
        return self.cluster.get("jobs.batch", name, NS)

    def events(self) -> list[tuple[str, str, str]]:
        return [(e["type"], e["reason"], e["message"]) for e in self.cluster.events(kind="JobSet", name=JS)]

    def rjob_status(self) -> list[dict[str, Any]]:
        return self.status().get("replicatedJobsStatus") or []

    def status_writes(self) -> int:
        return sum(1 for r in self.cluster.trace.records if r.is_write and r.kind == "JobSet"
                   and r.subresource == "status" and (r.namespace, r.name) == (NS, JS))

    # ---------------------------------------------------------------- writes
    def complete(self, name: str) -> None:
        update_job_status(self.cluster, name, NS, complete_job_status(self.job(name), t(int(self.cluster.elapsed))))

    def fail(self, name: str, *, reason: str = "", message: str = "", at: str | None = None) -> None:
        update_job_status(self.cluster, name, NS, fail_job_status(
            self.job(name), t(int(self.cluster.elapsed)), reason=reason, message=message, transition_time=at))

    def ready(self, name: str) -> None:
        update_job_status(self.cluster, name, NS, ready_job_status(self.job(name)))

    def ready_all(self) -> None:
        for name in self.job_names(live_only=True):
            self.ready(name)

    def finish_deletions(self, count: int | None = None) -> list[str]:
        return remove_foreground_finalizers(self.cluster, NS, count)


# =========================================================================== creation


def test_creates_jobs_service_and_status_with_every_label() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    js = env.js()
    uid = js["metadata"]["uid"]
    assert env.job_names() == ALL_JOBS
    job = env.job("test-js-replicated-job-b-1")
    expected = {
        c.JOBSET_NAME_KEY: JS, c.JOBSET_UID_KEY: uid, c.REPLICATED_JOB_NAME_KEY: "replicated-job-b",
        c.RESTARTS_KEY: "0", c.REPLICATED_JOB_REPLICAS: "3", c.GLOBAL_REPLICAS_KEY: "4",
        c.JOB_INDEX_KEY: "1", c.JOB_KEY: hashlib.sha1(b"default/test-js-replicated-job-b-1").hexdigest(),
        c.JOB_GLOBAL_INDEX_KEY: "2", c.GROUP_NAME_KEY: "default", c.GROUP_REPLICAS_KEY: "4",
        c.JOB_GROUP_INDEX_KEY: "2",
    }
    labels = {k: v for k, v in job["metadata"]["labels"].items() if k.startswith("jobset.sigs.k8s.io/")}
    assert labels == expected
    assert {k: v for k, v in job["metadata"]["annotations"].items() if k != c.EXCLUSIVE_KEY} == expected
    pod_labels = job["spec"]["template"]["metadata"]["labels"]
    assert {k: v for k, v in pod_labels.items() if k.startswith("jobset.sigs.k8s.io/")} == expected
    assert job["spec"]["template"]["spec"]["subdomain"] == JS
    assert job["spec"]["suspend"] is False
    assert job["metadata"]["ownerReferences"] == [{
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": JS, "uid": uid,
        "controller": True, "blockOwnerDeletion": True}]
    assert env.job(JOB_A0)["metadata"]["labels"][c.JOB_KEY] == "7b5f6b3e4003e1164d82a1d6fa5ed93212cd3c7f"
    services = env.cluster.list("services", NS)
    assert [s["metadata"]["name"] for s in services] == [JS]
    assert services[0]["spec"]["clusterIP"] == "None"
    assert services[0]["spec"]["selector"] == {c.JOBSET_NAME_KEY: JS}
    assert services[0]["spec"]["publishNotReadyAddresses"] is True
    assert services[0]["metadata"]["ownerReferences"][0]["uid"] == uid
    assert "labels" not in services[0]["metadata"]
    status = env.status()
    assert "conditions" not in status
    assert status["restarts"] == 0
    assert [s["name"] for s in status["replicatedJobsStatus"]] == ["replicated-job-b", "replicated-job-a"]


def test_replicated_jobs_status_counts_ready_active_and_succeeded() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    env.ready("test-js-replicated-job-b-0")
    update_job_status(env.cluster, "test-js-replicated-job-b-1", NS,
                      active_job_status(env.job("test-js-replicated-job-b-1")))
    env.complete("test-js-replicated-job-b-2")
    assert env.rjob_status() == [
        {"name": "replicated-job-b", "ready": 1, "succeeded": 1, "failed": 0, "active": 2, "suspended": 0},
        {"name": "replicated-job-a", "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0},
    ]


def test_coordinator_label_and_subdomain() -> None:
    env = Env()
    env.cluster.apply(test_jobset().network_subdomain("sub").coordinator("replicated-job-b", 1, 0))
    job = env.job(JOB_A0)
    assert job["metadata"]["labels"][c.COORDINATOR_KEY] == "test-js-replicated-job-b-1-0.sub"
    assert job["spec"]["template"]["metadata"]["annotations"][c.COORDINATOR_KEY] == "test-js-replicated-job-b-1-0.sub"
    assert job["spec"]["template"]["spec"]["subdomain"] == "sub"
    assert [s["metadata"]["name"] for s in env.cluster.list("services", NS)] == ["sub"]


def test_deleted_service_is_recreated() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    env.cluster.delete("services", JS, NS)
    assert [s["metadata"]["name"] for s in env.cluster.list("services", NS)] == [JS]


# =========================================================================== success and failure


def test_all_jobs_completed_completes_the_jobset_and_keeps_finished_jobs() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    env.cluster.advance(7)
    for name in ALL_JOBS[:3]:
        env.complete(name)
    assert env.condition(c.JOBSET_COMPLETED) is None
    env.complete(ALL_JOBS[3])
    assert env.condition(c.JOBSET_COMPLETED) == {
        "type": "Completed", "status": "True", "lastTransitionTime": t(7), "reason": "AllJobsCompleted",
        "message": "jobset completed successfully"}
    assert env.status()["terminalState"] == "Completed"
    assert env.events() == [("Normal", "AllJobsCompleted", "jobset completed successfully")]
    assert env.job_names(live_only=True) == ALL_JOBS


def test_success_policy_any_with_target_completes_on_first_target_job() -> None:
    env = Env()
    env.cluster.apply(test_jobset().success_policy("Any", ["replicated-job-b"]))
    env.complete(JOB_A0)
    assert env.condition(c.JOBSET_COMPLETED) is None
    env.complete("test-js-replicated-job-b-2")
    assert env.condition(c.JOBSET_COMPLETED)["status"] == "True"
    # The next pass deletes the still-active Jobs (Foreground), keeps the finished ones.
    deleting = [j["metadata"]["name"] for j in env.jobs() if j["metadata"].get("deletionTimestamp")]
    assert deleting == ["test-js-replicated-job-b-0", "test-js-replicated-job-b-1"]
    assert env.job("test-js-replicated-job-b-0")["metadata"]["finalizers"] == ["foregroundDeletion"]


def test_failed_job_without_failure_policy_fails_the_jobset() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    env.cluster.advance(3)
    env.fail("test-js-replicated-job-b-1")
    msg = "jobset failed due to one or more job failures (first failed job: test-js-replicated-job-b-1)"
    assert env.condition(c.JOBSET_FAILED) == {"type": "Failed", "status": "True", "lastTransitionTime": t(3),
                                              "reason": "FailedJobs", "message": msg}
    assert env.status()["terminalState"] == "Failed"
    assert env.events() == [("Warning", "FailedJobs", msg)]
    deleting = sorted(j["metadata"]["name"] for j in env.jobs() if j["metadata"].get("deletionTimestamp"))
    assert deleting == [JOB_A0, "test-js-replicated-job-b-0", "test-js-replicated-job-b-2"]


def test_first_failed_job_is_the_earliest_failure() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    jobs = {n: env.job(n) for n in ALL_JOBS}
    # Write two failures before the controller runs: b-2 failed earlier than a-0.
    for name, when in ((JOB_A0, t(9)), ("test-js-replicated-job-b-2", t(4))):
        job = jobs[name]
        job["status"] = fail_job_status(job, t(0), transition_time=when)
        env.cluster.client.update_status(job)
    env.cluster.run_until_idle()
    assert env.condition(c.JOBSET_FAILED)["message"].endswith("(first failed job: test-js-replicated-job-b-2)")


# =========================================================================== restarts


def test_max_restarts_3_restarts_three_times_and_fails_on_the_fourth_failure() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=3))
    for attempt in range(1, 4):
        env.cluster.advance(10)
        now = int(env.cluster.elapsed)
        env.fail(JOB_A0)
        status = env.status()
        assert (status["restarts"], status["restartsCountTowardsMax"]) == (attempt, attempt)
        restarting = env.condition(c.JOBSET_RESTARTING)
        assert restarting["status"] == "True" and restarting["reason"] == "DefaultFailurePolicy"
        assert restarting["message"] == ("applying RestartJobSet failure policy action "
                                         "(first failed job: test-js-replicated-job-a-0)")
        # Every old Job is being deleted in the foreground; none is recreated while it exists.
        assert all(j["metadata"].get("deletionTimestamp") == t(now) for j in env.jobs())
        assert all(j["metadata"]["finalizers"] == ["foregroundDeletion"] for j in env.jobs())
        assert env.rjob_status()[0]["ready"] == 0
        assert env.finish_deletions() == ALL_JOBS
        jobs = env.jobs()
        assert [j["metadata"]["name"] for j in jobs] == ALL_JOBS
        assert all(j["metadata"]["labels"][c.RESTARTS_KEY] == str(attempt) for j in jobs)
        assert all(j["spec"]["template"]["metadata"]["labels"][c.RESTARTS_KEY] == str(attempt) for j in jobs)
        env.ready_all()
        assert env.condition(c.JOBSET_RESTARTING)["status"] == "False"
        assert env.condition(c.JOBSET_RESTARTING)["reason"] == "JobsReady"
    env.cluster.advance(10)
    env.fail("test-js-replicated-job-b-0")
    failed = env.condition(c.JOBSET_FAILED)
    assert failed == {"type": "Failed", "status": "True", "lastTransitionTime": t(40), "reason": "ReachedMaxRestarts",
                      "message": "jobset failed due to reaching max number of restarts "
                                 "(first failed job: test-js-replicated-job-b-0)"}
    assert env.condition(c.JOBSET_RESTARTING)["reason"] == "JobSetFailed"
    assert env.status()["restarts"] == 3
    assert env.status()["terminalState"] == "Failed"
    reasons = [e[1] for e in env.events()]
    assert reasons.count("RestartJobSetFailurePolicyAction") == 1  # aggregated into one series
    assert reasons[-2:] == ["ReachedMaxRestarts", "JobSetFailed"]
    series = [e for e in env.cluster.events(kind="JobSet", name=JS) if e["reason"] == "RestartJobSetFailurePolicyAction"]
    assert series[0]["count"] == 3


def test_restart_events_are_queued_in_upstream_order() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1))
    env.fail(JOB_A0)
    msg = "applying RestartJobSet failure policy action (first failed job: test-js-replicated-job-a-0)"
    assert env.events() == [("Warning", "DefaultFailurePolicy", msg), ("Warning", "RestartJobSetFailurePolicyAction", msg)]


def test_recreate_recreates_each_job_as_soon_as_it_is_gone() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1, restart_strategy="Recreate"))
    env.fail(JOB_A0)
    assert env.finish_deletions(2) == ALL_JOBS[:2]
    live = [j for j in env.jobs() if not j["metadata"].get("deletionTimestamp")]
    assert [j["metadata"]["name"] for j in live] == ALL_JOBS[:2]
    assert all(j["metadata"]["labels"][c.RESTARTS_KEY] == "1" for j in live)


def test_blocking_recreate_waits_for_every_previous_job() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1, restart_strategy="BlockingRecreate"))
    env.fail(JOB_A0)
    assert env.finish_deletions(3) == ALL_JOBS[:3]
    assert env.job_names() == [ALL_JOBS[3]]
    assert env.finish_deletions() == [ALL_JOBS[3]]
    assert env.job_names() == ALL_JOBS
    assert all(j["metadata"]["labels"][c.RESTARTS_KEY] == "1" for j in env.jobs())


@pytest.mark.parametrize(("rule", "reason", "status_after"), [
    ({"name": "fail", "action": "FailJobSet", "onJobFailureReasons": ["PodFailurePolicy"]},
     "FailJobSetFailurePolicyAction", "Failed"),
    ({"name": "ignore", "action": "RestartJobSetAndIgnoreMaxRestarts"}, "FailurePolicy_ignore", "Restarting"),
    ({"name": "restart", "action": "RestartJobSet"}, "FailurePolicy_restart", "Restarting"),
    ({"name": "", "action": "RestartJobSet"}, "FailurePolicy_", "Restarting"),  # no webhook: name stays ""
], ids=["FailJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJobSet", "unnamed-rule"])
def test_failure_policy_rule_actions(rule: dict[str, Any], reason: str, status_after: str) -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1, rules=[rule]))
    env.fail(JOB_A0, reason="PodFailurePolicy", message="container exited")
    if status_after == "Failed":
        assert env.condition(c.JOBSET_FAILED)["reason"] == reason
        assert env.condition(c.JOBSET_FAILED)["message"] == (
            "applying FailJobSet failure policy action (first failed job: test-js-replicated-job-a-0)")
        assert env.status()["restarts"] == 0
    else:
        assert env.condition(c.JOBSET_RESTARTING)["reason"] == reason
        counted = 0 if rule["action"] == "RestartJobSetAndIgnoreMaxRestarts" else 1
        assert env.status()["restarts"] == 1
        assert env.status().get("restartsCountTowardsMax", 0) == counted


def test_ignore_max_restarts_never_fails_the_jobset() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=0, rules=[
        {"name": "r", "action": "RestartJobSetAndIgnoreMaxRestarts", "targetReplicatedJobs": ["replicated-job-a"]}]))
    for attempt in range(1, 4):
        env.fail(JOB_A0)
        env.finish_deletions()
        assert env.status()["restarts"] == attempt
    env.fail("test-js-replicated-job-b-0")  # not targeted: default RestartJobSet at maxRestarts 0 fails
    assert env.condition(c.JOBSET_FAILED)["reason"] == "ReachedMaxRestarts"


def test_first_matching_rule_wins_by_message_pattern() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=5, rules=[
        {"name": "a", "action": "FailJobSet", "onJobFailureMessagePatterns": ["^fatal"]},
        {"name": "b", "action": "RestartJobSet", "onJobFailureMessagePatterns": ["some message"]},
    ]))
    env.fail(JOB_A0, message="this is some message with critical error")
    assert env.condition(c.JOBSET_RESTARTING)["reason"] == "FailurePolicy_b"


def test_restart_job_action_restarts_only_the_failed_job() -> None:
    env = Env({c.FEATURE_RESTART_JOB: True})
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1, rules=[{"name": "one", "action": "RestartJob"}]))
    assert env.job("test-js-replicated-job-b-1")["metadata"]["labels"][c.JOB_RESTART_ATTEMPT_KEY] == "0"
    env.fail("test-js-replicated-job-b-1")
    b = next(s for s in env.rjob_status() if s["name"] == "replicated-job-b")
    assert b["jobRestarts"] == [0, 1, 0] and b["jobRestartsCountTowardsMax"] == [0, 1, 0]
    assert env.status()["restarts"] == 0 and env.condition(c.JOBSET_RESTARTING) is None
    assert [j["metadata"]["name"] for j in env.jobs() if j["metadata"].get("deletionTimestamp")] == [
        "test-js-replicated-job-b-1"]
    env.finish_deletions()
    assert env.job("test-js-replicated-job-b-1")["metadata"]["labels"][c.JOB_RESTART_ATTEMPT_KEY] == "1"
    assert ("Warning", "RestartJobFailurePolicyAction",
            "applying RestartJob failure policy action (first failed job: test-js-replicated-job-b-1)") in env.events()
    env.fail(JOB_A0)  # total counted restarts (1) >= maxRestarts (1)
    assert env.condition(c.JOBSET_FAILED)["reason"] == "ReachedMaxRestarts"


def test_restart_job_action_without_gate_is_a_reconcile_error() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1, rules=[{"name": "one", "action": "RestartJob"}]))
    before = env.status_writes()
    env.fail(JOB_A0)
    env.cluster.advance(1)
    assert env.status_writes() == before
    assert env.cluster.trace.grep("RestartJob failure policy action cannot be used when the feature gate "
                                  "RestartJob is disabled")


# =========================================================================== status write discipline


def test_one_status_write_per_pass() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1))
    before = env.status_writes()
    env.fail(JOB_A0)  # pass 1: counters + restart; pass 2 (status event): delete previous, zero counters
    assert env.status_writes() - before == 2
    assert env.installation.reconciler.passes >= 3


def test_conflict_on_status_write_drops_the_events_of_that_pass() -> None:
    env = Env()
    env.cluster.apply(test_jobset().failure_policy(max_restarts=1))
    reactor = env.cluster.inject(Reactor(verb="update", resource="jobsets.jobset.x-k8s.io", subresource="status",
                                         error=Conflict("injected"), times=1))
    env.fail(JOB_A0)
    assert reactor.fired == 1
    assert env.events() == []
    assert env.status()["restarts"] == 0
    env.cluster.advance(0.005)  # the controller's first retry, 5 ms later
    msg = "applying RestartJobSet failure policy action (first failed job: test-js-replicated-job-a-0)"
    assert env.events() == [("Warning", "DefaultFailurePolicy", msg), ("Warning", "RestartJobSetFailurePolicyAction", msg)]
    assert all(e["count"] == 1 for e in env.cluster.events(kind="JobSet", name=JS))
    assert env.status()["restarts"] == 1


# =========================================================================== ordering


def test_startup_policy_in_order() -> None:
    env = Env()
    env.cluster.apply(test_jobset().startup_policy("InOrder"))
    assert env.job_names() == [JOB_A0]
    assert env.condition(c.JOBSET_STARTUP_POLICY_IN_PROGRESS)["status"] == "True"
    env.ready(JOB_A0)
    assert env.job_names() == ALL_JOBS
    assert env.condition(c.JOBSET_STARTUP_POLICY_COMPLETED) is None
    for name in ALL_JOBS[1:]:
        env.ready(name)
    assert env.condition(c.JOBSET_STARTUP_POLICY_COMPLETED) == {
        "type": "StartupPolicyCompleted", "status": "True", "lastTransitionTime": t(0),
        "reason": "InOrderStartupPolicyCompleted", "message": "in order startup policy has completed"}
    assert env.condition(c.JOBSET_STARTUP_POLICY_IN_PROGRESS)["status"] == "False"


def test_depends_on_complete() -> None:
    env = Env()
    js = (make_jobset(JS, NS).success_policy("All").enable_dns_hostnames(True)
          .replicated_job(make_replicated_job("a").replicas(2).job(make_job_template()))
          .replicated_job(make_replicated_job("b").replicas(1).depends_on([("a", "Complete")])
                          .job(make_job_template())))
    env.cluster.apply(js)
    assert env.job_names() == ["test-js-a-0", "test-js-a-1"]
    env.ready("test-js-a-0")
    env.ready("test-js-a-1")
    assert env.job_names() == ["test-js-a-0", "test-js-a-1"]  # Ready is not Complete
    env.complete("test-js-a-0")
    assert env.job_names() == ["test-js-a-0", "test-js-a-1"]
    env.complete("test-js-a-1")
    assert env.job_names() == ["test-js-a-0", "test-js-a-1", "test-js-b-0"]


# =========================================================================== suspend / resume


def test_suspend_and_resume_with_kueue_pod_template_changes() -> None:
    env = Env(webhooks=True)
    env.cluster.apply(test_jobset().suspend(True))
    assert all(j["spec"]["suspend"] is True for j in env.jobs())
    assert env.condition(c.JOBSET_SUSPENDED)["reason"] == "SuspendedJobs"
    assert {s["name"]: s["suspended"] for s in env.rjob_status()} == {"replicated-job-a": 1, "replicated-job-b": 3}
    env.cluster.advance(5)
    js = env.js()
    pod_template = js["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]
    pod_template.setdefault("metadata", {})["labels"] = {"kueue": "flavor-a"}
    pod_template["spec"]["nodeSelector"] = {"pool": "a"}
    pod_template["spec"]["tolerations"] = [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]
    js["spec"]["suspend"] = False
    env.cluster.update(js)
    jobs = {j["metadata"]["name"]: j for j in env.jobs()}
    assert all(j["spec"]["suspend"] is False for j in jobs.values())
    b0 = jobs["test-js-replicated-job-b-0"]["spec"]["template"]
    assert b0["metadata"]["labels"]["kueue"] == "flavor-a"
    assert b0["metadata"]["labels"][c.JOBSET_NAME_KEY] == JS  # merged, not replaced
    assert b0["spec"]["nodeSelector"] == {"pool": "a"}
    assert b0["spec"]["tolerations"] == [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]
    assert "nodeSelector" not in jobs[JOB_A0]["spec"]["template"]["spec"]
    assert env.condition(c.JOBSET_SUSPENDED) == {
        "type": "Suspended", "status": "False", "lastTransitionTime": t(5), "reason": "ResumeJobs",
        "message": "jobset is resumed"}


def test_suspending_a_running_jobset_suspends_active_jobs() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    env.complete(JOB_A0)
    js = env.js()
    js["spec"]["suspend"] = True
    env.cluster.update(js)
    suspended = {j["metadata"]["name"]: j["spec"]["suspend"] for j in env.jobs()}
    assert suspended == {JOB_A0: False, **{n: True for n in ALL_JOBS[1:]}}
    assert env.condition(c.JOBSET_SUSPENDED)["status"] == "True"


# =========================================================================== TTL, managedBy


def test_ttl_after_finished_deletes_the_jobset_at_the_exact_time() -> None:
    env = Env()
    env.cluster.apply(test_jobset().ttl_seconds_after_finished(5))
    env.cluster.advance(2.5)
    for name in ALL_JOBS:
        env.complete(name)
    assert env.condition(c.JOBSET_COMPLETED)["lastTransitionTime"] == t(2)
    # finished at 00:00:02 (second precision) + 5 s → deleted at t = 7 s exactly.
    env.cluster.run_until(lambda: bool(env.js()["metadata"].get("deletionTimestamp")), timeout=60)
    assert env.cluster.loop.now == 7 * SECOND
    assert env.js()["metadata"]["deletionTimestamp"] == t(7)
    assert env.js()["metadata"]["finalizers"] == ["foregroundDeletion"]


def test_managed_by_another_controller_is_skipped() -> None:
    env = Env()
    env.cluster.apply(test_jobset().managed_by("kueue.x-k8s.io/multikueue"))
    assert env.jobs() == []
    assert env.cluster.list("services", NS) == []
    assert "status" not in env.js() or env.js()["status"] in ({}, {"restarts": 0})
    assert env.cluster.trace.grep("managed by kueue.x-k8s.io/multikueue: skipped")


def test_jobs_owned_by_another_jobset_uid_are_ignored() -> None:
    env = Env()
    env.cluster.apply(test_jobset())
    stranger = env.job(JOB_A0)
    for key in ("uid", "resourceVersion", "creationTimestamp"):
        stranger["metadata"].pop(key)
    stranger["metadata"]["name"] = "stranger"
    stranger["metadata"]["ownerReferences"][0]["uid"] = "another-uid"
    stranger["spec"].pop("selector")
    stranger["spec"]["template"]["metadata"]["labels"] = {
        k: v for k, v in stranger["spec"]["template"]["metadata"]["labels"].items() if "controller-uid" not in k
        and "job-name" not in k}
    env.cluster.create(stranger)
    update_job_status(env.cluster, "stranger", NS, fail_job_status(env.job("stranger"), t(0)))
    assert env.condition(c.JOBSET_FAILED) is None
