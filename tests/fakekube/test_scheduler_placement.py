"""fakekube.components.scheduler: every placement is the spec's choice, whatever the indexes do.

The spec (module docstring): among the nodes that pass every filter, the highest score wins, ties
broken by node name. The scheduler finds that node through orders it keeps up to date (per label,
per topology domain, guarded domains); here every decision it makes on random clusters, while
nodes come, go and change labels and pods come, finish and go, is compared with the naive answer:
filter every node, take the best.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from fakekube.cluster import FakeCluster
from fakekube.components.scheduler import Scheduler

POOL, ZONE, RACK = "pool", "zone", "rack"


class CheckedScheduler(Scheduler):
    """Checks each choice against the naive one, over a fresh attempt (no shared memos)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.checked = 0
        self.placed = 0

    def _find_node(self, at: Any) -> str | None:
        chosen = super()._find_node(at)
        fresh = self._attempt(at.pod)
        feasible = [n for n in self._nodes.values() if self._filter(n, fresh) is None]
        expected = min(feasible, key=lambda n: n.order_key()).name if feasible else None
        assert chosen == expected, (at.pod["metadata"]["name"], chosen, expected)
        self.checked += 1
        self.placed += chosen is not None
        return chosen


def make_cluster() -> tuple[FakeCluster, CheckedScheduler]:
    cluster = FakeCluster(seed=0, simulate=False)
    scheduler = CheckedScheduler(cluster.runtime)
    cluster.add_component(scheduler)
    return cluster, scheduler


def node_labels(rng: random.Random) -> dict[str, str]:
    labels = {POOL: f"p{rng.randrange(5)}", RACK: f"r{rng.randrange(8)}"}
    if rng.random() < 0.85:  # a few nodes lack the zone label
        labels[ZONE] = f"z{rng.randrange(3)}"
    return labels


def add_random_node(cluster: FakeCluster, rng: random.Random, name: str) -> None:
    capacity: dict[str, Any] = {"cpu": str(rng.choice([2, 4, 8])), "memory": rng.choice(["8Gi", "16Gi"]),
                                "pods": str(rng.choice([2, 3, 110]))}
    if rng.random() < 0.5:
        capacity["google.com/tpu"] = "4"
    taints = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}] if rng.random() < 0.1 else None
    cluster.add_node(name, labels=node_labels(rng), capacity=capacity, taints=taints)


def exclusive(job: str, key: str, priority: str) -> dict[str, Any]:
    """JobSet's exclusive-placement affinities for a leader of ``job`` (pod webhook)."""
    def term(exprs: list[dict[str, Any]]) -> dict[str, Any]:
        return {"labelSelector": {"matchExpressions": exprs}, "topologyKey": key, "namespaceSelector": {}}
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                term([{"key": "job-key", "operator": "In", "values": [job]}])]},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                term([{"key": "job-key", "operator": "Exists"},
                      {"key": "job-key", "operator": "NotIn", "values": [job]},
                      {"key": "priority", "operator": "In", "values": [priority]}])]}}


def random_pod(rng: random.Random, name: str) -> dict[str, Any]:
    labels = {"app": rng.choice(["web", "db", "batch"])}
    spec: dict[str, Any] = {}
    resources: dict[str, Any] = {}
    if rng.random() < 0.6:
        resources["requests"] = {"cpu": rng.choice(["500m", "1", "2"])}
    if rng.random() < 0.3:
        resources["limits"] = {"google.com/tpu": "4"}
    kind = rng.randrange(8)
    if kind == 0:
        spec["nodeSelector"] = {POOL: f"p{rng.randrange(6)}"}
    elif kind == 1:
        values = rng.sample([f"p{i}" for i in range(5)], rng.randint(1, 3))
        expr = {"key": POOL, "operator": rng.choice(["In", "In", "NotIn"]), "values": values}
        terms = [{"matchExpressions": [expr]}]
        if rng.random() < 0.4:
            terms.append({"matchFields": [{"key": "metadata.name", "operator": "In",
                                           "values": [f"n{rng.randrange(40)}", f"n{rng.randrange(40)}"]}]})
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": terms}}}
    elif kind in (2, 3):
        job = f"job{rng.randrange(6)}"
        priority = rng.choice(["0", "0", "1"])
        labels.update({"job-key": job, "priority": priority})
        spec["affinity"] = exclusive(job, rng.choice([RACK, RACK, ZONE, POOL, "kubernetes.io/hostname"]), priority)
    elif kind == 4:
        job = f"job{rng.randrange(6)}"
        labels.update({"job-key": job, "priority": "0"})
        spec["nodeSelector"] = {RACK: f"r{rng.randrange(8)}"}
    elif kind == 5:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": labels["app"]}},
             "topologyKey": rng.choice([ZONE, RACK, "kubernetes.io/hostname"])}]}}
    elif kind == 6:
        spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": rng.choice(["web", "db"])}}, "topologyKey": ZONE}]}}
    if rng.random() < 0.1:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    container: dict[str, Any] = {"name": "main", "image": "busybox"}
    if resources:
        container["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [container], **spec}}


@pytest.mark.parametrize("seed", range(8))
def test_every_placement_is_the_best_feasible_node(seed: int) -> None:
    rng = random.Random(seed)
    cluster, scheduler = make_cluster()
    nodes = [f"n{i}" for i in range(rng.randint(20, 40))]
    for name in nodes:
        add_random_node(cluster, rng, name)
    pods: list[str] = []
    for step in range(12):
        for _ in range(rng.randint(3, 15)):
            name = f"s{step}-p{len(pods)}"
            cluster.client.create(random_pod(rng, name), namespace="default")
            pods.append(name)
        cluster.advance(0.5)
        for name in rng.sample(pods, min(len(pods), rng.randint(0, 4))):  # some pods go
            cluster.delete("pods", name, grace_period_seconds=0)
            pods.remove(name)
        for name in rng.sample(pods, min(len(pods), rng.randint(0, 3))):  # some finish (still exist)
            live = cluster.get("pods", name)
            if live["spec"].get("nodeName"):
                live.setdefault("status", {})["phase"] = "Succeeded"
                cluster.update_status(live)
        if nodes and rng.random() < 0.4:  # a node changes its labels (moves to another domain)
            cluster.patch("nodes", rng.choice(nodes), {"metadata": {"labels": node_labels(rng)}}, None)  # type: ignore[arg-type]
        if nodes and rng.random() < 0.3:
            gone = rng.choice(nodes)
            cluster.remove_node(gone)
            nodes.remove(gone)
        if rng.random() < 0.4:
            nodes.append(f"n{100 + step}")
            add_random_node(cluster, rng, nodes[-1])
        cluster.advance(rng.choice([0.5, 11.0]))  # sometimes long enough for every retry
    assert scheduler.checked >= 60 and scheduler.placed >= 30


class CountingScheduler(Scheduler):
    """Counts the nodes it filters."""

    filtered = 0

    def _filter(self, node: Any, at: Any) -> Any:
        self.filtered += 1
        return super()._filter(node, at)


def test_exclusive_placement_filters_one_node_per_pod() -> None:
    """The multislice shape: leaders pass over taken pools without looking at their nodes, and
    followers of a pool take its first free node, so each pod is filtered against one node."""
    cluster = FakeCluster(seed=0, simulate=False)
    scheduler = CountingScheduler(cluster.runtime)
    cluster.add_component(scheduler)
    pools, size = 24, 8
    for p in range(pools):
        cluster.add_nodes(size, name_prefix=f"pool{p}", labels={POOL: f"pool{p}"}, capacity={"google.com/tpu": "4"})
    container = {"name": "main", "image": "x", "resources": {"limits": {"google.com/tpu": "4"}}}

    def create(name: str, job: int, **spec: Any) -> None:
        cluster.client.create({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": name, "labels": {"job-key": f"job{job}", "priority": "0"}},
                               "spec": {"containers": [container], **spec}}, namespace="default")

    for j in range(pools):
        create(f"job{j}-0", j, affinity=exclusive(f"job{j}", POOL, "0"))
    cluster.advance(1)
    leader_pools = [cluster.get("nodes", cluster.get("pods", f"job{j}-0")["spec"]["nodeName"])["metadata"]["labels"][POOL]
                    for j in range(pools)]
    assert sorted(leader_pools) == sorted(f"pool{p}" for p in range(pools))
    for j in range(pools):
        for i in range(1, size):
            create(f"job{j}-{i}", j, nodeSelector={POOL: leader_pools[j]})
    cluster.advance(1)
    assert scheduler.scheduled == pools * size
    assert scheduler.filtered == pools * size
