"""Admission: mutating then validating plugins, registered per resource and operation.

This is how ``jobset_ref`` installs its webhooks and how a test installs its own. A plugin
denies a request by raising an ``ApiError`` carrying the exact Status a real webhook denial
produces (the plugin builds it, because the prefix names the webhook).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fakekube.apiserver.resources import ResourceType

__all__ = ["CREATE", "DELETE", "UPDATE", "AdmissionChain", "AdmissionPlugin", "AdmissionRequest", "ClusterReader"]

CREATE, UPDATE, DELETE = "CREATE", "UPDATE", "DELETE"


class ClusterReader(Protocol):
    """What a webhook may read from the API server while it admits a request (a real webhook reads
    through its own client). Both return deep copies; a webhook never writes through the server."""

    def get(self, resource: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        """One object; raises ``NotFound`` if it does not exist."""
        ...

    def list(self, resource: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> dict[str, Any]:
        """A ``<Kind>List`` of the matching objects, in (namespace, name) order."""
        ...


@dataclass(slots=True)
class AdmissionRequest:
    """What a webhook sees (``admission.k8s.io/v1 AdmissionRequest``, in Python).

    ``obj`` is a private copy the mutating plugins may change in place; ``server`` lets a
    webhook read the cluster (as real webhooks do through their own client), nothing more.
    """

    operation: str
    resource: ResourceType
    namespace: str
    name: str
    obj: dict[str, Any]
    old_obj: dict[str, Any] | None
    server: ClusterReader
    subresource: str | None = None
    dry_run: bool = False


class AdmissionPlugin(Protocol):
    """A mutating and/or validating admission plugin."""

    name: str

    def admit(self, request: AdmissionRequest) -> None:
        """Mutate ``request.obj`` in place, or raise an ApiError to deny."""

    def validate(self, request: AdmissionRequest) -> None:
        """Raise an ApiError to deny; must not mutate."""


@dataclass(slots=True)
class _Registration:
    plugin: Any
    resources: frozenset[str]
    operations: frozenset[str]
    subresources: frozenset[str | None]
    object_selector: Callable[[dict[str, Any]], bool] | None


@dataclass
class AdmissionChain:
    """Ordered plugin registrations; mutating run in order, then validating in order."""

    _mutating: list[_Registration] = field(default_factory=list)
    _validating: list[_Registration] = field(default_factory=list)

    def register(self, plugin: Any, *, resources: list[str], operations: list[str] = (CREATE, UPDATE),  # type: ignore[assignment]
                 mutating: bool = False, validating: bool = False,
                 subresources: tuple[str | None, ...] = (None,),
                 object_selector: Callable[[dict[str, Any]], bool] | None = None) -> None:
        """Register ``plugin`` for resource keys (``pods``, ``jobsets.jobset.x-k8s.io``)."""
        reg = _Registration(plugin, frozenset(resources), frozenset(operations), frozenset(subresources),
                            object_selector)
        if mutating:
            self._mutating.append(reg)
        if validating:
            self._validating.append(reg)

    def unregister(self, plugin: Any) -> None:
        self._mutating = [r for r in self._mutating if r.plugin is not plugin]
        self._validating = [r for r in self._validating if r.plugin is not plugin]

    @staticmethod
    def _applies(reg: _Registration, request: AdmissionRequest) -> bool:
        if request.resource.key not in reg.resources or request.operation not in reg.operations:
            return False
        if request.subresource not in reg.subresources:
            return False
        return reg.object_selector is None or reg.object_selector(request.obj)

    def mutates(self, resource: str, operation: str) -> bool:
        """Whether some mutating plugin may see ``operation`` requests on ``resource``."""
        return any(resource in r.resources and operation in r.operations for r in self._mutating)

    def mutate(self, request: AdmissionRequest) -> None:
        for reg in self._mutating:
            if self._applies(reg, request):
                reg.plugin.admit(request)

    def validate(self, request: AdmissionRequest) -> None:
        for reg in self._validating:
            if self._applies(reg, request):
                reg.plugin.validate(request)
