"""The shape server-side apply sees in an object: which maps are structs with declared fields,
which lists are sets or keyed maps, what is atomic.

This is structured-merge-diff's schema reduced to what field ownership needs. It is built, as
``k8s.io/kube-openapi`` ``schemaconv`` builds it, from a structural OpenAPI v3 schema (a CRD
version's ``openAPIV3Schema``, or a built-in kind's schema in the same dereferenced form):

* ``x-kubernetes-list-type: map`` with ``x-kubernetes-list-map-keys`` -- items keyed by those
  fields (``k:{"name":"x"}``); ``set`` -- items keyed by their value (``v:"x"``); ``atomic`` or
  absent -- the list is one leaf. Without a list type, ``x-kubernetes-patch-strategy: merge``
  (built-in schemas) makes the list keyed by ``x-kubernetes-patch-merge-key``, or a set.
* ``x-kubernetes-map-type: atomic`` -- the map is one leaf; otherwise each key is its own field.
* ``properties`` are declared fields; ``additionalProperties`` types the other keys;
  ``x-kubernetes-preserve-unknown-fields`` lets any other key through with a *deduced* type
  (maps key by key, lists atomic, as SMD's deduced type); anything else is undeclared, which
  apply rejects (``field not declared in schema``).
* The root and every ``x-kubernetes-embedded-resource`` carry ``apiVersion``, ``kind`` and
  ``metadata`` typed as ObjectMeta (labels and annotations key by key, ``finalizers`` a set,
  ``ownerReferences`` keyed by ``uid``).

A built-in kind without a schema is typed from its strategic-merge patch tags
(``fakekube.machinery.patch``): lists with a merge key are keyed by it, primitive merge lists are
sets, everything else is *loose* -- maps behave as structs whose every key is declared, lists are
atomic, and no field is ever undeclared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from fakekube.machinery.patch import FieldMeta, MergeSchema

__all__ = [
    "DEDUCED",
    "LOOSE",
    "OBJECT_META",
    "FieldType",
    "from_merge_schema",
    "from_openapi",
]

SCALAR: Final = "scalar"
MAP: Final = "map"
LIST: Final = "list"
ANY: Final = "any"

_NO_FIELDS: Final[Mapping[str, FieldType]] = MappingProxyType({})


@dataclass(frozen=True, slots=True, eq=False)
class FieldType:
    """One node of the schema.

    ``kind`` is ``scalar``, ``map``, ``list`` or ``any`` (decided by the value: see
    :meth:`resolve`). A map has declared ``fields`` and an ``elem`` type for other keys (None:
    other keys are undeclared); ``loose`` maps treat every key as a declared field. A list has
    an ``elem`` item type and is ``atomic``, a set (``associative`` without ``keys``) or keyed
    by ``keys``. An ``atomic`` map or list is a single leaf.
    """

    kind: str
    fields: Mapping[str, FieldType] = field(default_factory=lambda: _NO_FIELDS)
    elem: FieldType | None = None
    atomic: bool = False
    associative: bool = False
    keys: tuple[str, ...] = ()
    loose: bool = False

    def resolve(self, value: Any) -> FieldType:
        """The concrete type of ``value`` here: ``any`` becomes a map, an atomic list or a scalar."""
        if self.kind != ANY:
            return self
        if isinstance(value, dict):
            return _LOOSE_MAP if self.loose else _DEDUCED_MAP
        if isinstance(value, list):
            return _LOOSE_LIST if self.loose else _DEDUCED_LIST
        return _SCALAR

    def child(self, name: str) -> tuple[FieldType | None, bool]:
        """The type of map key ``name`` (None: undeclared) and whether it is a declared field."""
        if self.kind == ANY:
            return self, self.loose
        declared = self.fields.get(name)
        if declared is not None:
            return declared, True
        return self.elem, self.loose

    def item(self) -> FieldType:
        """The type of a list item (deduced when the schema says nothing)."""
        if self.kind == ANY:
            return self
        return self.elem if self.elem is not None else DEDUCED


_SCALAR: Final = FieldType(SCALAR)
DEDUCED: Final = FieldType(ANY)
LOOSE: Final = FieldType(ANY, loose=True)
_DEDUCED_MAP: Final = FieldType(MAP, elem=DEDUCED)
_DEDUCED_LIST: Final = FieldType(LIST, elem=DEDUCED, atomic=True)
_LOOSE_MAP: Final = FieldType(MAP, elem=LOOSE, loose=True)
_LOOSE_LIST: Final = FieldType(LIST, elem=LOOSE, atomic=True)


def _struct(**fields: FieldType) -> FieldType:
    return FieldType(MAP, fields=MappingProxyType(fields))


_STRING_MAP: Final = FieldType(MAP, elem=_SCALAR)

OBJECT_META: Final = _struct(
    name=_SCALAR, generateName=_SCALAR, namespace=_SCALAR, selfLink=_SCALAR, uid=_SCALAR,
    resourceVersion=_SCALAR, generation=_SCALAR, creationTimestamp=_SCALAR, deletionTimestamp=_SCALAR,
    deletionGracePeriodSeconds=_SCALAR, labels=_STRING_MAP, annotations=_STRING_MAP,
    ownerReferences=FieldType(LIST, elem=_struct(
        apiVersion=_SCALAR, kind=_SCALAR, name=_SCALAR, uid=_SCALAR, controller=_SCALAR,
        blockOwnerDeletion=_SCALAR), associative=True, keys=("uid",)),
    finalizers=FieldType(LIST, elem=_SCALAR, associative=True),
    managedFields=FieldType(LIST, elem=DEDUCED, atomic=True),
)
"""``metav1.ObjectMeta`` as its OpenAPI schema types it."""

_RESOURCE_FIELDS: Final = MappingProxyType({"apiVersion": _SCALAR, "kind": _SCALAR, "metadata": OBJECT_META})


# --------------------------------------------------------------------------- builders


def from_openapi(schema: Mapping[str, Any]) -> FieldType:
    """The type of a resource whose (dereferenced, structural) OpenAPI v3 schema is ``schema``."""
    return _from_openapi(schema, resource=True)


def _from_openapi(s: Mapping[str, Any], *, resource: bool = False) -> FieldType:
    if not isinstance(s, Mapping):
        return DEDUCED
    preserve = s.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = resource or s.get("x-kubernetes-embedded-resource") is True
    if s.get("x-kubernetes-int-or-string") is True:
        return _SCALAR
    kind = s.get("type")
    if kind == "array":
        items = s.get("items")
        item = _from_openapi(items) if isinstance(items, Mapping) else DEDUCED
        list_type = s.get("x-kubernetes-list-type")
        if list_type is None and "merge" in str(s.get("x-kubernetes-patch-strategy") or "").split(","):
            key = s.get("x-kubernetes-patch-merge-key")
            return FieldType(LIST, elem=item, associative=True, keys=(str(key),) if key else ())
        if list_type == "map":
            keys = tuple(str(k) for k in s.get("x-kubernetes-list-map-keys") or ())
            return FieldType(LIST, elem=item, associative=True, keys=keys)
        if list_type == "set":
            return FieldType(LIST, elem=item, associative=True)
        return FieldType(LIST, elem=item, atomic=True)
    if kind == "object" or "properties" in s or "additionalProperties" in s or embedded:
        fields = {str(k): _from_openapi(v) for k, v in (s.get("properties") or {}).items()}
        if embedded:
            fields.update(_RESOURCE_FIELDS)
        extra = s.get("additionalProperties")
        if isinstance(extra, Mapping):
            elem: FieldType | None = _from_openapi(extra)
        elif extra is True or preserve:
            elem = DEDUCED
        else:
            elem = None
        return FieldType(MAP, fields=MappingProxyType(fields), elem=elem,
                         atomic=s.get("x-kubernetes-map-type") == "atomic")
    if kind in ("string", "integer", "number", "boolean"):
        return _SCALAR
    return DEDUCED


def from_merge_schema(schema: MergeSchema) -> FieldType:
    """The type of a built-in resource known only by its strategic-merge tags (see module doc)."""
    fields = {name: _from_field_meta(meta) for name, meta in schema.fields.items()}
    fields.update(_RESOURCE_FIELDS)
    return FieldType(MAP, fields=MappingProxyType(fields), elem=LOOSE, loose=True)


def _loose_struct(schema: MergeSchema) -> FieldType:
    fields = {name: _from_field_meta(meta) for name, meta in schema.fields.items()}
    return FieldType(MAP, fields=MappingProxyType(fields), elem=LOOSE, loose=True)


def _from_field_meta(meta: FieldMeta) -> FieldType:
    if meta.schema is not None and meta.schema.name == "ObjectMeta":
        return OBJECT_META
    if meta.strategy == "merge" and meta.merge_key:
        elem = _loose_struct(meta.schema) if meta.schema is not None else LOOSE
        return FieldType(LIST, elem=elem, associative=True, keys=(meta.merge_key,))
    if meta.strategy == "merge":
        return FieldType(LIST, elem=_SCALAR, associative=True)
    if meta.strategy == "replace":
        return FieldType(MAP, elem=LOOSE, atomic=True)
    if meta.schema is not None:
        return _loose_struct(meta.schema)
    return LOOSE
