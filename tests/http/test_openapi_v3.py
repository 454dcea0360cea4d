"""/openapi/v3: the root, the group-version documents kubectl reads, and structural schemas."""

from __future__ import annotations

import copy
from typing import Any

from fakekube import FakeCluster
from fakekube.apiserver import builtin_schemas as bs
from fakekube.http import openapi_v3
from fakekube.machinery.openapi import StructuralSchema

JOBSETS = "apis/jobset.x-k8s.io/v1alpha2"


def _gvk(doc: dict[str, Any], op: dict[str, Any]) -> tuple[str, str, str]:
    gvk = op["x-kubernetes-group-version-kind"]
    return gvk["group"], gvk["version"], gvk["kind"]


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Follow ``allOf``/``$ref`` as kubectl explain and strategicpatch do."""
    while True:
        if schema.get("allOf"):
            schema = schema["allOf"][0]
        elif isinstance(schema.get("$ref"), str):
            schema = doc["components"]["schemas"][schema["$ref"].removeprefix(bs.REF_PREFIX)]
        else:
            return schema


def _explain(doc: dict[str, Any], gvk: tuple[str, str, str], *fields: str) -> dict[str, Any]:
    """kubectl explain: the schema whose GVK extension names the kind, then down the field path."""
    [schema] = [s for s in doc["components"]["schemas"].values()
                if {"group": gvk[0], "version": gvk[1], "kind": gvk[2]} in s.get("x-kubernetes-group-version-kind", [])]
    for field in fields:
        schema = _resolve(doc, schema)
        if schema.get("type") == "array":
            schema = _resolve(doc, schema["items"])
        schema = schema["properties"][field]
    return _resolve(doc, schema)


def test_root_points_at_every_served_group_version_with_a_content_hash(jobset_cluster: FakeCluster) -> None:
    root = openapi_v3.root(jobset_cluster.api)
    assert list(root["paths"]) == ["api/v1", "apis/admissionregistration.k8s.io/v1", "apis/apiextensions.k8s.io/v1",
                                   "apis/batch/v1",
                                   "apis/discovery.k8s.io/v1", JOBSETS, "apis/rbac.authorization.k8s.io/v1",
                                   "apis/scheduling.k8s.io/v1"]
    for key, entry in root["paths"].items():
        doc = openapi_v3.document(jobset_cluster.api, key)
        assert doc is not None
        assert entry == {"serverRelativeURL": f"/openapi/v3/{key}?hash={openapi_v3.document_hash(doc)}"}
    assert openapi_v3.root(jobset_cluster.api) == root  # stable while nothing changes


def test_a_changed_crd_changes_only_its_documents_hash(jobset_cluster: FakeCluster) -> None:
    before = openapi_v3.root(jobset_cluster.api)["paths"]
    crd = jobset_cluster.get("customresourcedefinitions", "jobsets.jobset.x-k8s.io")
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["description"] = "changed"
    jobset_cluster.api.update("customresourcedefinitions", crd)
    after = openapi_v3.root(jobset_cluster.api)["paths"]
    assert after[JOBSETS] != before[JOBSETS]
    assert {k: v for k, v in after.items() if k != JOBSETS} == {k: v for k, v in before.items() if k != JOBSETS}
    doc = openapi_v3.document(jobset_cluster.api, JOBSETS)
    assert doc is not None
    assert _explain(doc, ("jobset.x-k8s.io", "v1alpha2", "JobSet"), "spec")["description"] == "changed"


def test_documents_by_path(jobset_cluster: FakeCluster) -> None:
    api = jobset_cluster.api
    assert openapi_v3.document(api, "/api/v1?hash=ABC") is openapi_v3.document(api, "api/v1")
    assert openapi_v3.document(api, "apis/apps/v1") is None
    assert openapi_v3.document(api, "apis/batch") is None
    doc = openapi_v3.document(api, "apis/batch/v1")
    assert doc is not None and doc["openapi"] == "3.0.0" and doc["info"]["title"] == "Kubernetes"
    assert sorted(doc["paths"]) == [
        "/apis/batch/v1/jobs", "/apis/batch/v1/namespaces/{namespace}/jobs",
        "/apis/batch/v1/namespaces/{namespace}/jobs/{name}", "/apis/batch/v1/namespaces/{namespace}/jobs/{name}/status"]


def test_every_served_kind_has_a_patch_operation_kubectl_trusts_for_field_validation(
        jobset_cluster: FakeCluster) -> None:
    api = jobset_cluster.api
    for rt in api.registry.all():
        key = f"apis/{rt.group}/{rt.version}" if rt.group else f"api/{rt.version}"
        doc = openapi_v3.document(api, key)
        assert doc is not None
        patches = [item["patch"] for item in doc["paths"].values()
                   if "patch" in item and _gvk(doc, item["patch"]) == (rt.group, rt.version, rt.kind)]
        assert patches, rt.key
        for patch in patches:
            assert any(p["name"] == "fieldValidation" and p["in"] == "query" for p in patch["parameters"]), rt.key
            media = set(patch["requestBody"]["content"])
            assert {"application/merge-patch+json", "application/json-patch+json",
                    "application/apply-patch+yaml"} <= media
            # kubectl computes strategic merge patches from the schema for built-ins only
            assert ("application/strategic-merge-patch+json" in media) is (not rt.custom), rt.key


def test_operations_of_a_namespaced_resource(cluster: FakeCluster) -> None:
    doc = openapi_v3.document(cluster.api, "api/v1")
    assert doc is not None
    pods = doc["paths"]["/api/v1/namespaces/{namespace}/pods"]
    assert pods["get"]["operationId"] == "listCoreV1NamespacedPod"
    assert pods["get"]["x-kubernetes-action"] == "list"
    assert pods["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/io.k8s.api.core.v1.PodList"}
    assert pods["post"]["requestBody"]["content"]["*/*"]["schema"] == {
        "$ref": "#/components/schemas/io.k8s.api.core.v1.Pod"}
    assert [p["name"] for p in pods["post"]["parameters"]] == ["dryRun", "fieldManager", "fieldValidation"]
    assert pods["delete"]["x-kubernetes-action"] == "deletecollection"
    assert {p["name"] for p in pods["parameters"]} == {"namespace", "pretty"}
    pod = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]
    assert set(pod) == {"get", "put", "patch", "delete", "parameters"}
    assert pod["patch"]["operationId"] == "patchCoreV1NamespacedPod"
    assert [p["name"] for p in pod["patch"]["parameters"]] == ["dryRun", "fieldManager", "fieldValidation", "force"]
    eviction = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]
    assert _gvk(doc, eviction["post"]) == ("policy", "v1", "Eviction")
    assert "io.k8s.api.policy.v1.Eviction" in doc["components"]["schemas"]
    assert _gvk(doc, doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/binding"]["post"]) == (
        "", "v1", "Binding")
    assert doc["paths"]["/api/v1/pods"]["get"]["operationId"] == "listCoreV1PodForAllNamespaces"
    assert "/api/v1/nodes/{name}/status" in doc["paths"] and "/api/v1/namespaces/{name}/finalize" in doc["paths"]
    assert doc["paths"]["/api/v1/nodes"]["get"]["operationId"] == "listCoreV1Node"


def test_every_reference_of_every_document_resolves(jobset_cluster: FakeCluster) -> None:
    for key in openapi_v3.root(jobset_cluster.api)["paths"]:
        doc = openapi_v3.document(jobset_cluster.api, key)
        assert doc is not None
        refs: set[str] = set()
        openapi_v3._refs(doc, refs)
        assert refs <= set(doc["components"]["schemas"]), key


def test_explain_finds_built_in_fields(cluster: FakeCluster) -> None:
    doc = openapi_v3.document(cluster.api, "api/v1")
    assert doc is not None
    image = _explain(doc, ("", "v1", "Pod"), "spec", "containers", "image")
    assert image["type"] == "string" and image["description"].startswith("Container image name.")
    containers = _resolve(doc, _explain(doc, ("", "v1", "Pod"), "spec"))["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    jobs = openapi_v3.document(cluster.api, "apis/batch/v1")
    assert jobs is not None
    assert _explain(jobs, ("batch", "v1", "Job"), "spec", "backoffLimit")["type"] == "integer"


def test_custom_resource_schema_comes_from_the_crd(jobset_cluster: FakeCluster, jobset_crd: dict[str, Any]) -> None:
    stored = jobset_cluster.api.store.get("customresourcedefinitions.apiextensions.k8s.io", "",
                                          "jobsets.jobset.x-k8s.io")
    snapshot = copy.deepcopy(stored)
    doc = openapi_v3.document(jobset_cluster.api, JOBSETS)
    assert stored == snapshot  # the stored CRD is read, never modified
    assert doc is not None
    schemas = doc["components"]["schemas"]
    jobset = schemas["io.x-k8s.jobset.v1alpha2.JobSet"]
    assert jobset["x-kubernetes-group-version-kind"] == [
        {"group": "jobset.x-k8s.io", "kind": "JobSet", "version": "v1alpha2"}]
    crd_spec = jobset_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert jobset["properties"]["spec"] == crd_spec
    assert jobset["properties"]["metadata"]["allOf"] == [
        {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in schemas
    listed = schemas["io.x-k8s.jobset.v1alpha2.JobSetList"]
    assert listed["properties"]["items"]["items"] == {"$ref": "#/components/schemas/io.x-k8s.jobset.v1alpha2.JobSet"}
    replicated = _explain(doc, ("jobset.x-k8s.io", "v1alpha2", "JobSet"), "spec", "replicatedJobs")
    assert replicated["type"] == "array" and "replicas" in replicated["items"]["properties"]


def test_schema_for_is_structural_and_finds_unknown_fields() -> None:
    schema = bs.schema_for("v1", "Pod")
    assert schema is not None
    refs: set[str] = set()
    openapi_v3._refs(schema, refs)
    assert refs == set()
    assert "description" not in schema and "x-kubernetes-group-version-kind" not in schema
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "busybox", "imagePullPolicyy": "Always",
                                    "resources": {"limits": {"cpu": 1, "memory": "1Gi"}},
                                    "ports": [{"containerPort": 80}]}],
                    "nodeSelector": {"any-key": "v"}},
           "status": {"phase": "Running", "bogus": 1}}
    pruned, unknown = StructuralSchema(schema).prune_tracking(copy.deepcopy(pod))
    assert unknown == ["spec.containers[0].imagePullPolicyy", "status.bogus"]
    assert pruned["spec"]["containers"][0]["resources"] == {"limits": {"cpu": 1, "memory": "1Gi"}}
    assert StructuralSchema(schema).validate(pruned) == []


def test_schema_for_cuts_recursive_types_and_knows_only_built_ins() -> None:
    crd = bs.schema_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
    assert crd is not None
    props = crd["properties"]["spec"]["properties"]["versions"]["items"]["properties"]["schema"]["properties"]
    top = props["openAPIV3Schema"]
    assert top["properties"]["type"] == {"type": "string"}
    assert top["properties"]["properties"]["additionalProperties"] == {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True}
    assert bs.schema_for("v1", "Pod") is bs.schema_for("v1", "Pod")
    assert bs.schema_for("jobset.x-k8s.io/v1alpha2", "JobSet") is None
    assert bs.schema_for("apps/v1", "Deployment") is None
