"""Typed walkers over JSON values: field sets, compare, merge, remove, typing errors.

Part of fakekube's re-implementation of ``sigs.k8s.io/structured-merge-diff`` (``typed``): values
are wire-form JSON (dicts, lists, scalars) typed by a
:class:`~fakekube.machinery.field_types.FieldType`; inputs are never mutated. Paths and field
sets: :mod:`fakekube.machinery.field_sets`. Objects are walked in document order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from fakekube._core.jsonutil import deep_copy
from fakekube.errors import go_quote
from fakekube.machinery.field_sets import (
    Element,
    Path,
    TrieNode,
    element_string,
    exclude,
    freeze,
    json_equal,
    path_string,
    path_trie,
)
from fakekube.machinery.field_types import DEDUCED, LIST, MAP, FieldType

__all__ = [
    "Comparison",
    "FieldPathError",
    "compare",
    "ensure_named_fields",
    "merge",
    "remove_items",
    "to_field_set",
    "typed_errors",
]


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


_ABSENT: Final[Any] = _Absent()


class FieldPathError(ValueError):
    """A value the schema cannot index (e.g. a keyed-list item without its key); structured-merge-diff's text."""


def _item_element(item: Any, t: FieldType) -> Element:
    """The path element of an associative list's item (``listItemToPathElement``)."""
    if t.keys:
        if item is None:
            raise FieldPathError("associative list with keys may not have a null element")
        if not isinstance(item, dict):
            raise FieldPathError("associative list with keys may not have non-map elements")
        key = tuple(sorted((k, freeze(item[k])) for k in t.keys if k in item))
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
    return ("v", freeze(item))


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
    elif not json_equal(lhs, rhs):
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
            if len(ls) != len(rs) or not all(json_equal(a, b) for a, b in zip(ls, rs, strict=True)):
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
    trie = path_trie(paths)
    if not trie.children:
        return value
    return _remove(value, trie, t)


def _remove(v: Any, node: TrieNode, t: FieldType) -> Any:
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
                errors.append(f"{path_string(path)}: duplicate entries for key {element_string(e)}")
            seen.add(e)
            _typed_errors(item, elem, (*path, e), errors)
