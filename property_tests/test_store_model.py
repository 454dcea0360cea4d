"""The API server's store against a plain dict model: create/update/patch/delete/list, conflicts,
and watch replay from any resourceVersion (or 410 Gone once compacted)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, precondition, rule

from fakekube import AlreadyExists, Conflict, FakeCluster, NotFound

NAMES = st.sampled_from(["a", "b", "c", "d"])
VALUES = st.text(alphabet="xyz", max_size=3)
HISTORY = 12


class StoreMachine(RuleBasedStateMachine):
    revisions = Bundle("revisions")

    def __init__(self) -> None:
        super().__init__()
        self.cluster = FakeCluster(seed=0, simulate=False, watch_history=HISTORY, trace=False)
        self.model: dict[str, dict[str, Any]] = {}
        self.snapshots: dict[int, dict[str, dict[str, Any]]] = {}
        self.writes: list[int] = []

    def _snapshot(self) -> None:
        rv = self.cluster.api.store.rv
        self.snapshots[rv] = {k: dict(v) for k, v in self.model.items()}

    @rule(target=revisions)
    def remember_revision(self) -> int:
        self._snapshot()
        return self.cluster.api.store.rv

    @rule(name=NAMES, value=VALUES)
    def create(self, name: str, value: str) -> None:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": value}}
        if name in self.model:
            try:
                self.cluster.create(body)
            except AlreadyExists:
                return
            raise AssertionError("create of an existing name succeeded")
        created = self.cluster.create(body)
        self.model[name] = {"v": value}
        self.writes.append(int(created["metadata"]["resourceVersion"]))

    @rule(name=NAMES, value=VALUES, stale=st.booleans())
    def update(self, name: str, value: str, stale: bool) -> None:
        if name not in self.model:
            return
        current = self.cluster.get("configmaps", name)
        rv = current["metadata"]["resourceVersion"]
        current["data"] = {"v": value}
        if stale:
            current["metadata"]["resourceVersion"] = str(int(rv) - 1)
            try:
                self.cluster.update(current)
            except Conflict:
                return
            raise AssertionError("an update with a stale resourceVersion succeeded")
        updated = self.cluster.update(current)
        changed = self.model[name] != {"v": value}
        assert (updated["metadata"]["resourceVersion"] != rv) == changed
        self.model[name] = {"v": value}

    @rule(name=NAMES, value=VALUES)
    def patch(self, name: str, value: str) -> None:
        if name not in self.model:
            try:
                self.cluster.patch("configmaps", name, {"data": {"v": value}})
            except NotFound:
                return
            raise AssertionError("patch of a missing object succeeded")
        self.cluster.patch("configmaps", name, {"data": {"v": value}})
        self.model[name] = {"v": value}

    @rule(name=NAMES)
    def delete(self, name: str) -> None:
        if name not in self.model:
            try:
                self.cluster.delete("configmaps", name)
            except NotFound:
                return
            raise AssertionError("delete of a missing object succeeded")
        self.cluster.delete("configmaps", name)
        del self.model[name]

    @rule(rv=revisions)
    def watch_replay_rebuilds_the_store(self, rv: int) -> None:
        stream = self.cluster.watch("configmaps", resource_version=str(rv))
        self.cluster.run_until_idle()
        stream.stop()
        events = stream.events
        if events and events[0].type == "ERROR":
            assert events[0].object["code"] == 410
            assert self.cluster.api.store.rv - rv > 0
            return
        state = {k: dict(v) for k, v in self.snapshots[rv].items()}
        last = rv
        for event in events:
            meta = event.object["metadata"]
            assert int(meta["resourceVersion"]) > last, "watch events out of resourceVersion order"
            last = int(meta["resourceVersion"])
            if event.type == "DELETED":
                del state[meta["name"]]
            else:
                state[meta["name"]] = dict(event.object["data"])
        assert state == self.model

    @precondition(lambda self: len(self.model) > 0)
    @rule()
    def compact(self) -> None:
        self.cluster.api.store.compact()

    @invariant()
    def list_matches_model(self) -> None:
        listed = self.cluster.client.list_object("configmaps", "default")
        items = listed["items"]
        assert [i["metadata"]["name"] for i in items] == sorted(self.model)
        assert {i["metadata"]["name"]: i["data"] for i in items} == self.model
        assert int(listed["metadata"]["resourceVersion"]) == self.cluster.api.store.rv
        assert all(int(i["metadata"]["resourceVersion"]) <= self.cluster.api.store.rv for i in items)


TestStoreModel = StoreMachine.TestCase
