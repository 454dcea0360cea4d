"""Unknown fields of a request body, as server-side field validation (``fieldValidation``) sees them.

kube-apiserver decodes a request strictly when ``fieldValidation`` is ``Strict`` or ``Warn``
(the default) and reports every field the kind does not declare as ``unknown field "<path>"``.
For a custom resource the decoder's pruning is what knows (``x-kubernetes-preserve-unknown-fields``
and embedded resources honoured): here too, :meth:`StructuralSchema.prune_tracking` of the kind's
schema. ``metadata`` is checked against ``ObjectMeta``'s fields, as both decoders do.
Paths are JSON-path-like: ``spec.replicatedJobs[0].replicaz``, ``metadata.ownerReferences[0].foo``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fakekube.machinery.field_types import OBJECT_META, FieldType
from fakekube.machinery.openapi import StructuralSchema

__all__ = ["unknown_fields"]


def unknown_fields(obj: dict[str, Any], schema: StructuralSchema) -> list[str]:
    """The paths of ``obj``'s fields that ``schema`` (and ObjectMeta) do not declare, sorted."""
    _, unknown = schema.prune_tracking(obj)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        unknown.extend(_undeclared(meta, OBJECT_META, "metadata"))
    return sorted(unknown)


def _undeclared(value: Any, t: FieldType, path: str) -> Iterator[str]:
    t = t.resolve(value)
    if isinstance(value, dict) and t.kind == "map":
        for key, child in value.items():
            ct, declared = t.child(key)
            if ct is None and not declared:
                yield f"{path}.{key}"
            elif ct is not None:
                yield from _undeclared(child, ct, f"{path}.{key}")
    elif isinstance(value, list) and t.kind == "list":
        item = t.item()
        for i, child in enumerate(value):
            yield from _undeclared(child, item, f"{path}[{i}]")
