"""fakekube.machinery.selectors and field_selectors: labels.Parse, LabelSelectorAsSelector, fields (spec §1.8, §1.10)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube._core.gocompat import parse_int64
from fakekube.errors import BadRequest
from fakekube.machinery import field_selectors as fsel
from fakekube.machinery import selectors as s
from fakekube.machinery.selectors import Operator as Op
from fakekube.machinery.selectors import Requirement as R

FAST = settings(max_examples=40, deadline=None)  # keep the whole suite well under 5 s

LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
QNAME_TAIL = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
NAME_PART_MSG = "name part " + QNAME_TAIL

# --------------------------------------------------------------------------- parse: valid


@pytest.mark.parametrize(("text", "requirements", "rendered"), [
    ("", (), ""),
    ("   ", (), ""),
    ("a=b", (R("a", Op.EQUALS, ("b",)),), "a=b"),
    ("a==b", (R("a", Op.DOUBLE_EQUALS, ("b",)),), "a==b"),
    ("a!=b", (R("a", Op.NOT_EQUALS, ("b",)),), "a!=b"),
    ("a=", (R("a", Op.EQUALS, ("",)),), "a="),
    ("a", (R("a", Op.EXISTS),), "a"),
    ("!a", (R("a", Op.DOES_NOT_EXIST),), "!a"),
    ("k>5", (R("k", Op.GREATER_THAN, ("5",)),), "k>5"),
    ("k<007", (R("k", Op.LESS_THAN, ("007",)),), "k<007"),
    ("a in (c,b,c)", (R("a", Op.IN, ("b", "c")),), "a in (b,c)"),
    ("a notin (b)", (R("a", Op.NOT_IN, ("b",)),), "a notin (b)"),
    ("a in ()", (R("a", Op.IN, ("",)),), "a in ()"),
    ("x in (foo,,baz),y,z notin ()",
     (R("x", Op.IN, ("", "baz", "foo")), R("y", Op.EXISTS), R("z", Op.NOT_IN, ("",))),
     "x in (,baz,foo),y,z notin ()"),
    ("a in (,)", (R("a", Op.IN, ("",)),), "a in ()"),
    (" \tb = 1 ,\n a != 2 ", (R("a", Op.NOT_EQUALS, ("2",)), R("b", Op.EQUALS, ("1",))), "a!=2,b=1"),
    ("in in (in, notin)", (R("in", Op.IN, ("in", "notin")),), "in in (in,notin)"),
    ("example.com/app=web", (R("example.com/app", Op.EQUALS, ("web",)),), "example.com/app=web"),
    ("a=1,a!=2", (R("a", Op.EQUALS, ("1",)), R("a", Op.NOT_EQUALS, ("2",))), "a=1,a!=2"),
    ("a=b \0garbage", (R("a", Op.EQUALS, ("b",)),), "a=b"),
], ids=["empty", "blank", "equals", "double-equals", "not-equals", "empty-value", "exists", "not-exists", "gt",
        "lt", "in-sorted-unique", "notin", "in-empty", "upstream-example", "in-commas", "whitespace",
        "keywords-as-identifiers", "prefixed-key", "same-key-stable", "nul-at-token-start-ends-input"])
def test_parse_valid(text: str, requirements: tuple[R, ...], rendered: str) -> None:
    sel = s.parse_label_selector(text)
    assert sel.requirements == requirements
    assert str(sel) == rendered


# --------------------------------------------------------------------------- parse: errors


@pytest.mark.parametrize(("text", "message"), [
    ("a,,b", "found ',', expected: identifier after ','"),
    ("a,", "found '', expected: identifier after ','"),
    ("!,", "unable to parse requirement: found ',', expected: identifier"),
    ("!", "unable to parse requirement: found '', expected: identifier"),
    (",a", "found ',', expected: !, identifier, or 'end of string'"),
    ("=a", "found '=', expected: !, identifier, or 'end of string'"),
    ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a=b c", "found 'c', expected: ',' or 'end of string'"),
    ("a=(b", "unable to parse requirement: found '(', expected: identifier"),
    ("a in b", "unable to parse requirement: found 'b' expected: '('"),
    ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"),
    ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
    ("a in (,=)", "unable to parse requirement: found '=', expected: ',', or identifier"),
    ("a===b", "unable to parse requirement: found '=', expected: identifier"),
    ("a\0b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a/b/c", "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " + QNAME_TAIL
     + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    ("-a=b", f'unable to parse requirement: <nil>: Invalid value: "-a": {NAME_PART_MSG}'),
    ("/a", 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'),
    ("a/", 'unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; '
     + NAME_PART_MSG),
    ("app=-bad", f'unable to parse requirement: values[0][app]: Invalid value: "-bad": {LABEL_VALUE_MSG}'),
    ("k in (-b,-a)", "unable to parse requirement: ["
     f'values[0][k]: Invalid value: "-a": {LABEL_VALUE_MSG}, values[1][k]: Invalid value: "-b": {LABEL_VALUE_MSG}]'),
    ("k>abc", "unable to parse requirement: values[0]: Invalid value: \"abc\": "
     "for 'Gt', 'Lt' operators, the value must be an integer"),
    ("k>", "unable to parse requirement: values[0]: Invalid value: \"\": "
     "for 'Gt', 'Lt' operators, the value must be an integer"),
    ("k<-5", f'unable to parse requirement: values[0][k]: Invalid value: "-5": {LABEL_VALUE_MSG}'),
    ("a=b\0c", "found 'c', expected: ',' or 'end of string'"),
    ("k<99999999999999999999", "unable to parse requirement: values[0]: Invalid value: "
     "\"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer"),
], ids=["double-comma", "trailing-comma", "bang-comma", "lone-bang", "leading-comma", "leading-equals",
        "missing-operator", "junk-after-value", "paren-as-value", "in-without-paren", "unclosed-paren",
        "space-in-set", "operator-in-set", "operator-after-comma", "triple-equals", "nul-separates",
        "two-slashes", "bad-key", "empty-prefix", "empty-name", "bad-value", "bad-values-aggregate",
        "gt-non-integer", "gt-empty", "lt-negative-is-not-a-label-value", "nul-ends-a-token",
        "lt-overflow"])
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(s.SelectorError) as info:
        s.parse_label_selector(text)
    err = info.value
    assert err.message == message
    assert isinstance(err, BadRequest) and isinstance(err, ValueError)
    assert err.status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "message": message, "reason": "BadRequest", "code": 400}


# --------------------------------------------------------------------------- matching


@pytest.mark.parametrize(("text", "labels", "expected"), [
    ("a=b", {"a": "b"}, True),
    ("a=b", {"a": "c"}, False),
    ("a=b", {}, False),
    ("a=", {"a": ""}, True),
    ("a=", {}, False),
    ("a!=b", {}, True),
    ("a!=b", {"a": "b"}, False),
    ("a!=b", {"a": "c"}, True),
    ("a in (b,c)", {"a": "c"}, True),
    ("a in (b,c)", {}, False),
    ("a notin (b,c)", {}, True),
    ("a notin (b,c)", {"a": "b"}, False),
    ("a", {"a": ""}, True),
    ("a", {"b": "a"}, False),
    ("!a", {"a": ""}, False),
    ("!a", {}, True),
    ("k>5", {"k": "6"}, True),
    ("k>5", {"k": "5"}, False),
    ("k>5", {"k": "x"}, False),
    ("k>5", {}, False),
    ("k<5", {"k": "-7"}, True),
    ("k<5", {"k": "007"}, False),
    ("a=b,c", {"a": "b"}, False),
    ("a=b,c", {"a": "b", "c": "x"}, True),
    ("", {"anything": "x"}, True),
], ids=lambda x: repr(x))
def test_matches(text: str, labels: dict[str, str], expected: bool) -> None:
    assert s.parse_label_selector(text).matches(labels) is expected


def test_everything_and_nothing() -> None:
    assert s.EVERYTHING.empty and s.EVERYTHING.matches({}) and str(s.EVERYTHING) == ""
    assert not s.NOTHING.empty and not s.NOTHING.matches({}) and str(s.NOTHING) == ""
    assert s.NOTHING.matches_nothing and not s.EVERYTHING.matches_nothing
    assert s.parse_label_selector("") == s.EVERYTHING


def test_index_groups_cover_equality_and_in_requirements() -> None:
    sel = s.parse_label_selector("a=1,d in (4,5,4),e!=6,f,h>1")
    assert sel.index_groups() == ((("a", "1"),), (("d", "4"), ("d", "5")))
    assert s.parse_label_selector("z notin (1),!g").index_groups() == ()


@pytest.mark.parametrize(("text", "terms", "keys"), [
    ("a=1,b==2,c in (3),d in (4,5),e!=6,f,!g,h>1", (("a", "1"), ("b", "2"), ("c", "3")),
     ("a", "b", "c", "d", "f", "h")),
    ("", (), ()),
    ("z notin (1)", (), ()),
], ids=["mixed", "empty", "notin"])
def test_equality_terms_and_required_keys(text: str, terms: tuple[tuple[str, str], ...],
                                          keys: tuple[str, ...]) -> None:
    sel = s.parse_label_selector(text)
    assert sel.equality_terms() == terms
    assert sel.required_keys() == keys


@pytest.mark.parametrize(("text", "key", "value"), [
    ("a=1", "a", "1"), ("a in (1)", "a", "1"), ("a in (1,2)", "a", None), ("a!=1", "a", None),
    ("a=1", "b", None), ("a==", "a", ""),
], ids=["eq", "in-one", "in-two", "neq", "other-key", "empty-value"])
def test_requires_exact_match(text: str, key: str, value: str | None) -> None:
    assert s.parse_label_selector(text).requires_exact_match(key) == value


def test_selector_from_set() -> None:
    sel = s.selector_from_set({"b": "2", "a": "1"})
    assert str(sel) == "a=1,b=2"
    assert sel.matches({"a": "1", "b": "2", "c": "3"}) and not sel.matches({"a": "1"})
    assert s.selector_from_set({}) == s.EVERYTHING


# --------------------------------------------------------------------------- metav1.LabelSelector


@pytest.mark.parametrize(("sel", "rendered", "labels", "expected"), [
    (None, "", {}, False),
    ({}, "", {"a": "b"}, True),
    ({"matchLabels": {}, "matchExpressions": []}, "", {}, True),
    ({"matchLabels": {"b": "2", "a": "1"}}, "a=1,b=2", {"a": "1", "b": "2"}, True),
    ({"matchExpressions": [{"key": "t", "operator": "In", "values": ["y", "x", "y"]}]}, "t in (x,y,y)",
     {"t": "y"}, True),
    ({"matchExpressions": [{"key": "t", "operator": "NotIn", "values": ["x"]}]}, "t notin (x)", {}, True),
    ({"matchExpressions": [{"key": "t", "operator": "Exists"}]}, "t", {"t": ""}, True),
    ({"matchExpressions": [{"key": "t", "operator": "DoesNotExist"}]}, "!t", {"t": ""}, False),
    ({"matchLabels": {"z": "1"}, "matchExpressions": [{"key": "a", "operator": "Exists"}]}, "a,z=1",
     {"z": "1"}, False),
], ids=["nil", "empty", "empty-lists", "match-labels", "in", "notin", "exists", "does-not-exist", "sorted"])
def test_selector_from_label_selector_dict(sel: dict[str, Any] | None, rendered: str, labels: dict[str, str],
                                           expected: bool) -> None:
    got = s.selector_from_label_selector_dict(sel)
    assert str(got) == rendered
    assert got.matches(labels) is expected


@pytest.mark.parametrize(("sel", "message"), [
    ({"matchExpressions": [{"key": "a", "operator": "Foo"}]}, '"Foo" is not a valid label selector operator'),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]},
     "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"),
    ({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
     'values: Invalid value: ["x"]: values set must be empty for exists and does not exist'),
    ({"matchLabels": {"a b": "c"}}, f'key: Invalid value: "a b": {NAME_PART_MSG}'),
    ({"matchLabels": {"a": "-"}}, f'values[0][a]: Invalid value: "-": {LABEL_VALUE_MSG}'),
    ({"matchExpressions": [{"key": "-", "operator": "In"}]},
     f'[key: Invalid value: "-": {NAME_PART_MSG}, '
     "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty]"),
], ids=["bad-operator", "in-without-values", "exists-with-values", "bad-key", "bad-value", "aggregate"])
def test_selector_from_label_selector_dict_errors(sel: dict[str, Any], message: str) -> None:
    with pytest.raises(s.SelectorError) as info:
        s.selector_from_label_selector_dict(sel)
    assert info.value.message == message


@pytest.mark.parametrize(("key", "op", "values", "message"), [
    ("a", "=", ["x", "y"], 'values: Invalid value: ["x","y"]: exact-match compatibility requires one single value'),
    ("a", "gt", ["1", "2"], 'values: Invalid value: ["1","2"]: for \'Gt\', \'Lt\' operators, exactly one value is required'),
    ("a", "~", [], 'operator: Unsupported value: "~": supported values: "in", "notin", "=", "==", "!=", "gt", '
     '"lt", "exists", "!"'),
], ids=["exact-two-values", "gt-two-values", "unknown-operator"])
def test_new_requirement_errors(key: str, op: str, values: list[str], message: str) -> None:
    with pytest.raises(s.SelectorError) as info:
        s.new_requirement(key, op, values)
    assert info.value.message == message


@pytest.mark.parametrize(("sel", "expected"), [
    (None, []),
    ({"matchLabels": {"a": "b"}, "matchExpressions": [{"key": "c", "operator": "In", "values": ["d"]}]}, []),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]},
     ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
      "'NotIn'"]),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]},
     ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
      "'NotIn'"]),
    ({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
     ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or "
      "'DoesNotExist'"]),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "X"}]},
     ['spec.selector.matchExpressions[1].operator: Invalid value: "X": not a valid selector operator']),
    ({"matchExpressions": [{"key": "a b", "operator": "In", "values": ["ok", "-"]}]},
     [f'spec.selector.matchExpressions[0].key: Invalid value: "a b": {NAME_PART_MSG}',
      f'spec.selector.matchExpressions[0].values[1]: Invalid value: "-": {LABEL_VALUE_MSG}']),
    ({"matchLabels": {"a": "-"}}, [f'spec.selector.matchLabels: Invalid value: "-": {LABEL_VALUE_MSG}']),
], ids=["nil", "valid", "in-no-values", "notin-empty-values", "exists-values", "bad-operator", "key-and-value",
        "match-labels"])
def test_validate_label_selector(sel: dict[str, Any] | None, expected: list[str]) -> None:
    assert [str(e) for e in s.validate_label_selector(sel, "spec.selector")] == expected


# --------------------------------------------------------------------------- field selectors


@pytest.mark.parametrize(("text", "terms", "rendered"), [
    ("", (), ""),
    ("status.phase=Running", (fsel.FieldTerm("status.phase", "=", "Running"),), "status.phase=Running"),
    ("status.phase==Running", (fsel.FieldTerm("status.phase", "=", "Running"),), "status.phase=Running"),
    ("z!=1,a=2", (fsel.FieldTerm("a", "=", "2"), fsel.FieldTerm("z", "!=", "1")), "a=2,z!=1"),
    ("a=,", (fsel.FieldTerm("a", "=", ""),), "a="),
    (r"a=x\,y\=z\\", (fsel.FieldTerm("a", "=", "x,y=z\\"),), r"a=x\,y\=z\\"),
    (" a = b", (fsel.FieldTerm(" a ", "=", " b"),), " a = b"),
], ids=["empty", "equals", "double-equals", "sorted", "empty-term-skipped", "escapes", "no-trimming"])
def test_parse_field_selector(text: str, terms: tuple[fsel.FieldTerm, ...], rendered: str) -> None:
    sel = fsel.parse_field_selector(text)
    assert sel.terms == terms
    assert str(sel) == rendered


@pytest.mark.parametrize(("text", "message"), [
    ("a", "invalid selector: 'a'; can't understand 'a'"),
    ("b=1,a", "invalid selector: 'b=1,a'; can't understand 'a'"),
    ("a=b=c", "invalid field selector: unescaped character in value: 61"),
    ("a!==b", "invalid field selector: unescaped character in value: 61"),
    ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
    ("a=b\\x", "invalid field selector: invalid escape sequence: \\x"),
], ids=["no-operator", "no-operator-second", "unescaped-equals", "not-equals-wins", "trailing-backslash", "bad-escape"])
def test_parse_field_selector_errors(text: str, message: str) -> None:
    with pytest.raises(s.SelectorError) as info:
        fsel.parse_field_selector(text)
    assert info.value.message == message
    assert info.value.code == 400


@pytest.mark.parametrize(("text", "fields", "expected"), [
    ("a=1", {"a": "1"}, True),
    ("a=1", {"a": "2"}, False),
    ("a=", {}, True),
    ("a!=1", {}, True),
    ("a!=1", {"a": "1"}, False),
    ("a=1,b!=2", {"a": "1", "b": "3"}, True),
    ("", {}, True),
], ids=["eq", "eq-miss", "missing-is-empty", "neq-missing", "neq-hit", "and", "empty"])
def test_field_selector_matches(text: str, fields: dict[str, str], expected: bool) -> None:
    assert fsel.parse_field_selector(text).matches(fields) is expected


def test_field_selector_exact_match() -> None:
    sel = fsel.parse_field_selector("spec.nodeName=n1,status.phase!=Failed")
    assert sel.requires_exact_match("spec.nodeName") == "n1"
    assert sel.requires_exact_match("status.phase") is None
    assert sel.equality_terms() == (("spec.nodeName", "n1"),)
    assert fsel.parse_field_selector("").empty


@pytest.mark.parametrize(("text", "resource", "supported", "result", "message"), [
    ("spec.nodeName=n1", "pods", fsel.SUPPORTED_FIELDS["pods"], "spec.nodeName=n1", None),
    ("spec.host=n1", "pods", fsel.SUPPORTED_FIELDS["pods"], "spec.nodeName=n1", None),
    ("spec.foo=1,metadata.name=a", "pods", fsel.SUPPORTED_FIELDS["pods"], None, "field label not supported: spec.foo"),
    ("status.succeeded=1", "jobs", fsel.SUPPORTED_FIELDS["jobs"], None,
     'field label "status.succeeded" not supported for batchv1.Job'),
    ("metadata.namespace=x", "nodes", fsel.SUPPORTED_FIELDS["nodes"], None,
     "field label not supported: metadata.namespace"),
    ("spec.x=1", "jobsets", ("metadata.name", "metadata.namespace"), None, "field label not supported: spec.x"),
    ("spec.x=1", "endpointslices", ("metadata.name", "metadata.namespace"), None,
     '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ("b.x=1,a.x=1", "pods", (), None, "field label not supported: a.x"),
], ids=["supported", "alias", "unsupported", "job-message", "node-no-namespace", "custom-resource",
        "default-conversion", "first-in-sorted-order"])
def test_check_supported(text: str, resource: str, supported: tuple[str, ...], result: str | None,
                         message: str | None) -> None:
    sel = fsel.parse_field_selector(text)
    if message is None:
        assert str(fsel.check_supported(sel, supported, resource)) == result
    else:
        with pytest.raises(s.SelectorError) as info:
            fsel.check_supported(sel, supported, resource)
        assert info.value.message == message


POD = {
    "metadata": {"name": "p", "namespace": "ns"},
    "spec": {"nodeName": "n1", "restartPolicy": "Never", "schedulerName": "default-scheduler",
             "serviceAccountName": "default", "hostNetwork": True},
    "status": {"phase": "Running", "podIP": "10.0.0.9", "podIPs": [{"ip": "10.0.0.1"}], "nominatedNodeName": "n2"},
}


@pytest.mark.parametrize(("resource", "obj", "expected"), [
    ("pods", POD, {"metadata.name": "p", "metadata.namespace": "ns", "spec.nodeName": "n1",
                   "spec.restartPolicy": "Never", "spec.schedulerName": "default-scheduler",
                   "spec.serviceAccountName": "default", "spec.hostNetwork": "true", "status.phase": "Running",
                   "status.podIP": "10.0.0.1", "status.nominatedNodeName": "n2"}),
    ("pods", {"metadata": {"name": "p", "namespace": "ns"}, "status": {"podIP": "10.0.0.9"}},
     {"metadata.name": "p", "metadata.namespace": "ns", "spec.nodeName": "", "spec.restartPolicy": "",
      "spec.schedulerName": "", "spec.serviceAccountName": "", "spec.hostNetwork": "false", "status.phase": "",
      "status.podIP": "10.0.0.9", "status.nominatedNodeName": ""}),
    ("jobs", {"metadata": {"name": "j", "namespace": "ns"}, "status": {"succeeded": 3}},
     {"metadata.name": "j", "metadata.namespace": "ns", "status.successful": "3"}),
    ("jobs", {"metadata": {"name": "j", "namespace": "ns"}},
     {"metadata.name": "j", "metadata.namespace": "ns", "status.successful": "0"}),
    ("events", {"metadata": {"name": "e", "namespace": "ns"},
                "involvedObject": {"kind": "Job", "name": "j", "uid": "u", "namespace": "ns"},
                "reason": "Completed", "reportingComponent": "job-controller", "type": "Normal"},
     {"metadata.name": "e", "metadata.namespace": "ns", "involvedObject.kind": "Job",
      "involvedObject.namespace": "ns", "involvedObject.name": "j", "involvedObject.uid": "u",
      "involvedObject.apiVersion": "", "involvedObject.resourceVersion": "", "involvedObject.fieldPath": "",
      "reason": "Completed", "reportingComponent": "job-controller", "source": "job-controller",
      "type": "Normal"}),
], ids=["pod", "pod-defaults", "job", "job-missing-status", "event-source-fallback"])
def test_object_field_set(resource: str, obj: dict[str, Any], expected: dict[str, str]) -> None:
    assert fsel.object_field_set(obj, fsel.FIELD_GETTERS[resource]) == expected


def test_object_field_set_cluster_scoped_and_event_source() -> None:
    node = {"metadata": {"name": "n1"}, "spec": {"unschedulable": True}}
    assert fsel.object_field_set(node, fsel.FIELD_GETTERS["nodes"], namespaced=False) == {
        "metadata.name": "n1", "spec.unschedulable": "true"}
    event = {"metadata": {"name": "e"}, "source": {"component": "kubelet"}, "reportingComponent": "x"}
    assert fsel.FIELD_GETTERS["events"]["source"](event) == "kubelet"


def test_pod_field_selector_end_to_end() -> None:
    sel = fsel.check_supported(fsel.parse_field_selector("spec.host=n1,status.phase!=Failed"),
                            fsel.SUPPORTED_FIELDS["pods"], "pods")
    assert sel.matches(fsel.object_field_set(POD, fsel.FIELD_GETTERS["pods"]))
    assert not sel.matches(fsel.object_field_set({**POD, "spec": {"nodeName": "n2"}}, fsel.FIELD_GETTERS["pods"]))


# --------------------------------------------------------------------------- properties

keys = st.sampled_from(["a", "b", "app", "example.com/tier", "in", "notin", "x.y_z-1"])
values = st.sampled_from(["", "v", "w", "in", "1", "42", "A.b_c"])
ints = st.sampled_from(["0", "1", "42", "007"])


@st.composite
def requirements(draw: st.DrawFn) -> R:
    key = draw(keys)
    op = draw(st.sampled_from(list(Op)))
    if op in (Op.EXISTS, Op.DOES_NOT_EXIST):
        return R(key, op)
    if op in (Op.GREATER_THAN, Op.LESS_THAN):
        return R(key, op, (draw(ints),))
    if op in (Op.IN, Op.NOT_IN):
        return R(key, op, tuple(sorted(draw(st.sets(values, min_size=1, max_size=3)))))
    return R(key, op, (draw(values),))


selectors_st = st.lists(requirements(), max_size=5).map(s.LabelSelector.of)
label_sets = st.dictionaries(keys, values | st.sampled_from(["-3", "x"]), max_size=5)


@FAST
@given(selectors_st)
def test_string_round_trips(sel: s.LabelSelector) -> None:
    parsed = s.parse_label_selector(str(sel))
    assert parsed == sel
    assert str(parsed) == str(sel)


def reference_match(req: R, labels: dict[str, str]) -> bool:
    present = req.key in labels
    value = labels.get(req.key)
    match req.operator:
        case Op.EQUALS | Op.DOUBLE_EQUALS | Op.IN:
            return present and value in req.values
        case Op.NOT_EQUALS | Op.NOT_IN:
            return not present or value not in req.values
        case Op.EXISTS:
            return present
        case Op.DOES_NOT_EXIST:
            return not present
        case _:
            try:
                have, want = int(labels[req.key]), int(req.values[0])
            except (KeyError, ValueError):
                return False
            return have > want if req.operator is Op.GREATER_THAN else have < want


@FAST
@given(selectors_st, label_sets)
def test_matches_agrees_with_reference(sel: s.LabelSelector, labels: dict[str, str]) -> None:
    assert sel.matches(labels) == all(reference_match(r, labels) for r in sel.requirements)


@FAST
@given(selectors_st, label_sets)
def test_equality_terms_and_required_keys_are_necessary(sel: s.LabelSelector, labels: dict[str, str]) -> None:
    if sel.matches(labels):
        assert all(labels.get(k) == val for k, val in sel.equality_terms())
        assert all(k in labels for k in sel.required_keys())


field_values = st.text(alphabet="ab,=\\ .", max_size=6)


@FAST
@given(st.lists(st.tuples(st.sampled_from(["f.a", "f.b", "g"]), st.sampled_from(["=", "!="]), field_values),
                max_size=4))
def test_field_selector_round_trips(terms: list[tuple[str, str, str]]) -> None:
    text = ",".join(f"{f}{op}{fsel.escape_field_value(val)}" for f, op, val in terms)
    sel = fsel.parse_field_selector(text)
    assert sorted((t.field, t.op, t.value) for t in sel.terms) == sorted(terms)
    assert fsel.parse_field_selector(str(sel)) == sel


@FAST
@given(field_values)
def test_escape_round_trips(value: str) -> None:
    assert fsel.unescape_field_value(fsel.escape_field_value(value)) == value


# --------------------------------------------------------------------------- compiled matching


def literal_matches(req: R, labels: dict[str, str]) -> bool:
    """``Requirement.Matches`` transcribed literally (the compiled tests must agree with it)."""
    op = req.operator
    if op in (Op.IN, Op.EQUALS, Op.DOUBLE_EQUALS):
        return req.key in labels and labels[req.key] in req.values
    if op in (Op.NOT_IN, Op.NOT_EQUALS):
        return req.key not in labels or labels[req.key] not in req.values
    if op is Op.EXISTS:
        return req.key in labels
    if op is Op.DOES_NOT_EXIST:
        return req.key not in labels
    if op in (Op.GREATER_THAN, Op.LESS_THAN):
        if req.key not in labels or len(req.values) != 1:
            return False
        have, want = parse_int64(labels[req.key]), parse_int64(req.values[0])
        if have is None or want is None:
            return False
        return have > want if op is Op.GREATER_THAN else have < want
    return False


# Requirements as a caller may build them directly: any number of values, non-integers for Gt/Lt.
raw_requirements = st.builds(R, keys, st.sampled_from(list(Op)),
                             st.lists(values | ints | st.sampled_from(["x", "-3", "9" * 20]), max_size=3).map(tuple))


@FAST
@given(st.lists(raw_requirements, max_size=4), label_sets | st.dictionaries(keys, ints, max_size=4))
def test_compiled_matching_agrees_with_literal_port(reqs: list[R], labels: dict[str, str]) -> None:
    for r in reqs:
        assert r.matches(labels) is literal_matches(r, labels)
    assert s.LabelSelector.of(reqs).matches(labels) is all(literal_matches(r, labels) for r in reqs)
    assert s.LabelSelector(tuple(reqs), matches_nothing=True).matches(labels) is False


def test_equality_only_selectors_with_repeated_keys() -> None:
    sel = s.LabelSelector.of([R("a", Op.EQUALS, ("1",)), R("a", Op.IN, ("2",))])
    assert not sel.matches({"a": "1"}) and not sel.matches({"a": "2"}) and not sel.matches({})
    assert s.LabelSelector.of([R("a", Op.EQUALS, ("1",)), R("a", Op.DOUBLE_EQUALS, ("1",))]).matches({"a": "1"})


def test_compiled_state_stays_out_of_equality_hash_repr_and_pickles() -> None:
    import copy
    import dataclasses
    import pickle

    sel = s.parse_label_selector("a in (x,y),b=2,c,!d,e notin (q),f>3")
    r = sel.requirements[0]
    assert hash(r) == hash((r.key, r.operator, r.values))
    assert repr(r) == "Requirement(key='a', operator=<Operator.IN: 'in'>, values=('x', 'y'))"
    for clone in (pickle.loads(pickle.dumps(sel)), copy.deepcopy(sel), dataclasses.replace(sel)):
        assert clone == sel and hash(clone) == hash(sel)
        assert clone.matches({"a": "x", "b": "2", "c": "", "f": "4"})
        assert not clone.matches({"a": "x", "b": "2", "c": "", "f": "3"})
    with pytest.raises(TypeError):
        hash(R("a", Op.IN, ["x"]))  # type: ignore[arg-type]  # unhashable values, as a plain dataclass


def test_parses_are_cached_but_errors_are_raised_every_time() -> None:
    assert s.parse_label_selector("app=web,tier") is s.parse_label_selector("app=web,tier")
    assert fsel.parse_field_selector("status.phase=Running") is fsel.parse_field_selector("status.phase=Running")
    for _ in range(2):
        with pytest.raises(s.SelectorError, match="unable to parse requirement"):
            s.parse_label_selector("a=b,x in (,")
        with pytest.raises(s.SelectorError, match="can't understand"):
            fsel.parse_field_selector("nope")
