"""Crashes the fuzz campaign found at the harness's door (issue 25, item 11): each input gets the
error Kubernetes or kubectl gives, or a UsageError saying how to fix the call, and the store is
left exactly as it was (every resourceVersion and object)."""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest

import jobset_ref
from fakekube import BadRequest, FakeCluster, UsageError

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "b"}}


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=0)
    jobset_ref.install(c)
    c.add_nodes(1)
    return c


def snapshot(cluster: FakeCluster) -> tuple[int, list[tuple[str, list[dict[str, Any]]]]]:
    store = cluster.api.store
    return store.rv, [(r, copy.deepcopy(store.list(r))) for r in store.resources()]


def nested(levels: int, leaf: Any = None) -> Any:
    """A dict ``{"a": {"a": ...}}`` ``levels`` deep, built without recursion."""
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def refused(cluster: FakeCluster, error: type[Exception], call: Any) -> str:
    before = snapshot(cluster)
    with pytest.raises(error) as caught:
        call()
    assert snapshot(cluster) == before
    return str(caught.value)


NOT_AN_OBJECT = ("every item of a List is an object with apiVersion, kind and metadata")


@pytest.mark.parametrize(("source", "message"), [
    ("apiVersion: v1\nkind: List\nitems: [1, 2]\n",
     "items[0] of the List is not an object (kubectl apply: json: cannot unmarshal number into Go value of type "
     "map[string]interface {}); " + NOT_AN_OBJECT),
    ({"apiVersion": "v1", "kind": "List", "items": [CM, "cm2"]},
     "items[1] of the List is not an object (kubectl apply: json: cannot unmarshal string into Go value of type "
     "map[string]interface {}); " + NOT_AN_OBJECT),
    ({"apiVersion": "v1", "kind": "ConfigMapList", "items": [None]},
     "items[0] of the ConfigMapList is not an object (kubectl apply: json: cannot unmarshal null into Go value of "
     "type map[string]interface {}); " + NOT_AN_OBJECT),
])
def test_a_list_whose_items_are_not_objects_applies_none_of_them(cluster: FakeCluster, source: Any,
                                                                 message: str) -> None:
    assert refused(cluster, UsageError, lambda: cluster.apply(source)) == message


def test_a_list_given_as_a_dict_stands_for_its_items_as_in_kubectl(cluster: FakeCluster) -> None:
    second = {**CM, "metadata": {"name": "cm2"}}
    applied = cluster.apply({"apiVersion": "v1", "kind": "List", "items": [CM, second]})
    assert [o["metadata"]["name"] for o in applied] == ["cm", "cm2"]
    assert cluster.apply({"apiVersion": "v1", "kind": "List", "items": []}) == []


@pytest.mark.parametrize("field", ["kind", "apiVersion"])
def test_an_object_nested_thousands_of_levels_deep_is_a_usage_error(cluster: FakeCluster, field: str) -> None:
    deep = nested(sys.getrecursionlimit() * 3)
    message = refused(cluster, UsageError, lambda: cluster.apply({**CM, field: deep}))
    assert message.startswith("an object needs 'apiVersion' and 'kind' (e.g. apiVersion: batch/v1, kind: Job); got ")
    assert "{'a': {'a': {'a': {'a': {...}}}}}" in message  # cut short, not a RecursionError


def test_deep_values_elsewhere_are_kube_apiserver_s_400_and_deep_lists_a_usage_error(cluster: FakeCluster) -> None:
    deep = nested(sys.getrecursionlimit() * 3)
    assert refused(cluster, BadRequest, lambda: cluster.apply({**CM, "data": deep})).startswith(
        "the ConfigMap is not a JSON object: the object is nested more than 200 levels deep (at data.a.a.a")
    assert refused(cluster, UsageError, lambda: cluster.get("ConfigMap", deep)).startswith(
        "the name must be a string, got dict {'a': {'a'")
    lists: list[Any] = [CM]
    for _ in range(sys.getrecursionlimit() * 3):
        lists = [lists]
    assert refused(cluster, UsageError, lambda: cluster.apply(lists)) == (
        "apply() takes a list of objects; this one holds lists nested more than 200 levels deep")


NAMESPACE_DECODING = ('{kind} in version "{version}" cannot be handled as a {kind}: json: cannot unmarshal {go} into '
                      "Go struct field ObjectMeta.metadata.namespace of type string")


@pytest.mark.parametrize(("kind", "version", "namespace", "go"), [
    ("ConfigMap", "v1", ["default"], "array"),
    ("ConfigMap", "v1", {"a": 1}, "object"),
    ("Node", "v1", ["a"], "array"),  # cluster-scoped: the body is decoded before its namespace is cleared
    ("JobSet", "jobset.x-k8s.io/v1alpha2", ["default"], "array"),
])
def test_a_namespace_that_is_not_a_string_is_kube_apiserver_s_decoding_error(
        cluster: FakeCluster, kind: str, version: str, namespace: Any, go: str) -> None:
    cluster.apply({**CM, "metadata": {"name": "live"}})  # an object of that name exists in "default"
    body = {"apiVersion": version, "kind": kind, "metadata": {"name": "live", "namespace": namespace}}
    want = NAMESPACE_DECODING.format(kind=kind, version=version.rpartition("/")[2], go=go)
    for write in (cluster.apply, cluster.create):
        assert refused(cluster, BadRequest, lambda w=write: w(copy.deepcopy(body))) == want  # type: ignore[misc]


def test_a_namespace_argument_that_is_not_a_string_is_a_usage_error(cluster: FakeCluster) -> None:
    assert refused(cluster, UsageError, lambda: cluster.apply(CM, namespace=["default"])) == (  # type: ignore[arg-type]
        "apply(namespace=...) must be a string or None, got list ['default']")
    assert refused(cluster, UsageError, lambda: cluster.create(CM, namespace={"a": 1})) == (  # type: ignore[arg-type]
        "create(namespace=...) must be a string or None, got dict {'a': 1}")


@pytest.mark.parametrize("annotation", ["{not json", "[1]", "5", '"text"', "[" * 5000 + "]" * 5000])
def test_a_malformed_last_applied_annotation_is_a_usage_error_that_says_how_to_recover(
        cluster: FakeCluster, annotation: str) -> None:
    cluster.create({**CM, "metadata": {"name": "cm", "annotations": {LAST_APPLIED: annotation}}})
    message = refused(cluster, UsageError, lambda: cluster.apply({**CM, "data": {"a": "c"}}))
    assert message == (
        f"cannot apply ConfigMap default/cm: its {LAST_APPLIED} annotation is not a JSON object, so the patch "
        'from the last applied configuration cannot be computed (kubectl apply fails the same way: "invalid JSON '
        'document"). Remove the annotation, cluster.patch("ConfigMap", "cm", {"metadata": {"annotations": '
        f'{{"{LAST_APPLIED}": None}}}}}}, "default"), or replace the object with cluster.update()')
    # The remedy it names works.
    cluster.patch("ConfigMap", "cm", {"metadata": {"annotations": {LAST_APPLIED: None}}}, "default")
    assert cluster.apply({**CM, "data": {"a": "c"}})["data"] == {"a": "c"}


@pytest.mark.parametrize("annotation", ["", "null"])
def test_an_empty_last_applied_annotation_reads_as_none_as_kubectl_reads_it(cluster: FakeCluster,
                                                                            annotation: str) -> None:
    cluster.create({**CM, "metadata": {"name": "cm", "annotations": {LAST_APPLIED: annotation}}})
    assert cluster.apply({**CM, "data": {"a": "c"}})["data"] == {"a": "c"}
