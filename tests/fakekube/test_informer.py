"""Shared informers: a watched cache with secondary indexes that follow every change."""

from __future__ import annotations

from typing import Any

from fakekube import FakeCluster
from fakekube.testing.builders import make_pod


def _cluster() -> FakeCluster:
    return FakeCluster(seed=0, simulate=False)


def _names(objs: list[dict[str, Any]]) -> list[str]:
    return [o["metadata"]["name"] for o in objs]


def test_index_follows_label_changes_and_deletion() -> None:
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    pods.add_index("team", lambda p: [t] if (t := (p["metadata"].get("labels") or {}).get("team")) else [],
                   uses=("metadata.labels",))
    for name, team in [("b", "red"), ("a", "red"), ("c", "blue")]:
        cluster.create(make_pod(name, labels={"team": team}))
    cluster.run_until_idle()
    assert _names(pods.by_index("team", "red")) == ["a", "b"]
    cluster.patch("pods", "a", {"metadata": {"labels": {"team": "blue"}}})
    cluster.run_until_idle()
    assert _names(pods.by_index("team", "red")) == ["b"]
    assert _names(pods.by_index("team", "blue")) == ["a", "c"]
    cluster.delete("pods", "c", grace_period_seconds=0)
    cluster.run_until_idle()
    assert _names(pods.by_index("team", "blue")) == ["a"]
    assert pods.count_index("team", "blue") == 1 and pods.get("c", "default") is None


def test_an_index_with_uses_is_not_recomputed_when_those_fields_are_unchanged() -> None:
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    calls: list[str] = []

    def by_node(pod: dict[str, Any]) -> list[str]:
        calls.append(pod["metadata"]["name"])
        node = pod["spec"].get("nodeName")
        return [node] if node else []

    pods.add_index("node", by_node, uses=("spec.nodeName",))
    cluster.create(make_pod("p", nodeName="n1"))
    cluster.run_until_idle()
    assert calls == ["p"]
    cluster.patch("pods", "p", {"metadata": {"labels": {"x": "y"}}})  # nodeName unchanged
    cluster.patch("pods", "p", {"status": {"phase": "Running"}}, subresource="status")
    cluster.run_until_idle()
    assert calls == ["p"]
    assert _names(pods.by_index("node", "n1")) == ["p"]


def test_an_index_without_uses_sees_every_change() -> None:
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    pods.add_index("phase", lambda p: [(p.get("status") or {}).get("phase") or "none"])
    cluster.create(make_pod("p"))
    cluster.run_until_idle()
    assert _names(pods.by_index("phase", "Pending")) == ["p"]
    cluster.patch("pods", "p", {"status": {"phase": "Running"}}, subresource="status")
    cluster.run_until_idle()
    assert pods.by_index("phase", "Pending") == [] and _names(pods.by_index("phase", "Running")) == ["p"]


def test_an_index_added_late_covers_cached_objects_and_survives_a_relist() -> None:
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    cluster.create(make_pod("p", labels={"team": "red"}))
    cluster.run_until_idle()
    pods.add_index("team", lambda p: [p["metadata"]["labels"]["team"]], uses=("metadata.labels",))
    assert _names(pods.by_index("team", "red")) == ["p"]
    pods.restart()
    cluster.run_until_idle()
    assert _names(pods.by_index("team", "red")) == ["p"] and len(pods) == 1
