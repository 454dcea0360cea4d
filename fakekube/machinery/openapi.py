"""Structural OpenAPI v3 schemas of custom resources: pruning, defaulting and validation.

A pure re-implementation (no code copied) of what the API server does with a CRD version's
``openAPIV3Schema``:

* ``prune``    -- ``apiextensions-apiserver`` ``pkg/apiserver/schema/pruning`` (``PruneWithOptions`` with
  ``isResourceRoot``) followed by ``defaulting.PruneNonNullableNullsWithoutDefaults``, as run by
  ``unstructuredSchemaCoercer.apply`` on every decode; embedded-resource ``metadata`` is coerced
  to the ``ObjectMeta`` fields as ``objectmeta.Coerce`` does.
* ``default``  -- ``pkg/apiserver/schema/defaulting.Default`` with defaults pre-pruned as
  ``defaulting.PruneDefaults`` does when the CRD is registered.
* ``validate`` -- ``pkg/registry/customresource/strategy.go`` ``Validate``/``ValidateUpdate``: the
  kube-openapi ``validate.SchemaValidator`` (errors converted by ``kubeOpenAPIResultToFieldErrors``,
  ratcheted on update as ``validation.RatchetingSchemaValidator``), then
  ``listtype.ValidateListSetsAndMaps``, then the CEL ``x-kubernetes-validations`` of
  ``pkg/apiserver/schema/cel`` (skipped behind ``hasBlockingErr``), evaluated with ``celpy``.

Message texts are those of kube-openapi ``pkg/validation/errors`` rendered through apimachinery
``field.Error``. Where server releases differ, ``kube_minor`` selects the behaviour (default 34):
``<= 34`` CEL failures carry the schema type name as value (``Invalid value: "object": ...``),
``>= 35`` they carry the scalar value or omit it for objects/arrays; ``>= 36`` kube-openapi checks
that numbers fit their ``int32``/``int64``/``float`` format.

Deterministic: objects are walked in document (key insertion) order where Go iterates maps
randomly. CEL rules are compiled on first use only, so importing this module and building a
schema stay cheap.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from fakekube._core.gocompat import GoFloat, go_float, go_quote, go_v
from fakekube._core.jsonutil import deep_copy
from fakekube.errors import OMIT, ErrorType, FieldError, UsageError

__all__ = ["StructuralSchema"]


# --------------------------------------------------------------------------- small helpers

class _Missing:
    """Sentinel: a value (or a correlated old value) that is absent."""

    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Final[Any] = _Missing()

_META_FIELDS: Final = ("apiVersion", "kind", "metadata")

_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1
_MAX_JSON_FLOAT: Final = float(1 << 53)
_FLOAT32_MAX: Final = 3.4028234663852886e38

# metav1.ObjectMeta JSON fields (objectmeta.Coerce keeps these, drops the rest, omitempty applies).
_OBJECT_META_FIELDS: Final = (
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields",
)
_OWNER_REFERENCE_FIELDS: Final = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")

# Formats kept by StripUnsupportedFormatsPostProcessorForVersion (normalized: dashes removed).
_STRING_FORMATS: Final = frozenset({
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3",
    "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte",
    "password", "date", "duration", "datetime",
})
_STRING_FORMATS_134: Final = frozenset({"k8sshortname", "k8slongname"})

_CEL_RESERVED: Final = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
})


def _deep_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` on unstructured JSON: type-strict (``1`` != ``1.0`` != ``True``)."""
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, x in a.items():
            if k not in b or not _deep_equal(x, b[k]):
                return False
        return True
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all(_deep_equal(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    return bool(a == b)


def _sorted_json(v: Any) -> Any:
    """A JSON value with object keys sorted, as Go's ``json.Marshal`` of a map prints them."""
    if isinstance(v, dict):
        return {k: _sorted_json(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_sorted_json(x) for x in v]
    return v


def _set_key(v: Any) -> tuple[str, Any]:
    """Hashable identity of a list element (Go map key for scalars, JSON text for compounds)."""
    if isinstance(v, dict | list):
        return ("json", json.dumps(v, sort_keys=True, separators=(",", ":")))
    return (type(v).__name__, v)


def _go_num(v: int | float) -> Any:
    """A number as a field-error bad value: ints bare, floats rendered Go-style."""
    return GoFloat(v) if isinstance(v, float) else v


def _json_kind(v: Any) -> tuple[str, str, Any]:
    """Kube-openapi ``schemaInfoForType`` of a decoded JSON value: (type, format, numeric value)."""
    if isinstance(v, bool):
        return "boolean", "", v
    if isinstance(v, int):
        if _INT64_MIN <= v <= _INT64_MAX:
            return "integer", "int64", v
        return "number", "float64", float(v)  # Go decodes out-of-range integers as float64
    if isinstance(v, float):
        return "number", "float64", v
    if isinstance(v, str):
        return "string", "", v
    if isinstance(v, list | tuple):
        return "array", "", v
    return "object", "", v


def _is_json_integer(f: float) -> bool:
    """``swag.IsFloat64AJSONInteger``."""
    return math.isfinite(f) and -_MAX_JSON_FLOAT <= f <= _MAX_JSON_FLOAT and f.is_integer()


def _go_regex(pattern: str) -> re.Pattern[str]:
    """Compile an RE2 pattern with Python ``re`` (ASCII classes; ``$`` only at the very end)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":
                out.append("[]")
                i += 2
                continue
        elif ch == "$":
            out.append(r"\Z")
            i += 1
            continue
        out.append(ch)
        i += 1
    return re.compile("".join(out), re.ASCII)


# --------------------------------------------------------------------------- string formats

# Patterns are plain strings: ``re`` compiles (and caches) them on first use, keeping import cheap.
_DATE_RE: Final = r"(?a)\d{4}-\d{2}-\d{2}\Z"
_TIME_RE: Final = r"(?a)(\d{2}):(\d{2}):(\d{2})(.\d+)?(z|[+-]\d{2}:\d{2})\Z"
_UUID_RES: Final = {
    "uuid": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z",
    "uuid3": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z",
    "uuid4": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}\Z",
    "uuid5": r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}\Z",
}
_K8S_SHORT_RE: Final = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z"
_K8S_LONG_RE: Final = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z"


def _is_date(s: str) -> bool:
    """strfmt ``IsDate``: ``time.Parse("2006-01-02", s)``."""
    if not re.match(_DATE_RE, s):
        return False
    try:
        _dt.date(int(s[:4]), int(s[5:7]), int(s[8:10]))
    except ValueError:
        return False
    return True


def _is_date_time(s: str) -> bool:
    """strfmt ``IsDateTime``: split on ``t`` (case-insensitive), date part plus a clock matching the pattern."""
    if len(s) < 4:
        return False
    parts = s.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    m = re.match(_TIME_RE, parts[1])
    return bool(m) and m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _format_ok(fmt: str, s: str) -> bool:
    """Validate the cheap string formats; formats not modelled here always pass."""
    if fmt == "datetime":
        return _is_date_time(s)
    if fmt == "date":
        return _is_date(s)
    if fmt in _UUID_RES:
        return bool(re.match(_UUID_RES[fmt], s))
    if fmt == "byte":
        try:
            base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            return False
        return True
    if fmt in ("ipv4", "ipv6", "cidr"):
        import ipaddress  # lazy: rarely needed
    if fmt in ("ipv4", "ipv6"):
        try:
            addr = ipaddress.ip_address(s)
        except ValueError:
            return False
        return addr.version == (4 if fmt == "ipv4" else 6)
    if fmt == "cidr":
        try:
            ipaddress.ip_network(s, strict=False)
        except ValueError:
            return False
        return "/" in s
    if fmt == "k8sshortname":
        return len(s) <= 63 and bool(re.match(_K8S_SHORT_RE, s))
    if fmt == "k8slongname":
        return len(s) <= 253 and bool(re.match(_K8S_LONG_RE, s))
    return True


# --------------------------------------------------------------------------- CEL support (lazy)

_celpy: Any = None
_cel_env: Any = None
_cel_classes: dict[str, type] = {}


def _cel() -> Any:
    """Import ``celpy`` on first use (it costs ~0.1 s) and build the shared environment.

    celpy's parser is the prebuilt one of :mod:`fakekube.machinery.cel_parser` (milliseconds to
    load) instead of the one celpy would build from its grammar (~0.5 s).
    """
    global _celpy, _cel_env
    if _celpy is None:
        import celpy  # deliberately lazy: importing celpy costs ~0.1 s

        from fakekube.machinery import cel_parser

        cel_parser.install()
        _celpy = celpy
        _cel_env = celpy.Environment()
        _make_cel_classes(celpy.celtypes)
    return _celpy


def _cel_unescape(name: str) -> str:
    """``cel.Unescape``: the property name a (possibly escaped) CEL identifier refers to."""
    if len(name) > 4 and name.startswith("__") and name.endswith("__") and name[2:-2] in _CEL_RESERVED:
        return name[2:-2]
    for esc, raw in (("__underscores__", "\0"), ("__dot__", "."), ("__dash__", "-"), ("__slash__", "/")):
        name = name.replace(esc, raw)
    return name.replace("\0", "__")


def _make_cel_classes(ct: Any) -> None:
    """Define the celpy value classes that carry Kubernetes semantics (escaping, list types)."""

    class ObjectVal(ct.MapType):  # type: ignore[misc,name-defined]
        """An object with ``properties``: fields addressable by escaped names too."""

        def __getitem__(self, key: Any) -> Any:
            try:
                return super().__getitem__(key)
            except KeyError:
                if isinstance(key, str):
                    raw = _cel_unescape(key)
                    if raw != key:
                        return super().__getitem__(ct.StringType(raw))
                raise

        def __contains__(self, key: object) -> bool:
            if super().__contains__(key):
                return True
            return isinstance(key, str) and super().__contains__(ct.StringType(_cel_unescape(key)))

    class MapListVal(ct.ListType):  # type: ignore[misc,name-defined]
        """``x-kubernetes-list-type: map``: equality ignores element order (``unstructuredMapList.Equal``)."""

        keys: tuple[str, ...] = ()

        def _key(self, item: Any) -> tuple[Any, ...]:
            return tuple(_cel_key(item.get(ct.StringType(k)) if isinstance(item, dict) else None)
                         for k in self.keys)

        def __eq__(self, other: Any) -> bool:
            if other is None:
                return False
            if not isinstance(other, list):
                raise TypeError(f"no such overload: ListType == {type(other)}")
            if len(self) != len(other):
                return False
            mine = {self._key(item): item for item in self}
            seen = set()
            for item in other:
                k = self._key(item)
                if k not in mine or not bool(mine[k] == item):
                    return False
                seen.add(k)
            return len(seen) == len(mine)

        def __ne__(self, other: Any) -> bool:
            return not self.__eq__(other)

        __hash__ = None  # type: ignore[assignment]

    class SetListVal(ct.ListType):  # type: ignore[misc,name-defined]
        """``x-kubernetes-list-type: set``: equality ignores element order."""

        def __eq__(self, other: Any) -> bool:
            if other is None:
                return False
            if not isinstance(other, list):
                raise TypeError(f"no such overload: ListType == {type(other)}")
            if len(self) != len(other):
                return False
            mine = {_cel_key(x) for x in self}
            theirs = {_cel_key(x) for x in other}
            return mine == theirs

        def __ne__(self, other: Any) -> bool:
            return not self.__eq__(other)

        __hash__ = None  # type: ignore[assignment]

    _cel_classes.update(object=ObjectVal, maplist=MapListVal, setlist=SetListVal)


def _cel_key(v: Any) -> Any:
    """Hashable identity of a CEL value (for list-type map/set equality)."""
    if isinstance(v, dict):
        return ("map", tuple(sorted((str(k), _cel_key(x)) for k, x in v.items())))
    if isinstance(v, list):
        return ("list", tuple(_cel_key(x) for x in v))
    return (type(v).__name__, v)


_STRING_LITERAL_RE: Final = r"""'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*\""""
_OLD_SELF_RE: Final = r"\boldSelf\b"
_NO_SUCH_MEMBER_RE: Final = r"(?s)no such member in mapping: '(.*)'\Z"


class _Compiled:
    """A compiled ``x-kubernetes-validations`` rule (``cel.CompilationResult``)."""

    __slots__ = ("error", "field_path", "message_program", "plain_equality", "program", "uses_old_self")

    def __init__(self) -> None:
        self.plain_equality = False
        self.program: Any = None
        self.message_program: Any = None
        self.uses_old_self = False
        self.error = ""
        self.field_path = ""


class _Rule:
    """One ``x-kubernetes-validations`` entry; compiled on first use and cached."""

    __slots__ = ("_compiled", "field_path", "message", "message_expression", "optional_old_self",
                 "reason", "rule")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.rule: str = str(raw.get("rule") or "")
        self.message: str = str(raw.get("message") or "")
        self.message_expression: str = str(raw.get("messageExpression") or "")
        self.reason: str = str(raw.get("reason") or "")
        self.field_path: str = str(raw.get("fieldPath") or "")
        self.optional_old_self = bool(raw.get("optionalOldSelf"))
        self._compiled: _Compiled | None = None

    def error_string(self) -> str:
        """``ruleErrorString``: the message if any, else the rule text."""
        return self.message.strip() if self.message else self.rule.strip()

    def message_or_default(self) -> str:
        """``ruleMessageOrDefault``."""
        return self.message.strip() if self.message else f"failed rule: {self.rule.strip()}"

    def compiled(self, node: _Node) -> _Compiled:
        """Compile the rule (and messageExpression) with celpy, once."""
        if self._compiled is not None:
            return self._compiled
        _cel()
        c = _Compiled()
        stripped = re.sub(_STRING_LITERAL_RE, "''", self.rule)
        c.uses_old_self = bool(re.search(_OLD_SELF_RE, stripped))
        c.plain_equality = " ".join(self.rule.split()) in ("self == oldSelf", "oldSelf == self")
        if self.rule.strip():
            try:
                c.program = _cel_env.program(_cel_env.compile(self.rule))
            except Exception as exc:  # celpy raises several parse error types
                c.error = str(exc.args[0] if exc.args else exc)
        if self.message_expression and not c.error:
            try:
                c.message_program = _cel_env.program(_cel_env.compile(self.message_expression))
            except Exception as exc:
                c.error = f"messageExpression compilation failed: {exc.args[0] if exc.args else exc}"
        if self.field_path and not c.error:
            try:
                c.field_path = _normalize_field_path(self.field_path, node)
            except ValueError as exc:
                c.error = f"fieldPath {self.field_path!r}: {exc}"
        self._compiled = c
        return c


def _normalize_field_path(json_path: str, node: _Node) -> str:
    """``ValidFieldPath``: ``.a.b['c.d']`` relative to ``node``, rendered as an apimachinery path."""
    tokens = re.findall(r"'(?:\\.|[^'\\])*'|[.\[\]]|[^.\[\]']+", json_path)
    out = ""
    cur: _Node | None = node
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == ".":
            if i + 1 >= len(tokens):
                raise ValueError("unexpected end of JSON path")
            name = tokens[i + 1]
            i += 2
        elif tok == "[":
            if i + 2 >= len(tokens) or tokens[i + 2] != "]" or not tokens[i + 1].startswith("'"):
                raise ValueError("expected single quoted string")
            name = tokens[i + 1][1:-1].replace("\\'", "'").replace("\\\\", "\\")
            i += 3
        else:
            raise ValueError(f"expected [ or . but got: {tok}")
        if cur is None:
            raise ValueError("does not refer to a valid field")
        if cur.properties is not None:
            if name not in cur.properties:
                raise ValueError("does not refer to a valid field")
            out = f"{out}.{name}" if out else name
            cur = cur.properties[name]
        elif cur.has_additional:
            out = f"{out}[{name}]"
            cur = cur.additional
        else:
            raise ValueError("does not refer to a valid field")
    return out


# --------------------------------------------------------------------------- schema nodes

class _Node:
    """One schema node with the keywords the algorithms use (class attributes are the defaults)."""

    type: str = ""
    types: tuple[str, ...] = ()
    nullable = False
    format = ""
    properties: dict[str, _Node] | None = None
    has_additional = False            # additionalProperties present (schema, true or false)
    additional: _Node | None = None   # its schema, None for a bare boolean
    additional_false = False
    items: _Node | None = None
    required: tuple[str, ...] = ()
    enum: tuple[Any, ...] | None = None
    default: Any = _MISSING
    minimum: float | int | None = None
    maximum: float | int | None = None
    exclusive_minimum = False
    exclusive_maximum = False
    multiple_of: float | int | None = None
    max_length: int | None = None
    min_length: int | None = None
    pattern = ""
    max_items: int | None = None
    min_items: int | None = None
    unique_items = False
    max_properties: int | None = None
    min_properties: int | None = None
    preserve_unknown = False
    embedded = False
    int_or_string = False
    list_type = ""
    list_map_keys: tuple[str, ...] = ()
    map_type = ""
    rules: tuple[_Rule, ...] = ()
    any_of: tuple[_Node, ...] = ()
    all_of: tuple[_Node, ...] = ()
    one_of: tuple[_Node, ...] = ()
    not_: _Node | None = None
    has_defaults = False   # a default somewhere in this subtree
    has_rules = False      # a CEL rule somewhere in this subtree
    has_list_checks = False  # a map/set list somewhere in this subtree
    _regex: re.Pattern[str] | None = None

    def regex(self) -> re.Pattern[str]:
        """The compiled ``pattern`` (compiled on first use)."""
        if self._regex is None:
            self._regex = _go_regex(self.pattern)
        return self._regex


_INT_KEYWORDS: Final = {
    "maxLength": "max_length", "minLength": "min_length", "maxItems": "max_items", "minItems": "min_items",
    "maxProperties": "max_properties", "minProperties": "min_properties",
}
_IGNORED_KEYWORDS: Final = frozenset({"description", "title", "example", "externalDocs", "$schema", "id"})


def _build(raw: Mapping[str, Any], formats: frozenset[str], defaulted: list[_Node]) -> _Node:
    """Turn a JSONSchemaProps mapping into a ``_Node`` tree in one pass over its keys.

    Precomputes the subtree flags used to skip work, and collects nodes carrying a ``default``.
    """
    n = _Node()
    has_defaults = has_rules = has_lists = False
    fmt = ""
    for key, val in raw.items():
        if key in _IGNORED_KEYWORDS:
            continue
        if key == "type":
            if val:
                n.type = str(val)
                if not n.int_or_string:
                    n.types = (n.type,)
        elif key == "properties":
            n.properties = props = {}
            if val:
                for pk, pv in val.items():
                    child = props[str(pk)] = _build(pv, formats, defaulted)
                    has_defaults = has_defaults or child.has_defaults or child.default is not _MISSING
                    has_rules = has_rules or child.has_rules
                    has_lists = has_lists or child.has_list_checks
        elif key == "items":
            if isinstance(val, Mapping):
                n.items = it = _build(val, formats, defaulted)
                has_defaults = has_defaults or it.has_defaults or it.default is not _MISSING
                has_rules = has_rules or it.has_rules
                has_lists = has_lists or it.has_list_checks
        elif key == "format":
            fmt = str(val or "")
        elif key == "required":
            if val:
                n.required = tuple(str(r) for r in val)
        elif key == "x-kubernetes-list-type":
            if val:
                n.list_type = str(val)
                has_lists = has_lists or n.list_type in ("map", "set")
        elif key == "x-kubernetes-list-map-keys":
            if val:
                n.list_map_keys = tuple(str(k) for k in val)
        elif key == "x-kubernetes-map-type":
            if val:
                n.map_type = str(val)
        elif key == "additionalProperties":
            if val is None:
                continue
            n.has_additional = True
            if isinstance(val, Mapping):
                n.additional = a = _build(val, formats, defaulted)
                has_defaults = has_defaults or a.has_defaults or a.default is not _MISSING
                has_rules = has_rules or a.has_rules
                has_lists = has_lists or a.has_list_checks
            elif val is False:
                n.additional_false = True
        elif key == "default":
            n.default = deep_copy(val)
            defaulted.append(n)
        elif key == "enum":
            if val is not None:
                n.enum = tuple(deep_copy(e) for e in val)
        elif key == "x-kubernetes-int-or-string":
            if val:
                n.int_or_string = True
                n.types = ("integer", "string")
        elif key == "nullable":
            n.nullable = bool(val)
        elif key == "pattern":
            n.pattern = str(val or "")
        elif key in _INT_KEYWORDS:
            if val is not None:
                setattr(n, _INT_KEYWORDS[key], int(val))
        elif key == "minimum":
            n.minimum = val
        elif key == "maximum":
            n.maximum = val
        elif key == "multipleOf":
            n.multiple_of = val
        elif key == "exclusiveMinimum":
            n.exclusive_minimum = bool(val)
        elif key == "exclusiveMaximum":
            n.exclusive_maximum = bool(val)
        elif key == "uniqueItems":
            n.unique_items = bool(val)
        elif key == "x-kubernetes-preserve-unknown-fields":
            n.preserve_unknown = bool(val)
        elif key == "x-kubernetes-embedded-resource":
            n.embedded = bool(val)
        elif key == "x-kubernetes-validations":
            if val:
                n.rules = tuple(_Rule(r) for r in val)
                has_rules = True
        elif key in ("anyOf", "allOf", "oneOf"):
            if val:
                built = tuple(_build(sub, formats, defaulted) for sub in val)
                if key == "anyOf":
                    n.any_of = built
                elif key == "oneOf":
                    n.one_of = built
                else:
                    n.all_of = built
                    has_rules = has_rules or any(b.has_rules or b.rules for b in built)
        elif key == "not":
            if isinstance(val, Mapping):
                n.not_ = _build(val, formats, defaulted)
    if fmt:
        # StripUnsupportedFormatsPostProcessorForVersion
        st = n.types[0] if len(n.types) == 1 else ""
        if st in ("", "string"):
            if fmt.replace("-", "") in formats:
                n.format = fmt
        elif (st == "integer" and fmt in ("int32", "int64")) or (st == "number" and fmt in ("float", "double")):
            n.format = fmt
    n.has_defaults = has_defaults
    n.has_rules = has_rules
    n.has_list_checks = has_lists
    return n


def _iter_nodes(root: _Node) -> Iterator[_Node]:
    """Every node of the structural spine (properties, additionalProperties, items)."""
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        if n.items is not None:
            stack.append(n.items)
        if n.additional is not None:
            stack.append(n.additional)
        if n.properties:
            stack.extend(reversed(n.properties.values()))


# --------------------------------------------------------------------------- paths

def _child(path: str | None, name: str) -> str:
    """``field.Path.Child``."""
    return name if path is None else f"{path}.{name}"


def _key(path: str | None, key: str) -> str:
    """``field.Path.Key``."""
    return f"[{key}]" if path is None else f"{path}[{key}]"


def _index(path: str | None, i: int) -> str:
    """``field.Path.Index``."""
    return f"[{i}]" if path is None else f"{path}[{i}]"


def _rendered(path: str | None) -> str:
    """``field.Path.String`` (a nil path prints ``<nil>``)."""
    return "<nil>" if path is None else path


class _Ratchet:
    """Validation ratcheting (``common.CorrelatedObject``): is this node, or its nearest correlated
    ancestor, unchanged since the old object? Evaluated lazily and cached."""

    __slots__ = ("_new", "_old", "_parent", "_result")

    def __init__(self, new: Any, old: Any, parent: _Ratchet | None) -> None:
        self._new = new
        self._old = old
        self._parent = parent
        self._result: bool | None = None

    def unchanged(self) -> bool:
        if self._old is _MISSING:
            return self._parent.unchanged() if self._parent is not None else False
        if self._result is None:
            self._result = _deep_equal(self._new, self._old)
        return self._result


def _map_list_index(node: _Node, old: Any) -> dict[tuple[Any, ...], Any] | None:
    """``MakeMapList``: old elements of a map-list by their key values (None if not correlatable)."""
    if node.list_type != "map" or not isinstance(old, list) or not node.list_map_keys:
        return None
    out: dict[tuple[Any, ...], Any] = {}
    for elem in old:
        if isinstance(elem, dict):
            out[_map_key(node, elem)] = elem
    return out


def _map_key(node: _Node, elem: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(_set_key(elem[k]) if k in elem else ("absent", None) for k in node.list_map_keys)


# --------------------------------------------------------------------------- the schema

class StructuralSchema:
    """A CRD version's structural schema: prune, default and validate custom resources.

    Built from ``openAPIV3Schema``; the input mapping is not retained (defaults, enums and rules
    are copied), so the schema is immutable after construction. ``kube_minor`` picks the
    Kubernetes release whose message details are reproduced (see the module docstring).
    """

    __slots__ = ("_kube_minor", "_root")

    def __init__(self, schema: Mapping[str, Any], *, kube_minor: int = 34) -> None:
        if not isinstance(schema, Mapping):
            raise UsageError("StructuralSchema needs the openAPIV3Schema mapping of a CRD version")
        formats = _STRING_FORMATS | _STRING_FORMATS_134 if kube_minor >= 34 else _STRING_FORMATS
        defaulted: list[_Node] = []
        root = _build(schema, formats, defaulted)
        # defaulting.PruneDefaults: every default is pruned by the schema at its own position.
        for node in defaulted:
            node.default = _prune_value(node.default, node, None, None)
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_kube_minor", int(kube_minor))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("StructuralSchema is immutable")

    @classmethod
    def from_crd_version(cls, version: Mapping[str, Any], *, kube_minor: int = 34) -> StructuralSchema:
        """Build from one ``spec.versions[]`` entry of a CustomResourceDefinition."""
        try:
            schema = version["schema"]["openAPIV3Schema"]
        except (KeyError, TypeError) as exc:
            raise UsageError("CRD version has no schema.openAPIV3Schema") from exc
        return cls(schema, kube_minor=kube_minor)

    @property
    def kube_minor(self) -> int:
        """The Kubernetes minor version whose behaviour is reproduced."""
        return self._kube_minor

    @property
    def compiled_rule_count(self) -> int:
        """How many CEL rules have been compiled so far (they compile lazily, on first use)."""
        return sum(1 for node in _iter_nodes(self._root) for r in node.rules if r._compiled is not None)

    # ------------------------------------------------------------------ pruning

    def prune(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Drop unknown fields and non-nullable nulls without default; returns a new object.

        Top-level ``apiVersion``, ``kind`` and ``metadata`` are kept verbatim (the server restores
        them after pruning); embedded resources keep theirs, with ``metadata`` coerced to ObjectMeta.
        """
        return self.prune_tracking(obj)[0]

    def prune_tracking(self, obj: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """``prune`` plus the sorted paths of the unknown fields dropped (``unknown field "<path>"``)."""
        if not isinstance(obj, Mapping):
            raise UsageError("prune needs an object (a mapping)")
        unknown: list[str] = []
        out = _prune_value(dict(obj), self._root, "", unknown, resource_root=True)
        unknown.sort()
        return out, unknown

    # ------------------------------------------------------------------ defaulting

    def default(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Apply schema defaults (``defaulting.Default``); returns a new object, the input is untouched."""
        if not isinstance(obj, Mapping):
            raise UsageError("default needs an object (a mapping)")
        out = deep_copy(dict(obj))
        _default_in_place(out, self._root)
        return out

    # ------------------------------------------------------------------ validation

    def validate(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None, *,
                 warnings: list[str] | None = None) -> list[FieldError]:
        """Schema, list-type and CEL validation of a (pruned, defaulted) object; ``old`` on update.

        On update, errors in unchanged parts are ratcheted away; CEL errors ratcheted that way are
        appended to ``warnings`` (if given) as the server emits them as warnings.
        """
        return self._validate(obj, old, warnings, status_only=False)

    def validate_status(self, obj: Mapping[str, Any], old: Mapping[str, Any], *,
                        warnings: list[str] | None = None) -> list[FieldError]:
        """Validation of an update through the ``status`` subresource (``statusStrategy.ValidateUpdate``):
        only ``status`` is schema-checked (messages name paths relative to it), list types and CEL
        rules run over the whole object."""
        return self._validate(obj, old, warnings, status_only=True)

    def _validate(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None, warnings: list[str] | None,
                  *, status_only: bool) -> list[FieldError]:
        v = _Validator(self._kube_minor)
        errs: list[FieldError] = []
        if status_only:
            status_node = (self._root.properties or {}).get("status")
            if "status" in obj and status_node is not None:
                old_status = old.get("status", _MISSING) if isinstance(old, Mapping) else _MISSING
                v.openapi(obj["status"], status_node, "", old_status, "status", errs, top=False)
            new_list = v.list_types(obj, self._root)
            if new_list and not (isinstance(old, Mapping) and v.list_types(old, self._root)):
                errs.extend(new_list)
        else:
            v.openapi(obj, self._root, "", _MISSING if old is None else old, None, errs, top=True)
            if old is None or not v.list_types(old, self._root):
                errs.extend(v.list_types(obj, self._root))
        if self._root.has_rules:
            if any(e.type in _BLOCKING for e in errs):
                errs.append(FieldError.invalid(
                    "<nil>", None, "some validation rules were not checked because the object was invalid; "
                    "correct the existing errors to complete validation"))
            else:
                ratchet = _Ratchet(obj, _MISSING if old is None else old, None)
                v.cel(obj, self._root, None, _MISSING if old is None else old, ratchet, errs, warnings,
                      resource_root=True, top=True)
        return errs


_BLOCKING: Final = frozenset({ErrorType.NOT_SUPPORTED, ErrorType.REQUIRED, ErrorType.TOO_LONG,
                              ErrorType.TOO_MANY, ErrorType.TYPE_INVALID})


# --------------------------------------------------------------------------- pruning & defaulting

def _prune_value(x: Any, s: _Node | None, path: str | None, unknown: list[str] | None, *,
                 resource_root: bool = False) -> Any:
    """``pruning.prune`` + ``PruneNonNullableNullsWithoutDefaults`` on a copy; returns the result."""
    if s is not None and s.preserve_unknown:
        return _skip_prune(x, s, path, unknown, resource_root=resource_root)
    if isinstance(x, dict):
        if s is None:
            if unknown is not None:
                unknown.extend(_join_key(path, k) for k in x)
            return {}
        out: dict[str, Any] = {}
        embedded = s.embedded or resource_root
        props = s.properties or {}
        for k, v in x.items():
            if embedded and k in _META_FIELDS:
                out[k] = deep_copy(v) if resource_root else _coerce_meta_field(k, v)
                continue
            child = props.get(k)
            if child is None and not s.has_additional:
                if unknown is not None and (k not in _META_FIELDS or path):
                    unknown.append(_join_key(path, k))
                continue
            if child is None:
                child = s.additional
            if v is None and child is not None and not child.nullable and child.default is _MISSING:
                continue
            out[k] = _prune_value(v, child, _join_key(path, k), unknown)
        return out
    if isinstance(x, list):
        items = s.items if s is not None else None
        return [_prune_value(v, items, f"{path}[{i}]", unknown) for i, v in enumerate(x)]
    return x


def _skip_prune(x: Any, s: _Node | None, path: str | None, unknown: list[str] | None, *,
                resource_root: bool = False) -> Any:
    """``pruning.skipPrune`` for ``x-kubernetes-preserve-unknown-fields``: unknown keys survive."""
    if s is None:
        return deep_copy(x)
    if isinstance(x, dict):
        out: dict[str, Any] = {}
        embedded = s.embedded or resource_root
        props = s.properties or {}
        for k, v in x.items():
            if embedded and k in _META_FIELDS:
                out[k] = deep_copy(v) if resource_root else _coerce_meta_field(k, v)
                continue
            child = props.get(k)
            if child is None and s.has_additional:
                child = s.additional
            elif child is None:
                out[k] = deep_copy(v)
                continue
            if v is None and child is not None and not child.nullable and child.default is _MISSING:
                continue
            out[k] = _prune_value(v, child, _join_key(path, k), unknown)
        return out
    if isinstance(x, list):
        return [_skip_prune(v, s.items, f"{path}[{i}]", unknown) for i, v in enumerate(x)]
    return x


def _join_key(path: str | None, k: str) -> str:
    """``UnknownFieldPathOptions.AppendKey``."""
    return f"{path}.{k}" if path else k


def _coerce_meta_field(k: str, v: Any) -> Any:
    """``objectmeta.Coerce`` of an embedded resource's type/object meta: ObjectMeta fields only, omitempty."""
    if k != "metadata" or not isinstance(v, dict):
        return deep_copy(v)
    out: dict[str, Any] = {}
    for name, value in v.items():
        if name not in _OBJECT_META_FIELDS or value in (None, "", 0, {}, []) or value is False:
            continue
        if name == "ownerReferences" and isinstance(value, list):
            value = [{f: deep_copy(r[f]) for f in _OWNER_REFERENCE_FIELDS if f in r}
                     if isinstance(r, dict) else deep_copy(r) for r in value]
        out[name] = deep_copy(value)
    return out


def _default_in_place(x: Any, s: _Node | None) -> None:
    """``defaulting.Default``: fill absent (or non-nullable null) fields from ``default``, recursively."""
    if s is None:
        return
    if isinstance(x, dict):
        props = s.properties
        if props:
            for k, prop in props.items():
                if prop.default is _MISSING:
                    continue
                if k not in x or (x[k] is None and not prop.nullable):
                    x[k] = deep_copy(prop.default)
        addl = s.additional
        for k in list(x):
            prop = props.get(k) if props else None
            if prop is not None:
                if prop.has_defaults:
                    _default_in_place(x[k], prop)
            elif addl is not None:
                if x[k] is None and not addl.nullable:
                    x[k] = None if addl.default is _MISSING else deep_copy(addl.default)
                if addl.has_defaults:
                    _default_in_place(x[k], addl)
    elif isinstance(x, list):
        items = s.items
        if items is None:
            return
        for i, v in enumerate(x):
            if v is None and not items.nullable and items.default is not _MISSING:
                x[i] = deep_copy(items.default)
            if items.has_defaults:
                _default_in_place(x[i], items)


# --------------------------------------------------------------------------- validation

class _Validator:
    """One validation run: the kube-openapi pass, the list-type pass and the CEL pass."""

    __slots__ = ("_kube_minor", "_prefix", "_seen")

    def __init__(self, kube_minor: int) -> None:
        self._kube_minor = kube_minor
        self._seen: set[str] = set()
        self._prefix: str | None = None

    # ---------------------------------------------------------------- kube-openapi

    def _field(self, name: str) -> str:
        """``kubeOpenAPIResultToFieldErrors``: the error path is the name without its leading dot."""
        n = name[1:] if name.startswith(".") else name
        if not n:
            return _rendered(self._prefix)
        return _child(self._prefix, n)

    def _emit(self, errs: list[FieldError], err: FieldError) -> None:
        """``Result.AddErrors``: identical errors are reported once."""
        text = f"{err.type.value}\0{err}"
        if text not in self._seen:
            self._seen.add(text)
            errs.append(err)

    def _plain(self, errs: list[FieldError], detail: str) -> None:
        """A non-``Validation`` kube-openapi error: reported at the validator's root path with value ``""``."""
        self._emit(errs, FieldError.invalid(_rendered(self._prefix), "", detail))

    def openapi(self, v: Any, s: _Node, name: str, old: Any, prefix: str | None,
                errs: list[FieldError], *, top: bool) -> None:
        """Run the kube-openapi ``SchemaValidator`` over ``v`` (``prefix`` is the error-path root)."""
        self._prefix = prefix
        self._node(v, s, name, old, errs, top=top)

    def _node(self, v: Any, s: _Node, name: str, old: Any, errs: list[FieldError], *, top: bool = False) -> None:
        if old is not _MISSING and _deep_equal(v, old):
            return  # ratcheting: errors of an unchanged, correlated value are dropped
        in_body = f"{name} in body"
        if v is None:
            if s.types and not s.nullable and "null" not in s.types:
                self._type_error(errs, name, ",".join(s.types), "null")
            self._enum(v, s, name, errs)
            return
        kind, inferred, num = _json_kind(v)
        # typeValidator
        if s.types or s.format:
            is_float_int = kind == "number" and _is_json_integer(num) and "integer" in s.types
            is_int_float = kind == "integer" and "number" in s.types
            if kind not in ("string", "array") and s.format and not (
                    kind in s.types or inferred == s.format or is_float_int or is_int_float):
                self._type_error(errs, name, s.format, inferred)
            elif not ("number" in s.types or "integer" in s.types) and s.format and kind in ("string", "array"):
                pass
            elif s.types and not (kind in s.types or is_float_int or is_int_float):
                self._type_error(errs, name, ",".join(s.types), kind)
        # schemaPropsValidator
        if s.any_of or s.all_of or s.one_of or s.not_ is not None:
            self._schema_props(v, s, name, errs)
        # stringValidator (first failure only)
        if kind == "string":
            if s.max_length is not None and len(v) > s.max_length:
                self._emit(errs, self._too_long(name, s.max_length))
            elif s.min_length is not None and len(v) < s.min_length:
                self._emit(errs, FieldError.invalid(self._field(name), v,
                                                    f"{in_body} should be at least {s.min_length} chars long"))
            elif s.pattern and not s.regex().search(v):
                self._emit(errs, FieldError.invalid(self._field(name), v, f"{in_body} should match '{s.pattern}'"))
            # formatValidator
            if s.format and not _format_ok(s.format.replace("-", ""), v):
                self._type_error(errs, name, s.format, v)
        # numberValidator
        if kind in ("integer", "number"):
            self._number(num, s, name, errs)
        # schemaSliceValidator
        if kind == "array":
            if s.items is not None:
                index = _map_list_index(s, old)
                for i, item in enumerate(v):
                    item_old = _MISSING
                    if index is not None and isinstance(item, dict):
                        item_old = index.get(_map_key(s, item), _MISSING)
                    self._node(item, s.items, f"{name}[{i}]", item_old, errs)
            if s.min_items is not None and len(v) < s.min_items:
                self._emit(errs, FieldError.invalid(self._field(name), len(v),
                                                    f"{in_body} should have at least {s.min_items} items"))
            if s.max_items is not None and len(v) > s.max_items:
                self._emit(errs, self._too_many(name, len(v), s.max_items))
            if s.unique_items and _has_duplicates(v):
                self._emit(errs, FieldError.invalid(self._field(name), "", f"{in_body} shouldn't contain duplicates"))
        # basicCommonValidator (enum)
        self._enum(v, s, name, errs)
        # objectValidator
        if kind == "object" and isinstance(v, Mapping):
            self._object(v, s, name, old, errs, top=top)

    def _type_error(self, errs: list[FieldError], name: str, type_name: str, value: str) -> None:
        """``errors.InvalidType`` with string data → ``field.TypeInvalid``."""
        detail = f"{name} in body must be of type {type_name}: {go_quote(value)}"
        self._emit(errs, FieldError(ErrorType.TYPE_INVALID, self._field(name), value, detail))

    def _too_long(self, name: str, max_length: int) -> FieldError:
        if max_length == 1 and self._kube_minor >= 34:
            return FieldError(ErrorType.TOO_LONG, self._field(name), OMIT, "may not be more than 1 byte")
        return FieldError.too_long(self._field(name), "", max_length)

    def _too_many(self, name: str, actual: int, maximum: int) -> FieldError:
        if maximum == 1 and self._kube_minor >= 34:
            return FieldError(ErrorType.TOO_MANY, self._field(name), actual, "must have at most 1 item")
        return FieldError.too_many(self._field(name), actual, maximum)

    def _enum(self, v: Any, s: _Node, name: str, errs: list[FieldError]) -> None:
        if not s.enum:
            return
        for e in s.enum:
            if v is not None and (type(v) is type(e) or (_is_number(v) and _is_number(e))) and v == e:
                return
        values = [e if isinstance(e, str) else json.dumps(_sorted_json(e), separators=(",", ":"))
                  for e in s.enum]
        bad = _go_num(v) if _is_number(v) else v
        self._emit(errs, FieldError.not_supported(self._field(name), bad, values))

    def _number(self, num: int | float, s: _Node, name: str, errs: list[FieldError]) -> None:
        in_body = f"{name} in body"
        type_name = s.types[0] if len(s.types) == 1 and s.types[0] in ("integer", "number") else ""
        if self._kube_minor >= 36 and type_name:
            fmt = s.format if s.format in ("int32", "int64", "float", "double") else ""
            if not _fits_format(num, type_name, fmt):
                fmt_text = f"with format {fmt}" if fmt else "(default format)"
                self._plain(errs, f"Checked value must be of type {type_name} {fmt_text} in {name}")
        bad = _go_num(num)
        if s.multiple_of is not None:
            factor = s.multiple_of
            if isinstance(num, int):
                f_int = int(factor)
                if f_int <= 0:
                    self._emit(errs, FieldError.invalid(self._field(name), f_int,
                                                        f"factor MultipleOf declared for {name} must be positive: {f_int}"))
                elif num % f_int != 0:
                    self._emit(errs, FieldError.invalid(self._field(name), bad,
                                                        f"{in_body} should be a multiple of {f_int}"))
            else:
                ff = float(factor)
                if ff <= 0:
                    self._emit(errs, FieldError.invalid(self._field(name), GoFloat(ff),
                                                        f"factor MultipleOf declared for {name} must be positive: "
                                                        f"{go_float(ff)}"))
                else:
                    mult = (1 / ff * num) if ff < 1 else (num / ff)
                    if not _is_json_integer(mult):
                        self._emit(errs, FieldError.invalid(self._field(name), bad,
                                                            f"{in_body} should be a multiple of {go_float(ff)}"))
        if s.minimum is not None:
            bound: int | float = int(s.minimum) if isinstance(num, int) else float(s.minimum)
            if num < bound or (s.exclusive_minimum and num <= bound):
                word = "greater than" if s.exclusive_minimum else "greater than or equal to"
                self._emit(errs, FieldError.invalid(self._field(name), bad, f"{in_body} should be {word} "
                                                    f"{go_v(bound)}"))
        if s.maximum is not None:
            bound = int(s.maximum) if isinstance(num, int) else float(s.maximum)
            if num > bound or (s.exclusive_maximum and num >= bound):
                word = "less than" if s.exclusive_maximum else "less than or equal to"
                self._emit(errs, FieldError.invalid(self._field(name), bad, f"{in_body} should be {word} "
                                                    f"{go_v(bound)}"))

    def _schema_props(self, v: Any, s: _Node, name: str, errs: list[FieldError]) -> None:
        """``schemaPropsValidator``: anyOf, oneOf, allOf, not (best failure = first failing branch)."""
        def run(sub: _Node) -> list[FieldError]:
            sub_errs: list[FieldError] = []
            saved = self._seen
            self._seen = set()
            self._node(v, sub, name, _MISSING, sub_errs)
            self._seen = saved
            return sub_errs

        if s.any_of:
            results = [run(sub) for sub in s.any_of]
            if all(results):
                self._plain(errs, f"{go_quote(name)} must validate at least one schema (anyOf)")
                for e in results[0]:
                    self._emit(errs, e)
        if s.one_of:
            results = [run(sub) for sub in s.one_of]
            valid = sum(1 for r in results if not r)
            if valid != 1:
                extra = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
                self._plain(errs, f"{go_quote(name)} must validate one and only one schema (oneOf). {extra}")
                if valid == 0:
                    for e in results[0]:
                        self._emit(errs, e)
        if s.all_of:
            results = [run(sub) for sub in s.all_of]
            for r in results:
                for e in r:
                    self._emit(errs, e)
            failed = sum(1 for r in results if r)
            if failed:
                extra = ". None validated" if failed == len(results) else ""
                self._plain(errs, f"{go_quote(name)} must validate all the schemas (allOf){extra}")
        if s.not_ is not None and not run(s.not_):
            self._plain(errs, f"{go_quote(name)} must not validate the schema (not)")

    def _object(self, v: Mapping[str, Any], s: _Node, name: str, old: Any, errs: list[FieldError],
                *, top: bool) -> None:
        in_body = f"{name} in body"
        n = len(v)
        if s.min_properties is not None and n < s.min_properties:
            self._emit(errs, FieldError.invalid(self._field(name), n,
                                                f"{in_body} should have at least {s.min_properties} properties"))
        if s.max_properties is not None and n > s.max_properties:
            self._emit(errs, self._too_many(name, n, s.max_properties))
        props = s.properties or {}
        old_map = old if isinstance(old, Mapping) else None
        for k, value in v.items():
            prop = props.get(k)
            if prop is None and s.additional_false:
                self._emit(errs, FieldError.invalid(self._field(name), k, f"{name}.{k} in body is a forbidden property"))
                continue
            if prop is not None:
                child_name = k if not name else f"{name}.{k}"
            elif s.additional is not None:
                prop, child_name = s.additional, f"{name}.{k}"
            else:
                continue
            child_old = _MISSING
            if old_map is not None and k in old_map and not (top and k in ("apiVersion", "kind")):
                child_old = old_map[k]
            self._node(value, prop, child_name, child_old, errs)
        for k in s.required:
            if k not in v:
                self._emit(errs, FieldError.required(self._field(f"{name}.{k}")))

    # ---------------------------------------------------------------- list types

    def list_types(self, obj: Any, s: _Node) -> list[FieldError]:
        """``listtype.ValidateListSetsAndMaps``: uniqueness of set items and map-list keys."""
        errs: list[FieldError] = []
        if isinstance(obj, Mapping) and s.has_list_checks:
            self._lists_map(None, s, obj, errs)
        return errs

    def _lists_map(self, path: str | None, s: _Node, obj: Mapping[str, Any], errs: list[FieldError]) -> None:
        props = s.properties or {}
        for k, v in obj.items():
            prop = props.get(k)
            if prop is not None:
                if prop.has_list_checks:
                    self._lists_value(_child(path, k), prop, v, errs)
            elif s.additional is not None and s.additional.has_list_checks:
                self._lists_value(_key(path, k), s.additional, v, errs)

    def _lists_value(self, path: str, s: _Node, v: Any, errs: list[FieldError]) -> None:
        if isinstance(v, Mapping):
            self._lists_map(path, s, v, errs)
            return
        if not isinstance(v, list):
            return
        if s.list_type == "set":
            for i in _non_unique([_set_key(x) for x in v]):
                errs.append(FieldError.duplicate(_index(path, i), _sorted_json(v[i])))
        elif s.list_type == "map":
            errs.extend(_validate_list_map(path, s, v))
        if s.items is not None and s.items.has_list_checks:
            for i, item in enumerate(v):
                self._lists_value(_index(path, i), s.items, item, errs)

    # ---------------------------------------------------------------- CEL

    def cel(self, v: Any, s: _Node | None, path: str | None, old: Any, ratchet: _Ratchet,
            errs: list[FieldError], warnings: list[str] | None, *, resource_root: bool, top: bool = False) -> None:
        """``cel.Validator.validate``: rules of this node (and allOf), then children that have rules."""
        if s is None or v is None or not s.has_rules:
            return
        if s.rules:
            self._rules(v, s, s.rules, path, old, ratchet, errs, warnings, resource_root=resource_root)
        for sub in s.all_of:
            if sub.rules:
                self._rules(v, s, sub.rules, path, old, ratchet, errs, warnings, resource_root=resource_root)
        if isinstance(v, list):
            items = s.items
            if items is None or not items.has_rules:
                return
            index = _map_list_index(s, old)
            for i, item in enumerate(v):
                item_old = _MISSING
                if index is not None and isinstance(item, dict):
                    item_old = index.get(_map_key(s, item), _MISSING)
                self.cel(item, items, _index(path, i), item_old, _Ratchet(item, item_old, ratchet), errs,
                         warnings, resource_root=items.embedded)
        elif isinstance(v, Mapping):
            props = s.properties or {}
            old_map = old if isinstance(old, Mapping) and s.map_type in ("", "granular", "atomic") else None
            for k, value in v.items():
                prop = props.get(k)
                if prop is not None:
                    child_path = _child(path, k)
                elif s.additional is not None:
                    prop, child_path = s.additional, _key(path, k)
                else:
                    continue
                if not prop.has_rules:
                    continue
                child_old = old_map.get(k, _MISSING) if old_map is not None else _MISSING
                if top and k in ("apiVersion", "kind"):
                    child_ratchet = _Ratchet(value, _MISSING, None)
                else:
                    child_ratchet = _Ratchet(value, child_old, ratchet)
                self.cel(value, prop, child_path, child_old, child_ratchet, errs, warnings,
                         resource_root=prop.embedded)

    def _rules(self, v: Any, s: _Node, rules: tuple[_Rule, ...], path: str | None, old: Any, ratchet: _Ratchet,
               errs: list[FieldError], warnings: list[str] | None, *, resource_root: bool) -> None:
        celpy = _cel()
        type_name = "object" if resource_root else s.type
        has_old = old is not _MISSING and old is not None
        activation: dict[str, Any] | None = None
        for rule in rules:
            compiled = rule.compiled(s)
            if compiled.error:
                errs.append(FieldError.invalid(_rendered(path), type_name, f"rule compile error: {compiled.error}"))
                continue
            if compiled.program is None:
                continue
            if compiled.uses_old_self and not has_old:
                continue  # transition rules need a correlated old value
            if activation is None:
                activation = {"self": _to_cel(v, s, resource_root)}
                if has_old and any(r.compiled(s).uses_old_self for r in rules):
                    activation["oldSelf"] = _to_cel(old, s, resource_root)
            try:
                if compiled.plain_equality and "oldSelf" in activation:
                    # `self == oldSelf` evaluates to the celpy values' own equality; skip the interpreter
                    result = celpy.celtypes.BoolType(activation["self"] == activation["oldSelf"])
                else:
                    result = compiled.program.evaluate(activation)
            except celpy.CELEvalError as exc:
                errs.append(FieldError.invalid(_rendered(path), type_name, _eval_error_detail(exc, rule)))
                continue
            except Exception as exc:  # celpy internals / operator errors: report like an evaluation error
                errs.append(FieldError.invalid(_rendered(path), type_name, _eval_error_detail(exc, rule)))
                continue
            if isinstance(result, Exception):
                errs.append(FieldError.invalid(_rendered(path), type_name, _eval_error_detail(result, rule)))
                continue
            if isinstance(result, bool | celpy.celtypes.BoolType) and bool(result):
                continue
            err_path = _rendered(path)
            if compiled.field_path:
                err_path = _child(path, compiled.field_path)
            detail = rule.message_or_default()
            if compiled.message_program is not None:
                detail = _message_expression(compiled.message_program, activation) or detail
            if self._kube_minor >= 35:
                value: Any = OMIT if s.type in ("object", "array") or resource_root else _go_num(v) if _is_number(v) else v
            else:
                value = type_name
            err = _field_error_for_reason(err_path, value, detail, rule.reason)
            if not compiled.uses_old_self and ratchet.unchanged():
                if warnings is not None:
                    warnings.append(str(err))
            else:
                errs.append(err)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _fits_format(num: int | float, type_name: str, fmt: str) -> bool:
    """``IsValueValidAgainstRange`` (kube-openapi, Kubernetes >= 1.36)."""
    if type_name == "integer":
        if isinstance(num, float):
            if not (math.isfinite(num) and num.is_integer()):
                return False
            num = int(num)
        if fmt == "int32":
            return -(1 << 31) <= num <= (1 << 31) - 1
        return _INT64_MIN <= num <= _INT64_MAX
    if fmt == "float":
        return math.isfinite(num) and abs(num) <= _FLOAT32_MAX
    return True


def _has_duplicates(v: list[Any]) -> bool:
    seen: set[tuple[str, Any]] = set()
    for x in v:
        k = _set_key(x)
        if k in seen:
            return True
        seen.add(k)
    return False


def _non_unique(keys: list[Any]) -> list[int]:
    """``validateListSet``: index of the second occurrence of every repeated key."""
    counts: dict[Any, int] = {}
    out: list[int] = []
    for i, k in enumerate(keys):
        counts[k] = counts.get(k, 0) + 1
        if counts[k] == 2:
            out.append(i)
    return out


def _validate_list_map(path: str, s: _Node, v: list[Any]) -> list[FieldError]:
    """``validateListMap``: elements must be objects; key tuples must be unique."""
    for i, x in enumerate(v):
        if x is not None and not isinstance(x, Mapping):
            return [FieldError.invalid(_index(path, i), x, "must be an object for an array of list-type map")]
    if len(v) <= 1:
        return []
    keys: list[dict[str, Any]] = []
    for x in v:
        keys.append({k: x[k] for k in s.list_map_keys if x is not None and k in x})
    idx = _non_unique([_set_key(k) for k in keys])
    return [FieldError.duplicate(_index(path, i), _sorted_json(keys[i])) for i in idx]


def _field_error_for_reason(path: str, value: Any, detail: str, reason: str) -> FieldError:
    """``fieldErrorForReason``: the rule's ``reason`` picks the field error type."""
    if reason == "FieldValueForbidden":
        return FieldError.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return FieldError.required(path, detail)
    if reason == "FieldValueDuplicate":
        return FieldError.duplicate(path, value)
    return FieldError.invalid(path, value, detail)


def _eval_error_detail(exc: BaseException, rule: _Rule) -> str:
    """The detail of a CEL evaluation error, in cel-go's words where they are known."""
    msg = str(exc.args[0]) if exc.args else str(exc)
    m = re.match(_NO_SUCH_MEMBER_RE, msg)
    if m:
        msg = f"no such key: {m.group(1)}"
    elif "no matching overload" in msg or "no such overload" in msg:
        return ("'no such overload': call arguments did not match a supported operator, function or macro "
                f"signature for rule: {rule.error_string()}")
    elif "divide by zero" in msg:
        msg = "division by zero"
    return f"{msg} evaluating rule: {rule.error_string()}"


def _message_expression(program: Any, activation: dict[str, Any]) -> str:
    """Evaluate a messageExpression; "" means fall back to the static message."""
    try:
        result = program.evaluate(activation)
    except Exception:
        return ""
    if not isinstance(result, str):
        return ""
    text = str(result).strip()
    if not text or "\n" in text or len(text) > 5 * 1024:
        return ""
    return text


def _to_cel(v: Any, s: _Node | None, resource_root: bool = False) -> Any:
    """``UnstructuredToVal``: a JSON value as a celpy value typed by its schema."""
    celpy = _cel()
    ct = celpy.celtypes
    if v is None:
        return None
    if s is None or (s.preserve_unknown and not s.properties and s.additional is None):
        return celpy.json_to_cel(v)
    if s.int_or_string:
        if isinstance(v, str):
            return ct.StringType(v)
        if isinstance(v, int) and not isinstance(v, bool):
            return ct.IntType(v)
        return celpy.json_to_cel(v)
    t = s.type
    if t == "object" and isinstance(v, Mapping):
        if s.properties is not None or s.embedded or resource_root:
            props = dict(s.properties or {})
            out = _cel_classes["object"]()
            for k, x in v.items():
                if x is None:
                    continue  # null fields of an object read as absent
                if (s.embedded or resource_root) and k in _META_FIELDS:
                    if k == "metadata" and isinstance(x, Mapping):
                        meta = {f: x[f] for f in ("name", "generateName") if isinstance(x.get(f), str)}
                        out[ct.StringType(k)] = celpy.json_to_cel(meta)
                    elif isinstance(x, str):
                        out[ct.StringType(k)] = ct.StringType(x)
                    continue
                if k in props:
                    out[ct.StringType(k)] = _to_cel(x, props[k])
            return out
        if s.additional is not None:
            return ct.MapType({ct.StringType(k): _to_cel(x, s.additional) for k, x in v.items()})
        return celpy.json_to_cel(dict(v)) if s.preserve_unknown else ct.MapType()
    if t == "array" and isinstance(v, list):
        elems = [_to_cel(x, s.items) for x in v]
        if s.list_type == "map":
            lst = _cel_classes["maplist"](elems)
            lst.keys = s.list_map_keys
            return lst
        if s.list_type == "set":
            return _cel_classes["setlist"](elems)
        return ct.ListType(elems)
    if t == "string" and isinstance(v, str):
        if s.format in ("date-time", "datetime", "date"):
            try:
                parsed = _dt.datetime.fromisoformat(v.replace("z", "Z").replace("Z", "+00:00"))
                return ct.TimestampType(parsed)
            except ValueError:
                return ct.StringType(v)
        if s.format == "duration":
            try:
                return ct.DurationType(v)
            except ValueError:
                return ct.StringType(v)
        return ct.StringType(v)
    if t == "number" and _is_number(v):
        return ct.DoubleType(float(v))
    if t == "integer" and isinstance(v, int) and not isinstance(v, bool):
        return ct.IntType(v)
    if t == "boolean" and isinstance(v, bool):
        return ct.BoolType(v)
    return celpy.json_to_cel(v)
