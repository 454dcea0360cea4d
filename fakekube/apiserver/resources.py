"""Resource types and how a name (``Job``, ``jobs``, ``job``, ``jobs.batch``, ``js``) finds one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakekube._core.jsonutil import brief_repr
from fakekube.errors import NotFound, ResourceName, UsageError

if TYPE_CHECKING:
    from fakekube.apiserver.strategy import Strategy
    from fakekube.machinery.openapi import StructuralSchema

__all__ = ["Registry", "ResourceType"]


@dataclass(frozen=True, eq=False)
class ResourceType:
    """One served resource: its names, scope, subresources and the strategy that owns its rules."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    strategy: Strategy
    singular: str = ""
    short_names: tuple[str, ...] = ()
    subresources: frozenset[str] = frozenset()
    categories: tuple[str, ...] = ()
    custom: bool = False
    schema: Mapping[str, Any] | None = None
    """The kind's OpenAPI v3 schema in structural form (as a CRD version's ``openAPIV3Schema``:
    ``$ref``-free, with ``x-kubernetes-list-type``/``-list-map-keys``/``-map-type``/
    ``-preserve-unknown-fields``/``-embedded-resource``; ``apiVersion``, ``kind`` and ``metadata``
    may be left out). Server-side field validation reports the fields it does not declare, and
    server-side apply takes list and map types from it. None: no unknown-field detection, and
    apply types lists from the strategic-merge keys."""
    structural: StructuralSchema | None = None
    """``schema`` built, when it was built already (a CRD's, shared by every server that serves
    the same CRD version): field validation uses it instead of building its own."""
    names: ResourceName = field(init=False)
    # Derived once (read on every request): the store's name for this resource (``jobs.batch``,
    # ``pods``), the ``apiVersion`` of its objects, and whether it has a status subresource.
    key: str = field(init=False)
    api_version: str = field(init=False)
    has_status: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", ResourceName(self.plural, self.group, self.kind))
        if not self.singular:
            object.__setattr__(self, "singular", self.kind.lower())
        object.__setattr__(self, "key", self.names.qualified_resource)
        object.__setattr__(self, "api_version", f"{self.group}/{self.version}" if self.group else self.version)
        object.__setattr__(self, "has_status", "status" in self.subresources)

    def __repr__(self) -> str:
        return f"<ResourceType {self.key}>"


class Registry:
    """The API server's discovery: every served resource, found by any of its names."""

    def __init__(self) -> None:
        self._by_key: dict[str, ResourceType] = {}
        self._aliases: dict[str, list[ResourceType]] = {}
        self._resolved: dict[str, ResourceType] = {}  # resolve(name) answers; cleared on add/remove
        self._by_kind: dict[tuple[str, str], ResourceType] = {}  # for_object answers; cleared on add/remove

    def add(self, rt: ResourceType) -> None:
        self._resolved.clear()
        self._by_kind.clear()
        self._by_key[rt.key] = rt
        aliases = {rt.kind.lower(), rt.plural, rt.singular, rt.key, f"{rt.kind}.{rt.group}".lower(),
                   f"{rt.api_version}/{rt.kind}".lower(), *rt.short_names}
        for alias in sorted(aliases):
            bucket = self._aliases.setdefault(alias.lower(), [])
            if rt not in bucket:
                bucket.append(rt)

    def remove(self, rt: ResourceType) -> None:
        self._resolved.clear()
        self._by_kind.clear()
        self._by_key.pop(rt.key, None)
        for bucket in self._aliases.values():
            if rt in bucket:
                bucket.remove(rt)

    def all(self) -> list[ResourceType]:
        return [self._by_key[k] for k in sorted(self._by_key)]

    def by_key(self, key: str) -> ResourceType | None:
        return self._by_key.get(key)

    def resolve(self, name: str, api_version: str | None = None) -> ResourceType:
        """Find a resource by kind, plural, singular, short name or ``plural.group``.

        Raises ``UsageError`` (with the known names) when nothing matches.
        """
        if api_version is None and isinstance(name, str):
            found = self._resolved.get(name)
            if found is not None:
                return found
        if not isinstance(name, str) or not name:
            raise UsageError(f"a resource kind must be a non-empty string such as 'Pod' or 'jobs.batch', got {name!r}")
        candidates = self._aliases.get(name.lower(), [])
        if api_version is not None:
            candidates = [rt for rt in candidates if rt.api_version == api_version]
        if not candidates:
            known = ", ".join(rt.kind for rt in self.all())
            hint = f" with apiVersion {api_version!r}" if api_version else ""
            raise UsageError(f"unknown resource kind {name!r}{hint}; this cluster serves: {known}. "
                             "Create a CustomResourceDefinition first to serve a custom kind.")
        # Core and built-in groups win over custom ones, as kubectl's discovery prefers them.
        found = sorted(candidates, key=lambda rt: (rt.custom, rt.group))[0]
        if api_version is None:
            self._resolved[name] = found
        return found

    def for_object(self, obj: Mapping[str, Any]) -> ResourceType:
        """The resource of a wire-form object, from its apiVersion and kind."""
        kind = obj.get("kind")
        api_version = obj.get("apiVersion")
        if not isinstance(kind, str) or not kind or not isinstance(api_version, str) or not api_version:
            raise UsageError("an object needs 'apiVersion' and 'kind' (e.g. apiVersion: batch/v1, kind: Job); "
                             f"got apiVersion={brief_repr(api_version)}, kind={brief_repr(kind)}")
        found = self._by_kind.get((kind, api_version))
        if found is not None:
            return found
        for rt in self._aliases.get(kind.lower(), []):
            if rt.kind == kind and rt.api_version == api_version:
                self._by_kind[(kind, api_version)] = rt
                return rt
        raise NotFound(f'the server could not find the requested resource (no kind "{kind}" '
                       f'is registered for version "{api_version}")',
                       details={"group": api_version.rpartition("/")[0], "kind": kind})
