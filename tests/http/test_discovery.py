"""Discovery documents: legacy and aggregated, for built-ins and for a CRD created at run time."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import FakeCluster, UsageError
from fakekube.http import discovery

KUBECTL_ACCEPT = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")


def _entry(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in doc["resources"] if r["name"] == name)


def test_api_lists_the_core_version_and_the_server_address() -> None:
    assert discovery.api_versions("127.0.0.1:6443") == {
        "kind": "APIVersions", "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]}


def test_group_list_orders_groups_by_apiservice_priority(cluster: FakeCluster) -> None:
    doc = discovery.api_group_list(cluster.api.registry)
    assert doc["kind"] == "APIGroupList" and doc["apiVersion"] == "v1"
    assert [g["name"] for g in doc["groups"]] == ["events.k8s.io", "batch", "rbac.authorization.k8s.io",
                                                 "admissionregistration.k8s.io", "scheduling.k8s.io",
                                                 "apiextensions.k8s.io", "discovery.k8s.io"]
    batch = doc["groups"][1]
    assert batch == {"name": "batch", "versions": [{"groupVersion": "batch/v1", "version": "v1"}],
                     "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"}}


def test_core_resource_list_has_resources_and_served_subresources(cluster: FakeCluster) -> None:
    doc = discovery.api_resource_list(cluster.api.registry, "v1")
    assert doc is not None
    assert doc["kind"] == "APIResourceList" and doc["groupVersion"] == "v1"
    names = [r["name"] for r in doc["resources"]]
    assert names == sorted(names)
    assert {"pods", "pods/status", "pods/binding", "pods/eviction", "namespaces/finalize",
            "namespaces/status", "nodes/status", "configmaps", "events", "services"} <= set(names)
    assert "pods/log" not in names  # not served by this API server
    assert _entry(doc, "pods") == {
        "name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod",
        "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        "shortNames": ["po"], "categories": ["all"], "storageVersionHash": "xPOwRZ+Yhw8="}
    # the "all" category (kubectl get all): pods and services here, as upstream; not configmaps or events
    assert [r["name"] for r in doc["resources"] if "all" in r.get("categories", ())] == ["pods", "services"]
    assert _entry(doc, "pods/status") == {"name": "pods/status", "singularName": "", "namespaced": True,
                                          "kind": "Pod", "verbs": ["get", "patch", "update"]}
    assert _entry(doc, "pods/eviction") == {"name": "pods/eviction", "singularName": "", "namespaced": True,
                                            "group": "policy", "version": "v1", "kind": "Eviction",
                                            "verbs": ["create"]}
    assert _entry(doc, "pods/binding")["kind"] == "Binding"
    ns = _entry(doc, "namespaces")
    assert ns["namespaced"] is False and "deletecollection" not in ns["verbs"]
    assert _entry(doc, "namespaces/finalize")["verbs"] == ["update"]


def test_batch_resource_list(cluster: FakeCluster) -> None:
    doc = discovery.api_resource_list(cluster.api.registry, "batch/v1")
    assert doc is not None
    assert [r["name"] for r in doc["resources"]] == ["jobs", "jobs/status"]
    jobs = doc["resources"][0]
    assert jobs["categories"] == ["all"] and jobs["storageVersionHash"] == "mudhfqk/qZY="
    assert "shortNames" not in jobs


def test_unknown_group_version_is_none(cluster: FakeCluster) -> None:
    assert discovery.api_resource_list(cluster.api.registry, "apps/v1") is None
    assert discovery.api_resource_list(cluster.api.registry, "batch/v2") is None


def test_a_crd_is_discovered_once_created_and_forgotten_once_deleted(jobset_cluster: FakeCluster) -> None:
    registry = jobset_cluster.api.registry
    groups = [g["name"] for g in discovery.api_group_list(registry)["groups"]]
    assert groups[-1] == "jobset.x-k8s.io"  # CRD groups come after every built-in group
    doc = discovery.api_resource_list(registry, "jobset.x-k8s.io/v1alpha2")
    assert doc is not None
    assert doc["resources"][0] == {
        "name": "jobsets", "singularName": "jobset", "namespaced": True, "kind": "JobSet",
        "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
        "storageVersionHash": discovery.storage_version_hash(registry.resolve("jobsets"))}
    assert doc["resources"][1]["name"] == "jobsets/status"

    jobset_cluster.delete("customresourcedefinitions", "jobsets.jobset.x-k8s.io")
    jobset_cluster.run_until_idle()
    assert discovery.api_resource_list(registry, "jobset.x-k8s.io/v1alpha2") is None
    assert "jobset.x-k8s.io" not in [g["name"] for g in discovery.api_group_list(registry)["groups"]]


def test_aggregated_core_group_has_no_name(cluster: FakeCluster) -> None:
    doc = discovery.aggregated_discovery(cluster.api.registry, core=True)
    assert doc["kind"] == "APIGroupDiscoveryList" and doc["apiVersion"] == "apidiscovery.k8s.io/v2"
    [item] = doc["items"]
    assert "name" not in item["metadata"]
    [v1] = item["versions"]
    assert v1["version"] == "v1" and v1["freshness"] == "Current"
    pods = next(r for r in v1["resources"] if r["resource"] == "pods")
    assert pods["responseKind"] == {"group": "", "version": "", "kind": "Pod"}
    assert pods["scope"] == "Namespaced" and pods["singularResource"] == "pod" and pods["shortNames"] == ["po"]
    assert pods["subresources"] == [
        {"subresource": "binding", "responseKind": {"group": "", "version": "", "kind": "Binding"},
         "verbs": ["create"]},
        {"subresource": "eviction", "responseKind": {"group": "policy", "version": "v1", "kind": "Eviction"},
         "verbs": ["create"]},
        {"subresource": "status", "responseKind": {"group": "", "version": "", "kind": "Pod"},
         "verbs": ["get", "patch", "update"]},
    ]
    nodes = next(r for r in v1["resources"] if r["resource"] == "nodes")
    assert nodes["scope"] == "Cluster"


def test_aggregated_named_groups_include_crds_with_full_response_kinds(jobset_cluster: FakeCluster) -> None:
    doc = discovery.aggregated_discovery(jobset_cluster.api.registry, core=False, version="v2beta1")
    assert doc["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    assert [i["metadata"]["name"] for i in doc["items"]] == [
        "events.k8s.io", "batch", "rbac.authorization.k8s.io", "admissionregistration.k8s.io", "scheduling.k8s.io", "apiextensions.k8s.io",
        "discovery.k8s.io", "jobset.x-k8s.io"]
    jobsets = doc["items"][-1]["versions"][0]["resources"][0]
    assert jobsets["responseKind"] == {"group": "jobset.x-k8s.io", "version": "v1alpha2", "kind": "JobSet"}
    assert jobsets["subresources"] == [{"subresource": "status", "verbs": ["get", "patch", "update"],
                                        "responseKind": {"group": "jobset.x-k8s.io", "version": "v1alpha2",
                                                         "kind": "JobSet"}}]


def test_aggregated_discovery_rejects_an_unknown_version(cluster: FakeCluster) -> None:
    with pytest.raises(UsageError, match=r"one of \('v2', 'v2beta1'\), got 'v3'"):
        discovery.aggregated_discovery(cluster.api.registry, core=True, version="v3")


def test_documents_are_rebuilt_only_when_the_registry_changes(cluster: FakeCluster,
                                                              jobset_crd: dict[str, Any]) -> None:
    registry = cluster.api.registry
    first = discovery.aggregated_discovery(registry, core=False)
    assert discovery.aggregated_discovery(registry, core=False) is first
    cluster.create(jobset_crd)
    assert discovery.aggregated_discovery(registry, core=False) is not first


@pytest.mark.parametrize(("accept", "expected"), [
    (KUBECTL_ACCEPT, "v2"),
    ("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", "v2beta1"),
    ("application/json", None),
    ("*/*", None),
    ("", None),
    (None, None),
    ("application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", None),
    ("application/json;g=apidiscovery.k8s.io;v=v9;as=APIGroupDiscoveryList", None),
])
def test_accept_header_chooses_aggregated_discovery(accept: str | None, expected: str | None) -> None:
    assert discovery.aggregated_discovery_version(accept) == expected


def test_aggregated_media_type() -> None:
    assert (discovery.aggregated_discovery_media_type("v2")
            == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")


def test_version_info_reports_a_kubectl_1_32_compatible_server() -> None:
    info = discovery.version_info()
    assert (info["major"], info["minor"]) == ("1", "32")
    assert info["gitVersion"].startswith("v1.32.")
    assert set(info) == {"major", "minor", "gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion",
                         "compiler", "platform"}
