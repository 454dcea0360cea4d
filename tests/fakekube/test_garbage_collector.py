"""Garbage collection through ownerReferences with each propagation policy."""

from __future__ import annotations

import pytest

from fakekube import FakeCluster


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(seed=0)


def owner_and_dependent(cluster: FakeCluster, *, block: bool = True, finalizer: str | None = None) -> None:
    owner = cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}})
    meta: dict = {"name": "dep", "ownerReferences": [{
        "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"],
        "controller": True, "blockOwnerDeletion": block}]}
    if finalizer:
        meta["finalizers"] = [finalizer]
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})


def test_background_deletion_removes_owner_then_dependents(cluster: FakeCluster) -> None:
    owner_and_dependent(cluster)
    cluster.delete("configmaps", "owner", propagation_policy="Background")
    assert not cluster.exists("configmaps", "owner")
    assert not cluster.exists("configmaps", "dep")
    assert cluster.trace.grep("garbage-collector delete configmaps default/dep (owners gone; propagationPolicy=Background)")


def test_orphan_deletion_strips_the_owner_reference(cluster: FakeCluster) -> None:
    owner_and_dependent(cluster)
    cluster.delete("configmaps", "owner", propagation_policy="Orphan")
    assert not cluster.exists("configmaps", "owner")
    assert "ownerReferences" not in cluster.get("configmaps", "dep")["metadata"]


def test_foreground_deletion_waits_for_blocking_dependents(cluster: FakeCluster) -> None:
    owner_and_dependent(cluster, finalizer="example.com/hold")
    cluster.delete("configmaps", "owner", propagation_policy="Foreground")
    owner = cluster.get("configmaps", "owner")
    assert owner["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert cluster.get("configmaps", "dep")["metadata"]["deletionTimestamp"]
    cluster.patch("configmaps", "dep", {"metadata": {"finalizers": None}})
    assert not cluster.exists("configmaps", "dep")
    assert not cluster.exists("configmaps", "owner")


def test_foreground_does_not_wait_for_non_blocking_dependents(cluster: FakeCluster) -> None:
    owner_and_dependent(cluster, block=False, finalizer="example.com/hold")
    cluster.delete("configmaps", "owner", propagation_policy="Foreground")
    assert not cluster.exists("configmaps", "owner")
    assert cluster.get("configmaps", "dep")["metadata"]["deletionTimestamp"]


def test_dependent_of_a_recreated_owner_is_collected(cluster: FakeCluster) -> None:
    """Owners are matched by UID: a new object with the old name does not adopt the dependent."""
    owner_and_dependent(cluster)
    cluster.delete("configmaps", "owner", propagation_policy="Orphan")
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ghost", "ownerReferences": [{
        "apiVersion": "v1", "kind": "ConfigMap", "name": "dep", "uid": "00000000-0000-4000-8000-000000000000"}]}})
    assert not cluster.exists("configmaps", "ghost")


def test_simulate_false_has_no_garbage_collector() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    owner_and_dependent(cluster)
    cluster.delete("configmaps", "owner", propagation_policy="Background")
    assert cluster.exists("configmaps", "dep")
