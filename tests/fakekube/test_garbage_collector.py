"""Garbage collection through ownerReferences with each propagation policy."""

from __future__ import annotations

import pytest

from fakekube import FakeCluster, Reactor


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


class _GraphModel:
    """The graph upkeep written plainly: every write moves the object to the end of each of its
    owners' dependent lists; the GC's enqueues and dependent order must match it exactly."""

    def __init__(self) -> None:
        self.objects: dict[str, dict] = {}
        self.dependents: dict[str, dict[str, None]] = {}
        self.queued: list[tuple[str, str]] = []

    def on_event(self, kind: str, obj: dict) -> None:
        meta, uid = obj["metadata"], obj["metadata"]["uid"]
        previous = self.objects.get(uid)
        for owner in (previous or {"metadata": {}})["metadata"].get("ownerReferences") or ():
            self.dependents.get(owner["uid"], {}).pop(uid, None)
        if kind == "DELETED":
            self.objects.pop(uid, None)
            self.queued += [("dependent", d) for d in list(self.dependents.get(uid, ())) if d in self.objects]
            for owner in meta.get("ownerReferences") or ():
                entry = self.objects.get(owner["uid"])
                if entry is not None and entry["metadata"].get("deletionTimestamp"):
                    self.queued.append(("owner", owner["uid"]))
            return
        self.objects[uid] = obj
        owners = meta.get("ownerReferences") or ()
        for owner in owners:
            self.dependents.setdefault(owner["uid"], {})[uid] = None
        old = previous["metadata"].get("ownerReferences") if previous is not None else None
        if owners and owners != old and any(o["uid"] not in self.objects for o in owners):
            self.queued.append(("dependent", uid))
        finalizers = meta.get("finalizers") or ()
        if meta.get("deletionTimestamp") and ("orphan" in finalizers or "foregroundDeletion" in finalizers):
            self.queued.append(("owner", uid))


@pytest.mark.parametrize("seed", range(40))
def test_graph_upkeep_matches_the_plain_model(cluster: FakeCluster, seed: int) -> None:
    import random

    from fakekube.apiserver.server import WatchEvent
    from fakekube.components.garbage_collector import GarbageCollector

    gc = GarbageCollector(cluster.runtime)
    queued: list[tuple[str, str]] = []
    gc.queue = type("Q", (), {"enqueue": staticmethod(queued.append)})()
    model = _GraphModel()
    rnd = random.Random(seed)
    uids = [f"u{i}" for i in range(10)]
    live: dict[str, dict] = {}
    for _ in range(150):
        uid = rnd.choice(uids)
        prev = live.get(uid)
        if prev is not None and rnd.random() < 0.15:
            kind, obj = "DELETED", live.pop(uid)
        else:
            meta: dict = {"uid": uid, "name": uid, "namespace": "ns"}
            if prev is not None and rnd.random() < 0.6:  # same owners: shared list or an equal copy
                refs = prev["metadata"].get("ownerReferences")
                if refs is not None:
                    meta["ownerReferences"] = refs if rnd.random() < 0.5 else [dict(r) for r in refs]
            elif n := rnd.choice([0, 1, 1, 2, 3]):
                meta["ownerReferences"] = [{"uid": rnd.choice([*uids, "gone"])} for _ in range(n)]
            if rnd.random() < 0.2:
                meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
                meta["finalizers"] = rnd.sample(["orphan", "foregroundDeletion", "x"], rnd.randint(0, 2))
            kind, obj = ("ADDED" if prev is None or rnd.random() < 0.1 else "MODIFIED"), {"metadata": meta}
            live[uid] = obj
        gc._on_event("configmaps", WatchEvent(kind, obj))
        model.on_event(kind, obj)
        assert queued == model.queued
        for u in uids:
            assert gc._dependents_of(u) == [d for d in model.dependents.get(u, ()) if d in model.objects]
            assert bool(gc.dependents.get(u)) == bool(model.dependents.get(u))


def test_an_owner_found_missing_is_not_looked_up_again_for_its_other_dependents(cluster: FakeCluster) -> None:
    """``isDangling``'s absentOwnerCache: one live lookup of a deleted owner serves all its dependents."""
    owner = cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}})
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
    for i in range(3):
        cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"dep-{i}", "ownerReferences": [ref]}})
    # A get has no watch events to delay: this reactor only counts the lookups of the owner.
    lookups = cluster.inject(Reactor(verb="get", resource="configmaps", name="owner", delay_seconds=1))
    cluster.delete("configmaps", "owner", propagation_policy="Background")
    assert not any(cluster.exists("configmaps", f"dep-{i}") for i in range(3))
    assert lookups.matched == 1


def test_an_owner_of_a_kind_not_served_leaves_its_dependent_until_the_kind_is_served(cluster: FakeCluster) -> None:
    """Upstream's GC cannot map the kind (restMappingError) and retries instead of deleting: a dependent of
    a custom resource whose CRD is not installed yet survives, and is collected once the CRD is served."""
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dep", "ownerReferences": [{
        "apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "00000000-0000-4000-8000-000000000001"}]}})
    cluster.advance(600)
    assert cluster.exists("configmaps", "dep")
    cluster.create({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": "widgets.example.com"},
                    "spec": {"group": "example.com", "scope": "Namespaced",
                             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                                 "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}})
    cluster.advance(1)
    assert not cluster.exists("configmaps", "dep")
    assert cluster.trace.grep("garbage-collector delete configmaps default/dep (owners gone; propagationPolicy=Background)")
