"""Structural-schema pruning, defaulting and validation against the JobSet CRD (the project's own,
``jobset_ref/api/jobset_crd.json``, which matches upstream's field by field: tests/jobset_ref/test_api_crd.py).

Expected texts are those the API server returns (kube-openapi messages through apimachinery
``field.Error``); jobset-api.md §5.1 (layer A defaults) and §8 (schema and CEL messages).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakekube.errors import ErrorType, FieldError, UsageError
from fakekube.machinery.openapi import StructuralSchema

ROOT = Path(__file__).resolve().parents[2]
CRD_PATH = ROOT / "jobset_ref" / "api" / "jobset_crd.json"
#: The project's own manifests, written with the shapes of upstream's examples (``examples/<path>``).
EXAMPLES = ROOT / "jobset_ref" / "conformance" / "manifests"

BLOCKED = ("<nil>: Invalid value: null: some validation rules were not checked because the object was "
           "invalid; correct the existing errors to complete validation")

Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Obj = dict[str, Any]


# --------------------------------------------------------------------------- fixtures and builders

@pytest.fixture(scope="module")
def crd_version() -> Obj:
    crd = json.loads(CRD_PATH.read_text())
    return crd["spec"]["versions"][0]


@pytest.fixture(scope="module")
def schema(crd_version: Obj) -> StructuralSchema:
    return StructuralSchema.from_crd_version(crd_version)


def rjob(name: str, **extra: Any) -> Obj:
    body: Obj = {"name": name, "template": {"spec": {"template": {"spec": {
        "containers": [{"name": "main", "image": "busybox"}]}}}}}
    body.update(extra)
    return body


def jobset(*jobs: Obj, **spec: Any) -> Obj:
    body: Obj = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
                 "spec": {"replicatedJobs": list(jobs or [rjob("a")])}}
    body["spec"].update(spec)
    return body


def admit(s: StructuralSchema, obj: Obj) -> Obj:
    """Layer A: prune then default, as on every decode."""
    return s.default(s.prune(obj))


def messages(s: StructuralSchema, obj: Obj, old: Obj | None = None, **kw: Any) -> list[str]:
    new = admit(s, obj)
    prev = admit(s, old) if old is not None else None
    return [str(e) for e in s.validate(new, prev, **kw)]


def template_spec(obj: Obj, i: int = 0) -> Obj:
    return obj["spec"]["replicatedJobs"][i]["template"]["spec"]["template"]["spec"]


# --------------------------------------------------------------------------- construction

def test_construction_compiles_no_cel(crd_version: Obj) -> None:
    s = StructuralSchema.from_crd_version(crd_version)  # CEL rules compile on first use, not here
    assert s.compiled_rule_count == 0
    s.validate(admit(s, jobset()))
    assert s.compiled_rule_count == 1  # only the spec-level rule had something to evaluate


def test_schema_is_immutable_and_detached_from_its_source(crd_version: Obj) -> None:
    source = copy.deepcopy(crd_version)
    s = StructuralSchema.from_crd_version(source)
    rj_props = source["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["replicatedJobs"]
    rj_props["items"]["properties"]["groupName"]["default"] = "mutated"
    assert admit(s, jobset())["spec"]["replicatedJobs"][0]["groupName"] == "default"
    with pytest.raises(AttributeError):
        s.kube_minor = 99  # type: ignore[misc]


def test_from_crd_version_without_schema_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        StructuralSchema.from_crd_version({"name": "v1"})
    with pytest.raises(UsageError):
        StructuralSchema({"type": "object"}).prune([])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- defaulting (layer A, §5.1)

def test_crd_defaults_are_applied(schema: StructuralSchema) -> None:
    job = rjob("a")
    template_spec({"spec": {"replicatedJobs": [job]}})["containers"][0]["ports"] = [{"containerPort": 80}]
    template_spec({"spec": {"replicatedJobs": [job]}})["initContainers"] = [
        {"name": "init", "ports": [{"containerPort": 81}]}]
    out = admit(schema, jobset(job))
    rj = out["spec"]["replicatedJobs"][0]
    assert rj["replicas"] == 1
    assert rj["groupName"] == "default"
    assert template_spec(out)["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert template_spec(out)["initContainers"][0]["ports"][0]["protocol"] == "TCP"
    assert "failurePolicy" not in out["spec"]


def test_nested_defaults_apply_only_inside_present_objects(schema: StructuralSchema) -> None:
    absent = admit(schema, jobset(volumeClaimPolicies=[{"templates": []}]))
    assert "failurePolicy" not in absent["spec"]
    assert absent["spec"]["volumeClaimPolicies"] == [{"templates": []}]
    present = admit(schema, jobset(failurePolicy={}, volumeClaimPolicies=[{"retentionPolicy": {}}]))
    assert present["spec"]["failurePolicy"] == {"restartStrategy": "Recreate"}
    assert present["spec"]["volumeClaimPolicies"] == [{"retentionPolicy": {"whenDeleted": "Delete"}}]


def test_explicit_values_are_not_overwritten(schema: StructuralSchema) -> None:
    out = admit(schema, jobset(rjob("a", replicas=0, groupName=""), failurePolicy={"restartStrategy":
                                                                                   "BlockingRecreate"}))
    assert out["spec"]["replicatedJobs"][0]["replicas"] == 0
    assert out["spec"]["replicatedJobs"][0]["groupName"] == ""
    assert out["spec"]["failurePolicy"]["restartStrategy"] == "BlockingRecreate"


def test_null_is_defaulted_when_a_default_exists_and_pruned_otherwise(schema: StructuralSchema) -> None:
    pruned = schema.prune(jobset(rjob("a", replicas=None), suspend=None))
    assert pruned["spec"]["replicatedJobs"][0]["replicas"] is None  # kept for defaulting
    assert "suspend" not in pruned["spec"]  # non-nullable, no default: removed
    assert schema.default(pruned)["spec"]["replicatedJobs"][0]["replicas"] == 1


def test_default_and_prune_do_not_mutate_their_input(schema: StructuralSchema) -> None:
    obj = jobset(rjob("a"), bogus=1, failurePolicy={})
    before = copy.deepcopy(obj)
    schema.default(obj)
    schema.prune(obj)
    assert obj == before


# --------------------------------------------------------------------------- pruning

def test_prune_drops_unknown_fields_and_reports_their_paths(schema: StructuralSchema) -> None:
    job = rjob("a", extra=True)
    job["template"]["metadata"] = {"labels": {"k": "v"}, "uid": "u", "resourceVersion": "1"}
    obj = jobset(job, bogus={"x": 1})
    obj["status"] = {"restarts": 1, "whatever": 2}
    pruned, unknown = schema.prune_tracking(obj)
    assert unknown == ["spec.bogus", "spec.replicatedJobs[0].extra",
                       "spec.replicatedJobs[0].template.metadata.resourceVersion",
                       "spec.replicatedJobs[0].template.metadata.uid", "status.whatever"]
    assert pruned["spec"]["replicatedJobs"][0]["template"]["metadata"] == {"labels": {"k": "v"}}
    assert "bogus" not in pruned["spec"]
    assert pruned["status"] == {"restarts": 1}


def test_prune_keeps_top_level_type_and_object_meta_verbatim(schema: StructuralSchema) -> None:
    obj = jobset()
    obj["metadata"] = {"name": "js", "labels": {"a": "b"}, "futureField": {"x": None}}
    obj["extraTopLevel"] = 1
    pruned, unknown = schema.prune_tracking(obj)
    assert pruned["apiVersion"] == "jobset.x-k8s.io/v1alpha2"
    assert pruned["kind"] == "JobSet"
    assert pruned["metadata"] == obj["metadata"]
    assert pruned["metadata"] is not obj["metadata"]
    assert "extraTopLevel" not in pruned
    assert unknown == ["extraTopLevel"]


# --------------------------------------------------------------------------- §8 messages

def _set(path: str, value: Any) -> Callable[[Obj], None]:
    def mutate(obj: Obj) -> None:
        cur: Any = obj
        parts = path.split(".")
        for p in parts[:-1]:
            cur = cur[int(p)] if isinstance(cur, list) else cur.setdefault(p, {})
        last = parts[-1]
        if value is _DELETE:
            del cur[last]
        elif isinstance(cur, list):
            cur[int(last)] = value
        else:
            cur[last] = value
    return mutate


_DELETE = object()
TWO_JOBS = (rjob("a"), rjob("b", dependsOn=[{"name": "a", "status": "Ready"}]))

SECTION_8_CASES: list[tuple[str, Callable[[Obj], None], list[str]]] = [
    ("replicas minimum", _set("spec.replicatedJobs.0.replicas", -1),
     ["spec.replicatedJobs[0].replicas: Invalid value: -1: spec.replicatedJobs[0].replicas in body should be "
      "greater than or equal to 0"]),
    ("ttl minimum", _set("spec.ttlSecondsAfterFinished", -1),
     ["spec.ttlSecondsAfterFinished: Invalid value: -1: spec.ttlSecondsAfterFinished in body should be greater "
      "than or equal to 0"]),
    ("dependsOn status enum", _set("spec.replicatedJobs.1.dependsOn.0.status", "Failed"),
     ['spec.replicatedJobs[1].dependsOn[0].status: Unsupported value: "Failed": supported values: "Ready", '
      '"Complete"', BLOCKED]),
    ("successPolicy operator enum", _set("spec.successPolicy", {"operator": "Some"}),
     ['spec.successPolicy.operator: Unsupported value: "Some": supported values: "All", "Any"', BLOCKED]),
    ("rule action enum", _set("spec.failurePolicy", {"rules": [{"name": "r", "action": "Explode"}]}),
     ['spec.failurePolicy.rules[0].action: Unsupported value: "Explode": supported values: "FailJobSet", '
      '"RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob", "RestartJobAndIgnoreMaxRestarts"',
      BLOCKED]),
    ("restartStrategy enum", _set("spec.failurePolicy", {"restartStrategy": "Later"}),
     ['spec.failurePolicy.restartStrategy: Unsupported value: "Later": supported values: "Recreate", '
      '"BlockingRecreate", "InPlaceRestart"', BLOCKED]),
    ("startupPolicyOrder enum", _set("spec.startupPolicy", {"startupPolicyOrder": "Random"}),
     ['spec.startupPolicy.startupPolicyOrder: Unsupported value: "Random": supported values: "AnyOrder", '
      '"InOrder"', BLOCKED]),
    ("whenDeleted enum", _set("spec.volumeClaimPolicies", [{"retentionPolicy": {"whenDeleted": "Keep"}}]),
     ['spec.volumeClaimPolicies[0].retentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: '
      '"Delete", "Retain"', BLOCKED]),
    ("required names and template", _set("spec.replicatedJobs", [{}]),
     ["spec.replicatedJobs[0].name: Required value", "spec.replicatedJobs[0].template: Required value", BLOCKED]),
    ("required dependsOn fields", _set("spec.replicatedJobs.1.dependsOn", [{}]),
     ["spec.replicatedJobs[1].dependsOn[0].name: Required value",
      "spec.replicatedJobs[1].dependsOn[0].status: Required value", BLOCKED]),
    ("required policy fields", lambda o: o["spec"].update(
        successPolicy={}, startupPolicy={}, failurePolicy={"rules": [{}]}, coordinator={}),
     ["spec.successPolicy.operator: Required value", "spec.startupPolicy.startupPolicyOrder: Required value",
      "spec.failurePolicy.rules[0].action: Required value", "spec.failurePolicy.rules[0].name: Required value",
      "spec.coordinator.replicatedJob: Required value", BLOCKED]),
    ("required job and pod template fields", _set("spec.replicatedJobs.0.template", {"spec": {}}),
     ["spec.replicatedJobs[0].template.spec.template: Required value", BLOCKED]),
    ("required containers", _set("spec.replicatedJobs.0.template.spec.template.spec", {}),
     ["spec.replicatedJobs[0].template.spec.template.spec.containers: Required value", BLOCKED]),
    ("required container name", _set("spec.replicatedJobs.0.template.spec.template.spec.containers", [{}]),
     ["spec.replicatedJobs[0].template.spec.template.spec.containers[0].name: Required value", BLOCKED]),
    ("volumeClaimPolicies maxItems", _set("spec.volumeClaimPolicies", [{"templates": []}] * 51),
     ["spec.volumeClaimPolicies: Too many: 51: must have at most 50 items", BLOCKED]),
    ("templates maxItems", _set("spec.volumeClaimPolicies", [{"templates": [{}] * 51}]),
     ["spec.volumeClaimPolicies[0].templates: Too many: 51: must have at most 50 items", BLOCKED]),
    ("dependsOn maxItems", _set("spec.replicatedJobs.1.dependsOn",
                                [{"name": n, "status": "Ready"} for n in "abcdef"]),
     ["spec.replicatedJobs[1].dependsOn: Too many: 6: must have at most 5 items", BLOCKED]),
    ("duplicate replicatedJob names", _set("spec.replicatedJobs.1", rjob("a")),
     ['spec.replicatedJobs[1]: Duplicate value: {"name":"a"}']),
    ("duplicate dependsOn names", _set("spec.replicatedJobs.1.dependsOn",
                                       [{"name": "a", "status": "Ready"}, {"name": "a", "status": "Complete"}]),
     ['spec.replicatedJobs[1].dependsOn[1]: Duplicate value: {"name":"a"}']),
    ("duplicate container names", _set("spec.replicatedJobs.0.template.spec.template.spec.containers",
                                       [{"name": "c"}, {"name": "c"}]),
     ['spec.replicatedJobs[0].template.spec.template.spec.containers[1]: Duplicate value: {"name":"c"}']),
    ("startupPolicy/dependsOn exclusion", _set("spec.startupPolicy", {"startupPolicyOrder": "InOrder"}),
     ['spec: Invalid value: "object": StartupPolicy and DependsOn APIs are mutually exclusive']),
    ("VCP template namespace", _set("spec.volumeClaimPolicies",
                                    [{"templates": [{"metadata": {"name": "data", "namespace": "other"}}]}]),
     ['spec.volumeClaimPolicies[0]: Invalid value: "object": namespace cannot be set for VolumeClaimPolicies '
      'templates']),
    ("type error", _set("spec.replicatedJobs.0.replicas", "string"),
     ['spec.replicatedJobs[0].replicas: Invalid value: "string": spec.replicatedJobs[0].replicas in body must be '
      'of type integer: "string"', BLOCKED]),
]


@pytest.mark.parametrize(("mutate", "expected"), [c[1:] for c in SECTION_8_CASES],
                         ids=[c[0] for c in SECTION_8_CASES])
def test_section_8_messages(schema: StructuralSchema, mutate: Callable[[Obj], None], expected: list[str]) -> None:
    obj = jobset(*copy.deepcopy(TWO_JOBS))
    assert messages(schema, obj) == []
    mutate(obj)
    assert messages(schema, obj) == expected


def test_error_types_and_causes(schema: StructuralSchema) -> None:
    obj = jobset(rjob("a", replicas="x"), rjob("a"))
    errs = schema.validate(admit(schema, obj))
    assert [e.type for e in errs] == [ErrorType.TYPE_INVALID, ErrorType.DUPLICATE, ErrorType.INVALID]
    assert errs[0].cause() == {
        "reason": "FieldValueTypeInvalid", "field": "spec.replicatedJobs[0].replicas",
        "message": 'Invalid value: "string": spec.replicatedJobs[0].replicas in body must be of type integer: "string"'}
    assert all(isinstance(e, FieldError) for e in errs)


def test_mutual_exclusion_needs_replicated_jobs_to_evaluate(schema: StructuralSchema) -> None:
    obj = jobset(startupPolicy={"startupPolicyOrder": "InOrder"})
    del obj["spec"]["replicatedJobs"]
    assert messages(schema, obj) == [
        'spec: Invalid value: "object": no such key: replicatedJobs evaluating rule: StartupPolicy and DependsOn '
        "APIs are mutually exclusive"]
    obj["spec"]["startupPolicy"]["startupPolicyOrder"] = "AnyOrder"
    assert messages(schema, obj) == []


def test_float_values_render_like_go(schema: StructuralSchema) -> None:
    assert messages(schema, jobset(rjob("a", replicas=-1.0))) == [
        "spec.replicatedJobs[0].replicas: Invalid value: -1: spec.replicatedJobs[0].replicas in body should be "
        "greater than or equal to 0"]
    assert messages(schema, jobset(rjob("a", replicas=1.5))) == [
        'spec.replicatedJobs[0].replicas: Invalid value: "float64": spec.replicatedJobs[0].replicas in body must '
        'be of type int32: "float64"', BLOCKED]


def test_errors_follow_document_order(schema: StructuralSchema) -> None:
    forward = jobset(rjob("a", replicas=-1), ttlSecondsAfterFinished=-2)
    backward = {"apiVersion": forward["apiVersion"], "kind": "JobSet", "metadata": {"name": "js"},
                "spec": {"ttlSecondsAfterFinished": -2, "replicatedJobs": forward["spec"]["replicatedJobs"]}}
    fwd = [e.field for e in schema.validate(admit(schema, forward))]
    bwd = [e.field for e in schema.validate(admit(schema, backward))]
    assert fwd == ["spec.replicatedJobs[0].replicas", "spec.ttlSecondsAfterFinished"]
    assert bwd == list(reversed(fwd))


# --------------------------------------------------------------------------- updates

IMMUTABLE_CASES = [
    ("failurePolicy", {"maxRestarts": 1}, {"maxRestarts": 2}, "object"),
    ("network", {"subdomain": "a"}, {"subdomain": "b"}, "object"),
    ("successPolicy", {"operator": "All"}, {"operator": "Any"}, "object"),
    ("startupPolicy", {"startupPolicyOrder": "AnyOrder"}, {"startupPolicyOrder": "InOrder"}, "object"),
    ("volumeClaimPolicies", [{"templates": []}], [{"templates": [{}]}], "array"),
]


@pytest.mark.parametrize(("field", "before", "after", "kind"), IMMUTABLE_CASES, ids=[c[0] for c in IMMUTABLE_CASES])
def test_immutable_fields_reject_changes_but_not_add_or_remove(
        schema: StructuralSchema, field: str, before: Any, after: Any, kind: str) -> None:
    old = jobset(rjob("a"), **{field: before})
    new = jobset(rjob("a"), **{field: after})
    assert messages(schema, new, old) == [f'spec.{field}: Invalid value: "{kind}": Value is immutable']
    assert messages(schema, old, old) == []
    assert messages(schema, new, jobset(rjob("a"))) == []  # added
    assert messages(schema, jobset(rjob("a")), old) == []  # removed


def test_failure_policy_change_message(schema: StructuralSchema) -> None:
    old = jobset(failurePolicy={"maxRestarts": 3})
    new = jobset(failurePolicy={"maxRestarts": 3, "restartStrategy": "BlockingRecreate"})
    assert messages(schema, new, old) == ['spec.failurePolicy: Invalid value: "object": Value is immutable']


def test_depends_on_is_immutable_per_correlated_replicated_job(schema: StructuralSchema) -> None:
    old = jobset(rjob("a"), rjob("b"), rjob("c", dependsOn=[{"name": "a", "status": "Ready"},
                                                           {"name": "b", "status": "Ready"}]))
    changed = copy.deepcopy(old)
    changed["spec"]["replicatedJobs"][2]["dependsOn"][1]["status"] = "Complete"
    assert messages(schema, changed, old) == [
        'spec.replicatedJobs[2].dependsOn: Invalid value: "array": Value is immutable']
    reordered = copy.deepcopy(old)
    reordered["spec"]["replicatedJobs"][2]["dependsOn"].reverse()
    assert messages(schema, reordered, old) == []  # map-list equality ignores order
    moved = copy.deepcopy(changed)
    moved["spec"]["replicatedJobs"].reverse()  # correlated by name, not by index
    assert messages(schema, moved, old) == [
        'spec.replicatedJobs[0].dependsOn: Invalid value: "array": Value is immutable']


def test_schema_errors_ratchet_on_unchanged_values(schema: StructuralSchema) -> None:
    old = jobset(rjob("a", replicas=-1), rjob("b"))
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["labels"] = {"x": "y"}
    relabelled["spec"]["replicatedJobs"][1]["replicas"] = 3
    assert messages(schema, relabelled, old) == []
    worse = copy.deepcopy(old)
    worse["spec"]["replicatedJobs"][0]["replicas"] = -2
    assert messages(schema, worse, old) == [
        "spec.replicatedJobs[0].replicas: Invalid value: -2: spec.replicatedJobs[0].replicas in body should be "
        "greater than or equal to 0"]


def test_cel_errors_ratchet_into_warnings(schema: StructuralSchema) -> None:
    old = jobset(*TWO_JOBS, startupPolicy={"startupPolicyOrder": "InOrder"})
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["labels"] = {"x": "y"}
    warnings: list[str] = []
    assert messages(schema, relabelled, old, warnings=warnings) == []
    assert warnings == ['spec: Invalid value: "object": StartupPolicy and DependsOn APIs are mutually exclusive']
    suspended = copy.deepcopy(old)
    suspended["spec"]["suspend"] = True
    assert messages(schema, suspended, old) == [
        'spec: Invalid value: "object": StartupPolicy and DependsOn APIs are mutually exclusive']


def test_list_type_errors_ratchet_when_old_object_had_them(schema: StructuralSchema) -> None:
    old = jobset(rjob("a"), rjob("a"))
    new = copy.deepcopy(old)
    new["spec"]["suspend"] = True
    assert messages(schema, new) == ['spec.replicatedJobs[1]: Duplicate value: {"name":"a"}']
    assert messages(schema, new, old) == []


def test_status_subresource_validation(schema: StructuralSchema) -> None:
    old = jobset()
    new = jobset()
    new["status"] = {"restarts": 1, "conditions": [
        {"type": "Completed", "status": "Maybe", "lastTransitionTime": "yesterday", "reason": "", "message": "m"},
        {"type": "Completed", "status": "True", "lastTransitionTime": "2030-01-01T00:00:00Z", "reason": "Done",
         "message": "m"}]}
    assert [str(e) for e in schema.validate_status(new, old)] == [
        'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
        'status.conditions[0].lastTransitionTime: Invalid value: "yesterday": conditions[0].lastTransitionTime in '
        'body must be of type date-time: "yesterday"',
        'status.conditions[0].reason: Invalid value: "": conditions[0].reason in body should be at least 1 chars '
        "long",
        'status.conditions[1]: Duplicate value: {"type":"Completed"}',
        BLOCKED]
    # through the main resource the detail names the full path
    assert messages(schema, new)[1] == (
        'status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime '
        'in body must be of type date-time: "yesterday"')


def test_status_string_limits(schema: StructuralSchema) -> None:
    cond = {"type": "bad type!", "status": "True", "lastTransitionTime": "2030-01-01T00:00:00Z", "reason": "R",
            "message": "m" * 32769}
    obj = jobset()
    obj["status"] = {"conditions": [cond]}
    assert messages(schema, obj) == [
        "status.conditions[0].type: Invalid value: \"bad type!\": status.conditions[0].type in body should match "
        "'^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?"
        "[A-Za-z0-9])$'",
        "status.conditions[0].message: Too long: may not be more than 32768 bytes",
        BLOCKED]


# --------------------------------------------------------------------------- release differences

def test_kube_135_omits_object_values_in_cel_errors(crd_version: Obj) -> None:
    s = StructuralSchema.from_crd_version(crd_version, kube_minor=35)
    old = jobset(failurePolicy={"maxRestarts": 1})
    new = jobset(failurePolicy={"maxRestarts": 2})
    assert messages(s, new, old) == ["spec.failurePolicy: Invalid value: Value is immutable"]


def test_kube_136_checks_int32_range(crd_version: Obj, schema: StructuralSchema) -> None:
    big = jobset(rjob("a", replicas=2**31))
    assert messages(schema, big) == []
    s36 = StructuralSchema.from_crd_version(crd_version, kube_minor=36)
    assert messages(s36, big) == [
        '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in '
        "spec.replicatedJobs[0].replicas"]


# --------------------------------------------------------------------------- upstream examples

def _examples() -> list[tuple[str, Obj]]:
    out: list[tuple[str, Obj]] = []
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        with path.open() as fh:
            for doc in yaml.load_all(fh, Loader=Loader):
                if isinstance(doc, dict) and doc.get("kind") == "JobSet":
                    out.append((path.relative_to(EXAMPLES).as_posix(), doc))
    return out


def test_the_examples_pass_schema_validation(schema: StructuralSchema) -> None:
    examples = _examples()
    assert len(examples) >= 20
    for name, doc in examples:
        pruned, unknown = schema.prune_tracking(doc)
        assert unknown == [], name
        obj = schema.default(pruned)
        # layer B (the webhook) names unnamed failure-policy rules before layer C runs
        for i, rule in enumerate((obj["spec"].get("failurePolicy") or {}).get("rules") or []):
            rule.setdefault("name", f"failurePolicyRule{i}")
        assert schema.validate(obj) == [], name


# --------------------------------------------------------------------------- synthetic schemas

def obj_schema(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}


def test_preserve_unknown_fields_keep_unknown_but_prune_known_children() -> None:
    s = StructuralSchema(obj_schema(free={
        "type": "object", "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"typed": {"type": "object", "properties": {"a": {"type": "string"}}}}}))
    pruned, unknown = s.prune_tracking({"spec": {"free": {"anything": {"deep": [1]}, "typed": {"a": "x", "b": 1}}}})
    assert pruned == {"spec": {"free": {"anything": {"deep": [1]}, "typed": {"a": "x"}}}}
    assert unknown == ["spec.free.typed.b"]


def test_embedded_resource_keeps_type_meta_and_coerces_object_meta() -> None:
    s = StructuralSchema(obj_schema(child={
        "type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}))
    pruned = s.prune({"spec": {"child": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"},
                                         "metadata": {"name": "c", "bogus": 1, "labels": {}, "namespace": ""}}}})
    assert pruned == {"spec": {"child": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"},
                                         "metadata": {"name": "c"}}}}


def test_embedded_resource_with_properties_prunes_its_body_and_coerces_metadata() -> None:
    s = StructuralSchema(obj_schema(child={
        "type": "object", "x-kubernetes-embedded-resource": True,
        "properties": {"data": {"type": "object", "additionalProperties": {"type": "string"}}}}))
    pruned, unknown = s.prune_tracking({"spec": {"child": {
        "apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}, "binaryData": {},
        "metadata": {"name": "c", "generateName": "", "finalizers": ["f"], "whatever": 1}}}})
    assert pruned == {"spec": {"child": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"},
                                         "metadata": {"name": "c", "finalizers": ["f"]}}}}
    assert unknown == ["spec.child.binaryData"]


def test_root_required_and_root_additional_properties_paths() -> None:
    s = StructuralSchema({"type": "object", "required": ["spec"],
                          "additionalProperties": {"type": "integer"}})
    assert [str(e) for e in s.validate({"extra": "x"})] == [
        'extra: Invalid value: "string": .extra in body must be of type integer: "string"',
        "spec: Required value"]


def test_additional_properties_schema_and_boolean() -> None:
    s = StructuralSchema(obj_schema(
        labels={"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}},
        anything={"type": "object", "additionalProperties": True}))
    pruned = s.prune({"spec": {"labels": {"a": "abcd"}, "anything": {"k": "v", "m": {"x": 1}}}})
    assert pruned == {"spec": {"labels": {"a": "abcd"}, "anything": {"k": "v", "m": {}}}}
    assert [str(e) for e in s.validate(pruned)] == ["spec.labels.a: Too long: may not be more than 3 bytes"]


def test_set_lists_and_unique_items() -> None:
    s = StructuralSchema(obj_schema(
        tags={"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        uniq={"type": "array", "items": {"type": "integer"}, "uniqueItems": True, "minItems": 4}))
    assert [str(e) for e in s.validate({"spec": {"tags": ["a", "b", "a", "a", "b"], "uniq": [1, 1]}})] == [
        'spec.uniq: Invalid value: 2: spec.uniq in body should have at least 4 items',
        'spec.uniq: Invalid value: "": spec.uniq in body shouldn\'t contain duplicates',
        'spec.tags[2]: Duplicate value: "a"',
        'spec.tags[4]: Duplicate value: "b"']


def test_numeric_and_string_keywords() -> None:
    s = StructuralSchema(obj_schema(
        n={"type": "integer", "maximum": 10, "exclusiveMaximum": True, "multipleOf": 3},
        f={"type": "number", "minimum": 0.5},
        g={"type": "number", "multipleOf": 0.5, "maximum": 1e6},
        p={"type": "string", "pattern": "^[a-z]+$"},
        e={"type": "integer", "enum": [1, 2]},
        o={"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}}))
    assert [str(e) for e in s.validate({"spec": {"n": 10, "f": 0.25, "g": 1234567.25, "p": "abc\n", "e": 3,
                                                  "o": {"a": "1", "b": "2"}}})] == [
        "spec.n: Invalid value: 10: spec.n in body should be a multiple of 3",
        "spec.n: Invalid value: 10: spec.n in body should be less than 10",
        "spec.f: Invalid value: 0.25: spec.f in body should be greater than or equal to 0.5",
        "spec.g: Invalid value: 1.23456725e+06: spec.g in body should be a multiple of 0.5",
        "spec.g: Invalid value: 1.23456725e+06: spec.g in body should be less than or equal to 1e+06",
        "spec.p: Invalid value: \"abc\\n\": spec.p in body should match '^[a-z]+$'",
        'spec.e: Unsupported value: 3: supported values: "1", "2"',
        "spec.o: Too many: 2: must have at most 1 item"]


def test_int_or_string_any_of() -> None:
    s = StructuralSchema(obj_schema(port={"anyOf": [{"type": "integer"}, {"type": "string"}],
                                          "x-kubernetes-int-or-string": True}))
    assert s.validate({"spec": {"port": 80}}) == []
    assert s.validate({"spec": {"port": "http"}}) == []
    assert [str(e) for e in s.validate({"spec": {"port": True}})] == [
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        '<nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"']


def test_cel_rule_options_message_expression_reason_field_path() -> None:
    rules = [
        {"rule": "self.min <= self.max", "messageExpression": "'min ' + string(self.min) + ' exceeds max'",
         "fieldPath": ".min", "reason": "FieldValueForbidden"},
        {"rule": "self.max < 100"},
        {"rule": "self.max != 7", "message": "  seven is unlucky  ", "reason": "FieldValueDuplicate"},
    ]
    s = StructuralSchema(obj_schema(r={
        "type": "object", "x-kubernetes-validations": rules,
        "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}}}))
    assert s.validate({"spec": {"r": {"min": 1, "max": 2}}}) == []
    assert [str(e) for e in s.validate({"spec": {"r": {"min": 300, "max": 200}}})] == [
        "spec.r.min: Forbidden: min 300 exceeds max",
        'spec.r: Invalid value: "object": failed rule: self.max < 100']
    assert [str(e) for e in s.validate({"spec": {"r": {"min": 1, "max": 7}}})] == ['spec.r: Duplicate value: "object"']


def test_cel_scalar_rules_escaping_and_compile_errors() -> None:
    s = StructuralSchema(obj_schema(
        name={"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('a')", "message": "m"}]},
        obj={"type": "object", "properties": {"x-y": {"type": "integer"}},
             "x-kubernetes-validations": [{"rule": "self.x__dash__y > 0"}]},
        broken={"type": "integer", "x-kubernetes-validations": [{"rule": "self >"}]}))
    assert s.validate({"spec": {"name": "abc", "obj": {"x-y": 1}}}) == []
    errs = [str(e) for e in s.validate({"spec": {"name": "b", "obj": {"x-y": 0}, "broken": 1}})]
    assert errs[:2] == ['spec.name: Invalid value: "string": m',
                        'spec.obj: Invalid value: "object": failed rule: self.x__dash__y > 0']
    assert errs[2].startswith('spec.broken: Invalid value: "integer": rule compile error: ')
    s35 = StructuralSchema(obj_schema(
        name={"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('a')", "message": "m"}]}),
        kube_minor=35)
    assert [str(e) for e in s35.validate({"spec": {"name": "b"}})] == ['spec.name: Invalid value: "b": m']


def test_transition_rule_on_map_entries_uses_keys_in_brackets() -> None:
    s = StructuralSchema(obj_schema(m={"type": "object", "additionalProperties": {
        "type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "frozen"}]}}))
    old = {"spec": {"m": {"a": "1", "b": "2"}}}
    assert [str(e) for e in s.validate({"spec": {"m": {"a": "1", "b": "3", "c": "x"}}}, old)] == [
        'spec.m[b]: Invalid value: "string": frozen']


def test_nullable_and_format_checks() -> None:
    s = StructuralSchema(obj_schema(
        a={"type": "string", "nullable": True}, b={"type": "string"},
        t={"type": "string", "format": "date-time"}, d={"type": "string", "format": "date"},
        u={"type": "string", "format": "uuid"}, i={"type": "integer", "format": "int32"}))
    assert s.prune({"spec": {"a": None, "b": None}}) == {"spec": {"a": None}}
    good = {"t": "2030-01-02T03:04:05.5+01:00", "d": "2024-02-29", "u": "123e4567-e89b-12d3-a456-426614174000"}
    assert s.validate({"spec": good}) == []
    assert [str(e) for e in s.validate({"spec": {"b": None, "d": "2023-02-29", "u": "nope", "i": True}})] == [
        'spec.b: Invalid value: "null": spec.b in body must be of type string: "null"',
        'spec.d: Invalid value: "2023-02-29": spec.d in body must be of type date: "2023-02-29"',
        'spec.u: Invalid value: "nope": spec.u in body must be of type uuid: "nope"',
        'spec.i: Invalid value: "": spec.i in body must be of type int32: ""']


# --------------------------------------------------------------------------- properties

names = st.sampled_from(["a", "b", "c", "w", "x"])
statuses = st.sampled_from(["Ready", "Complete"])


@st.composite
def valid_jobsets(draw: st.DrawFn) -> Obj:
    rj_names = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    jobs = []
    for i, n in enumerate(rj_names):
        job = rjob(n)
        if draw(st.booleans()):
            job["replicas"] = draw(st.integers(0, 5))
        if draw(st.booleans()):
            job["groupName"] = draw(st.sampled_from(["default", "g1"]))
        if i and draw(st.booleans()):
            job["dependsOn"] = [{"name": rj_names[0], "status": draw(statuses)}]
        if draw(st.booleans()):
            template_spec({"spec": {"replicatedJobs": [job]}})["containers"][0]["ports"] = [
                {"containerPort": draw(st.integers(1, 65535))}]
        jobs.append(job)
    spec: Obj = {}
    if draw(st.booleans()):
        spec["failurePolicy"] = draw(st.sampled_from([{}, {"maxRestarts": 2}, {"restartStrategy": "Recreate"}]))
    if draw(st.booleans()):
        spec["successPolicy"] = {"operator": draw(st.sampled_from(["All", "Any"]))}
    if draw(st.booleans()):
        spec["volumeClaimPolicies"] = [{"templates": [], "retentionPolicy": {}}]
    if draw(st.booleans()):
        spec["unknownField"] = draw(st.integers())
    return jobset(*jobs, **spec)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(
        st.sampled_from(["replicatedJobs", "name", "replicas", "template", "spec", "x", "dependsOn",
                         "failurePolicy", "startupPolicy", "network"]), children, max_size=4),
    max_leaves=12)

PROPERTY_SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY_SETTINGS
@given(obj=valid_jobsets())
def test_property_defaulting_is_idempotent(schema: StructuralSchema, obj: Obj) -> None:
    once = schema.default(schema.prune(obj))
    assert schema.default(once) == once
    assert schema.prune(once) == once


@PROPERTY_SETTINGS
@given(obj=valid_jobsets())
def test_property_prune_then_default_accepts_valid_objects(schema: StructuralSchema, obj: Obj) -> None:
    admitted = admit(schema, obj)
    assert schema.validate(admitted) == []
    assert schema.validate(admitted, admitted) == []


@PROPERTY_SETTINGS
@given(obj=valid_jobsets(), old=valid_jobsets())
def test_property_validate_does_not_mutate(schema: StructuralSchema, obj: Obj, old: Obj) -> None:
    new, prev = admit(schema, obj), admit(schema, old)
    new_copy, prev_copy = copy.deepcopy(new), copy.deepcopy(prev)
    first = [str(e) for e in schema.validate(new, prev)]
    assert new == new_copy
    assert prev == prev_copy
    assert [str(e) for e in schema.validate(new, prev)] == first


@PROPERTY_SETTINGS
@given(spec=json_values)
def test_property_arbitrary_json_never_crashes(schema: StructuralSchema, spec: Any) -> None:
    obj = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"}, "spec": spec}
    admitted = admit(schema, obj)
    assert schema.default(admitted) == admitted
    for err in schema.validate(admitted) + schema.validate(admitted, obj):
        assert isinstance(err, FieldError)
        assert str(err)


RATIO_SCHEMA = {"type": "object", "properties": {
    "metadata": {"type": "object"},
    "spec": {"type": "object", "properties": {"total": {"type": "integer"}, "parts": {"type": "integer"},
                                              "limit": {"type": "integer"}},
             "x-kubernetes-validations": [{"rule": "self.total / self.parts <= 10"},
                                          {"rule": "self.limit == oldSelf.limit", "message": "limit is fixed"}]}}}


def test_cel_evaluation_errors_ratchet_like_failures_and_transition_rules_still_run() -> None:
    """A rule whose evaluation fails (division by zero) on a value the update leaves unchanged
    only warns, as a failing rule does (upstream's addErr ratchets both); an unchanged value
    skips no transition rule's verdict, and a changed one gets the error."""
    schema = StructuralSchema(copy.deepcopy(RATIO_SCHEMA))
    old = {"metadata": {"name": "r"}, "spec": {"total": 5, "parts": 0, "limit": 1}}
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["labels"] = {"x": "y"}
    warnings: list[str] = []
    assert [str(e) for e in schema.validate(relabelled, old, warnings=warnings)] == []
    assert warnings == ['spec: Invalid value: "object": division by zero evaluating rule: '
                        "self.total / self.parts <= 10"]
    assert [str(e) for e in schema.validate(relabelled, old)] == []
    changed = copy.deepcopy(old)
    changed["spec"]["total"] = 6
    assert [str(e) for e in schema.validate(changed, old)] == [
        'spec: Invalid value: "object": division by zero evaluating rule: self.total / self.parts <= 10']
    relimited = {"metadata": {"name": "r"}, "spec": {"total": 5, "parts": 1, "limit": 2}}
    assert [str(e) for e in schema.validate(relimited, {**old, "spec": {**old["spec"], "parts": 1}})] == [
        'spec: Invalid value: "object": limit is fixed']


@settings(max_examples=150, deadline=None)
@given(spec=json_values, status=json_values)
def test_property_the_decoders_type_check_is_validations_type_errors(spec: Any, status: Any) -> None:
    """A custom resource's decoding refuses values of the wrong JSON type with exactly the type
    errors full validation would report, from the schema pass alone (no CEL run)."""
    schema = StructuralSchema.from_crd_version(json.loads(CRD_PATH.read_text())["spec"]["versions"][0])
    obj = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
           "spec": spec, "status": status}
    admitted = schema.default(schema.prune(obj))
    full = [e for e in schema.validate(admitted) if e.type == ErrorType.TYPE_INVALID]
    assert [(e.type, str(e)) for e in schema.type_errors(admitted)] == [(e.type, str(e)) for e in full]
