"""CustomResourceDefinitions, and serving the custom resources they define.

Creating a CRD serves its resource at once (``Established``): every request for it is pruned,
defaulted and validated against the storage version's OpenAPI v3 schema (types, enums,
bounds, required, list-map keys, CEL ``x-kubernetes-validations``), with the status subresource
when the CRD declares it. Custom resources refuse unconditional updates and strategic merge
patches, as on a real server.
"""

from __future__ import annotations

import hashlib
import marshal
from collections import OrderedDict
from typing import Any

from fakekube._core.clock import format_time
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Context, Strategy
from fakekube.errors import ErrorType, FieldError, Invalid, ResourceName
from fakekube.machinery.objects import dict_field
from fakekube.machinery.openapi import StructuralSchema
from fakekube.store import DELETED, StoredEvent

__all__ = ["CustomResourceStrategy", "install"]

CRD_KEY = "customresourcedefinitions.apiextensions.k8s.io"


class CustomResourceStrategy(Strategy):
    """Rules for one custom resource, driven by its structural schema."""

    allow_unconditional_update = False

    def __init__(self, schema: StructuralSchema, *, has_status: bool, names: ResourceName | None = None) -> None:
        self.schema = schema
        self.has_status = has_status
        self.names = names

    def default(self, obj: dict[str, Any]) -> None:
        """Decoding: pruning, schema defaults and Go's numbers (``_go_numbers``); an object of the
        wrong JSON types (a ``null`` list item where the schema wants an object, an integer beyond
        int64, which Go decodes as a float) is refused here with the schema's type errors, before
        any webhook sees it."""
        beyond_int64: list[int] = []
        pruned = _go_numbers(self.schema.default(self.schema.prune(obj)), beyond_int64)
        type_errors = _beyond_int64(pruned, "") if beyond_int64 else []
        if not type_errors:
            type_errors = self.schema.type_errors(pruned)
        if type_errors and self.names is not None:
            meta = dict_field(pruned, "metadata")
            name = meta.get("name") or meta.get("generateName") or ""
            raise Invalid.for_object(self.names, name if isinstance(name, str) else "", type_errors)
        obj.clear()
        obj.update(pruned)

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        if self.has_status:
            obj.pop("status", None)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return self.schema.validate(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.schema.validate(new, old)

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        status = new.get("status")
        new.clear()
        new.update({k: v for k, v in old.items() if k != "status"})
        new["metadata"] = dict(old["metadata"])  # the server sets fields on it; the old one is frozen
        if status is not None:
            new["status"] = status

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.schema.validate_status(new, old)

    def spec_changed(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        skip = ("metadata", "status") if self.has_status else ("metadata",)
        return ({k: v for k, v in new.items() if k not in skip}
                != {k: v for k, v in old.items() if k not in skip})


class CrdStrategy(Strategy):
    tracks_generation = True

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        names = (obj.get("spec") or {}).get("names") or {}
        now = format_time(ctx.now)
        obj["status"] = {
            "acceptedNames": dict(names),
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                 "message": "no conflicts found", "lastTransitionTime": now},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted", "lastTransitionTime": now},
            ],
            "storedVersions": [v["name"] for v in (obj.get("spec") or {}).get("versions") or [] if v.get("storage")],
        }

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec") or {}
        names = spec.get("names") or {}
        errors: list[FieldError] = []
        expected = f"{names.get('plural', '')}.{spec.get('group', '')}"
        if obj["metadata"].get("name") != expected:
            errors.append(FieldError.invalid("metadata.name", obj["metadata"].get("name", ""),
                                             "must be spec.names.plural+\".\"+spec.group"))
        for field_name in ("plural", "kind"):
            if not names.get(field_name):
                errors.append(FieldError.required(f"spec.names.{field_name}"))
        if spec.get("scope") not in ("Namespaced", "Cluster"):
            errors.append(FieldError.not_supported("spec.scope", spec.get("scope"), ("Cluster", "Namespaced")))
        versions = spec.get("versions") or []
        if not versions:
            errors.append(FieldError.invalid("spec.versions", versions, "must have exactly one version marked as storage version"))
        elif sum(1 for v in versions if v.get("storage")) != 1:
            errors.append(FieldError.invalid("spec.versions", versions,
                                             "must have exactly one version marked as storage version"))
        return errors


#: Built schemas by a digest of their CRD version: every cluster of a test suite installs the same
#: JobSet CRD, whose structural schema (full Job and PVC templates) costs far more to build than
#: to look up. A StructuralSchema is not changed once built (its CEL rules compile on first use).
_BUILT: OrderedDict[bytes, StructuralSchema] = OrderedDict()
_BUILT_LIMIT = 32


#: Go writes a float64 of at least this size with an exponent (``1e+21``), as Python does.
_GO_EXPONENT_FROM = 1e21
_INT64 = range(-(2**63), 2**63)


def _go_numbers(value: Any, beyond_int64: list[int]) -> Any:
    """Numbers as kube-apiserver's JSON round trip of custom resources leaves them.

    Go decodes a JSON number into an int64 when it is written as one and fits, and into a float64
    otherwise. A float64 holding a whole number is encoded again without its fraction, so
    ``replicas: 2.0`` (say, ``n / 2`` in Python) reads back as ``2``, which every Go client then
    decodes into an int32 field. An integer beyond int64 becomes a float, which the schema sees as
    a ``number``: it is appended to ``beyond_int64`` (``_beyond_int64`` names its path). Returns
    ``value``, or a copy where a number changed (the input may be shared: it is never edited).
    """
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return value
    out: Any = None
    for key, item in items:
        if isinstance(item, float):
            if not (item.is_integer() and abs(item) < _GO_EXPONENT_FROM):
                continue
            new: Any = int(item)
        elif isinstance(item, dict | list):
            new = _go_numbers(item, beyond_int64)
            if new is item:
                continue
        else:
            if isinstance(item, int) and item not in _INT64 and not isinstance(item, bool):
                beyond_int64.append(item)
            continue
        if out is None:
            out = dict(value) if isinstance(value, dict) else list(value)
        out[key] = new
    return value if out is None else out


def _beyond_int64(value: Any, path: str) -> list[FieldError]:
    """Integers no int64 holds: Go's decoder makes them floats, so the schema sees a number."""
    stack = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, f"{where}.{k}" if where else k) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(node))
        elif isinstance(node, int) and not isinstance(node, bool) and node not in _INT64:
            return [FieldError(ErrorType.TYPE_INVALID, where, "number",
                               f"{where} in body must be of type integer: \"number\"")]
    return []


def _structural_schema(version: dict[str, Any]) -> StructuralSchema:
    try:
        key = hashlib.blake2b(marshal.dumps(version, 2), digest_size=16).digest()
    except ValueError:  # a value marshal refuses: build it, uncached
        return StructuralSchema.from_crd_version(version)
    schema = _BUILT.get(key)
    if schema is None:
        schema = _BUILT[key] = StructuralSchema.from_crd_version(version)
        if len(_BUILT) > _BUILT_LIMIT:
            _BUILT.popitem(last=False)
    else:
        _BUILT.move_to_end(key)
    return schema


def _serve(server: ApiServer, crd: dict[str, Any]) -> None:
    spec = crd["spec"]
    names = spec["names"]
    version = next(v for v in spec["versions"] if v.get("storage"))
    has_status = "status" in (version.get("subresources") or {})
    schema = _structural_schema(version)
    existing = server.registry.by_key(f"{names['plural']}.{spec['group']}")
    if existing is not None:
        server.registry.remove(existing)
    server.registry.add(ResourceType(
        spec["group"], version["name"], names["kind"], names["plural"],
        namespaced=spec.get("scope") == "Namespaced",
        strategy=CustomResourceStrategy(schema, has_status=has_status,
                                        names=ResourceName(names["plural"], spec["group"], names["kind"])),
        singular=names.get("singular", ""), short_names=tuple(names.get("shortNames") or ()),
        categories=tuple(names.get("categories") or ()),
        subresources=frozenset({"status"} if has_status else ()), custom=True,
        schema=deep_copy(version["schema"]["openAPIV3Schema"]), structural=schema))


def install(server: ApiServer) -> None:
    server.registry.add(ResourceType("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                                     "customresourcedefinitions", namespaced=False, strategy=CrdStrategy(),
                                     short_names=("crd", "crds"), subresources=frozenset({"status"})))

    def on_change(event: StoredEvent) -> None:
        if event.type == DELETED:
            spec = event.obj["spec"]
            rt = server.registry.by_key(f"{spec['names']['plural']}.{spec['group']}")
            if rt is not None:
                server.registry.remove(rt)
        elif event.old is None or event.old.get("spec") != event.obj.get("spec"):
            _serve(server, event.obj)

    server.store.subscribe(on_change, resource=CRD_KEY)
