"""The CEL pass: ``x-kubernetes-validations`` of ``pkg/apiserver/schema/cel``, evaluated with ``celpy``.

Rules compile on first use (:class:`Rule`), with celpy imported lazily and its parser prebuilt
(:mod:`fakekube.machinery.cel_parser`). Values reach CEL as ``UnstructuredToVal`` types them:
properties addressable by their escaped names, ``map``/``set`` lists comparing without order.
Transition rules (``oldSelf``) run only with a correlated old value; errors of unchanged values
are ratcheted into warnings.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from fakekube.errors import OMIT, FieldError

from .nodes import META_FIELDS, MISSING, CompiledRule, Node, Rule
from .validate import (
    Ratchet,
    go_num,
    is_number,
    map_key,
    map_list_index,
    path_child,
    path_index,
    path_key,
    path_string,
)

__all__ = ["CelValidator", "NativeRule", "compile_rule", "register_native_rule"]

NativeRule = Callable[[Any, Any], "bool | None"]
"""A rule's Python equivalent: ``fn(self, oldSelf) -> bool``, on the plain (JSON) values, with
``oldSelf`` ``MISSING`` when there is none; ``None`` hands the value to CEL (a case the function
does not mirror, e.g. one where CEL would raise)."""

_NATIVE: dict[str, NativeRule] = {}


def register_native_rule(rule: str, fn: NativeRule) -> None:
    """Evaluate the ``x-kubernetes-validations`` rule whose text is ``rule`` with ``fn`` instead of
    the CEL interpreter (same outcome, same error when it fails). For rules on hot paths (a CRD's
    root rules run on every write); the component that registers one keeps a differential test
    against the interpreter. Pure functions keyed by rule text: safe to share across clusters."""
    _NATIVE[rule] = fn


_CEL_RESERVED: Final = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
})

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

    class ObjectVal(ct.MapType):  # type: ignore[misc]  # celpy is untyped: its classes are Any
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

    class MapListVal(ct.ListType):  # type: ignore[misc]  # celpy is untyped: its classes are Any
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

        __hash__ = None  # type: ignore[assignment]  # unhashable, as the list it compares like

    class SetListVal(ct.ListType):  # type: ignore[misc]  # celpy is untyped: its classes are Any
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

        __hash__ = None  # type: ignore[assignment]  # unhashable, as the list it compares like

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


def compile_rule(rule: Rule, node: Node) -> CompiledRule:
    """Compile ``rule`` (and its messageExpression) with celpy, once: the result is kept on the rule."""
    if rule.compiled is not None:
        return rule.compiled
    _cel()
    c = CompiledRule()
    stripped = re.sub(_STRING_LITERAL_RE, "''", rule.rule)
    c.uses_old_self = bool(re.search(_OLD_SELF_RE, stripped))
    c.plain_equality = " ".join(rule.rule.split()) in ("self == oldSelf", "oldSelf == self")
    if rule.rule.strip():
        try:
            c.program = _cel_env.program(_cel_env.compile(rule.rule))
        except Exception as exc:  # celpy raises several parse error types
            c.error = str(exc.args[0] if exc.args else exc)
    if rule.message_expression and not c.error:
        try:
            c.message_program = _cel_env.program(_cel_env.compile(rule.message_expression))
        except Exception as exc:
            c.error = f"messageExpression compilation failed: {exc.args[0] if exc.args else exc}"
    if rule.field_path and not c.error:
        try:
            c.field_path = _normalize_field_path(rule.field_path, node)
        except ValueError as exc:
            c.error = f"fieldPath {rule.field_path!r}: {exc}"
    rule.compiled = c
    return c


def _normalize_field_path(json_path: str, node: Node) -> str:
    """``ValidFieldPath``: ``.a.b['c.d']`` relative to ``node``, rendered as an apimachinery path."""
    tokens = re.findall(r"'(?:\\.|[^'\\])*'|[.\[\]]|[^.\[\]']+", json_path)
    out = ""
    cur: Node | None = node
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


class CelValidator:
    """The CEL pass of one validation run: ``x-kubernetes-validations`` rules (``cel.Validator``)."""

    __slots__ = ("_kube_minor",)

    def __init__(self, kube_minor: int) -> None:
        self._kube_minor = kube_minor


    def cel(self, v: Any, s: Node | None, path: str | None, old: Any, ratchet: Ratchet,
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
            index = map_list_index(s, old)
            for i, item in enumerate(v):
                item_old = MISSING
                if index is not None and isinstance(item, dict):
                    item_old = index.get(map_key(s, item), MISSING)
                self.cel(item, items, path_index(path, i), item_old, Ratchet(item, item_old, ratchet), errs,
                         warnings, resource_root=items.embedded)
        elif isinstance(v, Mapping):
            props = s.properties or {}
            old_map = old if isinstance(old, Mapping) and s.map_type in ("", "granular", "atomic") else None
            for k, value in v.items():
                prop = props.get(k)
                if prop is not None:
                    child_path = path_child(path, k)
                elif s.additional is not None:
                    prop, child_path = s.additional, path_key(path, k)
                else:
                    continue
                if not prop.has_rules:
                    continue
                child_old = old_map.get(k, MISSING) if old_map is not None else MISSING
                if top and k in ("apiVersion", "kind"):
                    child_ratchet = Ratchet(value, MISSING, None)
                else:
                    child_ratchet = Ratchet(value, child_old, ratchet)
                self.cel(value, prop, child_path, child_old, child_ratchet, errs, warnings,
                         resource_root=prop.embedded)

    def _rules(self, v: Any, s: Node, rules: tuple[Rule, ...], path: str | None, old: Any, ratchet: Ratchet,
               errs: list[FieldError], warnings: list[str] | None, *, resource_root: bool) -> None:
        celpy = _cel()
        type_name = "object" if resource_root else s.type
        has_old = old is not MISSING and old is not None
        unchanged = ratchet.unchanged()
        activation: dict[str, Any] | None = None

        def add(err: FieldError, compiled: Any) -> None:
            """``addErr``: a rule without ``oldSelf`` on an unchanged value only warns (ratcheting)."""
            if not compiled.uses_old_self and unchanged:
                if warnings is not None:
                    warnings.append(str(err))
            else:
                errs.append(err)

        for rule in rules:
            compiled = compile_rule(rule, s)
            if compiled.error:
                errs.append(FieldError.invalid(path_string(path), type_name, f"rule compile error: {compiled.error}"))
                continue
            if compiled.program is None:
                continue
            if compiled.uses_old_self and not has_old:
                continue  # transition rules need a correlated old value
            if unchanged and (compiled.plain_equality or (warnings is None and not compiled.uses_old_self)):
                # Outcomes known without evaluating: `self == oldSelf` holds on an unchanged value, and
                # any failure of a rule without oldSelf there would be a warning nobody collects.
                continue
            native = _NATIVE.get(rule.rule) if compiled.message_program is None else None
            outcome = native(v, old if has_old else MISSING) if native is not None else None
            if outcome is True:
                continue
            if outcome is None:
                if activation is None:
                    activation = {"self": _to_cel(v, s, resource_root)}
                    if has_old and any(compile_rule(r, s).uses_old_self for r in rules):
                        activation["oldSelf"] = _to_cel(old, s, resource_root)
                try:
                    if compiled.plain_equality and "oldSelf" in activation:
                        # `self == oldSelf` evaluates to the celpy values' own equality; skip the interpreter
                        result = celpy.celtypes.BoolType(activation["self"] == activation["oldSelf"])
                    else:
                        result = compiled.program.evaluate(activation)
                except Exception as exc:  # celpy's evaluation errors, its internals and operator errors alike
                    add(FieldError.invalid(path_string(path), type_name, _eval_error_detail(exc, rule)), compiled)
                    continue
                if isinstance(result, Exception):
                    add(FieldError.invalid(path_string(path), type_name, _eval_error_detail(result, rule)), compiled)
                    continue
                if isinstance(result, bool | celpy.celtypes.BoolType) and bool(result):
                    continue
            err_path = path_string(path)
            if compiled.field_path:
                err_path = path_child(path, compiled.field_path)
            detail = rule.message_or_default()
            # A rule with a messageExpression never runs natively: it was evaluated, so activation is set.
            if compiled.message_program is not None and activation is not None:
                detail = _message_expression(compiled.message_program, activation) or detail
            if self._kube_minor >= 35:
                value: Any = OMIT if s.type in ("object", "array") or resource_root else go_num(v) if is_number(v) else v
            else:
                value = type_name
            add(_field_error_for_reason(err_path, value, detail, rule.reason), compiled)


def _field_error_for_reason(path: str, value: Any, detail: str, reason: str) -> FieldError:
    """``fieldErrorForReason``: the rule's ``reason`` picks the field error type."""
    if reason == "FieldValueForbidden":
        return FieldError.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return FieldError.required(path, detail)
    if reason == "FieldValueDuplicate":
        return FieldError.duplicate(path, value)
    return FieldError.invalid(path, value, detail)


def _eval_error_detail(exc: BaseException, rule: Rule) -> str:
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


def _to_cel(v: Any, s: Node | None, resource_root: bool = False) -> Any:
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
                if (s.embedded or resource_root) and k in META_FIELDS:
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
    if t == "number" and is_number(v):
        return ct.DoubleType(float(v))
    if t == "integer" and isinstance(v, int) and not isinstance(v, bool):
        return ct.IntType(v)
    if t == "boolean" and isinstance(v, bool):
        return ct.BoolType(v)
    return celpy.json_to_cel(v)
