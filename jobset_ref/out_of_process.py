"""``jobset-ref controller``: the reference JobSet reconciler and pod controller out of process,
against any API server a kubeconfig names, through :mod:`fakekube.remote` (HTTP/JSON).

``breaks`` are names of the catalogue of mistakes (:mod:`jobset_ref.mistakes`): the controller
runs with those mistakes applied, for checking that a conformance run catches a wrong controller.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fakekube import NotFound
from fakekube.remote import RemoteSession
from jobset_ref.api.crd import jobset_crd
from jobset_ref.controller.pod_controller import PodReconciler
from jobset_ref.controller.reconciler import JobSetReconciler
from jobset_ref.installation import resolve_feature_gates
from jobset_ref.mistakes import applied, mistakes
from jobset_ref.webhook_server import WebhookServer

__all__ = ["install_crd", "run_controller", "serve_webhooks", "start_controllers"]

USER_AGENT = "jobset-ref-controller"
CRDS = "customresourcedefinitions.apiextensions.k8s.io"


def start_controllers(session: RemoteSession, feature_gates: Mapping[str, bool] | None = None) \
        -> tuple[JobSetReconciler, PodReconciler]:
    """Start the two reconcilers on ``session``'s runtime (under its lock)."""
    gates = resolve_feature_gates(feature_gates)
    with session.lock:
        reconciler = JobSetReconciler(session.runtime, feature_gates=gates)
        pods = PodReconciler(session.runtime)
        reconciler.start()
        pods.start()
    return reconciler, pods


def run_controller(kubeconfig: str | os.PathLike[str], feature_gates: Mapping[str, bool] | None = None, *,
                   breaks: Sequence[str] = (), webhooks: bool = False, crd: bool = False, verbose: bool = False,
                   context: str | None = None, ready: Callable[[], None] | None = None) -> int:
    """Run until SIGINT or SIGTERM; returns the exit status (0).

    With ``webhooks`` the four JobSet webhooks are served too (:mod:`jobset_ref.webhook_server`)
    and registered with the API server for the run; with ``crd`` this build's JobSet CRD replaces
    the served one first. A mistake of the webhooks (of the CRD) in ``breaks`` implies ``webhooks``
    (``crd``)."""
    broken = mistakes(breaks)
    webhooks = webhooks or any(m.side == "webhooks" for m in broken)
    crd = crd or any(m.side == "crd" for m in broken)
    on_trace = (lambda line: print(line, file=sys.stderr, flush=True)) if verbose else None
    session = RemoteSession(kubeconfig, context=context, user_agent=USER_AGENT, on_trace=on_trace)
    with applied(broken):
        if crd:
            install_crd(session)
        server = serve_webhooks(session, feature_gates) if webhooks else None
        try:
            start_controllers(session, feature_gates)
            return _serve(session, ready)
        finally:
            if server is not None:
                server.unregister()
                server.stop()


def install_crd(session: RemoteSession) -> None:
    """Create this build's JobSet CRD, or replace the one the API server has."""
    client = session.runtime.client("jobset-crd")
    body = jobset_crd()
    name = body["metadata"]["name"]
    with session.lock:
        try:
            current = client.get(CRDS, name, None)
        except NotFound:
            client.create(body)
            return
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        client.update(body)


def serve_webhooks(session: RemoteSession, feature_gates: Mapping[str, bool] | None = None) -> WebhookServer:
    """Serve the JobSet webhooks on a free loopback port and register them with the API server."""
    with session.lock:
        server = WebhookServer(session.runtime, resolve_feature_gates(feature_gates))
    server.start()
    server.register()
    return server


def _serve(session: RemoteSession, ready: Callable[[], None] | None) -> int:
    def stop(signum: int, frame: Any) -> None:
        session.stop()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if ready is not None:
            ready()
        session.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
