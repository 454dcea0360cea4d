"""The parts every wire object shares, named: ``ObjectMeta``, owner references and conditions.

Objects travel as plain JSON dicts (``dict[str, Any]``). The few shapes that components read
everywhere are declared here as ``TypedDict``s, so that a reader's ``meta.get("uid")`` or
``ref["controller"]`` is checked against the API's field names and types. They describe
objects the API server has stored (validated: ``metadata.labels`` is a map of strings,
``ownerReferences`` a list of references), read-only: a reader given an informer's projection
(``Informer.add_index(..., uses=...)``) gets a ``Mapping`` that reads the same. Every field is
optional (``total=False``): an absent field is absent on the wire too.

A request body not yet validated is another matter: :func:`dict_field` and :func:`list_field`
read one of its fields as the shape the caller needs, or as empty when it has another shape
(validation reports it; nothing crashes on the way).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

__all__ = ["Condition", "ObjectMeta", "OwnerReference", "controller_ref", "dict_field", "find_condition",
           "list_field", "meta_of"]


class OwnerReference(TypedDict, total=False):
    """``metav1.OwnerReference`` (apiVersion, kind, name and uid are required by validation)."""

    apiVersion: str
    kind: str
    name: str
    uid: str
    controller: bool
    blockOwnerDeletion: bool


class ObjectMeta(TypedDict, total=False):
    """``metav1.ObjectMeta`` as stored (timestamps are RFC 3339 strings)."""

    name: str
    generateName: str
    namespace: str
    uid: str
    resourceVersion: str
    generation: int
    creationTimestamp: str
    deletionTimestamp: str
    deletionGracePeriodSeconds: int
    labels: dict[str, str]
    annotations: dict[str, str]
    ownerReferences: list[OwnerReference]
    finalizers: list[str]
    managedFields: list[dict[str, Any]]


class Condition(TypedDict, total=False):
    """A status condition: ``metav1.Condition`` and the per-kind ones (``JobCondition``,
    ``PodCondition``...), which add probe, update or heartbeat times."""

    type: str
    status: str
    reason: str
    message: str
    lastTransitionTime: str
    lastProbeTime: str
    lastUpdateTime: str
    lastHeartbeatTime: str
    observedGeneration: int


def meta_of(obj: Mapping[str, Any]) -> ObjectMeta:
    """``obj.metadata`` (empty when absent)."""
    meta: ObjectMeta | None = obj.get("metadata")
    return meta or {}


def controller_ref(obj: Mapping[str, Any]) -> OwnerReference | None:
    """``metav1.GetControllerOf``: the owner reference with ``controller: true``, if any."""
    for ref in meta_of(obj).get("ownerReferences") or ():
        if ref.get("controller"):
            return ref
    return None


def find_condition(conditions: Iterable[Condition] | None, ctype: str) -> Condition | None:
    """The first condition of type ``ctype`` in ``conditions`` (a status's ``conditions``)."""
    for cond in conditions or ():
        if cond.get("type") == ctype:
            return cond
    return None


def dict_field(obj: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``obj[name]`` when it is an object (the very dict, to read or edit in place), else a new
    empty dict."""
    value = obj.get(name)
    return value if isinstance(value, dict) else {}


def list_field(obj: Mapping[str, Any], name: str) -> list[Any]:
    """``obj[name]`` when it is an array (the very list), else a new empty list."""
    value = obj.get(name)
    return value if isinstance(value, list) else []
