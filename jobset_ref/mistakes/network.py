"""Mistakes in the headless Service, the pods' subdomain, DNS and the coordinator endpoint (controller spec §5)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

CONSTRUCT = "jobset_ref.controller.construct"
RECONCILER = "jobset_ref.controller.reconciler"
NETWORK = "jobset_ref.controller.policies.network"
APPLY = "jobset_ref.controller.apply"

MISTAKES = (
    Mistake(
        "service-not-headless",
        "the Service is created without clusterIP: None (a normal ClusterIP Service)",
        behaviours=("network.headless-service",),
        edits=(Edit(CONSTRUCT, "construct_headless_service", '"spec": {"clusterIP": "None", ', '"spec": {'),),
        caught_by=("examples/argo-workflow-workflow", "examples/depends-on-depends-on"),
    ),
    Mistake(
        "service-not-owned",
        "the headless Service is created without an ownerReference, so it outlives the JobSet",
        behaviours=("network.headless-service", "lifecycle.delete-cascades"),
        edits=(Edit(CONSTRUCT, "construct_headless_service", ',\n                     "ownerReferences": [owner_reference(js)]},',
                    "},"),),
        caught_by=("lifecycle/delete-cascades", "lifecycle/ttl-zero"),
    ),
    Mistake(
        "service-named-after-jobset",
        "the Service is always named after the JobSet, ignoring network.subdomain",
        behaviours=("network.subdomain",),
        edits=(Edit(CONSTRUCT, "construct_headless_service", '"metadata": {"name": network.get_subdomain(js),',
                    '"metadata": {"name": js.name,'),),
        caught_by=("network/service-lifecycle", "examples/simple-jobset-with-network"),
    ),
    Mistake(
        "subdomain-not-set",
        "the pod template gets no subdomain, so pod hostnames do not resolve",
        behaviours=("naming.pod-hostname", "network.dns-resolution", "story.pytorch"),
        edits=(Edit(CONSTRUCT, "construct_job", 'pod_spec["subdomain"] = network.get_subdomain(js)', "pass"),),
        caught_by=("examples/argo-workflow-workflow", "examples/depends-on-depends-on"),
    ),
    Mistake(
        "subdomain-set-without-dns",
        "the pod subdomain is set even when enableDNSHostnames is false",
        behaviours=("network.dns-disabled",),
        edits=(Edit(CONSTRUCT, "construct_job", "if network.dns_hostnames_enabled(js):", "if True:"),),
        caught_by=("network/dns-hostnames-disabled",),
    ),
    Mistake(
        "service-created-without-dns",
        "the headless Service is created even when enableDNSHostnames is false",
        behaviours=("network.dns-disabled",),
        edits=(Edit(NETWORK, "needs_headless_service", "return dns_hostnames_enabled(js) and not service_exists",
                    "return not service_exists"),),
        caught_by=("network/dns-hostnames-disabled",),
    ),
    Mistake(
        "publish-not-ready-ignored",
        "the Service always publishes not-ready addresses, whatever network.publishNotReadyAddresses says",
        behaviours=("network.publish-not-ready", "network.dns-resolution"),
        edits=(Edit(CONSTRUCT, "construct_headless_service", '"publishNotReadyAddresses": network.publish_not_ready_addresses(js)}',
                    '"publishNotReadyAddresses": True}'),),
        caught_by=("network/dns-not-ready-addresses", "network/service-lifecycle"),
    ),
    Mistake(
        "foreign-service-recreated",
        "a Service of that name that the JobSet does not own counts as missing; its create fails every pass",
        behaviours=("network.service-not-adopted",),
        edits=(Edit(RECONCILER, "JobSetReconciler._reconcile_headless_service",
                    "exists = self.services.get(network.get_subdomain(js), js.namespace) is not None",
                    "exists = bool(((self.services.get(network.get_subdomain(js), js.namespace) or {})"
                    '.get("metadata") or {}).get("ownerReferences"))'),),
        caught_by=("network/existing-service-not-adopted",),
    ),
    Mistake(
        "service-created-once",
        "the headless Service is only created while the JobSet has no Jobs, so a deleted Service is not recreated",
        behaviours=("network.service-recreated",),
        edits=(Edit(RECONCILER, "JobSetReconciler._reconcile",
                    "self._reconcile_headless_service(obj, js)",
                    "if not children.all():\n            self._reconcile_headless_service(obj, js)"),),
        caught_by=("network/service-lifecycle",),
    ),
    Mistake(
        "service-creation-failed-no-event",
        "a failed Service create is retried but emits no HeadlessServiceCreationFailed event",
        behaviours=("events.service-creation-failed",),
        edits=(Edit(APPLY, "Applier.create_service",
                    "self.event(jobset, WARNING, c.HEADLESS_SERVICE_CREATION_FAILED_REASON, err.message)", "pass"),),
        caught_by=("failure/creation-errors",),
    ),
    Mistake(
        "coordinator-endpoint-ignores-subdomain",
        "the coordinator endpoint ends in the JobSet name instead of the network subdomain",
        behaviours=("coordinator.subdomain",),
        edits=(Edit(NETWORK, "coordinator_endpoint", ".{get_subdomain(js)}", ".{js.name}"),),
        caught_by=("network/service-lifecycle",),
    ),
    Mistake(
        "coordinator-endpoint-indexes-swapped",
        "the coordinator endpoint puts the pod index before the Job index",
        behaviours=("coordinator.endpoint", "story.coordinator"),
        edits=(Edit(NETWORK, "coordinator_endpoint", "{coord.job_index}-{coord.pod_index}",
                    "{coord.pod_index}-{coord.job_index}"),),
        caught_by=("network/dns-hostnames-disabled",),
    ),
    Mistake(
        "coordinator-only-with-dns",
        "the coordinator label and annotation are only set when DNS hostnames are enabled",
        behaviours=("coordinator.dns-disabled", "coordinator.endpoint"),
        edits=(Edit(CONSTRUCT, "jobset_labels", "if js.spec.coordinator is not None:",
                    "if js.spec.coordinator is not None and network.dns_hostnames_enabled(js):"),),
        caught_by=("network/dns-hostnames-disabled",),
    ),
)
