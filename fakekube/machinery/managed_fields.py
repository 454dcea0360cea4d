"""Field ownership (``metadata.managedFields``) and server-side apply, as pure functions.

A re-implementation of ``sigs.k8s.io/structured-merge-diff`` (field sets, FieldsV1, the typed
compare/merge/remove walkers, ``merge.Updater``) and of the bookkeeping
``k8s.io/apimachinery/pkg/util/managedfields`` does around it (manager identities, entry
order, conflict messages). Values are wire-form JSON (dicts, lists, scalars) typed by a
:class:`~fakekube.machinery.field_types.FieldType`; inputs are never mutated.

Paths and sets
--------------
A path is a tuple of elements: ``("f", name)`` a map key, ``("k", ((field, value), ...))`` an
item of a keyed list (fields sorted by name), ``("v", value)`` an item of a set, ``("i", n)`` a
list index. A field set is a Python ``set`` of paths; union, difference and intersection are the
set operators. FieldsV1 (:func:`encode_fields` / :func:`decode_fields`) is the trie upstream
stores: ``{"f:spec": {"f:replicas": {}}}``, ``"k:{\\"name\\":\\"x\\"}"``, ``"v:\\"a\\""``,
``"i:0"``, with ``".": {}`` marking a node that is itself a member; keys are emitted in
structured-merge-diff's order (fields, then keys, then values, then indexes).

Updates and applies
-------------------
:func:`update` records a non-apply write: the writer owns what it added or changed, and loses
(as does everyone) what it removed; other managers lose what it changed. :func:`apply` merges an
applied configuration into the live object, removes what the applier applied last time but no
longer does (unless someone else owns it), and refuses (:class:`ApplyConflicts`) to change a value
another manager owns unless forced, in which case that manager loses it.

Deterministic where Go iterates maps: objects are walked in document order; managers are
visited in identifier order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from fakekube._core.jsonutil import deep_copy
from fakekube.errors import go_quote
from fakekube.machinery.field_types import DEDUCED, LIST, MAP, FieldType

__all__ = [
    "APPLY",
    "FIELD_MANAGER_MAX_LENGTH",
    "STRIPPED_PATHS",
    "UPDATE",
    "ApplyConflicts",
    "Comparison",
    "FieldPathError",
    "Managed",
    "ManagedFieldsError",
    "Manager",
    "Ownership",
    "Path",
    "apply",
    "compare",
    "decode_fields",
    "decode_managed_fields",
    "encode_fields",
    "encode_managed_fields",
    "ensure_named_fields",
    "exclude",
    "manager_from_user_agent",
    "merge",
    "path_string",
    "remove_items",
    "sorted_paths",
    "to_field_set",
    "typed_errors",
    "update",
]

Element = tuple[str, Any]
Path = tuple[Element, ...]

APPLY: Final = "Apply"
UPDATE: Final = "Update"
FIELD_MANAGER_MAX_LENGTH: Final = 128
MAX_UPDATE_MANAGERS: Final = 10
ANCIENT_CHANGES: Final = "ancient-changes"


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


_ABSENT: Final[Any] = _Absent()


def _f(name: str) -> Element:
    return ("f", name)


STRIPPED_PATHS: Final[frozenset[Path]] = frozenset({
    (_f("apiVersion"),), (_f("kind"),), (_f("metadata"),),
    *((_f("metadata"), _f(name)) for name in (
        "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
        "managedFields", "resourceVersion")),
})
"""Paths no manager ever owns (``stripMetaManager``)."""


class FieldPathError(ValueError):
    """A value the schema cannot index (e.g. a keyed-list item without its key); structured-merge-diff's text."""


class ManagedFieldsError(ValueError):
    """``metadata.managedFields`` that cannot be decoded; upstream's text."""


# --------------------------------------------------------------------------- values


def _freeze(value: Any) -> Any:
    """A hashable form of a JSON value for path elements (bools kept apart from numbers)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 63:
        return int(value)
    if isinstance(value, list):
        return ("l", tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("m", tuple(sorted((str(k), _freeze(v)) for k, v in value.items())))
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        tag, inner = value
        if tag == "b":
            return inner
        if tag == "l":
            return [_thaw(v) for v in inner]
        return {k: _thaw(v) for k, v in inner}
    return value


def _value_order(value: Any) -> tuple[Any, ...]:
    """``value.Compare``: numbers, then strings, booleans, lists, maps, null."""
    if isinstance(value, tuple):
        tag, inner = value
        if tag == "b":
            return (2, inner)
        if tag == "l":
            return (3, tuple(_value_order(v) for v in inner))
        return (4, tuple((k, _value_order(v)) for k, v in inner))
    if value is None:
        return (5,)
    if isinstance(value, str):
        return (1, value)
    return (0, value)


def _element_order(e: Element) -> tuple[Any, ...]:
    """``PathElement.Compare``: field names, then keys, then values, then indexes."""
    kind, body = e
    if kind == "f":
        return (0, body)
    if kind == "k":
        return (1, tuple((name, _value_order(v)) for name, v in body))
    if kind == "v":
        return (2, _value_order(body))
    return (3, body)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``true != 1``."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is not tb:
        if ta in (int, float) and tb in (int, float):
            return bool(a == b)
        return False
    if ta is dict:
        return a.keys() == b.keys() and all(_equal(v, b[k]) for k, v in a.items())
    if ta is list:
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _go_json(value: Any) -> str:
    """``encoding/json`` output: compact, sorted map keys, ``<``, ``>``, ``&`` escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _smd_string(value: Any) -> str:
    """``value.ToString``: strings ``%q``-quoted, the rest bare."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, list):
        return "[" + ",".join(_smd_string(v) for v in value) + "]"
    if isinstance(value, dict):
        return "".join(f"{k}={_smd_string(v)}" for k, v in value.items())
    return str(value)


# --------------------------------------------------------------------------- paths


def _element_string(e: Element) -> str:
    kind, body = e
    if kind == "f":
        return "." + body
    if kind == "k":
        return "[" + ",".join(f"{name}={_smd_string(_thaw(v))}" for name, v in body) + "]"
    if kind == "v":
        return f"[={_smd_string(_thaw(body))}]"
    return f"[{body}]"


def path_string(path: Path) -> str:
    """``fieldpath.Path.String``: ``.spec.containers[name="x"].image``, ``.metadata.finalizers[="a"]``."""
    return "".join(_element_string(e) for e in path)


def _serialize_element(e: Element) -> str:
    kind, body = e
    if kind == "f":
        return "f:" + body
    if kind == "k":
        return "k:{" + ",".join(f"{_go_json(name)}:{_go_json(_thaw(v))}" for name, v in body) + "}"
    if kind == "v":
        return "v:" + _go_json(_thaw(body))
    return f"i:{body}"


def _deserialize_element(text: str) -> Element | None:
    """A FieldsV1 key as a path element; None for an element type this version does not know."""
    if len(text) < 2:
        raise ManagedFieldsError("key must be 2 characters long:")
    if text[1] != ":":
        raise ManagedFieldsError(f"missing colon: {text}")
    kind, body = text[0], text[2:]
    if kind == "f":
        return ("f", body)
    if kind == "i":
        try:
            return ("i", int(body))
        except ValueError:
            raise ManagedFieldsError(f'strconv.Atoi: parsing "{body}": invalid syntax') from None
    if kind in ("k", "v"):
        try:
            value = json.loads(body)
        except ValueError as exc:
            raise ManagedFieldsError(f"parsing key as path element: {exc}") from None
        if kind == "v":
            return ("v", _freeze(value))
        if not isinstance(value, dict):
            raise ManagedFieldsError("parsing key as path element: expected an object")
        return ("k", tuple(sorted((str(k), _freeze(v)) for k, v in value.items())))
    return None


@dataclass(slots=True)
class _Node:
    member: bool = False
    children: dict[Element, _Node] = field(default_factory=dict)


def _trie(paths: Iterable[Path]) -> _Node:
    root = _Node()
    for path in paths:
        node = root
        for e in path:
            child = node.children.get(e)
            if child is None:
                child = node.children[e] = _Node()
            node = child
        if path:
            node.member = True
    return root


def encode_fields(paths: Iterable[Path]) -> dict[str, Any]:
    """A field set as FieldsV1 (``Set.ToJSON``)."""
    return _encode_node(_trie(paths))


def _encode_node(node: _Node) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for e in sorted(node.children, key=_element_order):
        child = node.children[e]
        if child.children:
            inner = {".": {}} if child.member else {}
            inner.update(_encode_node(child))
            out[_serialize_element(e)] = inner
        else:
            out[_serialize_element(e)] = {}
    return out


def decode_fields(fields: Any) -> set[Path]:
    """FieldsV1 as a field set (``Set.FromJSON``); :class:`ManagedFieldsError` when malformed."""
    if not isinstance(fields, Mapping):
        raise ManagedFieldsError("fieldsV1 must be an object")
    out: set[Path] = set()
    _decode_node(fields, (), out)
    return out


def _decode_node(fields: Mapping[str, Any], prefix: Path, out: set[Path]) -> bool:
    """Add the members under ``prefix``; whether ``prefix`` itself is a member."""
    member, has_children = False, False
    for key, value in fields.items():
        if key == ".":
            member = True
            continue
        e = _deserialize_element(str(key))
        if e is None:
            continue
        if not isinstance(value, Mapping):
            raise ManagedFieldsError(f"expected an object for {key}")
        path = (*prefix, e)
        has_children = True
        if _decode_node(value, path, out):
            out.add(path)
    return member or not has_children


def sorted_paths(paths: Iterable[Path]) -> list[Path]:
    """Paths in ``Set.Iterate`` order: at each level the members, then the children's contents."""
    out: list[Path] = []
    _iterate(_trie(paths), (), out)
    return out


def _iterate(node: _Node, prefix: Path, out: list[Path]) -> None:
    order = sorted(node.children, key=_element_order)
    out.extend((*prefix, e) for e in order if node.children[e].member)
    for e in order:
        if node.children[e].children:
            _iterate(node.children[e], (*prefix, e), out)


def exclude(paths: Iterable[Path], prefixes: frozenset[Path]) -> set[Path]:
    """``RecursiveDifference``: drop every path equal to or under one of ``prefixes``."""
    if not prefixes:
        return set(paths)
    return {p for p in paths if not any(p[:n] in prefixes for n in range(1, len(p) + 1))}


# --------------------------------------------------------------------------- typed walkers


def _item_element(item: Any, t: FieldType) -> Element:
    """The path element of an associative list's item (``listItemToPathElement``)."""
    if t.keys:
        if item is None:
            raise FieldPathError("associative list with keys may not have a null element")
        if not isinstance(item, dict):
            raise FieldPathError("associative list with keys may not have non-map elements")
        key = tuple(sorted((k, _freeze(item[k])) for k in t.keys if k in item))
        if not key:
            names = " ".join(go_quote(k) for k in t.keys)
            raise FieldPathError(f"associative list with keys has an element that omits all key fields [{names}] "
                                 "(and doesn't have default values for any key fields)")
        return ("k", key)
    if isinstance(item, dict):
        raise FieldPathError("associative list without keys has an element that's a map type")
    if isinstance(item, list):
        raise FieldPathError("not supported: associative list with lists as elements")
    if item is None:
        raise FieldPathError("associative list without keys has an element that's an explicit null")
    return ("v", _freeze(item))


def _items(items: list[Any], t: FieldType, path: Path) -> list[Element]:
    elements = []
    for i, item in enumerate(items):
        try:
            elements.append(_item_element(item, t))
        except FieldPathError as exc:
            raise FieldPathError(f"{path_string(path)}: element {i}: {exc}") from None
    return elements


def _is_map(t: FieldType, value: Any) -> bool:
    return t.kind == MAP and not t.atomic and isinstance(value, dict)


def _is_assoc(t: FieldType, value: Any) -> bool:
    return t.kind == LIST and t.associative and not t.atomic and isinstance(value, list)


def to_field_set(value: Any, t: FieldType) -> set[Path]:
    """The fields ``value`` sets (``TypedValue.ToFieldSet``): leaves, list items, atomic values,
    null or empty maps and undeclared map keys."""
    out: set[Path] = set()
    _to_field_set(value, t, (), out)
    return out


def _to_field_set(v: Any, t: FieldType, path: Path, out: set[Path]) -> None:
    t = t.resolve(v)
    if t.kind == MAP:
        if t.atomic:
            out.add(path)
        elif isinstance(v, dict):
            for key, child in v.items():
                ct, declared = t.child(key)
                cp = (*path, ("f", key))
                if ct is not None:
                    _to_field_set(child, ct, cp, out)
                if child is None or (isinstance(child, dict) and not child) or not declared:
                    out.add(cp)
    elif t.kind == LIST:
        if not (t.associative and not t.atomic):
            out.add(path)
        elif isinstance(v, list):
            elements = _items(v, t, path)
            seen: set[Element] = set()
            duplicates: set[Element] = set()
            for e in elements:
                if e in seen:
                    duplicates.add(e)
                seen.add(e)
            out.update((*path, e) for e in duplicates)
            elem = t.item()
            for e, item in zip(elements, v, strict=True):
                if e in duplicates:
                    continue
                cp = (*path, e)
                _to_field_set(item, elem, cp, out)
                out.add(cp)
    else:
        out.add(path)


@dataclass(slots=True)
class Comparison:
    """``typed.Comparison``: paths added, modified (leaves whose value changed) and removed."""

    added: set[Path] = field(default_factory=set)
    modified: set[Path] = field(default_factory=set)
    removed: set[Path] = field(default_factory=set)

    def excluding(self, prefixes: frozenset[Path]) -> Comparison:
        return Comparison(exclude(self.added, prefixes), exclude(self.modified, prefixes),
                          exclude(self.removed, prefixes))


def compare(old: Any, new: Any, t: FieldType) -> Comparison:
    """What changed from ``old`` to ``new`` (``TypedValue.Compare``)."""
    c = Comparison()
    _compare(old, new, t, (), c)
    return c


def _compare(lhs: Any, rhs: Any, t: FieldType, path: Path, c: Comparison) -> None:
    t = t.resolve(rhs if rhs is not _ABSENT else lhs)
    if t.kind == MAP and not t.atomic:
        lm = lhs if isinstance(lhs, dict) else None
        rm = rhs if isinstance(rhs, dict) else None
        if (lhs is _ABSENT or lm is not None) and (rhs is _ABSENT or rm is not None) and (lm or rm):
            for key in _keys(lm, rm):
                ct, _ = t.child(key)
                _compare(lm.get(key, _ABSENT) if lm else _ABSENT, rm.get(key, _ABSENT) if rm else _ABSENT,
                         ct or DEDUCED, (*path, ("f", key)), c)
            _structure_hook(lhs, rhs, path, c)
            return
    elif t.kind == LIST and t.associative and not t.atomic:
        ll = lhs if isinstance(lhs, list) else None
        rl = rhs if isinstance(rhs, list) else None
        if (lhs is _ABSENT or ll is not None) and (rhs is _ABSENT or rl is not None) and (ll or rl):
            _compare_items(ll or [], rl or [], t, path, c)
            _structure_hook(lhs, rhs, path, c)
            return
    if lhs is _ABSENT:
        c.added.add(path)
    elif rhs is _ABSENT:
        c.removed.add(path)
    elif not _equal(lhs, rhs):
        c.modified.add(path)


def _keys(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    keys = list(a or ())
    keys.extend(k for k in (b or ()) if not a or k not in a)
    return keys


def _structure_hook(lhs: Any, rhs: Any, path: Path, c: Comparison) -> None:
    if lhs is _ABSENT:
        c.added.add(path)
    elif rhs is _ABSENT:
        c.removed.add(path)


def _compare_items(lhs: list[Any], rhs: list[Any], t: FieldType, path: Path, c: Comparison) -> None:
    left: dict[Element, list[Any]] = {}
    for e, item in zip(_items(lhs, t, path), lhs, strict=True):
        left.setdefault(e, []).append(item)
    right: dict[Element, list[Any]] = {}
    for e, item in zip(_items(rhs, t, path), rhs, strict=True):
        right.setdefault(e, []).append(item)
    elem = t.item()
    for e in [*left, *(e for e in right if e not in left)]:
        ls, rs = left.get(e, []), right.get(e, [])
        cp = (*path, e)
        if len(ls) <= 1 and len(rs) <= 1:
            _compare(ls[0] if ls else _ABSENT, rs[0] if rs else _ABSENT, elem, cp, c)
        elif len(ls) >= 2 and len(rs) >= 2:
            if len(ls) != len(rs) or not all(_equal(a, b) for a, b in zip(ls, rs, strict=True)):
                c.modified.add(cp)
        elif len(ls) >= 2:
            if rs:
                _compare(_ABSENT, rs[0], elem, cp, c)
            c.removed.add(cp)
        else:
            if ls:
                _compare(ls[0], _ABSENT, elem, cp, c)
            c.added.add(cp)


def merge(live: Any, config: Any, t: FieldType) -> Any:
    """``live`` with ``config`` merged in (``TypedValue.Merge``, the right side winning): maps
    key by key, keyed lists and sets item by item (order as structured-merge-diff merges it),
    atomic values replaced. The result shares nothing with the inputs."""
    return _merge(live, config, t)


def _merge(lhs: Any, rhs: Any, t: FieldType) -> Any:
    if rhs is _ABSENT:
        return deep_copy(lhs)
    if lhs is _ABSENT:
        return deep_copy(rhs)
    t = t.resolve(rhs)
    if _is_map(t, lhs) and _is_map(t, rhs) and (lhs or rhs):
        out: dict[str, Any] = {}
        for key in _keys(lhs, rhs):
            ct, _ = t.child(key)
            out[key] = _merge(lhs.get(key, _ABSENT), rhs.get(key, _ABSENT), ct or DEDUCED)
        return out
    if _is_assoc(t, lhs) and _is_assoc(t, rhs) and (lhs or rhs):
        return _merge_items(lhs, rhs, t, ())
    return deep_copy(rhs)


def _merge_items(lhs: list[Any], rhs: list[Any], t: FieldType, path: Path) -> list[Any]:
    """``mergingWalker.visitListItems``: shared items keep the applied order, live-only items stay
    where they were relative to them."""
    elem = t.item()
    lpes, rpes = _items(lhs, t, path), _items(rhs, t, path)
    observed_l: dict[Element, Any] = {}
    for e, item in zip(lpes, lhs, strict=True):
        observed_l[e] = _ABSENT if e in observed_l else item  # duplicated: merged as absent
    observed_r = dict(zip(rpes, rhs, strict=True))
    shared = [e for e in rpes if e in observed_l]
    next_shared = shared.pop(0) if shared else None
    merged_r: set[Element] = set()
    out: list[Any] = []
    li = ri = 0
    while li < len(lpes) or ri < len(rpes):
        if li < len(lpes) and ri < len(rpes):
            e = lpes[li]
            if e == rpes[ri]:
                merged_r.add(e)
                out.append(_merge(observed_l[e], observed_r[e], elem))
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if e in observed_r and next_shared is not None and next_shared != e:
                li += 1
                continue
        if li < len(lpes):
            e = lpes[li]
            if e not in observed_r:
                out.append(deep_copy(lhs[li]))
                li += 1
                continue
            if e in merged_r:
                li += 1
        if ri < len(rpes):
            e = rpes[ri]
            merged_r.add(e)
            out.append(_merge(observed_l.get(e, _ABSENT), observed_r[e], elem))
            ri += 1
            if next_shared is not None and next_shared == e:
                next_shared = shared.pop(0) if shared else None
    return out


def remove_items(value: Any, paths: Iterable[Path], t: FieldType) -> Any:
    """``value`` without the subtrees at ``paths`` (``TypedValue.RemoveItems``); a map or list
    left empty by the removal becomes ``None`` (JSON null), as upstream's walker leaves it."""
    trie = _trie(paths)
    if not trie.children:
        return value
    return _remove(value, trie, t)


def _remove(v: Any, node: _Node, t: FieldType) -> Any:
    t = t.resolve(v)
    if t.kind == MAP:
        if not isinstance(v, dict) or not v or t.atomic:
            return None
        out: dict[str, Any] = {}
        for key, child in v.items():
            sub = node.children.get(("f", key))
            if sub is not None:
                if sub.member:
                    continue
                if sub.children:
                    ct, _ = t.child(key)
                    child = _remove(child, sub, ct or DEDUCED)
            out[key] = child
        return out or None
    if t.kind == LIST:
        if not isinstance(v, list) or not v or not (t.associative and not t.atomic):
            return None
        items: list[Any] = []
        elem = t.item()
        for item in v:
            try:
                sub = node.children.get(_item_element(item, t))
            except FieldPathError:
                sub = None
            if sub is not None:
                if sub.member:
                    continue
                if sub.children:
                    item = _remove(item, sub, elem)
            items.append(item)
        return items or None
    return v


def ensure_named_fields(paths: Iterable[Path], t: FieldType) -> set[Path]:
    """``EnsureNamedFieldsAreMembers``: also every declared field that has members below it."""
    out = set(paths)
    for path in list(out):
        ft = t
        for i, e in enumerate(path[:-1]):
            if e[0] == "f":
                child, declared = ft.child(e[1])
                if declared:
                    out.add(path[:i + 1])
                ft = child if child is not None else DEDUCED
            else:
                ft = ft.item()
    return out


def typed_errors(value: Any, t: FieldType) -> list[str]:
    """Why ``value`` cannot be typed as ``t`` (``typed.AsTyped`` without duplicates allowed):
    ``.spec.foo: field not declared in schema`` (the first such key of each map, in document
    order), items a keyed list or set cannot index, duplicate items."""
    errors: list[str] = []
    _typed_errors(value, t, (), errors)
    return errors


def _typed_errors(v: Any, t: FieldType, path: Path, errors: list[str]) -> None:
    t = t.resolve(v)
    if t.kind == MAP and isinstance(v, dict):
        for key, child in v.items():
            ct, declared = t.child(key)
            cp = (*path, ("f", key))
            if ct is None and not declared:
                errors.append(f"{path_string(cp)}: field not declared in schema")
                return
            if ct is not None and child is not None:
                _typed_errors(child, ct, cp, errors)
    elif t.kind == LIST and isinstance(v, list):
        elem = t.item()
        if not t.associative:
            for i, item in enumerate(v):
                _typed_errors(item, elem, (*path, ("i", i)), errors)
            return
        seen: set[Element] = set()
        for i, item in enumerate(v):
            try:
                e = _item_element(item, t)
            except FieldPathError as exc:
                errors.append(f"{path_string(path)}: element {i}: {exc}")
                return
            if e in seen:
                errors.append(f"{path_string(path)}: duplicate entries for key {_element_string(e)}")
            seen.add(e)
            _typed_errors(item, elem, (*path, e), errors)


# --------------------------------------------------------------------------- managers


@dataclass(frozen=True, slots=True, order=True)
class Manager:
    """Who owns fields: a managedFields entry's identity (``BuildManagerIdentifier``).

    ``api_version`` is part of an Update manager's identity only; an applier keeps its identity
    across versions.
    """

    manager: str
    operation: str
    api_version: str = ""
    subresource: str = ""

    @classmethod
    def updater(cls, manager: str, api_version: str, subresource: str | None = None) -> Manager:
        return cls(manager or "unknown", UPDATE, api_version, subresource or "")

    @classmethod
    def applier(cls, manager: str, subresource: str | None = None) -> Manager:
        return cls(manager or "unknown", APPLY, "", subresource or "")

    @property
    def identifier(self) -> str:
        """The JSON upstream keys managers by (and sorts conflicts by)."""
        entry: dict[str, str] = {"manager": self.manager, "operation": self.operation}
        if self.api_version:
            entry["apiVersion"] = self.api_version
        if self.subresource:
            entry["subresource"] = self.subresource
        return _go_json_ordered(entry)

    def describe(self) -> str:
        """``printManager``: ``"kubectl"``, ``"ctrl" with subresource "status" using batch/v1``."""
        text = go_quote(self.manager)
        if self.subresource:
            text += f" with subresource {go_quote(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {self.api_version}"
        return text


def _go_json_ordered(entry: dict[str, str]) -> str:
    return "{" + ",".join(f"{_go_json(k)}:{_go_json(v)}" for k, v in entry.items()) + "}"


@dataclass(frozen=True, slots=True)
class Ownership:
    """The fields one manager owns, the API version it wrote them in and when it last changed them."""

    fields: frozenset[Path]
    api_version: str
    time: str | None = None


Managed = dict[Manager, Ownership]


def manager_from_user_agent(user_agent: str | None) -> str:
    """The manager kube-apiserver names a write that carries no ``fieldManager``: the User-Agent
    up to its first ``/``, printable characters only, at most 128 bytes (``prefixFromUserAgent``);
    ``unknown`` when that leaves nothing."""
    out: list[str] = []
    size = 0
    for ch in (user_agent or "").split("/", 1)[0]:
        if not ch.isprintable():
            continue
        width = len(ch.encode())
        if size + width > FIELD_MANAGER_MAX_LENGTH:
            break
        out.append(ch)
        size += width
    return "".join(out) or "unknown"


def decode_managed_fields(entries: Any) -> Managed:
    """``DecodeManagedFields``: entries keyed by manager identity; :class:`ManagedFieldsError` on bad input."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise ManagedFieldsError("managedFields must be a list")
    managed: Managed = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            raise ManagedFieldsError(f"managed fields entry {i} must be an object")
        operation = entry.get("operation")
        if operation not in (APPLY, UPDATE):
            raise ManagedFieldsError("operation must be `Apply` or `Update`")
        api_version = entry.get("apiVersion") or ""
        if not api_version:
            raise ManagedFieldsError("apiVersion must not be empty")
        fields_type = entry.get("fieldsType") or ""
        if not fields_type:
            raise ManagedFieldsError(f"missing fieldsType in managed fields entry {i}")
        if fields_type != "FieldsV1":
            raise ManagedFieldsError(f'invalid fieldsType "{fields_type}" in managed fields entry {i}')
        who = Manager(str(entry.get("manager") or ""), operation,
                      "" if operation == APPLY else str(api_version), str(entry.get("subresource") or ""))
        time = entry.get("time")
        managed[who] = Ownership(frozenset(decode_fields(entry.get("fieldsV1") or {})), str(api_version),
                                 str(time) if time else None)
    return managed


def encode_managed_fields(managed: Managed) -> list[dict[str, Any]] | None:
    """Entries in upstream's order (operation, time, manager, apiVersion, subresource); None when empty."""
    if not managed:
        return None

    def order(item: tuple[Manager, Ownership]) -> tuple[Any, ...]:
        who, own = item
        return (who.operation, (1, own.time) if own.time else (0, ""), who.manager, own.api_version,
                who.subresource)

    out: list[dict[str, Any]] = []
    for who, own in sorted(managed.items(), key=order):
        entry: dict[str, Any] = {"manager": who.manager, "operation": who.operation, "apiVersion": own.api_version}
        if own.time:
            entry["time"] = own.time
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = encode_fields(own.fields)
        if who.subresource:
            entry["subresource"] = who.subresource
        out.append(entry)
    return out


def update(old: Any, new: Any, managed: Managed, who: Manager, t: FieldType, *, now: str,
           reset: frozenset[Path] = frozenset()) -> Managed:
    """Managers after a non-apply write from ``old`` to ``new`` by ``who``.

    ``who`` owns what it added or changed (outside ``reset``, the fields its strategy resets) and
    is stamped ``now`` when that is anything; every manager loses what was removed, others lose
    what ``who`` changed. More than 10 Update managers are folded, oldest first, into
    ``ancient-changes``.
    """
    c = compare(old, new, t).excluding(reset)
    changed = c.modified | c.added
    out = _without(managed, changed | c.removed)
    own = exclude(changed, reset) - STRIPPED_PATHS
    if own:
        previous = out.get(who)
        fields = own | previous.fields if previous is not None else own
        out[who] = Ownership(frozenset(fields), who.api_version or (previous.api_version if previous else ""), now)
    return _cap_update_managers(out)


def _without(managed: Managed, lost: set[Path], keep: Manager | None = None) -> Managed:
    out: Managed = {}
    for who, own in managed.items():
        if who != keep and lost:
            remaining = own.fields - lost
            if not remaining:
                continue
            if len(remaining) != len(own.fields):
                own = Ownership(frozenset(remaining), own.api_version, own.time)
        out[who] = own
    return out


def _cap_update_managers(managed: Managed) -> Managed:
    updaters = [who for who in managed if who.operation == UPDATE]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return managed
    out = dict(managed)
    updaters.sort(key=lambda who: ((1, out[who].time) if out[who].time else (0, ""), who.identifier))
    first_of_version: dict[str, Manager] = {}
    length = len(updaters)
    for who in updaters:
        if length <= MAX_UPDATE_MANAGERS:
            break
        own = out[who]
        bucket = Manager(ANCIENT_CHANGES, UPDATE, own.api_version)
        first = first_of_version.get(own.api_version)
        if first is None:
            first_of_version[own.api_version] = who
            continue
        if bucket not in out:
            out[bucket] = out.pop(first)
        out[bucket] = Ownership(own.fields | out[bucket].fields, own.api_version, own.time)
        del out[who]
        length -= 1
    return out


class ApplyConflicts(Exception):
    """An apply would change values other managers own: ``(manager, path)`` pairs, in message order."""

    def __init__(self, conflicts: list[tuple[Manager, Path]]) -> None:
        self.conflicts = conflicts
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """``getConflictMessage``."""
        if len(self.conflicts) == 1:
            who, path = self.conflicts[0]
            return f"Apply failed with 1 conflict: conflict with {who.describe()}: {path_string(path)}"
        lines: list[str] = []
        current: Manager | None = None
        for who, path in self.conflicts:
            if who != current:
                lines.append(f"conflicts with {who.describe()}:")
                current = who
            lines.append(f"- {path_string(path)}")
        return f"Apply failed with {len(self.conflicts)} conflicts: " + "\n".join(lines)

    def causes(self) -> list[dict[str, str]]:
        """``details.causes``: one ``FieldManagerConflict`` per conflicting field."""
        return [{"reason": "FieldManagerConflict", "message": f"conflict with {who.describe()}",
                 "field": path_string(path)} for who, path in self.conflicts]


def apply(live: Any, config: Any, managed: Managed, who: Manager, api_version: str, t: FieldType, *,
          force: bool, reset: frozenset[Path] = frozenset()) -> tuple[Any, Managed]:
    """Apply ``config`` as ``who`` (``Updater.Apply``): the new object (None when nothing
    changed) and the managers after it. ``who``'s entry is left unstamped: the caller stamps it
    when the object changed. Raises :class:`ApplyConflicts` unless ``force``."""
    merged = merge(live, config, t)
    last = managed.get(who)
    applied = exclude(to_field_set(config, t), reset)
    managers = dict(managed)
    managers[who] = Ownership(frozenset(applied), api_version, last.time if last is not None else None)
    if last is not None and last.fields:
        merged = _prune(merged, managers, last.fields, t)
    c = compare(live, merged, t).excluding(reset)
    changed = c.modified | c.added
    conflicts: list[tuple[Manager, Path]] = []
    for other in sorted(managers, key=lambda m: m.identifier):
        if other != who:
            clash = managers[other].fields & changed
            conflicts.extend((other, p) for p in sorted_paths(clash))
    if conflicts and not force:
        raise ApplyConflicts(conflicts)
    out = _without(managers, changed | c.removed, keep=who)
    mine = applied - STRIPPED_PATHS
    if mine:
        out[who] = Ownership(frozenset(mine), api_version, out[who].time)
    else:
        out.pop(who, None)
    return (None if _equal(live, merged) else merged), out


def _prune(merged: Any, managers: Managed, last: frozenset[Path], t: FieldType) -> Any:
    """Remove what the applier applied last time and no manager owns now (``Updater.prune``)."""
    owned: set[Path] = set()
    for own in managers.values():
        owned |= own.fields
    drop = ensure_named_fields(last, t) - ensure_named_fields(owned, t)
    return remove_items(merged, drop, t) if drop else merged
