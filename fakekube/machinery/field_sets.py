"""Field sets: paths into a JSON value, their order, their string forms and FieldsV1.

Part of fakekube's re-implementation of ``sigs.k8s.io/structured-merge-diff`` (``fieldpath``
and ``value``); :mod:`fakekube.machinery.typed_walkers` walks typed values into these sets and
:mod:`fakekube.machinery.managed_fields` keeps them per manager.

A path is a tuple of elements: ``("f", name)`` a map key, ``("k", ((field, value), ...))`` an
item of a keyed list (fields sorted by name), ``("v", value)`` an item of a set, ``("i", n)`` a
list index. A field set is a Python ``set`` of paths; union, difference and intersection are the
set operators. FieldsV1 (:func:`encode_fields` / :func:`decode_fields`) is the trie upstream
stores: ``{"f:spec": {"f:replicas": {}}}``, ``"k:{\\"name\\":\\"x\\"}"``, ``"v:\\"a\\""``,
``"i:0"``, with ``".": {}`` marking a node that is itself a member; keys are emitted in
structured-merge-diff's order (fields, then keys, then values, then indexes).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fakekube.errors import go_quote

__all__ = [
    "Element",
    "ManagedFieldsError",
    "Path",
    "TrieNode",
    "decode_fields",
    "element_string",
    "encode_fields",
    "exclude",
    "freeze",
    "go_json",
    "json_equal",
    "path_string",
    "path_trie",
    "sorted_paths",
]

Element = tuple[str, Any]
Path = tuple[Element, ...]


class ManagedFieldsError(ValueError):
    """``metadata.managedFields`` that cannot be decoded; upstream's text."""


# --------------------------------------------------------------------------- values


def freeze(value: Any) -> Any:
    """A hashable form of a JSON value for path elements (bools kept apart from numbers)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 63:
        return int(value)
    if isinstance(value, list):
        return ("l", tuple(freeze(v) for v in value))
    if isinstance(value, dict):
        return ("m", tuple(sorted((str(k), freeze(v)) for k, v in value.items())))
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


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``true != 1``."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is not tb:
        if ta in (int, float) and tb in (int, float):
            return bool(a == b)
        return False
    if ta is dict:
        return a.keys() == b.keys() and all(json_equal(v, b[k]) for k, v in a.items())
    if ta is list:
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def go_json(value: Any) -> str:
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


def element_string(e: Element) -> str:
    kind, body = e
    if kind == "f":
        return f".{body}"  # (a field name: a str)
    if kind == "k":
        return "[" + ",".join(f"{name}={_smd_string(_thaw(v))}" for name, v in body) + "]"
    if kind == "v":
        return f"[={_smd_string(_thaw(body))}]"
    return f"[{body}]"


def path_string(path: Path) -> str:
    """``fieldpath.Path.String``: ``.spec.containers[name="x"].image``, ``.metadata.finalizers[="a"]``."""
    return "".join(element_string(e) for e in path)


def _serialize_element(e: Element) -> str:
    kind, body = e
    if kind == "f":
        return f"f:{body}"  # (a field name: a str)
    if kind == "k":
        return "k:{" + ",".join(f"{go_json(name)}:{go_json(_thaw(v))}" for name, v in body) + "}"
    if kind == "v":
        return "v:" + go_json(_thaw(body))
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
            return ("v", freeze(value))
        if not isinstance(value, dict):
            raise ManagedFieldsError("parsing key as path element: expected an object")
        return ("k", tuple(sorted((str(k), freeze(v)) for k, v in value.items())))
    return None


@dataclass(slots=True)
class TrieNode:
    member: bool = False
    children: dict[Element, TrieNode] = field(default_factory=dict)


def path_trie(paths: Iterable[Path]) -> TrieNode:
    root = TrieNode()
    for path in paths:
        node = root
        for e in path:
            child = node.children.get(e)
            if child is None:
                child = node.children[e] = TrieNode()
            node = child
        if path:
            node.member = True
    return root


def encode_fields(paths: Iterable[Path]) -> dict[str, Any]:
    """A field set as FieldsV1 (``Set.ToJSON``)."""
    return _encode_node(path_trie(paths))


def _encode_node(node: TrieNode) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for e in sorted(node.children, key=_element_order):
        child = node.children[e]
        if child.children:
            inner: dict[str, Any] = {".": {}} if child.member else {}
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
    _iterate(path_trie(paths), (), out)
    return out


def _iterate(node: TrieNode, prefix: Path, out: list[Path]) -> None:
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
