"""The versioned store: global resourceVersion, key order, indexes, bounded history."""

from __future__ import annotations

import pytest

from fakekube.errors import Gone
from fakekube.store import Store


def obj(name: str, ns: str = "default", labels: dict[str, str] | None = None,
        owners: list[str] | None = None) -> dict:
    meta: dict = {"name": name, "namespace": ns, "labels": labels or {}}
    if owners:
        meta["ownerReferences"] = [{"uid": u} for u in owners]
    return {"metadata": meta}


def put(store: Store, resource: str, o: dict, event: str = "ADDED") -> int:
    rv = store.next_rv()
    o["metadata"]["resourceVersion"] = str(rv)
    store.put(resource, o, event=event)
    return rv


def test_resource_version_is_one_counter_across_resources() -> None:
    store = Store()
    assert [put(store, "pods", obj("a")), put(store, "jobs.batch", obj("a")), put(store, "pods", obj("b"))] == [1, 2, 3]


def test_list_is_sorted_by_namespace_then_name_and_scoped_by_namespace() -> None:
    store = Store()
    for ns, name in [("b", "x"), ("a", "z"), ("a", "y"), ("ab", "q")]:
        put(store, "pods", obj(name, ns))
    assert [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in store.list("pods")] == [
        ("a", "y"), ("a", "z"), ("ab", "q"), ("b", "x")]
    assert [o["metadata"]["name"] for o in store.list("pods", "a")] == ["y", "z"]


def test_label_index_answers_equality_terms_and_follows_updates() -> None:
    store = Store()
    put(store, "pods", obj("a", labels={"app": "x", "tier": "1"}))
    put(store, "pods", obj("b", labels={"app": "x", "tier": "2"}))
    put(store, "pods", obj("c", labels={"app": "y"}))
    names = lambda terms: [o["metadata"]["name"] for o in store.list("pods", label_terms=terms)]  # noqa: E731
    assert names([("app", "x")]) == ["a", "b"]
    assert names([("app", "x"), ("tier", "2")]) == ["b"]
    assert names([("app", "nope")]) == []
    put(store, "pods", obj("a", labels={"app": "y"}), "MODIFIED")
    assert names([("app", "x")]) == ["b"]
    assert names([("app", "y")]) == ["a", "c"]


def test_label_groups_answer_set_based_terms_from_the_index() -> None:
    store = Store()
    for name, group in [("a", "g1"), ("b", "g2"), ("c", "g3"), ("d", "g1")]:
        put(store, "pods", obj(name, labels={"group": group, "app": "x"}))
    put(store, "pods", obj("e", "other", labels={"group": "g1"}))
    names = lambda groups, ns=None: [o["metadata"]["name"] for o in store.list(  # noqa: E731
        "pods", ns, label_groups=groups)]
    assert names([[("group", "g1"), ("group", "g2")]]) == ["a", "b", "d", "e"]
    assert names([[("group", "g1"), ("group", "g2")]], "default") == ["a", "b", "d"]
    assert names([[("group", "g9")]]) == [] and names([[("group", "g3"), ("group", "g9")]]) == ["c"]
    # Several groups: the smallest narrows, the others are the caller's predicate's job.
    assert names([[("app", "x")], [("group", "g2")]]) == ["b"]


def test_a_label_key_is_indexed_from_its_first_selection_and_kept_up_to_date() -> None:
    """Objects written before the first list selecting on a key are found by it, and later
    writes (new objects, relabelled ones, removals) keep its answers right; keys nobody selected
    on cost writes nothing."""
    store = Store()
    put(store, "pods", obj("a", labels={"app": "x", "tier": "1"}))
    put(store, "pods", obj("b", labels={"app": "y"}))
    assert store._tables["pods"].by_label == {}
    assert [o["metadata"]["name"] for o in store.list("pods", label_terms=[("app", "x")])] == ["a"]
    put(store, "pods", obj("c", labels={"app": "x"}))
    put(store, "pods", obj("b", labels={"app": "x"}), "MODIFIED")
    put(store, "pods", obj("a", labels={"app": "z", "tier": "1"}), "MODIFIED")
    store.remove("pods", "default", "c", rv=store.next_rv())
    assert [o["metadata"]["name"] for o in store.list("pods", label_terms=[("app", "x")])] == ["b"]
    assert [o["metadata"]["name"] for o in store.list("pods", label_groups=[[("app", "z"), ("app", "y")]])] == ["a"]
    assert [o["metadata"]["name"] for o in store.list("pods", label_terms=[("tier", "1"), ("app", "z")])] == ["a"]
    assert set(store._tables["pods"].by_label) == {("app", "x"), ("app", "z"), ("tier", "1")}


def test_owner_index_tracks_dependents() -> None:
    store = Store()
    put(store, "pods", obj("a", owners=["u1"]))
    put(store, "pods", obj("b", owners=["u1", "u2"]))
    assert store.dependents("u1") == [("pods", "default", "a"), ("pods", "default", "b")]
    store.remove("pods", "default", "a", rv=store.next_rv())
    assert store.dependents("u1") == [("pods", "default", "b")]


def test_deleted_event_carries_the_deletion_revision() -> None:
    store = Store()
    put(store, "pods", obj("a"))
    event = store.remove("pods", "default", "a", rv=store.next_rv())
    assert (event.type, event.rv, event.obj["metadata"]["resourceVersion"]) == ("DELETED", 2, "2")


def test_history_replays_changes_after_a_revision_and_expires_old_ones() -> None:
    store = Store(history_limit=3)
    for name in "abcde":
        put(store, "pods", obj(name))
    assert [e.obj["metadata"]["name"] for e in store.history_since("pods", 3)] == ["d", "e"]
    with pytest.raises(Gone, match=r"too old resource version: 1 \(2\)"):
        store.history_since("pods", 1)
    store.compact()
    with pytest.raises(Gone):
        store.history_since("pods", 4)


def test_check_frozen_catches_an_in_place_edit_of_a_stored_object() -> None:
    store = Store(check_frozen=True)
    pod = obj("a", labels={"x": "1"})
    put(store, "pods", pod)
    store.verify_frozen()
    pod["metadata"]["labels"]["x"] = "2"  # a reader editing the shared object
    with pytest.raises(AssertionError, match="stored pods default/a was mutated in place"):
        store.verify_frozen()
    with pytest.raises(AssertionError, match="mutated in place"):
        put(store, "pods", obj("a", labels={"x": "3"}), event="MODIFIED")


def test_check_frozen_accepts_new_versions_that_share_unchanged_parts() -> None:
    store = Store(check_frozen=True)
    first = obj("a", labels={"x": "1"})
    put(store, "pods", first)
    second = {**first, "metadata": {**first["metadata"]}, "status": {"phase": "Running"}}
    put(store, "pods", second, event="MODIFIED")
    store.remove("pods", "default", "a", rv=store.next_rv())
    store.verify_frozen()


def test_multimap_discard_drops_emptied_buckets_and_ignores_absent_members() -> None:
    from fakekube._core.multimap import discard

    index: dict[str, dict[str, None]] = {"a": {"x": None, "y": None}}
    discard(index, "a", "x")
    discard(index, "a", "nope")
    discard(index, "missing", "x")
    assert index == {"a": {"y": None}}
    discard(index, "a", "y")
    assert index == {}
