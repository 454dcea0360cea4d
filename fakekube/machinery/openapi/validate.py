"""Schema validation: kube-openapi's ``validate.SchemaValidator`` and ``listtype.ValidateListSetsAndMaps``.

Errors are converted as ``kubeOpenAPIResultToFieldErrors`` does, with kube-openapi's
``pkg/validation/errors`` texts, and ratcheted on update as ``validation.RatchetingSchemaValidator``
does (:class:`Ratchet`, :func:`map_list_index`: an unchanged, correlated value keeps its errors to
itself). The field-path helpers and the ratchet are shared with the CEL pass (:mod:`.cel`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

from fakekube._core.gocompat import GoFloat, go_float, go_quote, go_v
from fakekube.errors import OMIT, ErrorType, FieldError

from .formats import format_ok
from .nodes import MISSING, Node

__all__ = [
    "Ratchet",
    "Validator",
    "go_num",
    "is_number",
    "map_key",
    "map_list_index",
    "path_child",
    "path_index",
    "path_key",
    "path_string",
]


_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1
_MAX_JSON_FLOAT: Final = float(1 << 53)
_FLOAT32_MAX: Final = 3.4028234663852886e38


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


def go_num(v: int | float) -> Any:
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


def path_child(path: str | None, name: str) -> str:
    """``field.Path.Child``."""
    return name if path is None else f"{path}.{name}"


def path_key(path: str | None, key: str) -> str:
    """``field.Path.Key``."""
    return f"[{key}]" if path is None else f"{path}[{key}]"


def path_index(path: str | None, i: int) -> str:
    """``field.Path.Index``."""
    return f"[{i}]" if path is None else f"{path}[{i}]"


def path_string(path: str | None) -> str:
    """``field.Path.String`` (a nil path prints ``<nil>``)."""
    return "<nil>" if path is None else path


class Ratchet:
    """Validation ratcheting (``common.CorrelatedObject``): is this node, or its nearest correlated
    ancestor, unchanged since the old object? Evaluated lazily and cached."""

    __slots__ = ("_new", "_old", "_parent", "_result")

    def __init__(self, new: Any, old: Any, parent: Ratchet | None) -> None:
        self._new = new
        self._old = old
        self._parent = parent
        self._result: bool | None = None

    def unchanged(self) -> bool:
        if self._old is MISSING:
            return self._parent.unchanged() if self._parent is not None else False
        if self._result is None:
            self._result = _deep_equal(self._new, self._old)
        return self._result


def map_list_index(node: Node, old: Any) -> dict[tuple[Any, ...], Any] | None:
    """``MakeMapList``: old elements of a map-list by their key values (None if not correlatable)."""
    if node.list_type != "map" or not isinstance(old, list) or not node.list_map_keys:
        return None
    out: dict[tuple[Any, ...], Any] = {}
    for elem in old:
        if isinstance(elem, dict):
            out[map_key(node, elem)] = elem
    return out


def map_key(node: Node, elem: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(_set_key(elem[k]) if k in elem else ("absent", None) for k in node.list_map_keys)


class Validator:
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
            return path_string(self._prefix)
        return path_child(self._prefix, n)

    def _emit(self, errs: list[FieldError], err: FieldError) -> None:
        """``Result.AddErrors``: identical errors are reported once."""
        text = f"{err.type.value}\0{err}"
        if text not in self._seen:
            self._seen.add(text)
            errs.append(err)

    def _plain(self, errs: list[FieldError], detail: str) -> None:
        """A non-``Validation`` kube-openapi error: reported at the validator's root path with value ``""``."""
        self._emit(errs, FieldError.invalid(path_string(self._prefix), "", detail))

    def openapi(self, v: Any, s: Node, name: str, old: Any, prefix: str | None,
                errs: list[FieldError], *, top: bool) -> None:
        """Run the kube-openapi ``SchemaValidator`` over ``v`` (``prefix`` is the error-path root)."""
        self._prefix = prefix
        self._node(v, s, name, old, errs, top=top)

    def _node(self, v: Any, s: Node, name: str, old: Any, errs: list[FieldError], *, top: bool = False) -> None:
        if old is not MISSING and _deep_equal(v, old):
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
            if s.format and not format_ok(s.format.replace("-", ""), v):
                self._type_error(errs, name, s.format, v)
        # numberValidator
        if kind in ("integer", "number"):
            self._number(num, s, name, errs)
        # schemaSliceValidator
        if kind == "array":
            if s.items is not None:
                index = map_list_index(s, old)
                for i, item in enumerate(v):
                    item_old = MISSING
                    if index is not None and isinstance(item, dict):
                        item_old = index.get(map_key(s, item), MISSING)
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

    def _enum(self, v: Any, s: Node, name: str, errs: list[FieldError]) -> None:
        if not s.enum:
            return
        for e in s.enum:
            if v is not None and (type(v) is type(e) or (is_number(v) and is_number(e))) and v == e:
                return
        values = [e if isinstance(e, str) else json.dumps(_sorted_json(e), separators=(",", ":"))
                  for e in s.enum]
        bad = go_num(v) if is_number(v) else v
        self._emit(errs, FieldError.not_supported(self._field(name), bad, values))

    def _number(self, num: int | float, s: Node, name: str, errs: list[FieldError]) -> None:
        in_body = f"{name} in body"
        type_name = s.types[0] if len(s.types) == 1 and s.types[0] in ("integer", "number") else ""
        if self._kube_minor >= 36 and type_name:
            fmt = s.format if s.format in ("int32", "int64", "float", "double") else ""
            if not _fits_format(num, type_name, fmt):
                fmt_text = f"with format {fmt}" if fmt else "(default format)"
                self._plain(errs, f"Checked value must be of type {type_name} {fmt_text} in {name}")
        bad = go_num(num)
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

    def _schema_props(self, v: Any, s: Node, name: str, errs: list[FieldError]) -> None:
        """``schemaPropsValidator``: anyOf, oneOf, allOf, not (best failure = first failing branch)."""
        def run(sub: Node) -> list[FieldError]:
            sub_errs: list[FieldError] = []
            saved = self._seen
            self._seen = set()
            self._node(v, sub, name, MISSING, sub_errs)
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

    def _object(self, v: Mapping[str, Any], s: Node, name: str, old: Any, errs: list[FieldError],
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
            child_old = MISSING
            if old_map is not None and k in old_map and not (top and k in ("apiVersion", "kind")):
                child_old = old_map[k]
            self._node(value, prop, child_name, child_old, errs)
        for k in s.required:
            if k not in v:
                self._emit(errs, FieldError.required(self._field(f"{name}.{k}")))

    # ---------------------------------------------------------------- list types

    def list_types(self, obj: Any, s: Node) -> list[FieldError]:
        """``listtype.ValidateListSetsAndMaps``: uniqueness of set items and map-list keys."""
        errs: list[FieldError] = []
        if isinstance(obj, Mapping) and s.has_list_checks:
            self._lists_map(None, s, obj, errs)
        return errs

    def _lists_map(self, path: str | None, s: Node, obj: Mapping[str, Any], errs: list[FieldError]) -> None:
        props = s.properties or {}
        for k, v in obj.items():
            prop = props.get(k)
            if prop is not None:
                if prop.has_list_checks:
                    self._lists_value(path_child(path, k), prop, v, errs)
            elif s.additional is not None and s.additional.has_list_checks:
                self._lists_value(path_key(path, k), s.additional, v, errs)

    def _lists_value(self, path: str, s: Node, v: Any, errs: list[FieldError]) -> None:
        if isinstance(v, Mapping):
            self._lists_map(path, s, v, errs)
            return
        if not isinstance(v, list):
            return
        if s.list_type == "set":
            for i in _non_unique([_set_key(x) for x in v]):
                errs.append(FieldError.duplicate(path_index(path, i), _sorted_json(v[i])))
        elif s.list_type == "map":
            errs.extend(_validate_list_map(path, s, v))
        if s.items is not None and s.items.has_list_checks:
            for i, item in enumerate(v):
                self._lists_value(path_index(path, i), s.items, item, errs)


def is_number(v: Any) -> bool:
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


def _validate_list_map(path: str, s: Node, v: list[Any]) -> list[FieldError]:
    """``validateListMap``: elements must be objects; key tuples must be unique."""
    for i, x in enumerate(v):
        if x is not None and not isinstance(x, Mapping):
            return [FieldError.invalid(path_index(path, i), x, "must be an object for an array of list-type map")]
    if len(v) <= 1:
        return []
    keys: list[dict[str, Any]] = []
    for x in v:
        keys.append({k: x[k] for k in s.list_map_keys if x is not None and k in x})
    idx = _non_unique([_set_key(k) for k in keys])
    return [FieldError.duplicate(path_index(path, i), _sorted_json(keys[i])) for i in idx]
