"""Kueue's webhooks for the core kinds (``pkg/webhooks``), as admission plugins.

==================== ========== ================== ==============================================
name                 kind       operations         what it does
==================== ========== ================== ==============================================
mworkload.kb.io      mutating   CREATE             drops ``minCount`` when PartialAdmission is off
vworkload.kb.io      validating CREATE, UPDATE     :func:`.validation.validate_workload` (and
                                (and status)       ``_update``)
mresourceflavor.kb.io mutating  CREATE             adds the ``kueue.x-k8s.io/resource-in-use``
                                                   finalizer
vresourceflavor.kb.io validating CREATE, UPDATE    :func:`.validation.validate_resource_flavor`
mclusterqueue.kb.io  mutating   CREATE             adds the ``resource-in-use`` finalizer
vclusterqueue.kb.io  validating CREATE, UPDATE     :func:`.validation.validate_cluster_queue`
vcohort.kb.io        validating CREATE, UPDATE     :func:`.validation.validate_cohort`
==================== ========== ================== ==============================================

LocalQueue and WorkloadPriorityClass have no webhook (their rules are the CRDs').

A denial reads as through the API server: controller-runtime answers a validator's error with
``Denied(err.Error())``, a 403 Forbidden whose message is the aggregate of the field errors; the
API server prefixes it with ``admission webhook "<name>" denied the request: ``.
"""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.admission import AdmissionChain, AdmissionRequest
from fakekube.errors import FieldError, Forbidden, aggregate_message

from . import constants as c
from .config import KueueConfig
from .validation import (
    validate_cluster_queue,
    validate_cluster_queue_update,
    validate_cohort,
    validate_resource_flavor,
    validate_workload,
    validate_workload_update,
)

__all__ = ["register_webhooks"]


def deny(webhook: str, errors: list[FieldError]) -> Forbidden:
    """The Status the API server returns for a validator's ``field.ErrorList``."""
    return Forbidden(f'admission webhook "{webhook}" denied the request: {aggregate_message(errors)}')


class FinalizerDefaulter:
    """``ClusterQueueWebhook.Default`` / ``ResourceFlavorWebhook.Default``: the resource-in-use finalizer."""

    def __init__(self, name: str) -> None:
        self.name = name

    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE":
            return
        meta = request.obj.setdefault("metadata", {})
        finalizers = meta.get("finalizers") or []
        if c.RESOURCE_IN_USE_FINALIZER not in finalizers:
            meta["finalizers"] = [*finalizers, c.RESOURCE_IN_USE_FINALIZER]


class ClusterQueueValidator:
    name = "vclusterqueue.kb.io"

    def __init__(self, settings: KueueConfig) -> None:
        self.gates = settings.feature_gates

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation == "CREATE":
            errors = validate_cluster_queue(request.obj, self.gates)
        elif request.operation == "UPDATE" and request.old_obj is not None:
            errors = validate_cluster_queue_update(request.old_obj, request.obj, self.gates)
        else:
            return
        if errors:
            raise deny(self.name, errors)


class CohortValidator:
    name = "vcohort.kb.io"

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation in ("CREATE", "UPDATE"):
            errors = validate_cohort(request.obj)
            if errors:
                raise deny(self.name, errors)


class ResourceFlavorValidator:
    name = "vresourceflavor.kb.io"

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation in ("CREATE", "UPDATE"):
            errors = validate_resource_flavor(request.obj)
            if errors:
                raise deny(self.name, errors)


class WorkloadDefaulter:
    name = "mworkload.kb.io"

    def __init__(self, settings: KueueConfig) -> None:
        self.partial_admission = settings.gate("PartialAdmission")

    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE" or self.partial_admission:
            return
        for ps in (request.obj.get("spec") or {}).get("podSets") or []:
            ps.pop("minCount", None)


class WorkloadValidator:
    name = "vworkload.kb.io"

    def __init__(self, settings: KueueConfig) -> None:
        self.gates = settings.feature_gates

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation == "CREATE":
            errors = validate_workload(request.obj, None, self.gates)
        elif request.operation == "UPDATE" and request.old_obj is not None:
            errors = validate_workload_update(request.obj, request.old_obj, self.gates)
        else:
            return
        if errors:
            raise deny(self.name, errors)


def register_webhooks(chain: AdmissionChain, settings: KueueConfig) -> list[Any]:
    """Register the core kinds' webhooks in upstream's order (``webhooks.Setup``)."""
    plugins: list[Any] = []

    def add(plugin: Any, resource: str, operations: list[str], *, mutating: bool = False,
            subresources: tuple[str | None, ...] = (None,)) -> None:
        chain.register(plugin, resources=[resource], operations=operations, mutating=mutating,
                       validating=not mutating, subresources=subresources)
        plugins.append(plugin)

    add(WorkloadDefaulter(settings), c.WORKLOADS, ["CREATE"], mutating=True)
    add(WorkloadValidator(settings), c.WORKLOADS, ["CREATE", "UPDATE"], subresources=(None, "status"))
    add(FinalizerDefaulter("mresourceflavor.kb.io"), c.RESOURCE_FLAVORS, ["CREATE"], mutating=True)
    add(ResourceFlavorValidator(), c.RESOURCE_FLAVORS, ["CREATE", "UPDATE"])
    add(FinalizerDefaulter("mclusterqueue.kb.io"), c.CLUSTER_QUEUES, ["CREATE"], mutating=True)
    add(ClusterQueueValidator(settings), c.CLUSTER_QUEUES, ["CREATE", "UPDATE"])
    add(CohortValidator(), c.COHORTS, ["CREATE", "UPDATE"])
    return plugins
