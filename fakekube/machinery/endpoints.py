"""Which pods a Service's endpoints (and so its DNS records) name, as the EndpointSlice controller
decides (``k8s.io/kubernetes/pkg/controller/util/endpoint``). Pure functions of a pod, shared by
the simulated DNS and by invariants that check its answers."""

from __future__ import annotations

from typing import Any

__all__ = ["CLUSTER_DOMAIN", "endpoint_address", "endpoint_conditions", "endpoint_ready", "in_endpoints", "serving"]

CLUSTER_DOMAIN = "cluster.local"


def in_endpoints(pod: dict[str, Any]) -> bool:
    """``ShouldPodBeInEndpoints(pod, includeTerminating=true)``: has an IP and is not terminal."""
    status = pod.get("status") or {}
    if not status.get("podIP") and not status.get("podIPs"):
        return False
    policy = (pod.get("spec") or {}).get("restartPolicy") or "Always"
    phase = status.get("phase")
    if policy == "Never":
        return phase not in ("Failed", "Succeeded")
    if policy == "OnFailure":
        return phase != "Succeeded"
    return True


def endpoint_address(pod: dict[str, Any]) -> str | None:
    """The address of the pod's endpoint: ``status.podIP``, else the first of ``status.podIPs``."""
    status = pod.get("status") or {}
    address: str | None = status.get("podIP") or (status.get("podIPs") or [{}])[0].get("ip")
    return address


def serving(status: dict[str, Any]) -> bool:
    """The pod status says Ready=True."""
    for c in status.get("conditions") or ():
        if c.get("type") == "Ready" and c.get("status") == "True":
            return True
    return False


def endpoint_conditions(pod: dict[str, Any], publish_not_ready: bool) -> dict[str, bool]:
    """The endpoint's ``conditions``: ``serving`` (Ready=True), ``terminating`` (being deleted) and
    ``ready``, what a headless Service's DNS answers with: ``publishNotReadyAddresses or (serving
    and not terminating)``."""
    is_serving = serving(pod.get("status") or {})
    terminating = bool(pod["metadata"].get("deletionTimestamp"))
    return {"ready": publish_not_ready or (is_serving and not terminating), "serving": is_serving,
            "terminating": terminating}


def endpoint_ready(pod: dict[str, Any], publish_not_ready: bool) -> bool:
    """The endpoint's ``ready`` condition (see :func:`endpoint_conditions`)."""
    return publish_not_ready or endpoint_conditions(pod, False)["ready"]
