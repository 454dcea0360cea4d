"""``jobset-ref controller``: the reference JobSet reconciler and pod controller out of process,
against any API server a kubeconfig names, through :mod:`fakekube.remote` (HTTP/JSON).

``breaks`` are test-only defects for checking that a conformance run catches a wrong
controller: ``restart-attempt`` never increments ``status.restarts`` (every status write keeps
the stored count), so the failure-policy scenarios must fail.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fakekube import UsageError
from fakekube.remote import RemoteSession
from jobset_ref.controller.pod_controller import PodReconciler
from jobset_ref.controller.reconciler import JobSetReconciler
from jobset_ref.installation import resolve_feature_gates

__all__ = ["BREAKS", "run_controller", "start_controllers"]

BREAKS = ("restart-attempt",)
USER_AGENT = "jobset-ref-controller"


class _KeepRestarts:
    """A client whose JobSet status writes keep the stored ``restarts`` (the ``restart-attempt`` break)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def update_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        if obj.get("kind") == "JobSet":
            meta = obj["metadata"]
            stored = self._client.get("jobsets.jobset.x-k8s.io", meta["name"], meta.get("namespace"))
            before = stored.get("status") or {}
            status = obj.setdefault("status", {})
            for field in ("restarts", "restartsCountTowardsMax"):
                if field in before:
                    status[field] = before[field]
                else:
                    status.pop(field, None)
        return self._client.update_status(obj)


def start_controllers(session: RemoteSession, feature_gates: Mapping[str, bool] | None = None,
                      breaks: Sequence[str] = ()) -> tuple[JobSetReconciler, PodReconciler]:
    """Start the two reconcilers on ``session``'s runtime (under its lock)."""
    unknown = [b for b in breaks if b not in BREAKS]
    if unknown:
        raise UsageError(f"unknown --break {unknown[0]!r}; known: {', '.join(BREAKS)}")
    gates = resolve_feature_gates(feature_gates)
    with session.lock:
        reconciler = JobSetReconciler(session.runtime, feature_gates=gates)
        if "restart-attempt" in breaks:
            reconciler.apply.client = _KeepRestarts(reconciler.apply.client)  # type: ignore[assignment]
        pods = PodReconciler(session.runtime)
        reconciler.start()
        pods.start()
    return reconciler, pods


def run_controller(kubeconfig: str | os.PathLike[str], feature_gates: Mapping[str, bool] | None = None, *,
                   breaks: Sequence[str] = (), verbose: bool = False, context: str | None = None,
                   ready: Callable[[], None] | None = None) -> int:
    """Run until SIGINT or SIGTERM; returns the exit status (0)."""
    on_trace = (lambda line: print(line, file=sys.stderr, flush=True)) if verbose else None
    session = RemoteSession(kubeconfig, context=context, user_agent=USER_AGENT, on_trace=on_trace)
    start_controllers(session, feature_gates, breaks)

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
