"""Compare jobset_ref.api.crd.jobset_crd() field by field with the upstream CRD
(config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml)."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from typing import Any

import pytest
import yaml

from jobset_ref.api.crd import CRD_PATH, generate_crd, jobset_crd, main, openapi_schema, render_crd
from jobset_ref.api.models import ReplicatedJob

#: Beside the clone, when present: these comparisons are the one thing a plain clone cannot run.
UPSTREAM_CRD = pathlib.Path(__file__).resolve().parents[3] / "shared" / "upstream" / "crd" / "jobset.x-k8s.io_jobsets.yaml"

#: Schema keywords compared at every node.
COMPARED = ("type", "format", "required", "default", "enum", "minimum", "maximum", "maxItems", "minItems",
            "minLength", "maxLength", "maxProperties", "minProperties", "pattern", "anyOf", "allOf", "oneOf", "not",
            "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-validations",
            "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "nullable",
            "x-kubernetes-int-or-string", "x-kubernetes-map-type")

#: Every intentional difference, with its reason. Below these nodes the subtree is not compared;
#: at the node itself only ``type`` must agree. (None left: the embedded Job and PVC templates
#: carry upstream's full schemas.)
ALLOWED_DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def upstream() -> dict[str, Any]:
    if not UPSTREAM_CRD.is_file():
        pytest.skip(f"needs the upstream JobSet CRD at {UPSTREAM_CRD} (../shared/upstream beside the clone) to "
                    f"compare ours with it field by field")
    return yaml.safe_load(UPSTREAM_CRD.read_text())


def _diff(ours: dict[str, Any], theirs: dict[str, Any], path: str, out: list[str], seen: set[str]) -> None:
    if path in ALLOWED_DIFFERENCES:
        seen.add(path)
        if ours.get("type") != theirs.get("type"):
            out.append(f"{path}: type {ours.get('type')!r} != {theirs.get('type')!r}")
        return
    unknown_keywords = (set(ours) | set(theirs)) - set(COMPARED) - {"description", "properties", "items",
                                                                    "additionalProperties"}
    if unknown_keywords:
        out.append(f"{path}: keywords not compared: {sorted(unknown_keywords)}")
    for key in COMPARED:
        a, b = ours.get(key), theirs.get(key)
        if key == "required":
            a, b = sorted(a or []), sorted(b or [])
        if a != b:
            out.append(f"{path}: {key} {a!r} != upstream {b!r}")
    props_a, props_b = ours.get("properties", {}), theirs.get("properties", {})
    for missing in sorted(set(props_b) - set(props_a)):
        out.append(f"{path}.{missing}: missing (present upstream)")
    for extra in sorted(set(props_a) - set(props_b)):
        out.append(f"{path}.{extra}: not upstream")
    for name in sorted(set(props_a) & set(props_b)):
        _diff(props_a[name], props_b[name], f"{path}.{name}", out, seen)
    if "items" in ours or "items" in theirs:
        _diff(ours.get("items", {}), theirs.get("items", {}), f"{path}[]", out, seen)
    addl_a, addl_b = ours.get("additionalProperties"), theirs.get("additionalProperties")
    if isinstance(addl_a, dict) or isinstance(addl_b, dict):
        _diff(addl_a if isinstance(addl_a, dict) else {}, addl_b if isinstance(addl_b, dict) else {},
              f"{path}{{}}", out, seen)
    elif addl_a != addl_b:
        out.append(f"{path}: additionalProperties {addl_a!r} != upstream {addl_b!r}")


def test_schema_matches_upstream_field_by_field(upstream: dict[str, Any]) -> None:
    ours = jobset_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    theirs = upstream["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    diffs: list[str] = []
    seen: set[str] = set()
    _diff(ours, theirs, "", diffs, seen)
    assert diffs == []
    assert seen == set(ALLOWED_DIFFERENCES), "stale allow-list entries"


def _defaults(node: dict[str, Any], path: str, out: dict[str, Any]) -> dict[str, Any]:
    """Every ``default`` below ``node``, by path (``[]`` for list items, ``{}`` for map values)."""
    if "default" in node:
        out[path] = node["default"]
    for name, child in (node.get("properties") or {}).items():
        _defaults(child, f"{path}.{name}", out)
    if isinstance(node.get("items"), dict):
        _defaults(node["items"], f"{path}[]", out)
    if isinstance(node.get("additionalProperties"), dict):
        _defaults(node["additionalProperties"], f"{path}{{}}", out)
    return out


def test_every_upstream_default_is_served_at_the_same_path(upstream: dict[str, Any]) -> None:
    ours = _defaults(jobset_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"], "", {})
    theirs = _defaults(upstream["spec"]["versions"][0]["schema"]["openAPIV3Schema"], "", {})
    differing = sorted(f"{path}: ours {ours.get(path, '<none>')!r}, upstream {theirs.get(path, '<none>')!r}"
                       for path in set(ours) | set(theirs) if ours.get(path, ...) != theirs.get(path, ...))
    assert differing == []
    # Every default upstream declares, the embedded Job and PVC templates' included.
    assert len(theirs) == 51 and ".spec.replicatedJobs[].template.spec.template.spec.containers[].ports[].protocol" in ours


def test_resource_registration_matches_upstream(upstream: dict[str, Any]) -> None:
    ours = jobset_crd()
    assert ours["apiVersion"] == upstream["apiVersion"] and ours["kind"] == upstream["kind"]
    assert ours["metadata"]["name"] == upstream["metadata"]["name"] == "jobsets.jobset.x-k8s.io"
    for key in ("group", "names", "scope"):
        assert ours["spec"][key] == upstream["spec"][key], key
    ours_v, theirs_v = ours["spec"]["versions"], upstream["spec"]["versions"]
    assert len(ours_v) == len(theirs_v) == 1
    for key in ("name", "served", "storage", "subresources", "additionalPrinterColumns"):
        assert ours_v[0][key] == theirs_v[0][key], key


def test_cel_rules_count_and_messages() -> None:
    rules: list[tuple[str, str]] = []

    def walk(node: dict[str, Any], path: str) -> None:
        rules.extend((path, v["message"]) for v in node.get("x-kubernetes-validations", []))
        for name, child in node.get("properties", {}).items():
            walk(child, f"{path}.{name}")
        if "items" in node:
            walk(node["items"], f"{path}[]")

    walk(jobset_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"], "")
    assert sorted(rules) == sorted([
        (".spec", "StartupPolicy and DependsOn APIs are mutually exclusive"),
        (".spec.network", "Value is immutable"),
        (".spec.successPolicy", "Value is immutable"),
        (".spec.failurePolicy", "Value is immutable"),
        (".spec.startupPolicy", "Value is immutable"),
        (".spec.volumeClaimPolicies", "Value is immutable"),
        (".spec.volumeClaimPolicies[]", "namespace cannot be set for VolumeClaimPolicies templates"),
        (".spec.replicatedJobs[].dependsOn", "Value is immutable"),
    ])


def test_generated_schema_of_a_submodel() -> None:
    schema = openapi_schema(ReplicatedJob)
    assert schema["required"] == ["name", "template"]
    assert schema["properties"]["replicas"] == {
        "default": 1, "description": "How many Jobs to create from the template. Defaults to 1; 0 creates none.",
        "format": "int32", "minimum": 0, "type": "integer"}
    template = schema["properties"]["template"]
    assert sorted(template["properties"]) == ["metadata", "spec"] and "x-kubernetes-preserve-unknown-fields" not in template
    pod_spec = template["properties"]["spec"]["properties"]["template"]["properties"]["spec"]
    assert pod_spec["required"] == ["containers"]
    assert pod_spec["properties"]["containers"]["items"]["properties"]["ports"]["items"]["properties"]["protocol"] == {
        "default": "TCP", "type": "string"}
    assert jobset_crd() == jobset_crd()  # deterministic, fresh copies
    crd = jobset_crd()
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"].clear()
    assert jobset_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]


def test_committed_crd_is_what_the_models_generate() -> None:
    # jobset_crd() serves jobset_crd.json (no pydantic at install); it must be the models' CRD.
    assert CRD_PATH.read_text(encoding="utf-8") == render_crd(generate_crd()), (
        "jobset_ref/api/jobset_crd.json is stale: run python -m jobset_ref.api.crd")
    assert jobset_crd() == generate_crd()
    assert main(["--check"]) == 0


def test_installing_the_crd_needs_no_pydantic() -> None:
    code = ("import sys; from fakekube import FakeCluster; from jobset_ref.api.crd import jobset_crd; "
            "FakeCluster(seed=0, simulate=False).client.create(jobset_crd()); "
            "assert 'pydantic' not in sys.modules and 'jobset_ref.api.models' not in sys.modules, "
            "sorted(m for m in sys.modules if m.startswith(('pydantic', 'jobset_ref')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
