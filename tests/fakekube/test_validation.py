"""fakekube.machinery.validation: exact apimachinery messages (spec §1.1, §1.9)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.errors import ErrorType, FieldError, UsageError
from fakekube.machinery import validation as v

FAST = settings(max_examples=40, deadline=None)  # keep the whole suite well under 5 s

# Exact upstream texts, spelled out (spec §1.9): note the two spaces before each "or".
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
QNAME_TAIL = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
NAME_PART_MSG = "name part " + QNAME_TAIL
MULTI_SLASH_MSG = (
    "a qualified name " + QNAME_TAIL + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
MAX63 = "must be no more than 63 characters"
MAX253 = "must be no more than 253 characters"


def strs(errors: list[FieldError]) -> list[str]:
    return [str(e) for e in errors]


# --------------------------------------------------------------------------- string validators


@pytest.mark.parametrize(("value", "expected"), [
    ("my-name", []),
    ("123-abc", []),
    ("a" * 63, []),
    ("a" * 64, [MAX63]),
    ("", [LABEL_MSG]),
    ("My-Name", [LABEL_MSG]),
    ("-a", [LABEL_MSG]),
    ("a-", [LABEL_MSG]),
    ("a_b", [LABEL_MSG]),
    ("a.b", ["must not contain dots"]),
    ("a." * 31 + "ab", [MAX63, "must not contain dots"]),
    ("A" * 64, [MAX63, LABEL_MSG]),
], ids=["simple", "digits-first", "63", "64", "empty", "upper", "leading-dash", "trailing-dash",
        "underscore", "dots", "dots-too-long", "upper-too-long"])
def test_is_dns1123_label(value: str, expected: list[str]) -> None:
    assert v.is_dns1123_label(value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("example.com", []),
    ("a" * 253, []),
    ("a" * 254, [MAX253]),
    ("Example.com", [SUBDOMAIN_MSG]),
    ("a..b", [SUBDOMAIN_MSG]),
    (".a", [SUBDOMAIN_MSG]),
    ("", [SUBDOMAIN_MSG]),
    ("a\n", [SUBDOMAIN_MSG]),
], ids=["ok", "253", "254", "upper", "double-dot", "leading-dot", "empty", "trailing-newline"])
def test_is_dns1123_subdomain(value: str, expected: list[str]) -> None:
    assert v.is_dns1123_subdomain(value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("my-name", []),
    ("abc-123", []),
    ("123-abc", [DNS1035_MSG]),
    ("a" * 64, [MAX63]),
    ("a.b", [DNS1035_MSG]),
], ids=["ok", "ok-digits", "digit-first", "64", "dot"])
def test_is_dns1035_label(value: str, expected: list[str]) -> None:
    assert v.is_dns1035_label(value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("MyName", []),
    ("my.name", []),
    ("example.com/MyName", []),
    ("a" * 63, []),
    ("a" * 64, ["name part " + MAX63]),
    ("", ["name part must be non-empty", NAME_PART_MSG]),
    ("a b", [NAME_PART_MSG]),
    ("_a", [NAME_PART_MSG]),
    ("/a", ["prefix part must be non-empty"]),
    ("Example.com/a", ["prefix part " + SUBDOMAIN_MSG]),
    ("example.com/", ["name part must be non-empty", NAME_PART_MSG]),
    ("a/b/c", [MULTI_SLASH_MSG]),
    ("a" * 254 + "/b", ["prefix part " + MAX253]),
], ids=["plain", "dotted", "prefixed", "63", "64", "empty", "space", "underscore-first", "empty-prefix",
        "bad-prefix", "empty-name", "two-slashes", "long-prefix"])
def test_is_qualified_name(value: str, expected: list[str]) -> None:
    assert v.is_qualified_name(value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("", []),
    ("MyValue", []),
    ("my_value", []),
    ("12345", []),
    ("a" * 63, []),
    ("a" * 64, [MAX63]),
    ("-a", [LABEL_VALUE_MSG]),
    ("a/b", [LABEL_VALUE_MSG]),
    ("é", [LABEL_VALUE_MSG]),
    ("é" * 32, [MAX63, LABEL_VALUE_MSG]),
], ids=["empty", "camel", "underscore", "digits", "63", "64", "leading-dash", "slash", "non-ascii",
        "utf8-bytes-counted"])
def test_is_valid_label_value(value: str, expected: list[str]) -> None:
    assert v.is_valid_label_value(value) == expected


def test_regex_error_without_examples() -> None:
    assert v.regex_error("m", "x+") == "m (regex used for validation is 'x+')"


# --------------------------------------------------------------------------- name rules


@pytest.mark.parametrize(("rule", "name", "prefix", "expected"), [
    (v.name_is_dns_subdomain, "my-job-", True, []),
    (v.name_is_dns_subdomain, "my-job-", False, [SUBDOMAIN_MSG]),
    (v.name_is_dns_subdomain, "-", True, [SUBDOMAIN_MSG]),
    (v.name_is_dns_subdomain, "a" * 253 + "-", True, []),
    (v.name_is_dns_subdomain, "a" * 254 + "-", True, [MAX253]),
    (v.name_is_dns_label, "ns-", True, []),
    (v.name_is_dns_label, "a.b", False, ["must not contain dots"]),
    (v.name_is_dns1035_label, "svc-", True, []),
    (v.name_is_dns1035_label, "1svc", False, [DNS1035_MSG]),
], ids=["subdomain-prefix", "subdomain-no-prefix", "lone-dash", "prefix-masks-two-chars", "prefix-length", "label-prefix",
        "label-dots", "dns1035-prefix", "dns1035-digit"])
def test_name_rules(rule: v.NameRule, name: str, prefix: bool, expected: list[str]) -> None:
    assert rule(name, prefix) == expected


@pytest.mark.parametrize(("resource", "rule"), [
    ("pods", v.name_is_dns_subdomain), ("jobs", v.name_is_dns_subdomain), ("nodes", v.name_is_dns_subdomain),
    ("events", v.name_is_dns_subdomain), ("jobsets", v.name_is_dns_subdomain),
    ("namespaces", v.name_is_dns_label), ("services", v.name_is_dns1035_label),
], ids=lambda x: x if isinstance(x, str) else "")
def test_name_rule_for(resource: str, rule: v.NameRule) -> None:
    assert v.name_rule_for(resource) is rule


@pytest.mark.parametrize(("name", "masked"), [("ab-", "aa"), ("-", "-"), ("abc", "abc"), ("a--", "aa")],
                         ids=["dash", "single-dash", "no-dash", "double-dash"])
def test_mask_trailing_dash(name: str, masked: str) -> None:
    assert v.mask_trailing_dash(name) == masked


# --------------------------------------------------------------------------- maps


@pytest.mark.parametrize(("labels", "expected"), [
    ({"app": "web", "example.com/tier": ""}, []),
    ({"a b": "x"}, [f'metadata.labels: Invalid value: "a b": {NAME_PART_MSG}']),
    ({"app": "a b"}, [f'metadata.labels: Invalid value: "a b": {LABEL_VALUE_MSG}']),
    ({"app": "a" * 64}, [f'metadata.labels: Invalid value: "{"a" * 64}": {MAX63}']),
    ({"z": "-", "a": "-"}, [f'metadata.labels: Invalid value: "-": {LABEL_VALUE_MSG}'] * 2),
    (None, []),
], ids=["valid", "bad-key", "bad-value", "long-value", "sorted-keys", "none"])
def test_validate_labels(labels: dict[str, str] | None, expected: list[str]) -> None:
    assert strs(v.validate_labels(labels, "metadata.labels")) == expected


def test_validate_labels_reports_in_key_order() -> None:
    errs = v.validate_labels({"b/c/d": "ok", "a/b/c": "ok"}, "metadata.labels")
    assert [e.bad_value for e in errs] == ["a/b/c", "b/c/d"]


def test_validate_labels_rejects_non_strings() -> None:
    with pytest.raises(UsageError, match="must map strings to strings"):
        v.validate_labels({"a": 1}, "metadata.labels")  # type: ignore[dict-item]


@pytest.mark.parametrize(("annotations", "expected"), [
    ({"Example.COM/Key": "x"}, []),
    ({"a b": "x"}, [f'metadata.annotations: Invalid value: "a b": {NAME_PART_MSG}']),
    ({"k": "x" * 262143}, []),
    ({"k": "x" * 262144}, ["metadata.annotations: Too long: may not be more than 262144 bytes"]),
], ids=["case-insensitive-key", "bad-key", "at-limit", "over-limit"])
def test_validate_annotations(annotations: dict[str, str], expected: list[str]) -> None:
    assert strs(v.validate_annotations(annotations, "metadata.annotations")) == expected


def test_annotation_size_counts_utf8_bytes() -> None:
    errs = v.validate_annotations({"k": "é" * 131072}, "metadata.annotations")
    assert [e.type for e in errs] == [ErrorType.TOO_LONG]


@pytest.mark.parametrize(("finalizers", "expected"), [
    (["example.com/cleanup", "orphan"], []),
    (["a b"], [f'metadata.finalizers: Invalid value: "a b": {NAME_PART_MSG}']),
    (["orphan", "foregroundDeletion"],
     ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
      "finalizer orphan and foregroundDeletion cannot be both set"]),
], ids=["valid", "bad-name", "orphan-and-foreground"])
def test_validate_finalizers(finalizers: list[str], expected: list[str]) -> None:
    assert strs(v.validate_finalizers(finalizers, "metadata.finalizers")) == expected


def ref(kind: str = "Job", name: str = "a", uid: str = "u1", api_version: str = "batch/v1",
        **extra: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, **extra}


@pytest.mark.parametrize(("refs", "expected"), [
    ([ref(controller=True), ref(name="b", uid="u2", controller=False)], []),
    ([ref(api_version="batch/")],
     ['metadata.ownerReferences.apiVersion: Invalid value: "batch/": version must not be empty']),
    ([ref(api_version="a/b/c")],
     ['metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty']),
    ([ref(kind="", name="", uid="")],
     ['metadata.ownerReferences.kind: Invalid value: "": must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty']),
    ([ref(kind="Event", api_version="v1")],
     ['metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"a","uid":"u1"}: '
      "/v1, Kind=Event is disallowed from being an owner"]),
    ([ref(controller=True), ref(name="b", uid="u2", controller=True)],
     ['metadata.ownerReferences: Invalid value: [{"apiVersion":"batch/v1","kind":"Job","name":"a","uid":"u1",'
      '"controller":true},{"apiVersion":"batch/v1","kind":"Job","name":"b","uid":"u2","controller":true}]: '
      'Only one reference can have Controller set to true. Found "true" in references for Job/a and Job/b']),
], ids=["valid", "no-version", "malformed-version", "empty-fields", "event-owner", "two-controllers"])
def test_validate_owner_references(refs: list[dict[str, Any]], expected: list[str]) -> None:
    assert strs(v.validate_owner_references(refs, "metadata.ownerReferences")) == expected


def test_three_controllers_name_the_first_each_time() -> None:
    refs = [ref(name=n, uid=n, controller=True) for n in ("a", "b", "c")]
    details = [e.detail for e in v.validate_owner_references(refs, "p")]
    assert details == [
        'Only one reference can have Controller set to true. Found "true" in references for Job/a and Job/b',
        'Only one reference can have Controller set to true. Found "true" in references for Job/a and Job/c',
    ]


# --------------------------------------------------------------------------- object meta


def meta(**kw: Any) -> dict[str, Any]:
    return {"name": "web", "namespace": "default", **kw}


@pytest.mark.parametrize(("m", "namespaced", "rule", "expected"), [
    (meta(), True, v.name_is_dns_subdomain, []),
    (meta(name=""), True, v.name_is_dns_subdomain,
     ["metadata.name: Required value: name or generateName is required"]),
    (meta(name="", generateName="web-"), True, v.name_is_dns_subdomain,
     ["metadata.name: Required value: name or generateName is required"]),
    (meta(name="Foo"), True, v.name_is_dns_subdomain, [f'metadata.name: Invalid value: "Foo": {SUBDOMAIN_MSG}']),
    (meta(generateName="Web-"), True, v.name_is_dns_subdomain,
     [f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN_MSG}']),
    (meta(name="a.b"), True, v.name_is_dns1035_label, [f'metadata.name: Invalid value: "a.b": {DNS1035_MSG}']),
    (meta(namespace=""), True, v.name_is_dns_subdomain, ["metadata.namespace: Required value"]),
    (meta(namespace="a.b"), True, v.name_is_dns_subdomain,
     ['metadata.namespace: Invalid value: "a.b": must not contain dots']),
    (meta(), False, v.name_is_dns_subdomain, ["metadata.namespace: Forbidden: not allowed on this type"]),
    ({"name": "node-1"}, False, v.name_is_dns_subdomain, []),
    (meta(generation=-1), True, v.name_is_dns_subdomain,
     ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]),
    (meta(labels={"a": "-"}, annotations={"a b": ""}, finalizers=["orphan", "foregroundDeletion"],
          ownerReferences=[ref(uid="")]), True, v.name_is_dns_subdomain,
     [f'metadata.labels: Invalid value: "-": {LABEL_VALUE_MSG}',
      f'metadata.annotations: Invalid value: "a b": {NAME_PART_MSG}',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
      "finalizer orphan and foregroundDeletion cannot be both set"]),
], ids=["valid", "no-name", "generate-name-before-generation", "bad-name", "bad-generate-name", "service-rule",
        "no-namespace", "bad-namespace", "cluster-scoped-with-namespace", "cluster-scoped", "negative-generation",
        "maps-in-order"])
def test_validate_object_meta(m: dict[str, Any], namespaced: bool, rule: v.NameRule, expected: list[str]) -> None:
    assert strs(v.validate_object_meta(m, namespaced=namespaced, name_rule=rule)) == expected


def test_validate_object_meta_custom_path() -> None:
    errs = v.validate_object_meta({"name": "a"}, namespaced=True, name_rule=v.name_is_dns_subdomain,
                                  path="spec.template.metadata")
    assert strs(errs) == ["spec.template.metadata.namespace: Required value"]


OLD = {"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "5", "generation": 2,
       "creationTimestamp": "2024-05-01T12:00:00Z"}


def upd(**kw: Any) -> dict[str, Any]:
    return {**OLD, **kw}


@pytest.mark.parametrize(("new", "old", "expected"), [
    (upd(), OLD, []),
    (upd(generation=3, labels={"a": "b"}), OLD, []),
    (upd(name="other"), OLD, ['metadata.name: Invalid value: "other": field is immutable']),
    (upd(namespace="x"), OLD, ['metadata.namespace: Invalid value: "x": field is immutable']),
    (upd(uid="u2"), OLD, ['metadata.uid: Invalid value: "u2": field is immutable']),
    (upd(creationTimestamp="2025-01-01T00:00:00Z"), OLD,
     ['metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable']),
    (upd(creationTimestamp=None), OLD, ["metadata.creationTimestamp: Invalid value: null: field is immutable"]),
    (upd(deletionTimestamp="2025-01-01T00:00:00Z"), OLD,
     ['metadata.deletionTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable']),
    (upd(deletionGracePeriodSeconds=30), OLD,
     ["metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable"]),
    (upd(generation=1), OLD, ["metadata.generation: Invalid value: 1: must not be decremented"]),
    (upd(resourceVersion=""), OLD, ['metadata.resourceVersion: Invalid value: "": must be specified for an update']),
    (upd(labels={"a": "-"}), OLD, [f'metadata.labels: Invalid value: "-": {LABEL_VALUE_MSG}']),
    (upd(deletionTimestamp="t", finalizers=["a", "z/x", "b"]), upd(deletionTimestamp="t", finalizers=["a"]),
     ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, '
      'found new finalizers []string{"b", "z/x"}']),
    (upd(deletionTimestamp="t", finalizers=[]), upd(deletionTimestamp="t", finalizers=["a"]), []),
    (upd(finalizers=["new"]), upd(finalizers=[]), []),
], ids=["unchanged", "allowed-changes", "name", "namespace", "uid", "creation", "creation-cleared", "deletion",
        "grace", "generation-decrement", "no-rv", "labels", "new-finalizer-while-deleting",
        "remove-finalizer-while-deleting", "new-finalizer-live"])
def test_validate_object_meta_update(new: dict[str, Any], old: dict[str, Any], expected: list[str]) -> None:
    assert strs(v.validate_object_meta_update(new, old)) == expected


def test_update_error_causes_are_api_shaped() -> None:
    (err,) = v.validate_object_meta_update(upd(name="x"), OLD)
    assert err.cause() == {"reason": "FieldValueInvalid", "message": 'Invalid value: "x": field is immutable',
                           "field": "metadata.name"}


# --------------------------------------------------------------------------- properties

LABEL_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
label_text = st.one_of(
    st.sampled_from("az09"),
    st.builds(lambda first, mid, last: first + mid + last,
              st.sampled_from("az09"), st.text(alphabet="-az09", max_size=10), st.sampled_from("az09")),
)


@FAST
@given(label_text)
def test_every_dns1123_label_is_a_subdomain_and_a_label_value(s: str) -> None:
    assert v.is_dns1123_label(s) == []
    assert v.is_dns1123_subdomain(s) == []
    assert v.is_valid_label_value(s) == []
    assert v.is_qualified_name(s) == []


@FAST
@given(st.lists(label_text, min_size=1, max_size=4), label_text)
def test_prefixed_qualified_names(parts: list[str], name: str) -> None:
    prefix = ".".join(parts)
    assert v.is_qualified_name(f"{prefix}/{name}") == (
        ["prefix part " + m for m in v.is_dns1123_subdomain(prefix)])


@FAST
@given(st.text(alphabet="abAB-._/.19 ", max_size=12))
def test_validators_never_crash_and_agree_on_validity(s: str) -> None:
    label_ok = not v.is_dns1123_label(s)
    assert label_ok == bool(LABEL_RE.fullmatch(s) and len(s) <= 63)
    if label_ok:
        assert not v.is_dns1123_subdomain(s)
    if not v.is_dns1035_label(s):
        assert label_ok


@FAST
@given(st.text(alphabet="ab-", min_size=2, max_size=10))
def test_generate_name_prefix_is_valid_iff_masked_name_is(s: str) -> None:
    assert v.name_is_dns_subdomain(s, True) == v.is_dns1123_subdomain(v.mask_trailing_dash(s))


def test_meta_update_revalidates_unchanged_maps_unless_old_is_known_valid() -> None:
    old = {"name": "a", "namespace": "d", "resourceVersion": "1", "labels": {"bad key": "x"}}
    new = dict(old)
    assert [e.field for e in v.validate_object_meta_update(new, old)] == ["metadata.labels"]
    assert v.validate_object_meta_update(new, old, old_is_valid=True) == []
    changed = dict(old, labels={"bad key": "y"})
    assert [e.field for e in v.validate_object_meta_update(changed, old, old_is_valid=True)] == ["metadata.labels"]
