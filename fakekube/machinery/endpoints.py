"""Which pods a Service's endpoints (and so its DNS records) name, as the EndpointSlice controller
decides (``k8s.io/kubernetes/pkg/controller/util/endpoint``). Pure functions of a pod, shared by
the simulated DNS and by invariants that check its answers."""

from __future__ import annotations

from typing import Any

__all__ = ["CLUSTER_DOMAIN", "endpoint_address", "endpoint_ready", "in_endpoints", "serving"]

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
    return status.get("podIP") or (status.get("podIPs") or [{}])[0].get("ip")


def serving(status: dict[str, Any]) -> bool:
    """The pod status says Ready=True."""
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])


def endpoint_ready(pod: dict[str, Any], publish_not_ready: bool) -> bool:
    """The endpoint's ``ready`` condition (what a headless Service's DNS answers with):
    ``publishNotReadyAddresses or (Ready=True and not terminating)``."""
    if publish_not_ready:
        return True
    return serving(pod.get("status") or {}) and not pod["metadata"].get("deletionTimestamp")
