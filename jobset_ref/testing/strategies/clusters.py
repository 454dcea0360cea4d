"""Strategies for clusters: :func:`cluster_shapes` draws node pools spread over zones, as a
:class:`ClusterShape` that registers its nodes on a :class:`fakekube.FakeCluster`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from fakekube import FakeCluster, UsageError
from jobset_ref.testing.strategies._arguments import (
    DEFAULT_TOPOLOGY_KEYS,
    Feature,
    _check_bounds,
    _check_feature,
    _check_strategy,
    _want,
)

__all__ = ["ClusterShape", "NodeShape", "cluster_shapes"]

# =============================================================================== cluster shapes


@dataclass(frozen=True, slots=True)
class NodeShape:
    """One node: name, labels (pool, zone …), capacity, taints."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    capacity: dict[str, str] = field(default_factory=dict)
    taints: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class ClusterShape:
    """A set of nodes in pools and zones; ``apply(cluster)`` registers them."""

    nodes: tuple[NodeShape, ...]
    topology_keys: tuple[str, ...] = DEFAULT_TOPOLOGY_KEYS

    def apply(self, cluster: FakeCluster) -> None:
        for node in self.nodes:
            cluster.add_node(node.name, labels=dict(node.labels), capacity=dict(node.capacity) or None,
                             taints=[dict(t) for t in node.taints] or None)

    def domains(self, key: str) -> dict[str, list[str]]:
        """Topology value → node names for label ``key``."""
        out: dict[str, list[str]] = {}
        for node in self.nodes:
            if key in node.labels:
                out.setdefault(node.labels[key], []).append(node.name)
        return out

    @property
    def node_names(self) -> list[str]:
        return [n.name for n in self.nodes]


def cluster_shapes(*, min_pools: int = 1, max_pools: int = 4, min_nodes_per_pool: int = 1,
                   max_nodes_per_pool: int = 3, min_zones: int = 1, max_zones: int = 2,
                   cpus: SearchStrategy[int] | None = None, max_pods_per_node: SearchStrategy[int] | None = None,
                   tainted: Feature = False,
                   topology_keys: Sequence[str] = DEFAULT_TOPOLOGY_KEYS) -> SearchStrategy[ClusterShape]:
    """Clusters of node pools spread over zones.

    Every node gets ``topology_keys[0]`` = its pool name (``pool-<i>``) and, if there is a second
    key, ``topology_keys[1]`` = its zone (``zone-<j>``). ``cpus``/``max_pods_per_node`` draw
    per-pool capacities; ``tainted`` adds a ``NoSchedule`` taint to some pools (pods without a
    toleration stay Pending there).
    """
    _check_bounds("pools", min_pools, max_pools, floor=1)
    _check_bounds("nodes_per_pool", min_nodes_per_pool, max_nodes_per_pool, floor=1)
    _check_bounds("zones", min_zones, max_zones, floor=1)
    _check_feature("tainted", tainted)
    if not topology_keys:
        raise UsageError("topology_keys must name at least one node label key")
    cpu_strategy = cpus if cpus is not None else st.sampled_from([4, 8, 32])
    pods_strategy = max_pods_per_node if max_pods_per_node is not None else st.sampled_from([110, 110, 8])
    _check_strategy("cpus", cpu_strategy)
    _check_strategy("max_pods_per_node", pods_strategy)
    keys = tuple(topology_keys)

    @st.composite
    def build(draw: st.DrawFn) -> ClusterShape:
        pools = draw(st.integers(min_pools, max_pools))
        zones = draw(st.integers(min_zones, max_zones))
        nodes: list[NodeShape] = []
        for p in range(pools):
            size = draw(st.integers(min_nodes_per_pool, max_nodes_per_pool))
            zone = f"zone-{draw(st.integers(0, zones - 1))}"
            cap = {"cpu": str(draw(cpu_strategy)), "memory": "64Gi", "pods": str(draw(pods_strategy))}
            taints: tuple[dict[str, Any], ...] = ()
            if _want(draw, tainted) and tainted is not False and p > 0:
                taints = ({"key": "dedicated", "value": f"pool-{p}", "effect": "NoSchedule"},)
            for n in range(size):
                labels = {keys[0]: f"pool-{p}"}
                if len(keys) > 1:
                    labels[keys[1]] = zone
                nodes.append(NodeShape(f"pool-{p}-node-{n}", labels, cap, taints))
        return ClusterShape(tuple(nodes), keys)

    return build()
