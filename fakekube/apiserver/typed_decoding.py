"""Decoding a request body into a built-in kind's Go type, as kube-apiserver's JSON decoder does.

kube-apiserver unmarshals a built-in kind's body into its Go struct (``sigs.k8s.io/json``, a
case-sensitive ``encoding/json``), so a value of the wrong JSON type never reaches defaulting or
validation: the request fails with 400 ``BadRequest``::

    Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct
    field PodSpec.spec.containers of type []v1.Container

``Go struct field <Struct>.<path>``: the innermost struct holding the field and the field's JSON
path from the root without list indexes; ``of type``: the Go type (``[]v1.Container``,
``map[string]string``, ``int32``, ``v1.PodSpec``). Only the first error is reported, as
``encoding/json`` does. ``resource.Quantity`` fields answer with the quantity parser's own message
(``quantities must match the regular expression ...``); ``IntOrString`` fields with
``json: cannot unmarshal <type> into Go value of type int32``.

What decoding changes, as the round trip through the Go type would: ``null`` for a field is
dropped (a nil pointer, slice or map; a zero struct), except where Go encodes the zero value as
``null`` again: a ``metav1.Time`` or ``MicroTime`` held by value (``lastProbeTime: null`` in pod
conditions, ``eventTime: null`` in core Events; the pointer ones are :data:`POINTER_TIME_FIELDS`)
and a slice without ``omitempty`` (:data:`NULL_KEPT`, e.g. a headless Service's EndpointSlice
``ports: null``); ``null`` as a list item or map value is the item type's zero
value (``""``, ``0``, ``false``, ``{}``). Integers must fit their Go type
(``int32`` unless the field is one of :data:`INT64_FIELDS`); a float in an integer field is
rejected (``number 1.5``).

The types come from the generated OpenAPI definitions (:mod:`fakekube.apiserver.builtin_schemas`);
a kind without one is left alone. Integer formats are not in the generated schemas, so the
``int64`` fields are listed here by name (``INT64_FIELDS``).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from typing import Any, Final

from fakekube._core.gocompat import go_json_kind
from fakekube._core.jsonutil import json_differences
from fakekube.apiserver import builtin_schemas
from fakekube.apiserver.resources import ResourceType
from fakekube.errors import BadRequest
from fakekube.machinery import wire
from fakekube.machinery.quantity import ERR_FORMAT_WRONG, parse_quantity

__all__ = ["INT64_FIELDS", "NULL_KEPT", "POINTER_TIME_FIELDS", "decode_typed", "exact", "json_body", "undecoded"]

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

#: ``int64`` fields of the served kinds (by JSON name); every other integer is an ``int32``.
INT64_FIELDS: Final = frozenset({
    "activeDeadlineSeconds", "terminationGracePeriodSeconds", "deletionGracePeriodSeconds", "generation",
    "observedGeneration", "runAsUser", "runAsGroup", "fsGroup", "supplementalGroups", "expirationSeconds",
    "startingDeadlineSeconds", "gracePeriodSeconds", "seconds", "count", "tolerationSeconds",
    "maxSkew", "uid", "gid", "restartCount", "resourceVersion",
})

#: ``*metav1.Time``/``*MicroTime`` fields of the served kinds (by JSON name): ``null`` drops them.
#: Every other time field is held by value, and its zero value encodes as ``null``.
POINTER_TIME_FIELDS: Final = frozenset({
    "deletionTimestamp", "time", "startTime", "completionTime", "lastScheduleTime", "lastSuccessfulTime",
    "timeAdded", "acquireTime", "renewTime",
})

#: (Go struct, JSON field) of the served kinds' slices declared without ``omitempty``: a nil one
#: encodes as ``null``, so a ``null`` stays.
NULL_KEPT: Final = frozenset({
    ("EndpointSlice", "endpoints"), ("EndpointSlice", "ports"), ("Endpoint", "addresses"),
    ("Role", "rules"), ("ClusterRole", "rules"),
})

_STRUCT, _LIST, _MAP, _STRING, _TIME, _INT, _NUMBER, _BOOL, _INT_OR_STRING, _QUANTITY, _ANY = (
    "struct", "list", "map", "string", "time", "int", "number", "bool", "intorstring", "quantity", "any")


@dataclass(eq=False)
class _Type:
    """A Go type: ``kind`` one of the constants above; ``go`` its name in messages."""

    kind: str
    go: str
    name: str = ""                                      # struct: the Go struct's name
    fields: dict[str, _Type] = field(default_factory=dict)
    elem: _Type | None = None                           # list item or map value
    bits: int = 32                                      # int
    null_kept: frozenset[str] = frozenset()             # struct: fields whose null Go encodes again

    def seal(self) -> _Type:
        """A struct's fields are all known: note which keep ``null`` (a time held by value, a
        slice in :data:`NULL_KEPT`)."""
        self.null_kept = frozenset(key for key, ct in self.fields.items()
                                   if (ct.kind == _TIME and key not in POINTER_TIME_FIELDS)
                                   or (self.name, key) in NULL_KEPT)
        return self


_ANY_TYPE: Final = _Type(_ANY, "interface {}")


def _package(definition: str) -> str:
    """``io.k8s.api.core.v1.PodSpec`` → ``v1``."""
    return definition.rsplit(".", 2)[-2]


class _Builder:
    def __init__(self) -> None:
        self.schemas = builtin_schemas.schemas()
        self.structs: dict[str, _Type] = {}
        self.quantities = {model.removeprefix("V1"): fields
                           for model, fields in builtin_schemas.QUANTITY_FIELDS.items()}

    def struct(self, definition: str) -> _Type:
        known = self.structs.get(definition)
        if known is not None:
            return known
        schema = self.schemas.get(definition) or {}
        short = definition.rsplit(".", 1)[-1]
        if schema.get("type") != "object" or "properties" not in schema:
            return self.node(schema, "", short, definition)
        t = self.structs[definition] = _Type(_STRUCT, f"{_package(definition)}.{short}", name=short)
        quantity_fields = self.quantities.get(short, ())
        for name, prop in schema["properties"].items():
            t.fields[name] = self.node(prop, name, short, definition, quantity=name in quantity_fields)
        return t.seal()

    def node(self, schema: dict[str, Any], name: str, owner: str, definition: str, *,
             quantity: bool = False) -> _Type:
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = ref.removeprefix(builtin_schemas.REF_PREFIX)
            if target.endswith("JSONSchemaProps"):
                return _ANY_TYPE  # self-referencing: typed no further
            return self.struct(target)
        if schema.get("x-kubernetes-int-or-string"):
            return _Type(_QUANTITY, "resource.Quantity") if quantity else _Type(_INT_OR_STRING, "intstr.IntOrString")
        kind = schema.get("type")
        if kind == "string" and schema.get("format") == "date-time":
            return _Type(_TIME, "v1.Time")
        if kind == "string":
            return _Type(_STRING, "string")
        if kind == "integer":
            bits = 64 if name in INT64_FIELDS else 32
            return _Type(_INT, f"int{bits}", bits=bits)
        if kind == "number":
            return _Type(_NUMBER, "float64")
        if kind == "boolean":
            return _Type(_BOOL, "bool")
        if kind == "array" and isinstance(schema.get("items"), dict):
            item = self.node(schema["items"], name, owner, definition, quantity=quantity)
            return _Type(_LIST, "[]" + item.go, elem=item)
        if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            value = self.node(schema["additionalProperties"], name, owner, definition, quantity=quantity)
            go = "v1.ResourceList" if value.kind == _QUANTITY else f"map[string]{value.go}"
            return _Type(_MAP, go, elem=value)
        return _ANY_TYPE


@functools.cache
def _kind_type(api_version: str, kind: str) -> _Type | None:
    definition = builtin_schemas.definition_name(api_version, kind)
    if definition is None:
        return None
    return _Builder().struct(definition)


class _DecodeError(Exception):
    pass


def _number_text(value: int | float) -> str:
    return str(value) if isinstance(value, int) else json.dumps(value)


def _zero(t: _Type) -> Any:
    return {_STRUCT: {}, _STRING: "", _INT: 0, _NUMBER: 0, _BOOL: False, _QUANTITY: "0",
            _INT_OR_STRING: 0}.get(t.kind)


class _Unusual(Exception):
    """The fast decoder met something it leaves to :class:`_Decoder` (an error, a subclass, a null item)."""


def _valid_quantity(text: str) -> bool:
    """Whether ``text`` parses as a quantity (parsing is memoised: :meth:`Quantity.parse`)."""
    try:
        parse_quantity(text.strip())
    except (ValueError, ArithmeticError):
        return False
    return True


def _fast(value: Any, t: _Type, exact: bool = False, depth: int = wire.MAX_DEPTH) -> Any:
    """``value`` decoded as ``t`` (the same object when nothing changes), for the common case: exact
    JSON types and no error. Anything else raises :class:`_Unusual`, and :class:`_Decoder` decodes
    the whole body again, wording the first error. Both take the same decisions; this one skips
    the bookkeeping of paths and messages (a pod has ~50 typed values and every write decodes).

    ``exact``: also raise unless ``value`` is plain JSON (what ``wire.check_json`` checks, ``depth``
    levels left), decoding changes nothing, and every field is declared -- strict mode's one walk
    over a body a simulator built."""
    kind = t.kind
    if kind == _STRUCT:
        if type(value) is not dict or depth <= 0:
            raise _Unusual
        out = value
        fields = t.fields
        for key, child in value.items():
            ct = fields.get(key)
            if ct is None:
                if exact:
                    raise _Unusual
                continue
            if child is None:
                if key not in t.null_kept:
                    if exact:
                        raise _Unusual
                    if out is value:
                        out = dict(value)
                    del out[key]
                continue
            ck = ct.kind
            if ck == _STRING or ck == _TIME:  # the common leaves, checked here rather than by a call
                if type(child) is not str:
                    raise _Unusual
                continue
            if ck == _BOOL:
                if type(child) is not bool:
                    raise _Unusual
                continue
            new = _fast(child, ct, exact, depth - 1)
            if new is not child:
                if out is value:
                    out = dict(value)
                out[key] = new
        return out
    if kind == _LIST or kind == _MAP:
        elem = t.elem
        assert elem is not None
        if depth <= 0:
            raise _Unusual
        if kind == _LIST:
            if type(value) is not list:
                raise _Unusual
            items: Any = enumerate(value)
        else:
            if type(value) is not dict:
                raise _Unusual
            items = value.items()
        if elem.kind == _STRING:  # labels, annotations, finalizers, args: no call per item
            for key, child in items:
                if type(child) is not str or (exact and type(key) is not int and type(key) is not str):
                    raise _Unusual
            return value
        changed = None
        for key, child in items:
            if child is None or (exact and type(key) is not int and type(key) is not str):
                raise _Unusual
            new = _fast(child, elem, exact, depth - 1)
            if new is not child:
                changed = [] if changed is None else changed
                changed.append((key, new))
        if changed is None:
            return value
        out_c: Any = list(value) if kind == _LIST else dict(value)
        for key, new in changed:
            out_c[key] = new
        return out_c
    vt = type(value)
    if kind == _STRING or kind == _TIME:
        ok = vt is str
    elif kind == _INT:
        ok = vt is int and (INT32_MIN <= value <= INT32_MAX if t.bits == 32 else INT64_MIN <= value <= INT64_MAX)
    elif kind == _BOOL:
        ok = vt is bool
    elif kind == _INT_OR_STRING:
        ok = vt is str or (vt is int and INT32_MIN <= value <= INT32_MAX)
    elif kind == _QUANTITY:
        ok = vt is str and _valid_quantity(value)
    elif kind == _NUMBER:
        ok = vt is int or (vt is float and math.isfinite(value))
    else:
        ok = kind == _ANY and (not exact or wire.is_json(value, depth))
    if not ok:
        raise _Unusual
    return value


def exact(rt: ResourceType, obj: dict[str, Any], stored: dict[str, Any] | None = None) -> bool:
    """Whether ``obj`` is plain JSON that decodes into ``rt``'s Go type unchanged, every field
    declared: what strict mode asks of a body a simulator built, in one walk (False leaves the
    wording to :func:`undecoded` and field validation). A top-level field ``obj`` shares with
    ``stored`` (the object as stored: frozen, and checked when it was written) is not walked again."""
    t = None if rt.custom else _kind_type(rt.api_version, rt.kind)
    if t is None:
        return False
    if stored is not None:
        obj = {key: value for key, value in obj.items() if value is not stored.get(key)}
    try:
        _fast(obj, t, True)
    except _Unusual:
        return False
    return True


class _Decoder:
    def __init__(self) -> None:
        self.first: str | None = None

    def fail(self, message: str) -> None:
        if self.first is None:
            self.first = message

    def mismatch(self, value: Any, t: _Type, struct: str, path: str, shown: str | None = None) -> None:
        what = shown or go_json_kind(value)
        where = f"Go struct field {struct}.{path}" if struct else "Go value"
        self.fail(f"json: cannot unmarshal {what} into {where} of type {t.go}")

    def value(self, value: Any, t: _Type, struct: str, path: str) -> Any:
        """``value`` decoded as ``t`` (the same object when nothing changes)."""
        kind = t.kind
        if kind == _ANY:
            return value
        if kind == _STRUCT:
            if not isinstance(value, dict):
                self.mismatch(value, t, struct, path)
                return value
            out = value
            for key, child in value.items():
                ct = t.fields.get(key)
                if ct is None:
                    continue  # unknown: field validation's
                child_path = f"{path}.{key}" if path else key
                if child is None:
                    if key in t.null_kept:
                        continue  # Go encodes this field's zero value as null again
                    if out is value:
                        out = dict(value)
                    del out[key]
                    continue
                new = self.value(child, ct, t.name, child_path)
                if new is not child:
                    if out is value:
                        out = dict(value)
                    out[key] = new
            return out
        if kind in (_LIST, _MAP):
            assert t.elem is not None
            if (kind == _LIST and not isinstance(value, list)) or (kind == _MAP and not isinstance(value, dict)):
                self.mismatch(value, t, struct, path)
                return value
            items = enumerate(value) if isinstance(value, list) else value.items()
            changed: list[tuple[Any, Any]] = []
            for key, child in items:
                new = _zero(t.elem) if child is None else self.value(child, t.elem, struct, path)
                if new is not child:
                    changed.append((key, new))
            if not changed:
                return value
            out_c: Any = list(value) if isinstance(value, list) else dict(value)
            for key, new in changed:
                out_c[key] = new
            return out_c
        if kind in (_STRING, _TIME):
            if not isinstance(value, str):
                self.mismatch(value, t, struct, path)
        elif kind == _BOOL:
            if not isinstance(value, bool):
                self.mismatch(value, t, struct, path)
        elif kind == _NUMBER:
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.mismatch(value, t, struct, path)
        elif kind == _INT:
            low, high = (INT32_MIN, INT32_MAX) if t.bits == 32 else (INT64_MIN, INT64_MAX)
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.mismatch(value, t, struct, path)
            elif isinstance(value, float) or not low <= value <= high:
                self.mismatch(value, t, struct, path, "number " + _number_text(value))
        elif kind == _INT_OR_STRING:
            if isinstance(value, str):
                return value
            if isinstance(value, bool) or not isinstance(value, int):
                shown = "number " + _number_text(value) if isinstance(value, float) else go_json_kind(value)
                self.fail(f"json: cannot unmarshal {shown} into Go value of type int32")
            elif not INT32_MIN <= value <= INT32_MAX:
                self.fail(f"json: cannot unmarshal number {value} into Go value of type int32")
        elif kind == _QUANTITY:
            text = value if isinstance(value, str) else _number_text(value) if isinstance(value, int | float) \
                and not isinstance(value, bool) else None
            try:
                parse_quantity((text or "").strip())
            except (ValueError, ArithmeticError) as exc:
                self.fail(str(exc) if text and isinstance(exc, ValueError) else ERR_FORMAT_WRONG)
        return value


@functools.cache
def _custom_type(kind: str) -> _Type:
    """A custom resource as Go sees it: its ``metadata`` is an ObjectMeta, the rest is unstructured."""
    meta = _Builder().struct("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    return _Type(_STRUCT, kind, name=kind, fields={"metadata": meta}).seal()


def _decoded(rt: ResourceType, obj: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``obj`` decoded into ``rt``'s Go type (``obj`` itself when nothing changes) and the
    decoder's first error."""
    t = _custom_type(rt.kind) if rt.custom else _kind_type(rt.api_version, rt.kind)
    if t is None:
        return obj, None
    try:
        return _fast(obj, t), None
    except _Unusual:
        pass
    decoder = _Decoder()
    return decoder.value(obj, t, "", ""), decoder.first


def decode_typed(rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` decoded into ``rt``'s Go type: the same dict changed in place where decoding
    drops or zeroes ``null`` s (subtrees that change are replaced, never mutated), or 400
    ``BadRequest`` with the decoder's first error. A custom resource's ``metadata`` is decoded
    (the rest is its schema's business); kinds without a generated schema pass unchanged."""
    decoded, error = _decoded(rt, obj)
    if error is not None:
        raise BadRequest(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: {error}')
    if decoded is not obj:
        obj.clear()
        obj.update(decoded)
    return obj


def undecoded(rt: ResourceType, obj: dict[str, Any]) -> str | None:
    """Why ``obj`` would not pass JSON checking and typed decoding unchanged, or None: the check
    strict mode makes of a body one of fakekube's simulators built (which skips both otherwise)."""
    try:
        wire.check_json(obj)
    except wire.NotJson as err:
        return f"is not a JSON value: {err}"
    decoded, error = _decoded(rt, obj)
    if error is not None:
        return f"cannot be decoded: {error}"
    if decoded is not obj:
        return "is changed by decoding: " + "; ".join(json_differences(obj, decoded))
    return None


def json_body(rt: ResourceType, body: Any) -> None:
    """400 unless ``body`` is a JSON value (:func:`fakekube.machinery.wire.check_json`): what a
    Python caller passes must be what a request could carry."""
    try:
        wire.check_json(body)
    except wire.NotJson as err:
        raise BadRequest(f'{rt.kind} in version "{rt.version}" cannot be handled as a {rt.kind}: {err}') from None
