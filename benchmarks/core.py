"""Core API-server benchmarks: object creation scaling and list-by-selector."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from fakekube import FakeCluster


@dataclass(frozen=True)
class Measurement:
    name: str
    size: int
    seconds: float

    @property
    def per_item_us(self) -> float:
        return self.seconds / max(1, self.size) * 1e6


def pod(i: int, group: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p-{i:06d}", "labels": {"app": "bench", "group": f"g{group}", "idx": str(i)}},
            "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]}}


def create_pods(count: int, groups: int = 200) -> tuple[FakeCluster, Measurement]:
    """Create ``count`` pods through the API server (validation, defaults, store, watch fan-out)."""
    cluster = FakeCluster(seed=0, simulate=False, trace=False)
    start = time.perf_counter()
    for i in range(count):
        cluster.api.create("pods", pod(i, i % groups))
    elapsed = time.perf_counter() - start
    assert cluster.api.store.count("pods") == count
    return cluster, Measurement("create pods", count, elapsed)


def list_by_selector(cluster: FakeCluster, *, repeat: int = 20) -> list[Measurement]:
    """List one group's pods by ``group=g7`` (an indexed equality term) out of all pods: the first
    list, which indexes the ``group`` key (the store indexes a label key from the first list that
    selects on it), then the average of ``repeat`` more."""
    total = cluster.api.store.count("pods")
    expected = len([1 for i in range(total) if i % 200 == 7])

    def listed() -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = cluster.api.list("pods", "default", label_selector="group=g7")["items"]
        return items

    start = time.perf_counter()
    first = listed()
    indexing = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(repeat):
        items = listed()
    elapsed = (time.perf_counter() - start) / repeat
    assert len(first) == len(items) == expected
    return [Measurement(f"first list group=g7 of {total} pods (indexes the key)", total, indexing),
            Measurement(f"list group=g7 of {total} pods ({expected} match)", total, elapsed)]


def list_set_based(cluster: FakeCluster, *, repeat: int = 5) -> Measurement:
    """A set-based selector: the union of the `in` values' index buckets, then the filter."""
    total = cluster.api.store.count("pods")
    start = time.perf_counter()
    for _ in range(repeat):
        cluster.api.list("pods", "default", label_selector="group in (g1,g2),app")
    return Measurement(f"list 'group in (g1,g2),app' of {total} pods (index union)", total,
                       (time.perf_counter() - start) / repeat)
