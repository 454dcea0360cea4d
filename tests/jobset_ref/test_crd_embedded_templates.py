"""The served JobSet CRD prunes, defaults and validates the embedded Job and PVC templates as
upstream's CRD does (it inlines the full batch/v1 and core/v1 schemas there)."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from fakekube import ApiWarning, BadRequest, FakeCluster, Invalid
from jobset_ref.api.defaulting import apply_schema_defaults
from jobset_ref.api.embedded_schemas import job_template_schema, persistent_volume_claim_schema
from jobset_ref.installation import install

POD_PATH = "spec.replicatedJobs[0].template.spec.template.spec"


@pytest.fixture
def cluster() -> FakeCluster:
    # No webhooks: only the CRD's schema acts on the request (upstream's envtest setup).
    cluster = FakeCluster(seed=0, simulate=False)
    install(cluster, webhooks=False, controller=False)
    return cluster


def jobset(pod_spec: dict[str, Any], *, name: str = "js", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": pod_spec}}}}],
                     **spec}}


def pod_spec_of(obj: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    return spec


CONTAINER = {"name": "c", "image": "busybox"}


def test_kubernetes_defaults_of_the_pod_template_are_applied(cluster: FakeCluster) -> None:
    manifest = jobset({
        "containers": [{**CONTAINER, "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
                        "env": [{"name": "E", "valueFrom": {"configMapKeyRef": {"key": "k"}}}],
                        "envFrom": [{"secretRef": {}}],
                        "readinessProbe": {"grpc": {"port": 9000}}}],
        "imagePullSecrets": [{}],
        "volumes": [{"name": "d", "azureDisk": {"diskName": "n", "diskURI": "u"}},
                    {"name": "r", "rbd": {"image": "i", "monitors": ["m"]}}],
    })
    stored = cluster.client.create(manifest)
    pod = pod_spec_of(stored)
    container = pod["containers"][0]
    assert container["ports"] == [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}]
    assert container["env"][0]["valueFrom"]["configMapKeyRef"] == {"key": "k", "name": ""}
    assert container["envFrom"] == [{"secretRef": {"name": ""}}]
    assert container["readinessProbe"]["grpc"] == {"port": 9000, "service": ""}
    assert pod["imagePullSecrets"] == [{"name": ""}]
    assert pod["volumes"][0]["azureDisk"] == {"diskName": "n", "diskURI": "u", "fsType": "ext4", "readOnly": False}
    assert pod["volumes"][1]["rbd"] == {"image": "i", "monitors": ["m"], "keyring": "/etc/ceph/keyring",
                                        "pool": "rbd", "user": "admin"}
    # Layer A of the reference's own defaulting predicts exactly what the API server stored.
    assert stored["spec"] == apply_schema_defaults(manifest)["spec"]


def test_defaults_apply_only_inside_present_objects(cluster: FakeCluster) -> None:
    stored = cluster.client.create(jobset({"containers": [CONTAINER]}))
    assert pod_spec_of(stored) == {"containers": [CONTAINER]}


def test_unknown_template_fields_are_pruned_with_a_warning_or_refused_when_strict(cluster: FakeCluster) -> None:
    manifest = jobset({"containers": [{**CONTAINER, "futureField": 1}]})
    manifest["spec"]["replicatedJobs"][0]["template"]["metadata"] = {"labels": {"a": "b"}, "generateName": "x-"}
    with pytest.warns(ApiWarning) as warned:
        stored = cluster.client.create(manifest, field_validation="Warn")
    assert pod_spec_of(stored) == {"containers": [CONTAINER]}
    # The embedded ObjectMeta keeps annotations, finalizers, labels, name and namespace only.
    assert stored["spec"]["replicatedJobs"][0]["template"]["metadata"] == {"labels": {"a": "b"}}
    assert sorted(str(w.message) for w in warned) == [
        'unknown field "spec.replicatedJobs[0].template.metadata.generateName"',
        f'unknown field "{POD_PATH}.containers[0].futureField"']
    unknown = f'strict decoding error: unknown field "{POD_PATH}.containers[0].futureField"'
    with pytest.raises(BadRequest, match=re.escape(unknown)):
        cluster.client.create(jobset({"containers": [{**CONTAINER, "futureField": 1}]}, name="strict"),
                              field_validation="Strict")


@pytest.mark.parametrize(("pod_spec", "message"), [
    ({}, f"{POD_PATH}.containers: Required value"),
    ({"containers": [{"image": "busybox"}]}, f"{POD_PATH}.containers[0].name: Required value"),
    ({"containers": [CONTAINER, CONTAINER]},
     f'{POD_PATH}.containers[1]: Duplicate value: {{"name":"c"}}'),
    ({"containers": [{**CONTAINER, "ports": [{"containerPort": "80"}]}]},
     f'{POD_PATH}.containers[0].ports[0].containerPort: Invalid value: "string": '
     f'{POD_PATH}.containers[0].ports[0].containerPort in body must be of type integer: "string"'),
    ({"containers": [{**CONTAINER, "resources": {"limits": {"cpu": "lots"}}}]},
     f'{POD_PATH}.containers[0].resources.limits.cpu: Invalid value: "lots": '
     f"{POD_PATH}.containers[0].resources.limits.cpu in body should match"),
])
def test_the_pod_template_is_validated_by_the_schema(cluster: FakeCluster, pod_spec: dict[str, Any],
                                                     message: str) -> None:
    with pytest.raises(Invalid) as raised:
        cluster.client.create(jobset(pod_spec))
    assert raised.value.code == 422 and message in str(raised.value)


def test_pvc_templates_are_pruned_and_validated(cluster: FakeCluster) -> None:
    template = {"metadata": {"name": "cache", "uid": "u"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                         "futureField": True}}
    manifest = jobset({"containers": [CONTAINER]},
                      volumeClaimPolicies=[{"templates": [template], "retentionPolicy": {}}])
    stored = cluster.client.create(manifest)
    assert stored["spec"]["volumeClaimPolicies"] == [{
        "templates": [{"metadata": {"name": "cache"},
                       "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}],
        "retentionPolicy": {"whenDeleted": "Delete"}}]
    bad = copy.deepcopy(manifest)
    bad["metadata"]["name"] = "bad"
    bad["spec"]["volumeClaimPolicies"][0]["templates"][0]["spec"]["resources"]["requests"]["storage"] = "1 Gi"
    with pytest.raises(Invalid, match=r"spec.volumeClaimPolicies\[0\].templates\[0\].spec.resources.requests.storage"):
        cluster.client.create(bad)


def test_embedded_schemas_are_fresh_copies() -> None:
    first = job_template_schema()
    first["properties"].clear()
    assert job_template_schema()["properties"]
    assert persistent_volume_claim_schema()["properties"]["metadata"] == {
        "properties": {"annotations": {"additionalProperties": {"type": "string"}, "type": "object"},
                       "finalizers": {"items": {"type": "string"}, "type": "array"},
                       "labels": {"additionalProperties": {"type": "string"}, "type": "object"},
                       "name": {"type": "string"}, "namespace": {"type": "string"}},
        "type": "object"}


def test_server_side_apply_merges_template_lists_by_their_keys(cluster: FakeCluster) -> None:
    # containers is a list-map keyed by name in the embedded schema (atomic under preserve-unknown-fields).
    resource = "jobsets.jobset.x-k8s.io"
    cluster.api.patch(resource, "js", jobset({"containers": [CONTAINER]}), namespace="default",
                      patch_type="apply", field_manager="first")
    other = {**CONTAINER, "name": "d"}
    stored = cluster.api.patch(resource, "js", jobset({"containers": [other]}), namespace="default",
                               patch_type="apply", field_manager="second")
    assert pod_spec_of(stored)["containers"] == [CONTAINER, other]
    second = next(m for m in stored["metadata"]["managedFields"] if m["manager"] == "second")
    pod_fields = second["fieldsV1"]["f:spec"]["f:replicatedJobs"]['k:{"name":"w"}']["f:template"]["f:spec"][
        "f:template"]["f:spec"]
    assert pod_fields == {"f:containers": {'k:{"name":"d"}': {".": {}, "f:image": {}, "f:name": {}}}}
