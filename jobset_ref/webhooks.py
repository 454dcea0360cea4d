"""Admission-plugin adapters for the JobSet and pod webhooks (spec: jobset-api.md §2, §9).

The pure webhook logic lives in :mod:`jobset_ref.api` (``default_jobset``, ``validate_create``,
``validate_update``, ``default_pod``, ``validate_pod_create``); this module registers it with
fakekube's :class:`~fakekube.apiserver.admission.AdmissionChain` the way the upstream
manifests register the four webhooks:

============== ========== ============================ ====================================
name           kind       resources / operations       extra
============== ========== ============================ ====================================
mjobset.kb.io  mutating   jobsets: CREATE              defaulting runs on CREATE only
vjobset.kb.io  validating jobsets: CREATE, UPDATE      422 Invalid, prefixed denial message
mpod.kb.io     mutating   pods: CREATE                 objectSelector: jobset-name label Exists
vpod.kb.io     validating pods: CREATE                 same objectSelector
============== ========== ============================ ====================================

Denials read as through a real API server:
``admission webhook "vjobset.kb.io" denied the request: JobSet.jobset.x-k8s.io "<name>" is invalid: …``.
A JobSet that upstream's decoder refuses (an int32 out of range, :mod:`jobset_ref.api.decoding`)
is denied by the first JobSet webhook called, with code 400 and no reason, as controller-runtime's
``Errored`` answers.

The JobSet webhooks import the defaulting and validation code (and with it pydantic and the
models) on their first request, not at registration, to keep ``install()`` cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakekube import AdmissionRequest, ApiError, BadRequest, NotFound
from fakekube.runtime import Informer
from jobset_ref.api import constants as c
from jobset_ref.api.pod_webhook import default_pod, denial_through_apiserver, validate_pod_create

__all__ = [
    "JobSetDefaulter",
    "JobSetValidator",
    "PodDefaulter",
    "PodValidator",
    "has_jobset_name_label",
    "register_webhooks",
    "webhook_rules",
]

JOBSET_RESOURCE = f"{c.PLURAL}.{c.GROUP}"
#: Upstream's configurations (``config/components/webhook/manifests.yaml`` with the ``jobset-`` prefix):
#: a webhook registered over HTTP in one of them replaces the in-process plugin of its name.
MUTATING_CONFIGURATION = "jobset-mutating-webhook-configuration"
VALIDATING_CONFIGURATION = "jobset-validating-webhook-configuration"


def has_jobset_name_label(obj: Mapping[str, Any]) -> bool:
    """The pod webhooks' ``objectSelector``: label ``jobset.sigs.k8s.io/jobset-name`` Exists."""
    return c.JOBSET_NAME_KEY in ((obj.get("metadata") or {}).get("labels") or {})


class JobSetDefaulter:
    """``mjobset.kb.io``: the JobSet ``Default()`` (CREATE only)."""

    name = c.MUTATING_JOBSET_WEBHOOK_NAME
    configuration = MUTATING_CONFIGURATION

    def __init__(self, feature_gates: Mapping[str, bool]) -> None:
        self.feature_gates = dict(feature_gates)

    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE":
            return
        _refuse_undecodable(self.name, request.obj)
        from jobset_ref.api.defaulting import default_jobset  # lazy: pydantic models, first request only

        defaulted = default_jobset(request.obj, feature_gates=self.feature_gates)
        request.obj.clear()
        request.obj.update(defaulted)


class JobSetValidator:
    """``vjobset.kb.io``: ``ValidateCreate`` / ``ValidateUpdate`` (DELETE is allowed)."""

    name = c.VALIDATING_JOBSET_WEBHOOK_NAME
    configuration = VALIDATING_CONFIGURATION

    def __init__(self, feature_gates: Mapping[str, bool]) -> None:
        self.feature_gates = dict(feature_gates)

    def validate(self, request: AdmissionRequest) -> None:
        from pydantic import ValidationError  # lazy: pydantic models, first request only

        from jobset_ref.api.validation import invalid_error, validate_create, validate_update

        name = str((request.obj.get("metadata") or {}).get("name") or "")
        # Upstream decodes the old object too, after the new one; it cannot fail alone: its status is
        # the new object's, and its spec passed these webhooks.
        if request.operation in ("CREATE", "UPDATE"):
            _refuse_undecodable(self.name, request.obj)
        try:
            if request.operation == "CREATE":
                errors = validate_create(request.obj, feature_gates=self.feature_gates,
                                         pvc_lookup=lambda ns, pvc: _get_or_none(request, "persistentvolumeclaims",
                                                                                 pvc, ns))
            elif request.operation == "UPDATE" and request.old_obj is not None:
                errors = validate_update(request.old_obj, request.obj, feature_gates=self.feature_gates)
            else:
                return
        except ValidationError as err:
            raise denial_through_apiserver(BadRequest(str(err)), self.name) from None
        if errors:
            raise invalid_error(name, errors)


def _refuse_undecodable(webhook: str, obj: Mapping[str, Any]) -> None:
    """controller-runtime's ``Errored(400, err)`` when its decoder refuses ``obj``: code 400, no reason."""
    from jobset_ref.api.decoding import decoding_error

    message = decoding_error(obj)
    if message is not None:
        errored = ApiError.from_status({**BadRequest(message).status, "reason": ""})
        raise denial_through_apiserver(errored, webhook)


def _get_or_none(request: AdmissionRequest, resource: str, name: str, namespace: str) -> dict[str, Any] | None:
    try:
        return request.server.get(resource, name, namespace)
    except NotFound:
        return None


class PodDefaulter:
    """``mpod.kb.io``: exclusive-placement pod defaulting (priority label, affinities, nodeSelector)."""

    name = c.MUTATING_POD_WEBHOOK_NAME
    configuration = MUTATING_CONFIGURATION

    def __init__(self, pods: Informer) -> None:
        self.pods = pods

    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE":
            return
        # request.obj is the API server's private copy: mutate it in place. The leader's node is
        # only read (its topology label), so the stored object is read without a copy.
        try:
            default_pod(request.obj, leader_candidates=self._candidates, in_place=True,
                        get_node=lambda node: request.server.get("nodes", node, copy=False))
        except ApiError as err:
            raise denial_through_apiserver(err, self.name) from None

    def _candidates(self, namespace: str, prefix: str) -> list[dict[str, Any]]:
        """The ``podName`` field index of the manager's cache (not a namespace scan)."""
        return [p for p in self.pods.by_index(c.POD_NAME_KEY, prefix)
                if (p["metadata"].get("namespace") or "") == namespace]


class PodValidator(PodDefaulter):
    """``vpod.kb.io``: follower pods must be pinned to a scheduled leader's topology domain."""

    name = c.VALIDATING_POD_WEBHOOK_NAME
    configuration = VALIDATING_CONFIGURATION

    def admit(self, request: AdmissionRequest) -> None:  # pragma: no cover - validating only
        return

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE":
            return
        try:
            validate_pod_create(request.obj, leader_candidates=self._candidates)
        except ApiError as err:
            raise denial_through_apiserver(err, self.name) from None


def webhook_rules() -> dict[str, tuple[str, tuple[str, ...], bool]]:
    """Webhook name → (resource, operations, mutating): how upstream's manifests register the four
    webhooks (``config/components/webhook/manifests.yaml``), in process and when served over HTTP."""
    return {
        c.MUTATING_JOBSET_WEBHOOK_NAME: (JOBSET_RESOURCE, ("CREATE",), True),
        c.VALIDATING_JOBSET_WEBHOOK_NAME: (JOBSET_RESOURCE, ("CREATE", "UPDATE"), False),
        c.MUTATING_POD_WEBHOOK_NAME: ("pods", ("CREATE",), True),
        c.VALIDATING_POD_WEBHOOK_NAME: ("pods", ("CREATE",), False),
    }


def register_webhooks(admission: Any, *, feature_gates: Mapping[str, bool], pods: Informer) -> list[Any]:
    """Register the four webhooks on an ``AdmissionChain``; returns the plugins (for unregistering)."""
    plugins: list[JobSetDefaulter | JobSetValidator | PodDefaulter] = [
        JobSetDefaulter(feature_gates), JobSetValidator(feature_gates), PodDefaulter(pods), PodValidator(pods)]
    rules = webhook_rules()
    for plugin in plugins:
        resource, operations, mutating = rules[plugin.name]
        admission.register(plugin, resources=[resource], operations=list(operations), mutating=mutating,
                           validating=not mutating, object_selector=has_jobset_name_label if resource == "pods" else None)
    return plugins
