"""Policy for ``spec.network`` (``enableDNSHostnames``, ``subdomain``, ``publishNotReadyAddresses``)
and the coordinator endpoint of ``spec.coordinator``.

API doc (``jobset_types.go``): "Network defines the networking options for the jobset";
``EnableDNSHostnames`` "allows pods to be reached via their hostnames"; ``Subdomain`` "is an
explicit choice for a network subdomain name … defaults to <jobSet.name>";
``PublishNotReadyAddresses`` "indicates if DNS records of pods should be published before the
pods are ready. Defaults to True."

Mirrors upstream ``dnsHostnamesEnabled``, ``GetSubdomain``, ``CoordinatorEndpoint`` and the
decision half of ``createHeadlessSvcIfNecessary`` (``pkg/controllers/jobset_controller.go``).
No KEP of its own: part of the original JobSet API design (stable network endpoints).

One headless Service per JobSet, named after the subdomain (not one per Job or ReplicatedJob);
an existing Service of that name — owned or not — is left alone (no adoption, no update).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet


__all__ = [
    "coordinator_endpoint",
    "dns_hostnames_enabled",
    "get_subdomain",
    "needs_headless_service",
    "publish_not_ready_addresses",
]


def dns_hostnames_enabled(js: JobSet) -> bool:
    """``dnsHostnamesEnabled``: ``network`` set and ``enableDNSHostnames`` true (nil network → false)."""
    network = js.spec.network
    return network is not None and bool(network.enable_dns_hostnames)


def get_subdomain(js: JobSet) -> str:
    """``GetSubdomain``: ``network.subdomain`` if non-empty, else the JobSet name.

    Computed in the controller (not the webhook) so JobSets created with ``generateName`` work.
    """
    network = js.spec.network
    if network is not None and network.subdomain:
        return network.subdomain
    return js.name


def publish_not_ready_addresses(js: JobSet) -> bool:
    """``ptr.Deref(network.publishNotReadyAddresses, true)``."""
    network = js.spec.network
    value = network.publish_not_ready_addresses if network is not None else None
    return True if value is None else value


def coordinator_endpoint(js: JobSet) -> str:
    """``CoordinatorEndpoint``: ``<js>-<rjob>-<jobIndex>-<podIndex>.<subdomain>``.

    Set on every Job and pod template when ``spec.coordinator`` is set, even without DNS.
    """
    coord = js.spec.coordinator
    if coord is None:
        raise ValueError("coordinator_endpoint() needs spec.coordinator")
    return f"{js.name}-{coord.replicated_job}-{coord.job_index}-{coord.pod_index}.{get_subdomain(js)}"


def needs_headless_service(js: JobSet, *, service_exists: bool) -> bool:
    """Create the headless Service iff DNS hostnames are enabled and no Service has its name."""
    return dns_hostnames_enabled(js) and not service_exists
