"""The committed OpenAPI schemas of built-in kinds: current, complete for the registry, and faithful."""

from __future__ import annotations

import pytest

from fakekube import FakeCluster, UsageError
from fakekube.apiserver import builtin_schemas as bs


def _props(definition: str) -> dict:
    return bs.schemas()[definition]["properties"]


def test_the_committed_file_is_what_the_generator_writes() -> None:
    kubernetes = pytest.importorskip("kubernetes", reason="the generator reads the kubernetes client's models")
    stamped = bs.load()["source"]
    if stamped != f"kubernetes Python client {kubernetes.__version__}":
        pytest.skip(f"generated from {stamped}; installed is {kubernetes.__version__}")
    assert bs.DATA_PATH.read_text(encoding="utf-8") == bs.render(bs.generate()), (
        "fakekube/apiserver/builtin_schemas.json is stale: run python -m fakekube.apiserver.builtin_schemas")
    assert bs.main(["--check"]) == 0


def test_every_built_in_kind_the_registry_serves_has_a_schema_and_a_list_schema(cluster: FakeCluster) -> None:
    for rt in cluster.api.registry.all():
        assert not rt.custom
        for kind in (rt.kind, rt.kind + "List"):
            name = bs.definition_name(rt.api_version, kind)
            assert name is not None, f"{rt.api_version} {kind}: add it to builtin_schemas.ROOTS and regenerate"
            group, _, version = rt.api_version.rpartition("/")
            assert bs.schemas()[name]["x-kubernetes-group-version-kind"] == [
                {"group": group, "kind": kind, "version": version}]


def test_definitions_are_named_as_kube_openapi_names_them() -> None:
    assert bs.definition_name("v1", "Pod") == "io.k8s.api.core.v1.Pod"
    assert bs.definition_name("batch/v1", "Job") == "io.k8s.api.batch.v1.Job"
    assert bs.definition_name("apiextensions.k8s.io/v1", "CustomResourceDefinition") == (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition")
    assert bs.definition_name("v1", "Deployment") is None
    # nested types: PodTemplateSpec stays core inside a Job; selectors and metadata are apimachinery's
    job_spec = _props("io.k8s.api.batch.v1.JobSpec")
    assert job_spec["template"]["$ref"] == bs.ref("io.k8s.api.core.v1.PodTemplateSpec")
    assert job_spec["selector"]["$ref"] == bs.ref("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")
    assert _props("io.k8s.api.core.v1.Pod")["metadata"]["$ref"] == bs.ref(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")


def test_every_reference_resolves() -> None:
    names = set(bs.schemas())

    def refs(node: object) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
            return found + [r for v in node.values() for r in refs(v)]
        if isinstance(node, list):
            return [r for v in node for r in refs(v)]
        return []

    dangling = {r for r in refs(dict(bs.schemas())) if r.removeprefix(bs.REF_PREFIX) not in names}
    assert dangling == set()


def test_types_required_fields_and_descriptions() -> None:
    container = bs.schemas()["io.k8s.api.core.v1.Container"]
    assert container["required"] == ["name"]
    assert container["properties"]["args"]["type"] == "array"
    assert container["properties"]["args"]["items"] == {"type": "string"}
    assert container["properties"]["tty"]["type"] == "boolean"
    assert _props("io.k8s.api.core.v1.ContainerPort")["containerPort"]["type"] == "integer"
    assert _props("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")["labels"]["additionalProperties"] == {
        "type": "string"}
    assert _props("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")["creationTimestamp"]["format"] == "date-time"
    assert bs.description("io.k8s.api.core.v1.Pod").startswith("Pod is a collection of containers")
    assert bs.description("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "name").startswith(
        "Name must be unique within a namespace.")
    with pytest.raises(UsageError, match="no built-in OpenAPI definition named 'Nope'"):
        bs.description("Nope")


def test_int_or_string_quantities_and_free_form_fields() -> None:
    int_or_string = {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
    target_port = _props("io.k8s.api.core.v1.ServicePort")["targetPort"]
    assert {k: v for k, v in target_port.items() if k != "description"} == int_or_string
    limits = _props("io.k8s.api.core.v1.ResourceRequirements")["limits"]
    assert limits["additionalProperties"] == int_or_string
    assert _props("io.k8s.api.core.v1.NodeStatus")["capacity"]["additionalProperties"] == int_or_string
    fields_v1 = _props("io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry")["fieldsV1"]
    assert fields_v1["x-kubernetes-preserve-unknown-fields"] is True and "type" not in fields_v1


def test_strategic_merge_metadata_comes_from_the_patch_module() -> None:
    spec = _props("io.k8s.api.core.v1.PodSpec")
    assert (spec["containers"]["x-kubernetes-patch-strategy"], spec["containers"]["x-kubernetes-patch-merge-key"]) == (
        "merge", "name")
    assert spec["volumes"]["x-kubernetes-patch-strategy"] == "merge,retainKeys"
    assert "x-kubernetes-patch-strategy" not in spec["tolerations"]
    assert _props("io.k8s.api.core.v1.Container")["env"]["x-kubernetes-patch-merge-key"] == "name"
    assert _props("io.k8s.api.core.v1.ServiceSpec")["ports"]["x-kubernetes-patch-merge-key"] == "port"
    finalizers = _props("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")["finalizers"]
    assert finalizers["x-kubernetes-patch-strategy"] == "merge" and "x-kubernetes-patch-merge-key" not in finalizers
    assert _props("io.k8s.api.batch.v1.JobStatus")["conditions"]["x-kubernetes-patch-merge-key"] == "type"
