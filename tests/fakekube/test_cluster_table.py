"""``FakeCluster.table``: the ``Table`` kubectl get receives, from the harness without HTTP."""

from __future__ import annotations

import pytest

from fakekube import FakeCluster, UsageError

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                           "additionalPrinterColumns": [
                               {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
                               {"name": "Colour", "type": "string", "jsonPath": ".spec.colour", "priority": 1}]}]},
}


def test_built_in_kinds_get_kubectls_columns() -> None:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(2)
    cluster.advance(90)
    doc = cluster.table("nodes")
    assert doc["kind"] == "Table" and doc["apiVersion"] == "meta.k8s.io/v1"
    assert [c["name"] for c in doc["columnDefinitions"] if c["priority"] == 0] == [
        "Name", "Status", "Roles", "Age", "Version"]
    assert [row["cells"][:4] for row in doc["rows"]] == [["node-0", "Ready", "<none>", "90s"],
                                                       ["node-1", "Ready", "<none>", "90s"]]


def test_custom_resources_get_their_crds_printer_columns_per_namespace() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.apply(CRD)
    cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    cluster.apply({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"},
                   "spec": {"size": 3, "colour": "red"}})
    cluster.apply({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "b", "namespace": "other"},
                   "spec": {"colour": "blue"}})
    doc = cluster.table("widgets")
    assert [(c["name"], c["priority"]) for c in doc["columnDefinitions"]] == [("Name", 0), ("Size", 0),
                                                                              ("Colour", 1)]
    assert [row["cells"] for row in doc["rows"]] == [["a", 3, "red"], ["b", None, "blue"]]
    assert [row["object"]["metadata"]["namespace"] for row in doc["rows"]] == ["default", "other"]
    assert [row["cells"][0] for row in cluster.table("Widget", "other")["rows"]] == ["b"]


def test_an_unknown_kind_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="gadgets"):
        FakeCluster(seed=0, simulate=False).table("gadgets")
