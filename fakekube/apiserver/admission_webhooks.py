"""Admission webhooks called over HTTP: what ``MutatingWebhookConfiguration`` and
``ValidatingWebhookConfiguration`` objects register (kube-apiserver's ``MutatingAdmissionWebhook``
and ``ValidatingAdmissionWebhook`` plugins).

For each write a registered webhook's rules match, the API server POSTs an
``admission.k8s.io/v1`` ``AdmissionReview`` to the webhook's ``clientConfig.url`` and acts on the
answer: a mutating webhook's ``JSONPatch`` is applied to the object, a denial becomes the
client's error exactly as ``webhookerrors.ToStatusErr`` builds it (``admission webhook "<name>"
denied the request: <message>``, the webhook's code when it is an error code, else 403), and a
call that fails (refused, timed out, an unreadable answer) is an ``InternalError`` under
``failurePolicy: Fail`` or skipped under ``Ignore``. Configurations apply in name order, their
webhooks in list order, after the in-process plugins.

A registered webhook **replaces the in-process plugin that names the same configuration and
webhook** (a plugin's ``configuration`` and ``name`` attributes; kube-apiserver tells webhooks apart
by both) while it is registered: that is how a JobSet implementation serving its own webhooks
(``mjobset.kb.io`` in ``jobset-mutating-webhook-configuration`` …) takes the place of the
reference ones a served cluster starts with, and leaves Kueue's ``mjobset.kb.io`` alone.

DEVIATION(upstream): only ``clientConfig.url`` is called (a ``service`` reference has no network
here: such a webhook fails to be called); ``apiVersions`` and ``matchPolicy`` are not compared (every
served version is the one version); the object selector reads the new object's labels (upstream
also matches the old object's on UPDATE); ``matchConditions``, reinvocation, ``sideEffects`` on
dry-run and audit annotations are not implemented. The call waits in wall time up to
``timeoutSeconds`` (the write holds the cluster meanwhile, as a served cluster's requests do).
"""

from __future__ import annotations

import base64
import binascii
import http.client
import json
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fakekube.apiserver.admission import AdmissionRequest
from fakekube.errors import ApiError, InternalError
from fakekube.machinery.patch.jsonpatch import json_patch
from fakekube.machinery.selectors import SelectorError, selector_from_label_selector_dict

__all__ = ["RemoteWebhook", "compile_configurations", "to_status_error"]

DENIED = 'admission webhook "{name}" denied the request'


def to_status_error(name: str, result: dict[str, Any] | None) -> ApiError:
    """``webhookerrors.ToStatusErr``: the error a client sees when webhook ``name`` denies."""
    status = dict(result or {})
    if int(status.get("code") or 0) < 400:
        status["code"] = 403
    if status.get("status") in (None, "", "Success"):
        status["status"] = "Failure"
    status.setdefault("kind", "Status")
    status.setdefault("apiVersion", "v1")
    status.setdefault("metadata", {})
    denied = DENIED.format(name=name)
    if status.get("message"):
        status["message"] = f"{denied}: {status['message']}"
    elif status.get("reason"):
        status["message"] = f"{denied}: {status['reason']}"
    else:
        status["message"] = f"{denied} without explanation"
    status.setdefault("reason", "")
    return ApiError.from_status(status)


def _go_error(err: Exception, host: str | None, port: int | None) -> str:
    """How Go's HTTP client words the common failures (others keep Python's text)."""
    if isinstance(err, ConnectionRefusedError):
        return f"dial tcp {host}:{port}: connect: connection refused"
    if isinstance(err, TimeoutError):
        return "context deadline exceeded"
    return str(err)


class _CallFailed(Exception):
    """The webhook could not be called or answered nonsense (the text follows "failed calling webhook")."""


@dataclass(frozen=True, slots=True)
class _Rule:
    operations: frozenset[str]
    groups: frozenset[str]
    resources: frozenset[str]

    def matches(self, group: str, resource: str, subresource: str | None, operation: str) -> bool:
        if "*" not in self.operations and operation not in self.operations:
            return False
        if "*" not in self.groups and group not in self.groups:
            return False
        full = f"{resource}/{subresource}" if subresource else resource
        if "*/*" in self.resources or full in self.resources:
            return True
        if subresource:
            return f"{resource}/*" in self.resources or f"*/{subresource}" in self.resources
        return "*" in self.resources


class RemoteWebhook:
    """One webhook of a configuration: an admission plugin that calls ``url``."""

    def __init__(self, hook: dict[str, Any], *, configuration: str, mutating: bool, uid: Callable[[], str]) -> None:
        self.configuration = configuration
        self.name = str(hook.get("name") or "")
        self.mutating = mutating
        self._uid = uid
        config = hook.get("clientConfig") or {}
        self.url = str(config.get("url") or "")
        self._ca = str(config.get("caBundle") or "")
        self.fail_closed = hook.get("failurePolicy", "Fail") != "Ignore"
        self.timeout = int(hook.get("timeoutSeconds") or 10)
        self.rules = tuple(_Rule(frozenset(r.get("operations") or ()), frozenset(r.get("apiGroups") or ()),
                                 frozenset(r.get("resources") or ())) for r in hook.get("rules") or ())
        try:
            self._objects = selector_from_label_selector_dict(hook.get("objectSelector") or {})
            self._namespaces = selector_from_label_selector_dict(hook.get("namespaceSelector") or {})
        except SelectorError:  # refused by validation already; never matches if it got through
            self._objects = self._namespaces = selector_from_label_selector_dict(None)

    def matches(self, resource_key: str, operation: str, subresource: str | None) -> bool:
        resource, _, group = resource_key.partition(".")
        return any(rule.matches(group, resource, subresource, operation) for rule in self.rules)

    def selects(self, obj: dict[str, Any]) -> bool:
        return self._objects.matches((obj.get("metadata") or {}).get("labels") or {})

    # --------------------------------------------------------------------- the plugin protocol
    def admit(self, request: AdmissionRequest) -> None:
        self._call(request)

    def validate(self, request: AdmissionRequest) -> None:
        self._call(request)

    def _call(self, request: AdmissionRequest) -> None:
        if request.namespace and not self._namespace_selected(request):
            return
        try:
            response = self._post(self._review(request))
        except _CallFailed as failed:
            if self.fail_closed:
                text = f'failed calling webhook "{self.name}": {failed}'
                raise InternalError(f"Internal error occurred: {text}", details={"causes": [{"message": text}]}) \
                    from None
            return
        if not response.get("allowed"):
            raise to_status_error(self.name, response.get("status"))
        if self.mutating and response.get("patch"):
            self._patch(request, response)

    def _namespace_selected(self, request: AdmissionRequest) -> bool:
        try:
            namespace = request.server.get("namespaces", request.namespace)
        except ApiError:
            return True  # kube-apiserver also calls the webhook when the namespace cannot be read
        return self._namespaces.matches((namespace.get("metadata") or {}).get("labels") or {})

    def _review(self, request: AdmissionRequest) -> dict[str, Any]:
        rt = request.resource
        kind = {"group": rt.group, "version": rt.version, "kind": rt.kind}
        resource = {"group": rt.group, "version": rt.version, "resource": rt.plural}
        body: dict[str, Any] = {
            "uid": self._uid(), "kind": kind, "resource": resource, "requestKind": kind,
            "requestResource": resource, "name": request.name, "namespace": request.namespace,
            "operation": request.operation,
            "userInfo": {"username": "system:unsecured", "groups": ["system:masters", "system:authenticated"]},
            "object": request.obj, "oldObject": request.old_obj, "dryRun": request.dry_run,
        }
        if request.subresource:
            body["subResource"] = request.subresource
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": body}

    def _post(self, review: dict[str, Any]) -> dict[str, Any]:
        target = f"{self.url}{'&' if '?' in self.url else '?'}timeout={self.timeout}s"
        parts = urlsplit(self.url)
        try:
            if parts.scheme == "https":
                context = ssl.create_default_context(cadata=base64.b64decode(self._ca).decode() if self._ca else None)
                conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                    parts.hostname or "", parts.port, timeout=self.timeout, context=context)
            elif parts.scheme == "http":
                conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=self.timeout)
            else:
                raise _CallFailed(f'failed to call webhook: Post "{target}": unsupported protocol scheme '
                                  f'"{parts.scheme}"')
            query = f"{parts.query}&timeout={self.timeout}s" if parts.query else f"timeout={self.timeout}s"
            path = f"{parts.path or '/'}?{query}"
            try:
                conn.request("POST", path, body=json.dumps(review).encode(),
                             headers={"Content-Type": "application/json", "Accept": "application/json"})
                answer = conn.getresponse()
                data = answer.read()
            finally:
                conn.close()
        except (OSError, http.client.HTTPException, ValueError, binascii.Error) as err:
            raise _CallFailed(f'failed to call webhook: Post "{target}": {_go_error(err, parts.hostname, parts.port)}') \
                from None
        if answer.status != 200:
            raise _CallFailed(f"received invalid webhook response: HTTP {answer.status}")
        try:
            reply = json.loads(data)
        except ValueError as err:
            raise _CallFailed(f"received invalid webhook response: {err}") from None
        response = reply.get("response") if isinstance(reply, dict) else None
        if not isinstance(response, dict):
            raise _CallFailed("received invalid webhook response: webhook response was absent")
        if response.get("uid") != review["request"]["uid"]:
            raise _CallFailed(f"expected response.uid={review['request']['uid']!r}, got {response.get('uid')!r}")
        return response

    def _patch(self, request: AdmissionRequest, response: dict[str, Any]) -> None:
        if response.get("patchType") != "JSONPatch":
            raise InternalError(f'Internal error occurred: failed calling webhook "{self.name}": '
                                f'unsupported patch type "{response.get("patchType")}"')
        try:
            ops = json.loads(base64.b64decode(str(response["patch"])))
            patched = json_patch(request.obj, ops)
        except (ValueError, binascii.Error, ApiError) as err:
            why = err.message if isinstance(err, ApiError) else str(err)
            raise InternalError(f'Internal error occurred: the JSON patch of webhook "{self.name}" does not '
                                f"apply: {why}") from None
        request.obj.clear()
        request.obj.update(patched)


def compile_configurations(configurations: list[dict[str, Any]], *, mutating: bool,
                           uid: Callable[[], str]) -> list[RemoteWebhook]:
    """The webhooks of ``configurations`` in the order kube-apiserver calls them (by configuration
    name, then list order)."""
    ordered = sorted(configurations, key=lambda c: str((c.get("metadata") or {}).get("name") or ""))
    return [RemoteWebhook(hook, configuration=str((config.get("metadata") or {}).get("name") or ""),
                          mutating=mutating, uid=uid)
            for config in ordered for hook in config.get("webhooks") or () if isinstance(hook, dict)]
