"""fakekube.components.scheduler: filters, placement, exact FitError texts and retries (spec §4)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.cluster import FakeCluster
from fakekube.components.scheduler import Scheduler, pod_requests

TAIL_NO_VICTIMS = "no new claims to deallocate, preemption: 0/{n} nodes are available: {n} No preemption victims found for incoming pod.."
TAIL_NOT_HELPFUL = "no new claims to deallocate, preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling.."


def make_cluster() -> tuple[FakeCluster, Scheduler]:
    cluster = FakeCluster(seed=0, simulate=False)
    scheduler = Scheduler(cluster.runtime)
    cluster.add_component(scheduler)
    return cluster, scheduler


def pod(name: str, *, labels: dict[str, str] | None = None, cpu: str | None = None, namespace: str = "default",
        **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": "busybox"}
    if cpu is not None:
        container["resources"] = {"requests": {"cpu": cpu}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {"app": "x"}},
            "spec": {"containers": [container], **spec}}


def priority_class(name: str, value: int, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **fields}


def node_of(cluster: FakeCluster, name: str, namespace: str = "default") -> str | None:
    return cluster.get("pods", name, namespace)["spec"].get("nodeName")


def scheduled_condition(cluster: FakeCluster, name: str) -> dict[str, Any]:
    conditions = cluster.get("pods", name)["status"].get("conditions") or []
    return next(c for c in conditions if c["type"] == "PodScheduled")


def anti_zone(app: str) -> dict[str, Any]:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "zone"}]}}


def test_binds_after_the_scheduling_delay_and_records_the_event() -> None:
    cluster, _ = make_cluster()
    cluster.add_node("n1")
    cluster.create(pod("p"))
    assert node_of(cluster, "p") is None
    elapsed = cluster.run_until(lambda: node_of(cluster, "p") is not None, timeout=1)
    assert elapsed == 0.010
    assert scheduled_condition(cluster, "p")["status"] == "True"
    [event] = cluster.events(reason="Scheduled")
    assert event["message"] == "Successfully assigned default/p to n1"
    assert event["source"] == {"component": "default-scheduler"}
    assert event["type"] == "Normal"
    assert "t=00:00:00.010 scheduler assigned default/p to n1" in cluster.trace.lines


def test_least_allocated_spreads_and_ties_break_by_node_name() -> None:
    cluster, _ = make_cluster()
    cluster.add_node("b", capacity={"cpu": "2"})
    cluster.add_node("a", capacity={"cpu": "2"})
    for i in range(5):
        cluster.create(pod(f"p{i}", cpu="1"))
    cluster.advance(1)
    assert [node_of(cluster, f"p{i}") for i in range(5)] == ["a", "b", "a", "b", None]
    cond = scheduled_condition(cluster, "p4")
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert cond["message"] == "0/2 nodes are available: 2 Insufficient cpu. " + TAIL_NO_VICTIMS.format(n=2)
    [event] = cluster.events(reason="FailedScheduling")
    assert event["type"] == "Warning" and event["message"] == cond["message"]


def test_node_selector_only_examines_the_pool() -> None:
    cluster, _ = make_cluster()
    for i in range(8):
        cluster.add_node(f"n{i}", labels={"pool": "tpu" if i in (5, 6) else "cpu"})
    cluster.create(pod("p", nodeSelector={"pool": "tpu"}))
    cluster.advance(1)
    assert node_of(cluster, "p") == "n5"
    cluster.create(pod("q", nodeSelector={"pool": "gpu"}))
    cluster.advance(1)
    assert scheduled_condition(cluster, "q")["message"] == (
        "0/8 nodes are available: 8 node(s) didn't match Pod's node affinity/selector. "
        + TAIL_NOT_HELPFUL.format(n=8))


@pytest.mark.parametrize(("expr", "expected"), [
    ({"key": "gen", "operator": "In", "values": ["v5", "v6"]}, "n2"),
    ({"key": "gen", "operator": "NotIn", "values": ["v4", "v5"]}, "n1"),
    ({"key": "gen", "operator": "Exists"}, "n2"),
    ({"key": "gen", "operator": "DoesNotExist"}, "n1"),
    ({"key": "cores", "operator": "Gt", "values": ["8"]}, "n3"),
    ({"key": "cores", "operator": "Lt", "values": ["8"]}, "n2"),
])
def test_required_node_affinity_operators(expr: dict[str, Any], expected: str) -> None:
    cluster, _ = make_cluster()
    cluster.add_node("n1")
    cluster.add_node("n2", labels={"gen": "v5", "cores": "4"})
    cluster.add_node("n3", labels={"gen": "v4", "cores": "16"})
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expr]}]}}}
    cluster.create(pod("p", affinity=affinity))
    cluster.advance(1)
    assert node_of(cluster, "p") == expected


def test_anti_affinity_spreads_one_pod_per_topology_domain() -> None:
    cluster, _ = make_cluster()
    for zone in ("z1", "z2", "z3"):
        for i in range(2):
            cluster.add_node(f"{zone}-n{i}", labels={"zone": zone})
    for i in range(4):
        cluster.create(pod(f"w{i}", labels={"app": "web"}, affinity=anti_zone("web")))
    cluster.advance(1)
    assert [node_of(cluster, f"w{i}") for i in range(3)] == ["z1-n0", "z2-n0", "z3-n0"]
    assert node_of(cluster, "w3") is None
    assert scheduled_condition(cluster, "w3")["message"] == (
        "0/6 nodes are available: 6 node(s) didn't match pod anti-affinity rules. " + TAIL_NO_VICTIMS.format(n=6))
    # Symmetry: a pod without affinity that an existing pod's anti-affinity term selects.
    cluster.add_node("z4-n0", labels={"zone": "z4"})
    cluster.create(pod("plain", labels={"app": "web"}))
    cluster.advance(0.5)
    assert node_of(cluster, "w3") == "z4-n0"  # retried when the node arrived
    assert node_of(cluster, "plain") is None
    assert scheduled_condition(cluster, "plain")["message"] == (
        "0/7 nodes are available: 7 node(s) didn't satisfy existing pods anti-affinity rules. "
        + TAIL_NO_VICTIMS.format(n=7))


def test_pod_affinity_first_pod_then_followers_in_its_domain() -> None:
    cluster, _ = make_cluster()
    for zone in ("z1", "z2"):
        for i in range(2):
            cluster.add_node(f"{zone}-n{i}", labels={"zone": zone}, capacity={"cpu": "1"})
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"job": "j"}}, "topologyKey": "zone", "namespaceSelector": {}}]}}
    cluster.create(pod("blocker", labels={"app": "b"}, cpu="1", nodeSelector={"kubernetes.io/hostname": "z1-n0"}))
    cluster.advance(1)
    cluster.create(pod("leader", labels={"job": "j"}, cpu="1", affinity=affinity))
    cluster.advance(1)
    assert node_of(cluster, "leader") == "z1-n1"  # the self-affine first pod may go anywhere
    cluster.create(pod("follower", labels={"job": "j"}, cpu="1", affinity=affinity))
    cluster.create(pod("other", labels={"job": "k"}, affinity={"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"job": "j"}}, "topologyKey": "zone"}]}}, namespace="kube-system"))
    cluster.advance(1)
    assert node_of(cluster, "follower") is None  # z1 is full and z2 holds no pod of job j
    assert scheduled_condition(cluster, "follower")["message"] == (
        "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) didn't match pod affinity rules. "
        "no new claims to deallocate, preemption: 0/4 nodes are available: "
        "2 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling..")
    # "other" looks for job=j pods in its own namespace only: none there, and it is not self-affine.
    assert node_of(cluster, "other", "kube-system") is None
    cluster.delete("pods", "blocker")  # graceful, and no kubelet: terminating pods still count
    cluster.advance(2)
    assert node_of(cluster, "follower") is None
    cluster.delete("pods", "blocker", grace_period_seconds=0)
    cluster.advance(2)
    assert node_of(cluster, "follower") == "z1-n0"


def test_taints_tolerations_and_unschedulable_nodes() -> None:
    cluster, _ = make_cluster()
    cluster.add_node("gpu", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    cluster.add_node("soft", taints=[{"key": "x", "value": "y", "effect": "PreferNoSchedule"}])
    cordoned = cluster.add_node("cordoned")
    cordoned["spec"]["unschedulable"] = True
    cluster.update(cordoned)
    cluster.create(pod("p", nodeSelector={"kubernetes.io/os": "linux"}))
    cluster.advance(1)
    assert node_of(cluster, "p") == "soft"  # PreferNoSchedule does not filter
    cluster.delete("nodes", "soft", None)  # type: ignore[arg-type]
    cluster.create(pod("q"))
    cluster.advance(1)
    assert scheduled_condition(cluster, "q")["message"] == (
        "0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. "
        + TAIL_NOT_HELPFUL.format(n=2))
    cluster.create(pod("r", tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu",
                                          "effect": "NoSchedule"}]))
    cluster.create(pod("s", tolerations=[{"operator": "Exists"}], nodeSelector={"kubernetes.io/hostname": "cordoned"}))
    cluster.advance(1)
    assert node_of(cluster, "r") == "gpu"
    assert node_of(cluster, "s") == "cordoned"


def test_pods_of_one_cycle_differing_in_one_spec_field_are_placed_by_their_own_spec() -> None:
    """Pods scheduled one after another share what they read from equal spec fields; a pod that
    differs in any one of them (requests, tolerations, selector, priority) is judged by its own."""
    cluster, _ = make_cluster()
    cluster.add_node("small", capacity={"cpu": "2"}, labels={"pool": "a"})
    cluster.add_node("large", capacity={"cpu": "8"}, labels={"pool": "a"})
    cluster.add_node("tainted", capacity={"cpu": "8"}, labels={"pool": "b"},
                     taints=[{"key": "dedicated", "value": "b", "effect": "NoSchedule"}])
    toleration = [{"key": "dedicated", "operator": "Equal", "value": "b", "effect": "NoSchedule"}]
    cluster.create(pod("a1", cpu="1", nodeSelector={"pool": "a"}))
    cluster.create(pod("a2", cpu="1", nodeSelector={"pool": "a"}))
    cluster.create(pod("a3", cpu="7", nodeSelector={"pool": "a"}))  # fits large only, after a1 and a2
    cluster.create(pod("a4", cpu="2", nodeSelector={"pool": "a"}))  # then fits nowhere
    cluster.create(pod("b1", cpu="1", nodeSelector={"pool": "b"}))  # no toleration
    cluster.create(pod("b2", cpu="1", nodeSelector={"pool": "b"}, tolerations=toleration))
    cluster.advance(1)
    assert [node_of(cluster, name) for name in ("a1", "a2", "a3", "b2")] == ["large", "small", "large", "tainted"]
    assert scheduled_condition(cluster, "a4")["message"].startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: b}, 2 Insufficient cpu.")
    assert scheduled_condition(cluster, "b1")["message"].startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: b}, 2 node(s) didn't match")


def test_insufficient_resources_extended_resources_and_retry_on_new_node() -> None:
    cluster, _ = make_cluster()
    cluster.add_node("cpu-node", capacity={"cpu": "4", "pods": "1"})
    cluster.add_node("tpu-node", capacity={"cpu": "4", "google.com/tpu": "4"})
    big = pod("big", cpu="2")
    big["spec"]["containers"][0]["resources"]["limits"] = {"google.com/tpu": "8", "memory": "1Gi"}
    cluster.create(pod("filler", nodeSelector={"kubernetes.io/hostname": "cpu-node"}))
    cluster.create(big)
    cluster.advance(1)
    assert node_of(cluster, "filler") == "cpu-node"
    assert scheduled_condition(cluster, "big")["message"] == (
        "0/2 nodes are available: 1 Too many pods, 2 Insufficient google.com/tpu. "
        + TAIL_NOT_HELPFUL.format(n=2))  # 8 TPUs exceed every node's allocatable: unresolvable
    assert pod_requests(big["spec"]) == {"cpu": 2000, "google.com/tpu": 8, "memory": 1024**3}
    cluster.advance(4)  # t = 5: nothing changed, no retry, one event
    [event] = cluster.events(reason="FailedScheduling")
    assert event["count"] == 1
    cluster.add_node("big-tpu", capacity={"cpu": "8", "google.com/tpu": "8"})
    elapsed = cluster.run_until(lambda: node_of(cluster, "big") is not None, timeout=5)
    assert elapsed == 5.010  # retried SCHEDULING_DELAY after the node arrived
    assert node_of(cluster, "big") == "big-tpu"


def test_retry_respects_backoff_after_the_last_attempt() -> None:
    cluster, _ = make_cluster()
    cluster.add_node("n", capacity={"cpu": "1"})
    cluster.create(pod("hog", cpu="1"))
    cluster.create(pod("p", cpu="1"))
    cluster.advance(0.5)
    cluster.delete("pods", "hog", grace_period_seconds=0)  # frees the cpu at t=0.51; the first retry waits 1 s after 0.01
    elapsed = cluster.run_until(lambda: node_of(cluster, "p") is not None, timeout=5)
    assert elapsed == 1.010


def test_gated_pod_schedules_when_its_last_gate_is_removed() -> None:
    cluster, _ = make_cluster()
    cluster.add_node("n1")
    cluster.create(pod("g", schedulingGates=[{"name": "a"}, {"name": "b"}]))
    cluster.advance(2)
    assert node_of(cluster, "g") is None
    assert scheduled_condition(cluster, "g")["reason"] == "SchedulingGated"
    live = cluster.get("pods", "g")
    live["spec"]["schedulingGates"] = [{"name": "b"}]
    cluster.update(live)
    cluster.advance(1)
    assert node_of(cluster, "g") is None
    live = cluster.get("pods", "g")
    live["spec"]["schedulingGates"] = []
    cluster.update(live)
    elapsed = cluster.run_until(lambda: node_of(cluster, "g") is not None, timeout=1)
    assert elapsed == 3.010
    assert not cluster.events(reason="FailedScheduling")


def test_higher_priority_first_and_preemption_policy_never_message() -> None:
    cluster, _ = make_cluster()
    cluster.add_node("n", capacity={"cpu": "1"})
    cluster.create(pod("low", cpu="1"))
    cluster.create(priority_class("high", 100, preemptionPolicy="Never"))
    cluster.create(pod("high", cpu="1", priorityClassName="high"))
    cluster.advance(1)
    assert node_of(cluster, "high") == "n"
    assert scheduled_condition(cluster, "low")["message"].endswith(
        "no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for "
        "incoming pod..")
    cluster.create(priority_class("never", 0, preemptionPolicy="Never"))
    cluster.create(pod("never", cpu="1", priorityClassName="never"))
    cluster.advance(1)
    assert scheduled_condition(cluster, "never")["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
        "not eligible due to preemptionPolicy=Never..")


def test_no_nodes_message() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p"))
    cluster.advance(1)
    assert scheduled_condition(cluster, "p")["message"] == "no nodes available to schedule pods"


def test_exclusive_placement_style_scale() -> None:
    """400 nodes in 50 racks; 50 leaders with JobSet-style affinity + anti-affinity, then followers."""
    cluster, scheduler = make_cluster()
    for r in range(50):
        for i in range(8):
            cluster.add_node(f"r{r:02d}-n{i}", labels={"rack": f"rack-{r:02d}"}, capacity={"google.com/tpu": "4"})
    for j in range(50):
        key = f"job-{j:02d}"
        affinity = {
            "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchExpressions": [{"key": "job-key", "operator": "In", "values": [key]}]},
                "topologyKey": "rack", "namespaceSelector": {}}]},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchExpressions": [
                    {"key": "job-key", "operator": "Exists"},
                    {"key": "job-key", "operator": "NotIn", "values": [key]}]},
                "topologyKey": "rack", "namespaceSelector": {}}]}}
        leader = pod(f"{key}-0", labels={"job-key": key}, affinity=affinity)
        leader["spec"]["containers"][0]["resources"] = {"limits": {"google.com/tpu": "4"}}
        cluster.client.create(leader)
    cluster.advance(1)
    racks = {cluster.get("nodes", node_of(cluster, f"job-{j:02d}-0") or "")["metadata"]["labels"]["rack"]
             for j in range(50)}
    assert len(racks) == 50  # one leader per rack
    for j in range(50):
        rack = f"rack-{j:02d}"
        leader_rack = cluster.get("nodes", node_of(cluster, f"job-{j:02d}-0") or "")["metadata"]["labels"]["rack"]
        for i in range(1, 8):
            follower = pod(f"job-{j:02d}-{i}", labels={"job-key": f"job-{j:02d}"}, nodeSelector={"rack": leader_rack})
            follower["spec"]["containers"][0]["resources"] = {"limits": {"google.com/tpu": "4"}}
            cluster.client.create(follower)
        del rack
    cluster.advance(1)
    assert scheduler.scheduled == 400
    assert all(scheduler.node_usage(f"r{r:02d}-n{i}")["google.com/tpu"] == 4 for r in range(50) for i in range(8))
