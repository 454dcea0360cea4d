"""Field selectors, parsed, matched and printed as Kubernetes does, and the fields each kind offers.

Mirrors, at ``kubernetes/apimachinery@v0.34.0`` ``pkg/fields/selector.go``: ``ParseSelector``,
``splitTerms``/``splitTerm``, ``EscapeValue``, ``UnescapeValue``, ``hasTerm``/``notHasTerm``/
``andTerm``, ``Transform``; and in ``kubernetes/kubernetes`` the per-kind field label conversion
functions (``pkg/apis/core/v1/conversion.go``, ``pkg/apis/batch/v1/conversion.go``) and selectable
field sets (``pkg/registry/core/pod/strategy.go`` ``ToSelectableFields``, ``JobToSelectableFields``,
the Node/Event/Namespace/Service strategies); ``apiextensions-apiserver`` ``crConverter``.

A selector that cannot be parsed, or names a field its kind does not support, raises
:class:`~fakekube.machinery.selectors.SelectorError` with upstream's text (how it reaches a
client: :mod:`fakekube.machinery.selectors`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from fakekube.errors import go_quote

from .selectors import SelectorError

__all__ = [
    "FIELD_ALIASES",
    "FIELD_GETTERS",
    "SUPPORTED_FIELDS",
    "FieldSelector",
    "FieldTerm",
    "check_supported",
    "escape_field_value",
    "field_label_error",
    "object_field_set",
    "parse_field_selector",
    "unescape_field_value",
]


def escape_field_value(value: str) -> str:
    """``fields.EscapeValue``: backslash-escape ``\\``, ``,`` and ``=``."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_field_value(text: str) -> str:
    """``fields.UnescapeValue``; errors carry upstream's text (an unescaped rune prints as its code point)."""
    if not any(c in text for c in "\\,="):
        return text
    out: list[str] = []
    in_slash = False
    for ch in text:
        if in_slash:
            if ch in "\\,=":
                out.append(ch)
            else:
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch in ",=":
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if in_slash:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    """``fields.splitTerms``: split on commas not escaped by a backslash."""
    if not text:
        return []
    terms: list[str] = []
    start, in_slash = 0, False
    for i, ch in enumerate(text):
        if in_slash:
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    """``fields.splitTerm``: the first ``!=``, ``==`` or ``=`` (in that preference) splits the term."""
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op):]
    return None


@dataclass(frozen=True, slots=True)
class FieldTerm:
    """One ``hasTerm`` (``op == "="``; ``==`` is stored as ``=``) or ``notHasTerm`` (``"!="``)."""

    field: str
    op: str
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        have = fields.get(self.field, "")
        return have == self.value if self.op == "=" else have != self.value

    def __str__(self) -> str:
        return f"{self.field}{self.op}{escape_field_value(self.value)}"


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """A parsed field selector: ``terms`` ANDed, in the order upstream keeps (sorted raw terms).

    A field missing from the object's field set reads as ``""`` (``fields.Set.Get``).
    """

    terms: tuple[FieldTerm, ...] = ()

    def matches(self, fields: Mapping[str, str]) -> bool:
        for term in self.terms:
            if not term.matches(fields):
                return False
        return True

    @property
    def empty(self) -> bool:
        return not self.terms

    def __str__(self) -> str:
        return ",".join(str(t) for t in self.terms)

    def requires_exact_match(self, field: str) -> str | None:
        """``RequiresExactMatch``: the value of the first ``field=value`` term."""
        return next((t.value for t in self.terms if t.field == field and t.op == "="), None)

    def equality_terms(self) -> tuple[tuple[str, str], ...]:
        """``(field, value)`` pairs that must hold exactly, for index lookups."""
        return tuple((t.field, t.value) for t in self.terms if t.op == "=")


def parse_field_selector(text: str) -> FieldSelector:
    """``fields.ParseSelector``: ``=``, ``==``, ``!=``; comma = AND; no whitespace trimming.

    Raw terms are sorted as strings before parsing (so errors name the first bad term in that
    order); empty terms are skipped. Like label selectors, recent parses are kept.
    """
    if type(text) is str:
        return _parse_field_selector_cached(text)
    return _parse_field_selector(text)


@functools.lru_cache(maxsize=512)
def _parse_field_selector_cached(text: str) -> FieldSelector:
    return _parse_field_selector(text)


def _parse_field_selector(text: str) -> FieldSelector:
    terms: list[FieldTerm] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        lhs, op, rhs = split
        terms.append(FieldTerm(lhs, "!=" if op == "!=" else "=", unescape_field_value(rhs)))
    return FieldSelector(tuple(terms))


# --------------------------------------------------------------------------- supported fields

SUPPORTED_FIELDS: dict[str, tuple[str, ...]] = {
    "pods": ("metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
             "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
             "status.podIP", "status.podIPs", "status.nominatedNodeName"),
    "nodes": ("metadata.name", "spec.unschedulable"),
    "events": ("involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
               "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
               "reason", "reportingComponent", "source", "type", "metadata.namespace", "metadata.name"),
    "namespaces": ("status.phase", "metadata.name"),
    "secrets": ("type", "metadata.namespace", "metadata.name"),
    "services": ("metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"),
    "replicationcontrollers": ("metadata.name", "metadata.namespace", "status.replicas"),
    "jobs": ("metadata.name", "metadata.namespace", "status.successful"),
}
"""Field labels each built-in kind's registered conversion function accepts (custom resources:
``metadata.name``, ``metadata.namespace`` when namespaced, and the CRD's ``selectableFields``)."""

FIELD_ALIASES: dict[str, dict[str, str]] = {"pods": {"spec.host": "spec.nodeName"}}
"""Legacy labels a conversion function renames (old v1 clients sent ``spec.host``)."""

# Built-in resources without a registered field label conversion function use
# runtime.DefaultMetaV1FieldSelectorConversion and its own message.
_DEFAULT_CONVERSION_RESOURCES = frozenset({"endpointslices", "priorityclasses", "leases", "ingresses",
                                           "persistentvolumeclaims", "configmaps", "serviceaccounts"})


def field_label_error(field: str, resource: str) -> str:
    """The error text of ``ConvertFieldLabel`` for an unsupported ``field`` of ``resource`` (plural).

    - ``jobs`` (``batch/v1`` conversion): ``field label "<f>" not supported for batchv1.Job``;
    - built-ins without a conversion function (``DefaultMetaV1FieldSelectorConversion``):
      ``"<f>" is not a known field selector: only "metadata.name", "metadata.namespace"``;
    - everything else (core kinds, custom resources): ``field label not supported: <f>``.
    """
    if resource == "jobs":
        return f"field label {go_quote(field)} not supported for batchv1.Job"
    if resource in _DEFAULT_CONVERSION_RESOURCES:
        return (f'{go_quote(field)} is not a known field selector: only "metadata.name", '
                '"metadata.namespace"')
    return f"field label not supported: {field}"


def check_supported(selector: FieldSelector, supported: Collection[str], resource_label: str) -> FieldSelector:
    """``FieldSelector.Transform(ConvertFieldLabel)``: rename aliases, reject unsupported fields.

    ``resource_label`` is the resource plural (``pods``, ``jobs``, ``jobsets`` ...): it picks the
    aliases (:data:`FIELD_ALIASES`) and the error text (:func:`field_label_error`). Terms are
    checked in order, so the error names the first unsupported one. Returns the converted
    selector; raises :class:`SelectorError` (400 BadRequest).
    """
    aliases = FIELD_ALIASES.get(resource_label, {})
    out: list[FieldTerm] = []
    for term in selector.terms:
        field = aliases.get(term.field, term.field)
        if field not in supported and term.field not in supported:
            raise SelectorError(field_label_error(term.field, resource_label))
        out.append(FieldTerm(field, term.op, term.value))
    return FieldSelector(tuple(out))


# --------------------------------------------------------------------------- selectable field sets


def _get(obj: Mapping[str, Any], *path: str) -> Any:
    cur: Any = obj
    for part in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(part)
    return cur


def _str(obj: Mapping[str, Any], *path: str) -> str:
    value = _get(obj, *path)
    return value if isinstance(value, str) else ""


def _bool(obj: Mapping[str, Any], *path: str) -> str:
    """``strconv.FormatBool``: a missing bool is ``false``."""
    return "true" if _get(obj, *path) is True else "false"


def _pod_ip(pod: Mapping[str, Any]) -> str:
    """``status.podIP``: upstream reads ``podIPs[0].ip`` (internal type); fall back to ``podIP``."""
    ips = _get(pod, "status", "podIPs")
    if isinstance(ips, list) and ips and isinstance(ips[0], Mapping):
        ip = ips[0].get("ip")
        return ip if isinstance(ip, str) else ""
    return _str(pod, "status", "podIP")


def _event_source(event: Mapping[str, Any]) -> str:
    """``source``: ``source.component``, else ``reportingComponent`` (core/v1 JSON of ReportingController)."""
    return _str(event, "source", "component") or _str(event, "reportingComponent")


def _int_str(obj: Mapping[str, Any], *path: str) -> str:
    """``strconv.Itoa`` of an int32 field; missing is ``0``."""
    value = _get(obj, *path)
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "0"


FieldGetter = Callable[[Mapping[str, Any]], str]


def _involved_object(key: str) -> FieldGetter:
    """The getter of ``involvedObject.<key>``."""
    return lambda o: _str(o, "involvedObject", key)


FIELD_GETTERS: dict[str, dict[str, FieldGetter]] = {
    "pods": {
        "spec.nodeName": lambda o: _str(o, "spec", "nodeName"),
        "spec.restartPolicy": lambda o: _str(o, "spec", "restartPolicy"),
        "spec.schedulerName": lambda o: _str(o, "spec", "schedulerName"),
        "spec.serviceAccountName": lambda o: _str(o, "spec", "serviceAccountName"),
        "spec.hostNetwork": lambda o: _bool(o, "spec", "hostNetwork"),
        "status.phase": lambda o: _str(o, "status", "phase"),
        "status.podIP": _pod_ip,
        "status.nominatedNodeName": lambda o: _str(o, "status", "nominatedNodeName"),
    },
    "jobs": {"status.successful": lambda o: _int_str(o, "status", "succeeded")},
    "nodes": {"spec.unschedulable": lambda o: _bool(o, "spec", "unschedulable")},
    "events": {
        **{f"involvedObject.{k}": _involved_object(k)
           for k in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
        "reason": lambda o: _str(o, "reason"),
        "reportingComponent": lambda o: _str(o, "reportingComponent"),
        "source": _event_source,
        "type": lambda o: _str(o, "type"),
    },
    "namespaces": {"status.phase": lambda o: _str(o, "status", "phase")},
    "services": {"spec.clusterIP": lambda o: _str(o, "spec", "clusterIP"),
                 "spec.type": lambda o: _str(o, "spec", "type")},
}
"""Per-resource selectable fields beyond ``metadata.*`` (``ToSelectableFields`` and friends).

Pods do not populate ``status.podIPs`` (accepted by the conversion, so it always reads ``""``).
"""


def object_field_set(obj: Mapping[str, Any], extra: Mapping[str, FieldGetter] | None = None, *,
                     namespaced: bool = True) -> dict[str, str]:
    """``generic.AddObjectMetaFieldsSet`` plus ``extra`` getters: the fields a selector sees."""
    fields: dict[str, str] = {name: get(obj) for name, get in (extra or {}).items()}
    fields["metadata.name"] = _str(obj, "metadata", "name")
    if namespaced:
        fields["metadata.namespace"] = _str(obj, "metadata", "namespace")
    return fields
