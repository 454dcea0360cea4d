"""Default preemption: victims, nomination, reservations and the messages (fakekube.components.scheduler)."""

from __future__ import annotations

from typing import Any

from fakekube.cluster import FakeCluster
from tests.fakekube.test_scheduler import make_cluster, node_of, pod, priority_class, scheduled_condition


def conditions(cluster: FakeCluster, name: str) -> dict[str, dict[str, Any]]:
    return {c["type"]: c for c in cluster.get("pods", name)["status"].get("conditions") or []}


def full_node(cluster: FakeCluster) -> None:
    cluster.create(priority_class("low", 1))
    cluster.create(priority_class("high", 1000))
    cluster.add_node("n", capacity={"cpu": "2"})
    cluster.create(pod("low-a", cpu="1", priorityClassName="low"))
    cluster.create(pod("low-b", cpu="1", priorityClassName="low", terminationGracePeriodSeconds=5))
    cluster.advance(1)
    assert (node_of(cluster, "low-a"), node_of(cluster, "low-b")) == ("n", "n")


def test_a_higher_priority_pod_preempts_one_victim_and_takes_its_place() -> None:
    cluster, _ = make_cluster()  # no kubelet: the victim stays terminating until the test removes it
    full_node(cluster)
    cluster.create(pod("high", cpu="1", priorityClassName="high"))
    cluster.advance(0.5)
    high = cluster.get("pods", "high")
    assert high["status"]["nominatedNodeName"] == "n"
    assert scheduled_condition(cluster, "high")["message"] == "0/1 nodes are available: 1 Insufficient cpu."
    # one victim is enough; the least important (same priority: the last name) goes
    victim = cluster.get("pods", "low-b")
    assert victim["metadata"].get("deletionTimestamp")
    target = conditions(cluster, "low-b")["DisruptionTarget"]
    assert {k: target[k] for k in ("type", "status", "reason", "message")} == {
        "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod"}
    assert not cluster.get("pods", "low-a")["metadata"].get("deletionTimestamp")
    [event] = cluster.events(reason="Preempted")
    assert event["message"] == f"Preempted by pod {high['metadata']['uid']} on node n"
    assert event["involvedObject"]["name"] == "low-b"
    # a newcomer of the victims' priority cannot take the room reserved for the nominee
    cluster.create(pod("low-c", cpu="1", priorityClassName="low"))
    cluster.add_node("small", capacity={"cpu": "500m"})  # a node event: the nominee is retried
    cluster.advance(3)
    assert node_of(cluster, "high") is None  # the victim still holds its cpu while it terminates
    assert scheduled_condition(cluster, "high")["message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due "
        "to a terminating pod on the nominated node..")
    assert len(cluster.events(reason="Preempted")) == 1  # nothing more is preempted meanwhile
    cluster.delete_pod("low-b", grace_period_seconds=0)
    cluster.advance(10)
    assert node_of(cluster, "high") == "n"
    assert node_of(cluster, "low-c") is None


def test_no_preemption_for_equal_priority_or_policy_never() -> None:
    cluster, _ = make_cluster()
    full_node(cluster)
    cluster.create(pod("peer", cpu="1", priorityClassName="low"))
    cluster.create(priority_class("polite", 1000, preemptionPolicy="Never"))
    cluster.create(pod("polite", cpu="1", priorityClassName="polite"))
    cluster.advance(1)
    assert scheduled_condition(cluster, "peer")["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are "
        "available: 1 No preemption victims found for incoming pod..")
    assert scheduled_condition(cluster, "polite")["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due "
        "to preemptionPolicy=Never..")
    assert not cluster.events(reason="Preempted")


def test_a_node_where_removing_victims_does_not_help_reports_its_reasons() -> None:
    cluster, _ = make_cluster()
    full_node(cluster)
    cluster.create(pod("huge", cpu="3", priorityClassName="high"))
    cluster.advance(1)
    assert scheduled_condition(cluster, "huge")["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are "
        "available: 1 Preemption is not helpful for scheduling..")
    assert not cluster.events(reason="Preempted")
