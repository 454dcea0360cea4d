"""Admission: mutating then validating plugins, registered per resource and operation.

This is how ``jobset_ref`` installs its webhooks and how a test installs its own. A plugin
denies a request by raising an ``ApiError`` carrying the exact Status a real webhook denial
produces (the plugin builds it, because the prefix names the webhook).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from fakekube.errors import Forbidden

if TYPE_CHECKING:
    from fakekube.apiserver.resources import ResourceType

__all__ = ["CREATE", "DELETE", "UPDATE", "AdmissionChain", "AdmissionPlugin", "AdmissionRequest", "ClusterReader",
           "PriorityAdmission"]

CREATE, UPDATE, DELETE = "CREATE", "UPDATE", "DELETE"


class ClusterReader(Protocol):
    """What a webhook may read from the API server while it admits a request (a real webhook reads
    through its own client). Both return deep copies, unless ``get`` is asked for the stored object
    itself (``copy=False``: frozen, for a webhook that only reads it); a webhook never writes through
    the server."""

    def get(self, resource: str, name: str, namespace: str | None = None, *, copy: bool = True) -> dict[str, Any]:
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
    # The registrations each (mutating?, resource, operation, subresource) selects, in chain order;
    # derived from the two lists above and rebuilt whenever they change (register/unregister).
    _selected: dict[tuple[bool, str, str, str | None], tuple[_Registration, ...]] = field(default_factory=dict)
    # Webhooks registered through the API (``admission_webhooks.RemoteWebhook``), mutating and
    # validating: they run after the plugins, and replace a plugin that names the same
    # configuration and webhook (its ``configuration`` and ``name`` attributes).
    _remote: dict[bool, tuple[Any, ...]] = field(default_factory=lambda: {True: (), False: ()})

    def set_remote_webhooks(self, *, mutating: tuple[Any, ...], validating: tuple[Any, ...]) -> None:
        """Replace the webhooks registered through configurations (each has ``name``, ``matches``
        and ``selects``, and admits or validates as a plugin does)."""
        self._remote = {True: mutating, False: validating}
        self._selected.clear()

    def register(self, plugin: Any, *, resources: list[str], operations: Sequence[str] = (CREATE, UPDATE),
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
        self._selected.clear()

    def unregister(self, plugin: Any) -> None:
        self._mutating = [r for r in self._mutating if r.plugin is not plugin]
        self._validating = [r for r in self._validating if r.plugin is not plugin]
        self._selected.clear()

    def _select(self, mutating: bool, resource: str, operation: str,
                subresource: str | None) -> tuple[_Registration, ...]:
        """The registrations a request on ``resource``/``subresource`` with ``operation`` reaches,
        before their object selectors."""
        key = (mutating, resource, operation, subresource)
        found = self._selected.get(key)
        if found is None:
            remote = self._remote[mutating]
            replaced = {(hook.configuration, hook.name) for hook in remote}
            found = self._selected[key] = (*(
                r for r in (self._mutating if mutating else self._validating)
                if resource in r.resources and operation in r.operations and subresource in r.subresources
                and (getattr(r.plugin, "configuration", None), getattr(r.plugin, "name", None)) not in replaced), *(
                _Registration(hook, frozenset({resource}), frozenset({operation}), frozenset({subresource}),
                              hook.selects)
                for hook in remote if hook.matches(resource, operation, subresource)))
        return found

    def reaches(self, mutating: bool, resource: str, operation: str, subresource: str | None = None) -> bool:
        """Whether some mutating (or validating) plugin is registered for such a request: without
        one, :meth:`mutate` (or :meth:`validate`) would do nothing, and the request need not be built."""
        return bool(self._select(mutating, resource, operation, subresource))

    def mutate(self, request: AdmissionRequest) -> None:
        for reg in self._select(True, request.resource.key, request.operation, request.subresource):
            if reg.object_selector is None or reg.object_selector(request.obj):
                reg.plugin.admit(request)

    def validate(self, request: AdmissionRequest) -> None:
        for reg in self._select(False, request.resource.key, request.operation, request.subresource):
            if reg.object_selector is None or reg.object_selector(request.obj):
                reg.plugin.validate(request)


PRIORITY_CLASSES = "priorityclasses.scheduling.k8s.io"
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"


class PriorityAdmission:
    """kube-apiserver's ``Priority`` admission plugin (``plugin/pkg/admission/priority``).

    Mutating, on pod CREATE: ``spec.priorityClassName`` resolves to ``spec.priority`` and
    ``spec.preemptionPolicy`` of that class (403 ``no PriorityClass with name <n> was found`` when it
    does not exist); without a name the global default class applies (its name is written into the
    pod; the lowest value wins should several be marked default), else priority 0 and
    ``PreemptLowerPriority``. A pod that already carries a different ``priority`` or
    ``preemptionPolicy`` is refused (403), as upstream. Validating, on PriorityClass CREATE/UPDATE:
    only one class may be the global default.

    ``builtin`` names classes that resolve even when they are not stored (the system classes,
    which the fake does not create at start: see :mod:`fakekube.apiserver.kinds.scheduling`).
    Reads the store directly (no copies): pod creation is a hot path and classes are few. The
    plugin's UPDATE half (an update omitting ``priority`` keeps the stored one) is the pod
    strategy's ``prepare_for_update``, so that pod updates need no mutating admission.
    """

    name = "Priority"

    def __init__(self, store: Any, builtin: dict[str, int] | None = None) -> None:
        self._store = store
        self._builtin = dict(builtin or {})

    def _default_class(self) -> dict[str, Any] | None:
        best: dict[str, Any] | None = None
        if not self._store.count(PRIORITY_CLASSES):
            return None
        for pc in self._store.list(PRIORITY_CLASSES):
            if pc.get("globalDefault") and (best is None or pc.get("value", 0) < best.get("value", 0)):
                best = pc
        return best

    @staticmethod
    def _forbidden(request: AdmissionRequest, why: str) -> Forbidden:
        meta = request.obj.get("metadata") or {}
        name = request.name or meta.get("name") or meta.get("generateName") or "Unknown"
        return Forbidden.for_object(request.resource.names, name, why)

    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != CREATE or request.subresource:
            return
        spec = request.obj.get("spec")
        if not isinstance(spec, dict):
            return
        class_name = spec.get("priorityClassName")
        if class_name:
            pc = self._store.get(PRIORITY_CLASSES, "", class_name) if isinstance(class_name, str) else None
            if pc is None and class_name in self._builtin:
                pc = {"value": self._builtin[class_name], "preemptionPolicy": PREEMPT_LOWER_PRIORITY}
            if pc is None:
                raise self._forbidden(request, f"no PriorityClass with name {class_name} was found")
        else:
            pc = self._default_class()
            if pc is not None:
                spec["priorityClassName"] = pc["metadata"]["name"]
        priority = int(pc.get("value", 0)) if pc is not None else 0
        given = spec.get("priority")
        if given is not None and given != priority:
            raise self._forbidden(request, f"the integer value of priority ({given}) must not be provided in pod "
                                           f"spec; priority admission controller computed {priority} from the "
                                           "given PriorityClass name")
        spec["priority"] = priority
        policy = pc.get("preemptionPolicy") if pc is not None else PREEMPT_LOWER_PRIORITY
        if policy:
            given_policy = spec.get("preemptionPolicy")
            if given_policy and given_policy != policy:
                raise self._forbidden(request, f"the string value of PreemptionPolicy ({given_policy}) must not be "
                                               f"provided in pod spec; priority admission controller computed "
                                               f"{policy} from the given PriorityClass name")
            spec["preemptionPolicy"] = policy

    def validate(self, request: AdmissionRequest) -> None:
        if request.subresource or not request.obj.get("globalDefault"):
            return
        current = self._default_class()
        if current is None:
            return
        current_name = current["metadata"]["name"]
        if request.operation == CREATE or current_name != request.name:
            raise self._forbidden(request, f"PriorityClass {current_name} is already marked as default. "
                                           "Only one default can exist")
