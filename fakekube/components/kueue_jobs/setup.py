"""``jobframework/setup.go``: start the reconcilers and webhooks of the enabled integrations.

The options come from Kueue's Configuration (YAML names): ``manageJobsWithoutQueueName``,
``managedJobsNamespaceSelector``, ``waitForPodsReady`` (on unless the DisableWaitForPodsReady gate
is), ``integrations.frameworks`` and ``integrations.labelKeysToCopy``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakekube.errors import UsageError
from fakekube.machinery.selectors import selector_from_label_selector_dict
from fakekube.runtime.context import Runtime

from .interface import registered_integrations
from .job import INTEGRATION as JOB_INTEGRATION
from .reconciler import Framework, FrameworkOptions, JobReconciler
from .webhook import JobWebhook, register_job_webhook

__all__ = ["JobFramework", "options_from_config", "setup_job_framework"]


def options_from_config(config: Mapping[str, Any], *, wait_for_pods_ready: bool = True) -> FrameworkOptions:
    """The framework's options from a defaulted Configuration."""
    integrations = config.get("integrations") or {}
    selector = config.get("managedJobsNamespaceSelector")
    return FrameworkOptions(
        manage_jobs_without_queue_name=bool(config.get("manageJobsWithoutQueueName", False)),
        managed_jobs_namespace_selector=None if selector is None else selector_from_label_selector_dict(selector),
        wait_for_pods_ready=wait_for_pods_ready,
        label_keys_to_copy=tuple(integrations.get("labelKeysToCopy") or ()),
        enabled=frozenset(integrations.get("frameworks") or ("batch/job",)),
    )


@dataclass(frozen=True)
class JobFramework:
    """Handles to what :func:`setup_job_framework` started."""

    framework: Framework
    reconcilers: tuple[JobReconciler, ...]
    webhooks: tuple[JobWebhook, ...]


def setup_job_framework(rt: Runtime, admission: Any, add_component: Any, options: FrameworkOptions) -> JobFramework:
    """Start a reconciler and register a webhook for every enabled integration, in name order.
    An enabled framework nobody registered is a usage error naming the known ones."""
    from .interface import register_integration

    register_integration(JOB_INTEGRATION)
    known = registered_integrations()
    unknown = sorted(options.enabled - set(known))
    if unknown:
        raise UsageError(f"Kueue integrations.frameworks names {', '.join(map(repr, unknown))}, which no job "
                         f"integration registered; known: {', '.join(map(repr, known))} (the JobSet integration "
                         "registers when jobset_ref.kueue is imported: use jobset_ref.install(cluster, kueue=True))")
    framework = Framework(rt, options, known)
    reconcilers, webhooks = [], []
    for name, integration in framework.enabled.items():
        webhook = JobWebhook(framework, integration)
        register_job_webhook(admission, webhook)
        webhooks.append(webhook)
        reconciler = JobReconciler(framework, integration)
        add_component(reconciler)
        reconcilers.append(reconciler)
        del name
    return JobFramework(framework, tuple(reconcilers), tuple(webhooks))
