"""Pruning: ``apiextensions-apiserver`` ``pkg/apiserver/schema/pruning``.

``PruneWithOptions`` with ``isResourceRoot`` followed by
``defaulting.PruneNonNullableNullsWithoutDefaults``, as ``unstructuredSchemaCoercer.apply`` runs
them on every decode; embedded-resource ``metadata`` is coerced to the ``ObjectMeta`` fields as
``objectmeta.Coerce`` does. Works on a copy; unknown-field paths are collected on request.
"""

from __future__ import annotations

from typing import Any, Final

from fakekube._core.jsonutil import deep_copy

from .nodes import META_FIELDS, MISSING, Node

__all__ = ["prune_value"]


# metav1.ObjectMeta JSON fields (objectmeta.Coerce keeps these, drops the rest, omitempty applies).
_OBJECT_META_FIELDS: Final = (
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields",
)

_OWNER_REFERENCE_FIELDS: Final = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")


def prune_value(x: Any, s: Node | None, path: str | None, unknown: list[str] | None, *,
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
            if embedded and k in META_FIELDS:
                out[k] = deep_copy(v) if resource_root else _coerce_meta_field(k, v)
                continue
            child = props.get(k)
            if child is None and not s.has_additional:
                if unknown is not None and (k not in META_FIELDS or path):
                    unknown.append(_join_key(path, k))
                continue
            if child is None:
                child = s.additional
            if v is None and child is not None and not child.nullable and child.default is MISSING:
                continue
            out[k] = prune_value(v, child, _join_key(path, k), unknown)
        return out
    if isinstance(x, list):
        items = s.items if s is not None else None
        return [prune_value(v, items, f"{path}[{i}]", unknown) for i, v in enumerate(x)]
    return x


def _skip_prune(x: Any, s: Node | None, path: str | None, unknown: list[str] | None, *,
                resource_root: bool = False) -> Any:
    """``pruning.skipPrune`` for ``x-kubernetes-preserve-unknown-fields``: unknown keys survive."""
    if s is None:
        return deep_copy(x)
    if isinstance(x, dict):
        out: dict[str, Any] = {}
        embedded = s.embedded or resource_root
        props = s.properties or {}
        for k, v in x.items():
            if embedded and k in META_FIELDS:
                out[k] = deep_copy(v) if resource_root else _coerce_meta_field(k, v)
                continue
            child = props.get(k)
            if child is None and s.has_additional:
                child = s.additional
            elif child is None:
                out[k] = deep_copy(v)
                continue
            if v is None and child is not None and not child.nullable and child.default is MISSING:
                continue
            out[k] = prune_value(v, child, _join_key(path, k), unknown)
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
