"""Shared informers: a watched cache with secondary indexes that follow every change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from fakekube import FakeCluster, Reactor, UsageError
from fakekube.faults import BreakWatch, DelayDelivery, api_error
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

    pods.add_index("node", by_node, uses=("spec.nodeName", "metadata.name"))
    cluster.create(make_pod("p", nodeName="n1"))
    cluster.run_until_idle()
    assert calls == ["p"]
    cluster.patch("pods", "p", {"metadata": {"labels": {"x": "y"}}})  # nodeName unchanged
    cluster.patch("pods", "p", {"status": {"phase": "Running"}}, subresource="status")
    cluster.run_until_idle()
    assert calls == ["p"]
    assert _names(pods.by_index("node", "n1")) == ["p"]


def test_indexes_sharing_declared_paths_each_recompute_exactly_when_their_own_fields_change() -> None:
    """A path several indexes declare, or one declared whole above another's, is compared once per
    update; each index still reruns only when one of its own fields changed."""
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    calls: list[str] = []

    def index(name: str, read: Any) -> None:
        def fn(pod: Mapping[str, Any]) -> list[str]:
            calls.append(name)
            return [str(read(pod))]
        pods.add_index(name, fn, uses=USES[name])

    USES = {"meta": ("metadata",), "team": ("metadata.labels",), "team+node": ("metadata.labels", "spec.nodeName")}
    index("meta", lambda p: sorted(p["metadata"].get("annotations") or {}))
    index("team", lambda p: (p["metadata"].get("labels") or {}).get("team"))
    index("team+node", lambda p: (p["metadata"].get("labels") or {}).get("team", "") + p["spec"].get("nodeName", ""))
    cluster.create(make_pod("p", labels={"team": "red"}, nodeName="n1"))
    cluster.run_until_idle()
    assert sorted(calls) == ["meta", "team", "team+node"]
    calls.clear()
    cluster.patch("pods", "p", {"status": {"phase": "Running"}}, subresource="status")
    cluster.run_until_idle()
    assert calls == ["meta"]  # resourceVersion is under metadata: the whole-metadata index reruns
    calls.clear()
    cluster.patch("pods", "p", {"metadata": {"labels": {"team": "blue"}}})
    cluster.run_until_idle()
    assert calls == ["meta", "team", "team+node"]
    assert _names(pods.by_index("team", "blue")) == _names(pods.by_index("team+node", "bluen1")) == ["p"]
    assert pods.by_index("team", "red") == []


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


def test_an_index_with_uses_sees_only_the_fields_it_declares() -> None:
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    seen: list[Mapping[str, Any]] = []

    def team(pod: Mapping[str, Any]) -> list[str]:
        seen.append(pod)
        return [f"{pod['metadata']['namespace']}/{(pod['metadata'].get('labels') or {}).get('team')}"]

    pods.add_index("team", team, uses=("metadata.labels", "metadata.namespace", "spec.nodeName"))
    cluster.create(make_pod("p", labels={"team": "red"}))
    cluster.run_until_idle()
    assert _names(pods.by_index("team", "default/red")) == ["p"]
    view = seen[0]
    assert dict(view["metadata"]) == {"labels": {"team": "red"}, "namespace": "default"}
    assert list(view) == ["metadata", "spec"] and len(view["spec"]) == 0  # nodeName declared, not set
    assert view["spec"].get("nodeName") is None
    with pytest.raises(TypeError):
        view["metadata"]["labels"] = {}  # type: ignore[index]  # a read-only view
    with pytest.raises(UsageError, match=r"'team' read spec\.containers"):
        view["spec"].get("containers")
    with pytest.raises(UsageError, match=r"read status"):
        _ = "status" in view


def test_an_index_reading_an_undeclared_field_fails_loudly() -> None:
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    pods.add_index("ns-team", lambda p: [f"{p['metadata'].get('namespace')}/{p['metadata']['labels']['team']}"],
                   uses=("metadata.labels",))
    with pytest.raises(UsageError, match=r"the index 'ns-team' read metadata\.namespace, which its uses= "
                                         r"does not declare; add 'metadata\.namespace' to uses="):
        cluster.create(make_pod("p", labels={"team": "red"}))  # the informer indexes it as the clock runs


def test_a_declared_field_covers_everything_below_it() -> None:
    cluster = _cluster()
    pods = cluster.runtime.informer("pods")
    cluster.create(make_pod("p", labels={"team": "red"}))
    cluster.run_until_idle()
    pods.add_index("name", lambda p: [f"{p['metadata']['name']}:{p['metadata']['labels']['team']}"],
                   uses=("metadata.labels", "metadata"))
    assert _names(pods.by_index("name", "p:red")) == ["p"]


# --------------------------------------------------------------------------- delivery faults


def _recording(cluster: FakeCluster) -> tuple[Any, list[tuple[str, str]]]:
    pods = cluster.runtime.informer("pods")
    seen: list[tuple[str, str]] = []
    pods.add_handler(lambda kind, obj, old: seen.append((kind, obj["metadata"]["name"])))
    return pods, seen


def test_a_broken_watch_relists_and_hands_out_what_changed_meanwhile() -> None:
    """The stream breaks at the DELETED of b (never delivered); the relist hands out a again
    (MODIFIED) and b as DELETED, then the new watch brings c."""
    cluster = _cluster()
    pods, seen = _recording(cluster)
    for name in ("a", "b"):
        cluster.create(make_pod(name))
    cluster.run_until_idle()
    assert BreakWatch("Pod").apply(cluster) == "break-watch pods nth=1"
    cluster.delete("pods", "b", grace_period_seconds=0)
    cluster.run_until_idle()
    cluster.create(make_pod("c"))
    cluster.run_until_idle()
    assert seen == [("ADDED", "a"), ("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "b"), ("ADDED", "c")]
    assert _names(pods.list()) == ["a", "c"]
    assert cluster.trace.grep("break-watch") == ["t=00:00:00.000 break-watch pods: DELETED default/b"]


def test_a_relist_that_fails_is_tried_again_a_second_later() -> None:
    cluster = _cluster()
    pods, _ = _recording(cluster)
    cluster.create(make_pod("a"))
    cluster.run_until_idle()
    cluster.inject(Reactor(verb="list", resource="pods", times=1, error=api_error(500, "etcd timeout")))
    BreakWatch("Pod").apply(cluster)
    cluster.delete("pods", "a", grace_period_seconds=0)
    cluster.advance(0.5)
    assert _names(pods.list()) == ["a"]  # stale: the list failed
    cluster.advance(0.6)
    assert _names(pods.list()) == []


def test_a_delayed_delivery_holds_that_event_and_everything_behind_it_in_order() -> None:
    cluster = _cluster()
    pods, seen = _recording(cluster)
    cluster.create(make_pod("a"))
    cluster.run_until_idle()
    DelayDelivery("pods", nth=2, seconds=2).apply(cluster)
    cluster.create(make_pod("b"))     # the 1st event: on time
    cluster.advance(0.5)
    cluster.create(make_pod("c"))     # the 2nd: held 2 s
    cluster.advance(0.5)
    cluster.delete("pods", "a", grace_period_seconds=0)  # behind it: held as well
    cluster.advance(1.4)
    assert _names(pods.list()) == ["a", "b"]
    cluster.advance(0.2)
    assert _names(pods.list()) == ["b", "c"]
    assert seen == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c"), ("DELETED", "a")]


def test_a_delivery_held_again_while_released_keeps_the_stream_in_order() -> None:
    cluster = _cluster()
    _, seen = _recording(cluster)
    DelayDelivery("pods", nth=1, seconds=1).apply(cluster)
    DelayDelivery("pods", nth=2, seconds=1).apply(cluster)  # fires on b, released with a
    for name in ("a", "b", "c"):
        cluster.create(make_pod(name))
    cluster.advance(1.5)
    assert seen == [("ADDED", "a")]
    cluster.advance(1)
    assert seen == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c")]


def test_a_held_event_counts_once_for_the_faults_armed_on_its_informer() -> None:
    cluster = _cluster()
    _, seen = _recording(cluster)
    DelayDelivery("pods", nth=1, seconds=1).apply(cluster)  # holds a
    BreakWatch("pods", nth=2).apply(cluster)                # the 2nd event is b's ADDED, not a's again
    for name in ("a", "b"):
        cluster.create(make_pod(name))
    cluster.advance(2)
    assert cluster.trace.grep("break-watch") == ["t=00:00:01.000 break-watch pods: ADDED default/b"]
    assert seen == [("ADDED", "a"), ("MODIFIED", "a"), ("ADDED", "b")]  # a again: the relist
