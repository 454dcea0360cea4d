"""Request bodies as kube-apiserver decodes them: JSON values only, bounded.

One place for the rules every way into the API server shares (HTTP bodies, ``FakeCluster.apply``
YAML text, in-process dicts, patch bodies):

* JSON types only: objects with string keys, arrays, strings, finite numbers, booleans, null.
  YAML is read as ``sigs.k8s.io/yaml`` reads it (YAML 1.1 scalars; timestamps stay strings;
  ``.nan``/``.inf`` and tags such as ``!!binary`` or ``!!python/...`` are not JSON and are
  rejected), a Python caller's NaN, bytes, tuples or sets likewise.
* Nesting at most :data:`MAX_DEPTH` levels (kube-apiserver's JSON decoder allows 10000; this fake
  walks objects recursively, so it stops much earlier -- no real object comes close).
* A YAML document whose aliases expand to more than :data:`MAX_YAML_VALUES` values is refused
  (``yaml: document contains excessive aliasing``, go-yaml's alias-bomb guard).
* Duplicate keys: :func:`load_yaml_documents` and :func:`load_json` report them (see
  :class:`Duplicates`); whether they are errors or warnings is ``fieldValidation``'s call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["MAX_DEPTH", "MAX_YAML_VALUES", "Duplicates", "NotJson", "check_json", "is_json", "load_json",
           "load_yaml_documents"]

# DEVIATION(upstream): kube-apiserver's JSON decoder allows 10000 levels; recursive walks here cannot.
MAX_DEPTH: Final = 200
MAX_YAML_VALUES: Final = 1_000_000


class NotJson(ValueError):
    """The value cannot be a Kubernetes request body; the message says where and why."""


@dataclass
class Duplicates:
    """Duplicate keys found while decoding: ``duplicate field "<key>"`` (JSON, as
    ``sigs.k8s.io/json`` words it) or ``line <n>: key "<key>" already set in map`` (YAML)."""

    messages: list[str] = field(default_factory=list)


def _where(path: str) -> str:
    return path or "the top level"


def is_json(value: Any, depth: int = MAX_DEPTH) -> bool:
    """Whether ``value`` is plainly JSON (exact types, finite numbers, string keys) within the depth
    left: the walk every in-process body takes, with no paths kept. False sends the caller to
    :func:`check_json`'s full walk, which also accepts subclasses and words the error."""
    vt = type(value)
    if vt is str or vt is int or vt is bool or value is None:
        return True
    if vt is dict:
        if depth <= 0:
            return False
        for k, v in value.items():
            if type(k) is not str:
                return False
            vt = type(v)
            if not (vt is str or vt is int or vt is bool or v is None or is_json(v, depth - 1)):
                return False
        return True
    if vt is list:
        if depth <= 0:
            return False
        for v in value:
            vt = type(v)
            if not (vt is str or vt is int or vt is bool or v is None or is_json(v, depth - 1)):
                return False
        return True
    return vt is float and math.isfinite(value)


def check_json(value: Any) -> None:
    """Raise :class:`NotJson` unless ``value`` is a JSON value nested at most :data:`MAX_DEPTH` deep."""
    if not is_json(value, MAX_DEPTH):
        _walk(value)


def _walk(value: Any) -> None:
    """:func:`check_json` keeping the path of each value, to say where a value is not JSON."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= MAX_DEPTH:
                raise NotJson(f"the object is nested more than {MAX_DEPTH} levels deep (at {_where(path)})")
            if isinstance(node, dict):
                for k, v in node.items():
                    if not isinstance(k, str):
                        raise NotJson(f"{_where(path)} has a key that is not a string: {k!r}")
                    stack.append((v, f"{path}.{k}" if path else k, depth + 1))
            else:
                stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(node))
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise NotJson(f"{_where(path)} is {node}, which is not a JSON number")
        elif node is not None and not isinstance(node, str | int | bool):
            raise NotJson(f"{_where(path)} holds a {type(node).__name__} ({node!r:.60}), which is not a JSON "
                          "value; quote it to make it a string")


def load_json(text: str | bytes, duplicates: Duplicates | None = None) -> Any:
    """JSON text as a value; NaN and Infinity are not JSON. Duplicate keys go to ``duplicates``."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, val in items:
            if key in out and duplicates is not None:
                message = f'duplicate field "{key}"'
                if message not in duplicates.messages:
                    duplicates.messages.append(message)
            out[key] = val
        return out

    def constant(name: str) -> Any:
        raise ValueError(f"invalid character '{name[0]}' looking for beginning of value")

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except RecursionError:
        raise NotJson(f"the object is nested more than {MAX_DEPTH} levels deep") from None
    check_json(value)
    return value


_LOADER: Any = None


def _loader() -> Any:
    """A safe loader that resolves as sigs.k8s.io/yaml does: timestamps stay strings, and keys
    are recorded with their lines for duplicate detection."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class Loader(yaml.SafeLoader):
        duplicates: Duplicates | None = None

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            if isinstance(node, yaml.MappingNode) and self.duplicates is not None:
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if isinstance(key_node, yaml.ScalarNode):
                        if key_node.value in seen:
                            self.duplicates.messages.append(
                                f'line {key_node.start_mark.line + 1}: key "{key_node.value}" already set in map')
                        seen.add(key_node.value)
            result: dict[Any, Any] = super().construct_mapping(node, deep=deep)
            return result

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    for tag in ("tag:yaml.org,2002:binary", "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:set",
                "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs"):
        Loader.add_constructor(tag, _reject_tag)
    _LOADER = Loader
    return Loader


def _reject_tag(loader: Any, node: Any) -> Any:
    raise NotJson(f"line {node.start_mark.line + 1}: the tag {node.tag} is not a JSON type")


def _expanded_size(value: Any) -> int:
    """How many values ``value`` holds once its shared (aliased) parts are expanded."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, dict | list) or (id(node) in sizes and not done):
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if not done:
            sizes[id(node)] = 0  # in progress (also stops a self-referencing alias)
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, dict | list))
            continue
        total = 1 + sum(sizes.get(id(c), 0) if isinstance(c, dict | list) else 1 for c in children)
        sizes[id(node)] = min(total, MAX_YAML_VALUES + 1)
    return sizes.get(id(value), 1)


def load_yaml_documents(text: str | bytes, duplicates: Duplicates | None = None) -> Iterator[Any]:
    """The documents of a YAML stream, each a JSON value (see the module docstring).

    Raises :class:`NotJson` for a value JSON cannot hold or an alias bomb, and ``yaml.YAMLError``
    for text that is not YAML."""
    import yaml

    loader = _loader()(text)
    loader.duplicates = duplicates
    try:
        while loader.check_data():
            doc = loader.get_data()
            if _expanded_size(doc) > MAX_YAML_VALUES:
                raise NotJson("yaml: document contains excessive aliasing")
            check_json(doc)
            yield doc
    except RecursionError:
        raise NotJson(f"the object is nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()
    del yaml
