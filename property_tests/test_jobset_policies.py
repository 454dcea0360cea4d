"""Success and failure policies against a small executable model.

* Completed exactly when the success policy is satisfied (never before, always eventually).
* Failed reasons/messages and restart counters follow the failure policy, failure by failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import jobset_ref
from fakekube import FakeCluster
from jobset_ref.api import constants as c
from jobset_ref.api.defaulting import apply_schema_defaults, default_jobset
from jobset_ref.testing import invariants as inv
from jobset_ref.testing import strategies as s

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")

JOB_FAILURE_REASON = c.JOB_REASON_BACKOFF_LIMIT_EXCEEDED
JOB_FAILURE_MESSAGE = "Job has reached the specified backoff limit"
NODES = s.ClusterShape(tuple(s.NodeShape(f"n{i}") for i in range(4)))


def _start(js: dict[str, Any], scripts: s.PodScripts, gates: dict[str, bool] | None = None
           ) -> tuple[FakeCluster, inv.Monitor]:
    cluster = FakeCluster(seed=0)
    NODES.apply(cluster)
    jobset_ref.install(cluster, feature_gates=gates or None)
    monitor = inv.Monitor(cluster)
    scripts.apply(cluster)
    cluster.apply(js)
    return cluster, monitor


def _stored(js: dict[str, Any]) -> dict[str, Any]:
    return apply_schema_defaults(default_jobset(apply_schema_defaults(js)))


# =============================================================================== success policy


def _completes(spec: dict[str, Any], finite: dict[str, bool]) -> dict[str, bool]:
    """Which replicatedJobs' Jobs all complete: pods finish and dependsOn lets them be created."""
    created: dict[str, bool] = {}
    done: dict[str, bool] = {}
    replicas = {r["name"]: r["replicas"] for r in spec["replicatedJobs"]}
    for r in spec["replicatedJobs"]:
        ok = True
        for dep in r.get("dependsOn") or []:
            d = dep["name"]
            if replicas[d] == 0:
                continue
            ok &= done[d] if dep["status"] == "Complete" else created[d]
        created[r["name"]] = ok
        done[r["name"]] = ok and finite[r["name"]]
    return done


def _success_expected(spec: dict[str, Any], done: dict[str, bool]) -> bool:
    policy = spec.get("successPolicy") or {"operator": "All"}
    rjobs = spec["replicatedJobs"]
    targets = policy.get("targetReplicatedJobs") or [r["name"] for r in rjobs]
    any_success = any(done[r["name"]] and r["replicas"] > 0 for r in rjobs)
    matching = sum(r["replicas"] for r in rjobs if r["name"] in targets and done[r["name"]])
    expected = 1 if policy["operator"] == "Any" else sum(r["replicas"] for r in rjobs if r["name"] in targets)
    return any_success and matching >= expected


@settings(max_examples=40)
@given(st.data())
def test_completed_exactly_when_the_success_policy_is_satisfied(data: st.DataObject) -> None:
    js = data.draw(s.jobsets(suspend=st.none(), managed_by=st.none(), exclusive_placement=False,
                             ttl_seconds_after_finished=st.none(), success_policy=True), "jobset")
    name = js["metadata"]["name"]
    spec = _stored(js)["spec"]
    finite = {r["name"]: data.draw(st.booleans(), f"finite[{r['name']}]") for r in spec["replicatedJobs"]}
    per_rjob = tuple(s.PodScript(f"{c.JOBSET_NAME_KEY}={name},{c.REPLICATED_JOB_NAME_KEY}={r}",
                                 float(data.draw(st.integers(1, 20), f"duration[{r}]")) if fin else None, 0, 0.0)
                     for r, fin in finite.items())
    scripts = s.PodScripts((s.PodScript(f"{c.JOBSET_NAME_KEY}={name}", None, 0, 0.0), *per_rjob))
    cluster, monitor = _start(js, scripts)
    for _ in range(6):
        cluster.advance(30)
        inv.assert_invariants(cluster, name, monitor=monitor)
    live = cluster.get(inv.JOBSETS, name)
    completed = inv._cond(live, c.JOBSET_COMPLETED)
    want = _success_expected(spec, _completes(spec, finite))
    assert (completed is not None and completed["status"] == "True") == want, (finite, live["status"])
    assert inv._cond(live, c.JOBSET_FAILED) is None
    event(f"completed={want}")
    if completed is None:
        return
    assert completed["reason"] == c.ALL_JOBS_COMPLETED_REASON
    assert live["status"]["terminalState"] == "Completed"
    # Never early: at the instant of completion, the successful Jobs already satisfied the policy.
    at = completed["lastTransitionTime"]
    policy = spec["successPolicy"]
    targets = policy.get("targetReplicatedJobs") or [r["name"] for r in spec["replicatedJobs"]]
    done_jobs = []
    for job in cluster.list("jobs", label_selector=f"{c.JOBSET_NAME_KEY}={name}"):
        cond = inv._cond(job, "Complete")
        if cond is not None and cond["status"] == "True" and cond["lastTransitionTime"] <= at:
            done_jobs.append(job["metadata"]["labels"][c.REPLICATED_JOB_NAME_KEY])
    expected = 1 if policy["operator"] == "Any" else sum(r["replicas"] for r in spec["replicatedJobs"]
                                                         if r["name"] in targets)
    assert done_jobs, "Completed before any Job succeeded"
    assert sum(1 for r in done_jobs if r in targets) >= expected, (done_jobs, policy)


@settings(max_examples=20)
@given(st.data())
def test_all_with_targets_ignores_other_replicated_jobs(data: st.DataObject) -> None:
    """``All`` + targets: the JobSet completes when the targets' Jobs do, even if others never finish."""
    js = data.draw(s.jobsets(min_replicated_jobs=2, min_replicas=1, suspend=st.none(), managed_by=st.none(),
                             exclusive_placement=False, depends_on=False, startup_policy=False,
                             ttl_seconds_after_finished=st.none()), "jobset")
    names = [r["name"] for r in js["spec"]["replicatedJobs"]]
    targets = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names) - 1, unique=True), "targets")
    js["spec"]["successPolicy"] = {"operator": "All", "targetReplicatedJobs": targets}
    name = js["metadata"]["name"]
    scripts = s.PodScripts((s.PodScript(f"{c.JOBSET_NAME_KEY}={name}", None, 0, 0.0), *(
        s.PodScript(f"{c.JOBSET_NAME_KEY}={name},{c.REPLICATED_JOB_NAME_KEY}={t}", 5.0, 0, 0.0) for t in targets)))
    cluster, monitor = _start(js, scripts)
    cluster.advance(60)
    inv.assert_invariants(cluster, name, monitor=monitor)
    live = cluster.get(inv.JOBSETS, name)
    assert live["status"].get("terminalState") == "Completed", (targets, live["status"])


# =============================================================================== failure policy


@dataclass
class FailureModel:
    """What the JobSet's status must say after each Job failure (§8)."""

    spec: dict[str, Any]
    restart_job_gate: bool
    restarts: int = 0
    counted: int = 0
    job_restarts: dict[str, list[int]] = field(default_factory=dict)
    job_counted: dict[str, list[int]] = field(default_factory=dict)
    failed_reason: str | None = None
    failed_message: str | None = None
    restarting_reason: str | None = None

    def _arrays(self, rjob: str) -> tuple[list[int], list[int]]:
        n = next(r["replicas"] for r in self.spec["replicatedJobs"] if r["name"] == rjob)
        return self.job_restarts.setdefault(rjob, [0] * n), self.job_counted.setdefault(rjob, [0] * n)

    def _matches(self, rule: dict[str, Any], rjob: str) -> bool:
        if rule.get("onJobFailureReasons") and JOB_FAILURE_REASON not in rule["onJobFailureReasons"]:
            return False
        patterns = rule.get("onJobFailureMessagePatterns") or []
        if patterns:
            hits = False
            for p in patterns:
                try:
                    hits |= re.search(p, JOB_FAILURE_MESSAGE) is not None
                except re.error:
                    continue  # invalid patterns are logged and skipped
            if not hits:
                return False
        return not rule.get("targetReplicatedJobs") or rjob in rule["targetReplicatedJobs"]

    def fail(self, rjob: str, index: int, job_name: str) -> None:
        suffix = f" (first failed job: {job_name})"
        policy = self.spec.get("failurePolicy")
        if policy is None:
            self.failed_reason, self.failed_message = c.FAILED_JOBS_REASON, c.FAILED_JOBS_MESSAGE + suffix
            return
        rule = next((r for r in policy.get("rules") or [] if self._matches(r, rjob)), None)
        action = rule["action"] if rule else "RestartJobSet"
        reason = c.RESTARTING_JOBSET_REASON_FAILURE_POLICY_FORMAT % rule["name"] if rule \
            else c.RESTARTING_JOBSET_REASON_DEFAULT_FAILURE_POLICY
        limit = int(policy.get("maxRestarts", 0))
        total = self.counted + sum(sum(v) for v in self.job_counted.values())
        if action == "FailJobSet":
            self.failed_reason = c.FAIL_JOBSET_ACTION_REASON
            self.failed_message = c.FAIL_JOBSET_ACTION_MESSAGE + suffix
        elif action in ("RestartJobSet", "RestartJob") and (
                (self.restart_job_gate and total >= limit) or (action == "RestartJobSet" and self.counted >= limit)):
            self.failed_reason = c.REACHED_MAX_RESTARTS_REASON
            self.failed_message = c.REACHED_MAX_RESTARTS_MESSAGE + suffix
        elif action == "RestartJobSet":
            self.restarts += 1
            self.counted += 1
            self.restarting_reason = reason
        elif action == "RestartJobSetAndIgnoreMaxRestarts":
            self.restarts += 1
            self.restarting_reason = reason
        else:
            restarts, counted = self._arrays(rjob)
            restarts[index] += 1
            if action == "RestartJob":
                counted[index] += 1

    @property
    def terminal(self) -> bool:
        return self.failed_reason is not None


@settings(max_examples=40)
@given(st.sampled_from([{}, {c.FEATURE_RESTART_JOB: True}]), st.data())
def test_failures_follow_the_failure_policy(gates: dict[str, bool], data: st.DataObject) -> None:
    with_policy = data.draw(st.sampled_from([True, True, True, False]), "failure_policy")
    js = data.draw(s.jobsets(restart_policies=st.just("Never"), backoff_limits=st.just(0), suspend=st.none(),
                             failure_policy=with_policy,
                             managed_by=st.none(), exclusive_placement=False, depends_on=False, startup_policy=False,
                             ttl_seconds_after_finished=st.none(), min_replicas=1, feature_gates=gates,
                             completion_modes=st.just("Indexed")), "jobset")
    name = js["metadata"]["name"]
    spec = _stored(js)["spec"]
    scripts = s.PodScripts((s.PodScript(f"{c.JOBSET_NAME_KEY}={name}", None, 0, 0.0),))
    cluster, monitor = _start(js, scripts, gates)
    model = FailureModel(spec, bool(gates.get(c.FEATURE_RESTART_JOB)))
    rjobs = [(r["name"], r["replicas"], r["template"]["spec"]["parallelism"]) for r in spec["replicatedJobs"]]
    count = data.draw(st.integers(1, 4), "failures")
    cluster.advance(5)
    for k in range(count):
        rjob, replicas, parallelism = data.draw(st.sampled_from(rjobs), f"target[{k}]")
        index = data.draw(st.integers(0, replicas - 1), f"job[{k}]")
        pod_index = data.draw(st.integers(0, parallelism - 1), f"pod[{k}]")
        code = data.draw(st.sampled_from([1, 137]), f"code[{k}]")
        line = s.FailPod(0, rjob, index, pod_index, code).apply(cluster, s.FaultContext(name))
        event("skipped failure" if line.startswith("skip") else "applied failure")
        if not line.startswith("skip"):
            assert not model.terminal, f"{line}: a pod still ran after the JobSet failed"
            model.fail(rjob, index, f"{name}-{rjob}-{index}")
        cluster.advance(25)
        inv.assert_invariants(cluster, name, monitor=monitor, feature_gates=gates, context=f"after failure {k}")
        status = cluster.get(inv.JOBSETS, name)["status"]
        assert status.get("restarts", 0) == model.restarts, (line, status)
        assert status.get("restartsCountTowardsMax", 0) == model.counted, (line, status)
        for rs in status.get("replicatedJobsStatus") or []:
            want_restarts, want_counted = model._arrays(rs["name"])
            zeros = [0] * len(want_restarts)
            assert (rs.get("jobRestarts") or zeros) == want_restarts, (line, status)
            assert (rs.get("jobRestartsCountTowardsMax") or zeros) == want_counted, (line, status)
        failed = inv._cond({"status": status}, c.JOBSET_FAILED)
        if model.terminal:
            assert failed is not None and failed["status"] == "True", (line, status)
            assert (failed["reason"], failed["message"]) == (model.failed_reason, model.failed_message)
            assert status["terminalState"] == "Failed"
        else:
            assert failed is None, (line, status)
            restarting = inv._cond({"status": status}, c.JOBSET_RESTARTING)
            if model.restarting_reason is None:
                assert restarting is None, status
            else:  # the restart has finished: every Job is back and ready
                assert restarting is not None and restarting["status"] == "False", status
                assert restarting["reason"] == c.RESTARTING_JOBSET_REASON_JOBS_READY
    event(f"end: {model.failed_reason or 'running'}, restarts={model.restarts}")
    if model.terminal:
        restarting = inv._cond(cluster.get(inv.JOBSETS, name), c.JOBSET_RESTARTING)
        if restarting is not None:
            assert (restarting["status"], restarting["reason"]) == ("False", c.RESTARTING_JOBSET_REASON_JOBSET_FAILED)
