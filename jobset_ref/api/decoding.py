"""What upstream's JobSet webhooks refuse while decoding a request: an integer its Go type cannot hold.

kube-apiserver 1.34 checks that a custom resource's integer is an integer, but not that a
``format: int32`` one fits in 32 bits (kube-openapi checks that range from 1.36). So a JobSet
with ``replicas: 3000000000``, or a Job template with ``completions`` as large, passes the CRD's
schema. Upstream's webhooks then decode the request into the Go types (controller-runtime's
decoder: apimachinery's JSON serializer, ``sigs.k8s.io/json``) and answer 400 with the decoder's
error, which the API server prefixes with ``admission webhook "<name>" denied the request:``::

    json: cannot unmarshal number 3000000000 into Go struct field ReplicatedJob.spec.replicatedJobs.replicas of type int32

``Go struct field <Struct>.<path>``: the struct that holds the field, and the field's JSON path
from the root without list indexes. On CREATE the mutating webhook decodes first, so
``mjobset.kb.io`` answers; on UPDATE ``vjobset.kb.io`` decodes the new object, then the old one.

The decoder keeps the first such error in document order (the API server writes a custom
resource with its keys sorted) and goes on. An ``IntOrString`` field (a probe's ``port``) decodes
itself with the standard library's ``encoding/json``: its error names no field (the outer
decoder adds context only to its own error type) and ends the decoding at once, so it wins over
a kept one: ``json: cannot unmarshal number 3000000000 into Go value of type int32``. A quantity
takes any number; every other integer of the schema is an int64, whose range the API server has
already checked (a larger number is decoded as a float, which is not an integer).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any, Final, get_args, get_origin

from jobset_ref.api import constants as c

__all__ = ["decoding_error"]

_INT32: Final = "int32"
_INT_OR_STRING: Final = "IntOrString"

#: The fields of the CRD's schema that lead to an int32 or an IntOrString, by JSON name: a subtree,
#: or the kind of the integer at a leaf. Lists are transparent, as in Go's field paths.
_Tree = dict[str, "_Tree | str"]


def decoding_error(obj: Mapping[str, Any]) -> str | None:
    """The error upstream's webhook gets decoding ``obj`` (a JobSet the API server admitted), or None."""
    kept: str | None = None
    for kind, path, value in _integers_out_of_range(obj, _tree(), ()):
        if kind == _INT_OR_STRING:
            return f"json: cannot unmarshal number {value} into Go value of type int32"
        if kept is None:
            kept = (f"json: cannot unmarshal number {value} into Go struct field "
                    f"{_holding_struct(path)}.{'.'.join(path)} of type int32")
    return kept


def _integers_out_of_range(value: Any, tree: _Tree | str, path: tuple[str, ...]
                           ) -> Iterator[tuple[str, tuple[str, ...], int]]:
    """Every integer of ``value`` outside int32 where ``tree`` has one, in document order."""
    if isinstance(value, list):
        for item in value:
            yield from _integers_out_of_range(item, tree, path)
    elif isinstance(tree, dict):
        if isinstance(value, dict):
            for key in sorted(value):
                sub = tree.get(key)
                if sub is not None:
                    yield from _integers_out_of_range(value[key], sub, (*path, key))
    elif isinstance(value, int) and not isinstance(value, bool) and not c.MIN_INT32 <= value <= c.MAX_INT32:
        yield tree, path, value


@functools.cache
def _tree() -> _Tree:
    from jobset_ref.api.crd import jobset_crd

    [version] = jobset_crd()["spec"]["versions"]
    tree = _prune(version["schema"]["openAPIV3Schema"])
    return tree if isinstance(tree, dict) else {}


def _prune(schema: Mapping[str, Any]) -> _Tree | str | None:
    while "items" in schema:
        schema = schema["items"]
    if schema.get("format") == "int32":
        return _INT32
    if schema.get("x-kubernetes-int-or-string") and "pattern" not in schema:  # a quantity has its pattern
        return _INT_OR_STRING
    children = {key: sub for key, prop in (schema.get("properties") or {}).items()
                if (sub := _prune(prop)) is not None}
    return children or None


def _holding_struct(path: tuple[str, ...]) -> str:
    """The Go struct that holds the last field of ``path``: a model's name, or an embedded Kubernetes type's."""
    from jobset_ref.api.crd import crd_facts, unwrap_annotation
    from jobset_ref.api.embedded_schemas import holding_struct
    from jobset_ref.api.models import JobSet

    model: Any = JobSet
    for depth, key in enumerate(path[:-1]):
        info = next(info for name, info in model.model_fields.items() if (info.alias or name) == key)
        facts = crd_facts(info)
        embedded = facts.get("embedded") or facts.get("items_embedded")
        if embedded:
            return holding_struct(embedded, path[depth + 1:])
        model, _ = unwrap_annotation(info.annotation, [])
        if get_origin(model) is list:
            model, _ = unwrap_annotation(get_args(model)[0], [])
    return str(model.__name__)
