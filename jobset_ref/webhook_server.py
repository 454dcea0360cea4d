"""The four JobSet webhooks served over HTTP (``admission.k8s.io/v1`` AdmissionReview), as the
JobSet manager serves them, for ``jobset-ref controller --webhooks``.

The same adapters as in process (:mod:`jobset_ref.webhooks`) answer each review. Their cluster
reads (leader candidates, the leader's node, a PVC) come from the controller's own informer
caches, as controller-runtime's cached client gives them upstream, and never from a request to
the API server: the server is waiting for the answer, holding the write. A cache is read from
the server's handler threads without the session's lock (the driver thread may hold it while
it waits for the API server): every read is one dict lookup or one copy of an index bucket,
which the interpreter's lock makes atomic.

The adapters answer as a real API server would report them, with the ``admission webhook
"<name>" denied the request:`` prefix; the review's status carries the webhook's own message,
without it, because the API server adds it again (``webhookerrors.ToStatusErr``).

:meth:`WebhookServer.register` creates upstream's two configurations
(``jobset-mutating-webhook-configuration``, ``jobset-validating-webhook-configuration``: the
rules of ``config/components/webhook/manifests.yaml`` and the pods' ``jobset-name`` object
selector) with ``clientConfig.url`` pointing here; :meth:`~WebhookServer.unregister` deletes them.
"""

from __future__ import annotations

import base64
import copy
import json
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fakekube import AdmissionRequest, ApiError, NotFound
from fakekube.runtime import Informer
from jobset_ref.api import constants as c
from jobset_ref.controller.pod_controller import add_pod_name_index
from jobset_ref.webhooks import (
    MUTATING_CONFIGURATION,
    VALIDATING_CONFIGURATION,
    JobSetDefaulter,
    JobSetValidator,
    PodDefaulter,
    PodValidator,
    webhook_rules,
)

__all__ = ["CONFIGURATION_NAMES", "WebhookServer", "json_patch_between"]

CONFIGURATION_NAMES = {True: MUTATING_CONFIGURATION, False: VALIDATING_CONFIGURATION}
_JOBSET_RULE = {"apiGroups": [c.GROUP], "apiVersions": [c.VERSION], "resources": [c.PLURAL]}
_POD_RULE = {"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
_POD_SELECTOR = {"matchExpressions": [{"key": c.JOBSET_NAME_KEY, "operator": "Exists"}]}


def _pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def json_patch_between(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """RFC 6902 operations that turn ``old`` into ``new`` (objects key by key, lists whole)."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[dict[str, Any]] = [{"op": "remove", "path": f"{path}/{_pointer(k)}"} for k in old if k not in new]
        for key, value in new.items():
            where = f"{path}/{_pointer(key)}"
            if key not in old:
                ops.append({"op": "add", "path": where, "value": value})
            else:
                ops += json_patch_between(old[key], value, where)
        return ops
    if old == new and type(old) is type(new):
        return []
    return [{"op": "replace", "path": path, "value": new}]


class _CacheReader:
    """``ClusterReader`` over informer caches: ``get`` of nodes and PVCs (NotFound when absent)."""

    def __init__(self, informers: Mapping[str, Informer], resolve: Callable[[str], Any]) -> None:
        self._informers = informers
        self._resolve = resolve

    def get(self, resource: str, name: str, namespace: str | None = None, **_: Any) -> dict[str, Any]:
        informer = self._informers.get(resource)
        found = None if informer is None else informer.get(name, namespace or "")
        if found is None:
            raise NotFound.for_object(self._resolve(resource).names, name)
        return found

    def list(self, resource: str, namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None) -> dict[str, Any]:  # pragma: no cover - no webhook lists
        raise NotImplementedError("the JobSet webhooks do not list")


class WebhookServer:
    """Serve ``mjobset.kb.io``, ``vjobset.kb.io``, ``mpod.kb.io`` and ``vpod.kb.io`` on ``host``."""

    def __init__(self, runtime: Any, feature_gates: Mapping[str, bool], *, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.runtime = runtime
        self.client = runtime.client("jobset-webhooks")
        pods = runtime.informer("pods")
        add_pod_name_index(pods)
        informers = {"nodes": runtime.informer("nodes"),
                     "persistentvolumeclaims": runtime.informer("persistentvolumeclaims")}
        self.reader = _CacheReader(informers, runtime.server.resource)
        #: Upstream's paths; what each plugin is registered for comes from ``webhook_rules``.
        self.routes: dict[str, Any] = {
            "/mutate-jobset-x-k8s-io-v1alpha2-jobset": JobSetDefaulter(feature_gates),
            "/validate-jobset-x-k8s-io-v1alpha2-jobset": JobSetValidator(feature_gates),
            "/mutate--v1-pod": PodDefaulter(pods),
            "/validate--v1-pod": PodValidator(pods),
        }
        self._httpd = ThreadingHTTPServer((host, port), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="jobset-webhooks", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # ------------------------------------------------------------------ configurations
    def configurations(self) -> list[dict[str, Any]]:
        """Upstream's two webhook configurations, pointing at this server (rules: ``webhook_rules``)."""
        rules = webhook_rules()
        hooks: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
        for path, plugin in self.routes.items():
            resource, operations, mutating = rules[plugin.name]
            hook: dict[str, Any] = {"name": plugin.name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
                                    "failurePolicy": "Fail", "clientConfig": {"url": f"{self.url}{path}"},
                                    "rules": [{**(_POD_RULE if resource == "pods" else _JOBSET_RULE),
                                               "operations": list(operations)}]}
            if resource == "pods":
                hook["objectSelector"] = _POD_SELECTOR
            hooks[mutating].append(hook)
        return [{"apiVersion": "admissionregistration.k8s.io/v1",
                 "kind": "MutatingWebhookConfiguration" if mutating else "ValidatingWebhookConfiguration",
                 "metadata": {"name": CONFIGURATION_NAMES[mutating]}, "webhooks": hooks[mutating]}
                for mutating in (True, False)]

    def register(self) -> None:
        """Create (or replace) the two configurations on the API server."""
        for config in self.configurations():
            resource = f"{config['kind'].lower()}s.admissionregistration.k8s.io"
            try:
                self.client.delete(resource, config["metadata"]["name"])
            except NotFound:
                pass
            self.client.create(config)

    def unregister(self) -> None:
        """Delete the two configurations (a stopped webhook server must not keep refusing writes)."""
        for config in self.configurations():
            try:
                self.client.delete(f"{config['kind'].lower()}s.admissionregistration.k8s.io",
                                   config["metadata"]["name"])
            except ApiError:
                pass

    # ------------------------------------------------------------------ answering a review
    def review(self, path: str, review: Mapping[str, Any]) -> dict[str, Any]:
        """The ``AdmissionReview`` answering ``review`` on ``path``."""
        plugin = self.routes[path]
        resource, _operations, mutating = webhook_rules()[plugin.name]
        request = review.get("request") or {}
        obj = copy.deepcopy(request.get("object") or {})
        admission = AdmissionRequest(
            operation=str(request.get("operation") or ""), resource=self.runtime.server.resource(resource),
            namespace=str(request.get("namespace") or ""), name=str(request.get("name") or ""), obj=obj,
            old_obj=request.get("oldObject"), server=self.reader, subresource=request.get("subResource") or None,
            dry_run=bool(request.get("dryRun")))
        response: dict[str, Any] = {"uid": request.get("uid"), "allowed": True}
        try:
            if mutating:
                plugin.admit(admission)
            else:
                plugin.validate(admission)
        except ApiError as err:
            status = dict(err.status)
            prefix = f'admission webhook "{plugin.name}" denied the request: '
            status["message"] = str(status.get("message", "")).removeprefix(prefix)
            response = {"uid": request.get("uid"), "allowed": False, "status": status}
        else:
            ops = json_patch_between(request.get("object") or {}, obj) if mutating else []
            if ops:
                response["patchType"] = "JSONPatch"
                response["patch"] = base64.b64encode(json.dumps(ops).encode()).decode()
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                path = self.path.split("?", 1)[0]
                try:
                    review = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                    if path not in server.routes or not isinstance(review, dict):
                        raise ValueError(f"no webhook at {path}")
                    body = json.dumps(server.review(path, review)).encode()
                    code = 200
                except ValueError as err:
                    body, code = str(err).encode(), 400
                self.send_response(code)
                self.send_header("Content-Type", "application/json" if code == 200 else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler
