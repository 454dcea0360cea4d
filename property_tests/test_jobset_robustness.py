"""Robustness: the controller converges to the same end state whatever the timing faults are:
controller restarts at any instant, injected API conflicts, delayed watch events, broken watches
(the informers relist) and late deliveries to the informers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube import FakeCluster, NotFound
from jobset_ref.api import constants as c
from jobset_ref.testing import invariants as inv
from jobset_ref.testing import strategies as s

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")

TIMING_FAULTS = ("restart-controllers", "conflict", "delay-watch", "break-watch", "delay-delivery")
ARMABLE = ("conflict", "delay-watch", "break-watch", "delay-delivery")  # may hit the JobSet's first writes


def end_state(cluster: FakeCluster, name: str) -> dict[str, Any]:
    """What must not depend on timing: the JobSet's status (without timestamps) and its Jobs."""
    try:
        js = cluster.get(inv.JOBSETS, name)
    except NotFound:  # e.g. deleted by TTL: a valid end state
        return {"jobset": None, "jobs": sorted(j["metadata"]["name"] for j in cluster.list("jobs"))}
    status = js.get("status") or {}
    jobs = []
    for job in cluster.list("jobs", label_selector=f"{c.JOBSET_NAME_KEY}={name}"):
        conds = sorted(cd["type"] for cd in (job.get("status") or {}).get("conditions") or []
                       if cd.get("status") == "True" and cd["type"] in ("Complete", "Failed"))
        jobs.append((job["metadata"]["name"], job["metadata"]["labels"].get(c.RESTARTS_KEY), conds,
                     bool(job["metadata"].get("deletionTimestamp"))))
    return {
        "terminalState": status.get("terminalState"),
        "restarts": status.get("restarts"),
        # The InOrder startup conditions record what a pass saw on the way, not the end: a pass that
        # first sees every Job of the last replicatedJob started when they have all succeeded
        # completes the JobSet and returns before the startup policy is looked at (upstream's
        # reconcile order), so a delayed watch can leave StartupPolicyInProgress=True where the calm
        # run reached StartupPolicyCompleted.
        "conditions": sorted((cd["type"], cd["status"], cd["reason"]) for cd in status.get("conditions") or []
                             if not cd["type"].startswith("StartupPolicy")),
        "replicatedJobsStatus": sorted((rs["name"], rs["ready"], rs["succeeded"], rs["failed"], rs["active"],
                                        rs["suspended"]) for rs in status.get("replicatedJobsStatus") or []),
        "jobs": sorted(jobs),
    }


def _converging_scenarios(fault_kinds: tuple[str, ...], max_faults: int) -> st.SearchStrategy[s.Scenario]:
    js = s.jobsets(suspend=st.none(), managed_by=st.none(), exclusive_placement=False, success_policy=False,
                   ttl_seconds_after_finished=st.none())
    # Pods all succeed: with failures racing completions the end state legitimately depends on timing.
    return s.scenarios(jobsets_strategy=js, fault_kinds=fault_kinds, max_faults=max_faults, horizon=120, forever=False,
                       exit_codes=st.just(0))


@settings(max_examples=30)
@given(_converging_scenarios(TIMING_FAULTS, 4), st.integers(0, 3), st.data())
def test_same_end_state_under_restarts_conflicts_and_delays(scenario: s.Scenario, seed: int,
                                                            data: st.DataObject) -> None:
    # Some faults are armed before the JobSet is applied, so they can hit its first writes.
    armed = data.draw(s.fault_timelines(scenario.jobset, max_size=2, horizon=1, kinds=ARMABLE), "armed").faults
    calm = s.Scenario(scenario.jobset, scenario.shape, scenario.scripts, s.FaultTimeline(()), scenario.horizon)
    baseline, _ = calm.run(seed)
    cluster, log = scenario.run(seed, armed=armed)
    cluster.clear_faults()
    cluster.advance(60)  # let every backoff and delayed event land
    baseline.advance(60)
    assert end_state(cluster, scenario.name) == end_state(baseline, scenario.name), (armed, log)
    inv.assert_invariants(cluster, scenario.name, context=f"after {log}")


@settings(max_examples=25)
@given(_converging_scenarios(("restart-controllers",), 3))
def test_controller_restarts_keep_every_invariant(scenario: s.Scenario) -> None:
    cluster = scenario.start(0)
    monitor = inv.Monitor(cluster)

    def check(cl: FakeCluster, fault: s.Fault, line: str) -> None:
        inv.assert_invariants(cl, scenario.name, monitor=monitor, context=f"after {line}")

    scenario.run(cluster=cluster, after_each=check)
    inv.assert_invariants(cluster, scenario.name, monitor=monitor, context="at the horizon")


def test_a_container_exit_while_the_kubelets_cache_is_behind_still_finishes_the_pod() -> None:
    """Found by the property above: controllers restart at 22 s, the relisted ADDED of the pod
    that exits at 22.01 s reaches the informers 0.5 s late, and the kubelet dropped that exit (its
    cache had no pod), so the Job never completed. The kubelet now reads the live pod."""
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "a", "namespace": "default"},
          "spec": {"replicatedJobs": [{"name": "a", "replicas": 1, "template": {"spec": {
              "parallelism": 2, "completionMode": "NonIndexed",
              "template": {"spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]}}}}}]}}
    shape = s.ClusterShape(nodes=(s.NodeShape(name="pool-0-node-0", labels={"cloud.google.com/gke-nodepool": "pool-0"},
                                              capacity={"cpu": "4", "memory": "64Gi", "pods": "110"}, taints=()),),
                           topology_keys=("cloud.google.com/gke-nodepool",))
    scripts = s.PodScripts(scripts=(
        s.PodScript(selector="jobset.sigs.k8s.io/jobset-name=a", duration=1.0, exit_code=0, ready_after=None,
                    reason=None),
        s.PodScript(selector="jobset.sigs.k8s.io/job-index=0", duration=21.0, exit_code=0, ready_after=1.0,
                    reason=None)))
    scenario = s.Scenario(jobset=js, shape=shape, scripts=scripts, horizon=120, feature_gates={},
                          timeline=s.FaultTimeline(faults=(s.RestartControllers(at=0.0), s.RestartControllers(at=22.0))))
    cluster, _ = scenario.run(0, armed=(s.DelayDelivery(at=0.0, resource="pods", nth=13, seconds=0.5),))
    cluster.clear_faults()
    cluster.advance(60)
    assert end_state(cluster, "a")["terminalState"] == "Completed"


def test_a_pod_bound_to_a_node_the_kubelet_learns_of_late_still_runs() -> None:
    """Found by the property above: the node's ADDED reached the informers 0.5 s late, after the
    pod was bound to it; the kubelet ignored the pod then and never looked again."""
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "a", "namespace": "default"},
          "spec": {"replicatedJobs": [{"name": "a", "replicas": 1, "template": {"spec": {
              "parallelism": 1, "completions": 1,
              "template": {"spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]}}}}}]}}
    shape = s.ClusterShape(nodes=(s.NodeShape(name="pool-0-node-0", labels={"cloud.google.com/gke-nodepool": "pool-0"},
                                              capacity={"cpu": "4", "memory": "64Gi", "pods": "110"}, taints=()),),
                           topology_keys=("cloud.google.com/gke-nodepool",))
    scripts = s.PodScripts(scripts=(s.PodScript(selector="jobset.sigs.k8s.io/jobset-name=a", duration=1.0,
                                                exit_code=0, ready_after=None, reason=None),))
    scenario = s.Scenario(jobset=js, shape=shape, scripts=scripts, horizon=120, feature_gates={},
                          timeline=s.FaultTimeline(faults=(s.RestartControllers(at=0.0),)))
    cluster, _ = scenario.run(0, armed=(s.DelayDelivery(at=0.0, resource="nodes", nth=1, seconds=0.5),))
    cluster.clear_faults()
    cluster.advance(60)
    assert end_state(cluster, "a")["terminalState"] == "Completed"
