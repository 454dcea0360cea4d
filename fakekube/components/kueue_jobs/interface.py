"""``jobframework/interface.go`` and ``integrationmanager.go``: what an integration implements,
and the registry integrations add themselves to.

A :class:`GenericJob` wraps a private, mutable copy of one job object (a dict); the reconciler
edits it through the methods below and writes it back with a merge patch. Optional upstream
interfaces are optional methods here: an integration that does not override
:meth:`GenericJob.reclaimable_pods` (``JobWithReclaimablePods``) or :meth:`GenericJob.stop`
(``JobWithCustomStop``) does not have them.

Integrations register once per process (upstream's ``init()`` calls ``RegisterIntegration``);
an installation enables some of them through ``integrations.frameworks`` of its Configuration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from fakekube.errors import UsageError

from . import constants as k
from .podset import PodSetInfo

__all__ = ["GenericJob", "Integration", "JobClient", "register_integration", "registered_integrations"]


class JobClient(Protocol):
    """The writes a job may make through the framework's client in :meth:`GenericJob.stop`
    (upstream hands ``Stop`` the reconciler's ``client.Client``). The reconciler's client
    (:class:`~.reconciler.ReconcilerClient`) is one."""

    def patch_job(self, job: GenericJob, original: dict[str, Any], *, subresource: str | None = None) -> None:
        """A merge patch of the job from ``original`` to ``job.obj`` (optimistic lock on the
        resourceVersion of ``original``); ``job.obj`` becomes the server's answer."""
        ...


class GenericJob:
    """One job, as the framework sees it. Subclasses set ``api_version`` and ``kind``."""

    api_version: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    #: ``JobWithReclaimablePods`` / ``JobWithCustomStop``: set by subclasses that implement them.
    has_reclaimable_pods: ClassVar[bool] = False
    has_custom_stop: ClassVar[bool] = False

    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj

    # ---------------------------------------------------------------- object access
    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.obj.setdefault("metadata", {})
        return meta

    @property
    def spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self.obj.setdefault("spec", {})
        return spec

    @property
    def status(self) -> dict[str, Any]:
        return self.obj.get("status") or {}

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or "")

    @property
    def namespace(self) -> str:
        return str(self.meta.get("namespace") or "")

    @property
    def labels(self) -> dict[str, str]:
        return self.meta.get("labels") or {}

    @property
    def annotations(self) -> dict[str, str]:
        return self.meta.get("annotations") or {}

    # ---------------------------------------------------------------- GenericJob
    def is_suspended(self) -> bool:
        raise NotImplementedError

    def suspend(self) -> None:
        raise NotImplementedError

    def run_with_podsets_info(self, infos: list[PodSetInfo]) -> None:
        """Unsuspend and inject ``infos``; raises :class:`~.podset.InvalidPodSetInfo` when they do not fit."""
        raise NotImplementedError

    def restore_podsets_info(self, infos: list[PodSetInfo]) -> bool:
        raise NotImplementedError

    def finished(self) -> tuple[str, bool, bool]:
        """``(message, success, finished)``."""
        raise NotImplementedError

    def pod_sets(self) -> list[dict[str, Any]]:
        """The Workload's ``spec.podSets`` for this job (raises ValueError on a malformed annotation)."""
        raise NotImplementedError

    def is_active(self) -> bool:
        raise NotImplementedError

    def pods_ready(self) -> bool:
        raise NotImplementedError

    # ---------------------------------------------------------------- optional interfaces
    def reclaimable_pods(self) -> list[dict[str, Any]]:
        """``JobWithReclaimablePods`` (when ``has_reclaimable_pods``)."""
        return []

    def stop(self, client: JobClient, infos: list[PodSetInfo], reason: str, message: str) -> bool:
        """``JobWithCustomStop`` (when ``has_custom_stop``): suspend and restore; True if stopped now."""
        raise NotImplementedError

    def pod_label_selector(self) -> str:
        return ""


@dataclass(frozen=True)
class Integration:
    """``IntegrationCallbacks``: how the framework reaches one job kind.

    ``name`` is the framework name of ``integrations.frameworks`` (``batch/job``,
    ``jobset.x-k8s.io/jobset``); ``resource`` the kind's resource as the API server names it
    (``jobs``, ``jobsets.jobset.x-k8s.io``); ``new_job`` wraps a copy of an object;
    ``validate_create`` / ``validate_update`` add the integration's own webhook checks to the
    framework's (field errors); ``default`` adds its own defaulting.
    """

    name: str
    api_version: str
    kind: str
    resource: str
    new_job: Callable[[dict[str, Any]], GenericJob]
    default: Callable[[GenericJob], None] | None = None
    validate_create: Callable[[GenericJob], list[Any]] | None = None
    validate_update: Callable[[GenericJob, GenericJob], list[Any]] | None = None
    #: Extra wiring for the reconciler once started (``jobs``: a Workload watch that queues child Jobs).
    setup: Callable[[Any], None] | None = None
    depends_on: tuple[str, ...] = field(default=())

    def owns(self, ref: dict[str, Any]) -> bool:
        """``matchingOwnerReference``: an owner reference to this kind."""
        return ref.get("apiVersion") == self.api_version and ref.get("kind") == self.kind


_REGISTRY: dict[str, Integration] = {}


def register_integration(integration: Integration) -> None:
    """``RegisterIntegration``: make a job kind known to the framework (once per name)."""
    if not isinstance(integration, Integration):
        raise UsageError(f"register_integration() takes an Integration, got {type(integration).__name__}")
    existing = _REGISTRY.get(integration.name)
    if existing is not None and existing != integration:
        raise UsageError(f"integration {integration.name!r} is already registered")
    _REGISTRY[integration.name] = integration


def registered_integrations() -> dict[str, Integration]:
    """Every registered integration, by framework name."""
    return dict(sorted(_REGISTRY.items()))


def queue_name(obj: dict[str, Any]) -> str:
    """``QueueNameForObject``."""
    labels: dict[str, str] = (obj.get("metadata") or {}).get("labels") or {}
    return labels.get(k.QUEUE_LABEL, "")
