"""Kueue v0.19.2 on a :class:`~fakekube.FakeCluster`: ``fakekube.kueue.install(cluster)``.

What a Kueue release's manifests and its manager do, in-process: the six CRDs
(``kueue.x-k8s.io/v1beta2``), Kueue's webhooks, its scheduler and core controllers, and the job
framework with the integrations the Configuration enables (``integrations.frameworks``; by
default ``batch/job`` only, as upstream). ``config`` is a Configuration
(``config.kueue.x-k8s.io/v1beta2``) as a dict in its YAML names, for example
``{"waitForPodsReady": {"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": 0}}}``.

``core=False`` serves the CRDs and runs the job framework without Kueue's scheduler and
controllers: a test then plays Kueue's part by writing Workload status itself (quota
reservation, admission, eviction), as upstream's jobframework tests do.

This module is also the job framework's public surface for integrations outside fakekube
(``jobset_ref.kueue`` registers the JobSet integration through :func:`register_integration`):
:class:`GenericJob`, :class:`Integration`, :class:`PodSetInfo` and the pod template helpers.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Iterable as _Iterable
from collections.abc import Mapping as _Mapping
from dataclasses import dataclass as _dataclass
from typing import Any as _Any

from fakekube.cluster import FakeCluster as _FakeCluster
from fakekube.components.kueue_jobs import constants
from fakekube.components.kueue_jobs.interface import (
    GenericJob,
    Integration,
    JobClient,
    register_integration,
    registered_integrations,
)
from fakekube.components.kueue_jobs.podset import (
    InvalidPodSetInfo,
    PodSetInfo,
    bad_len,
    merge_into_template,
    restore_template,
)
from fakekube.components.kueue_jobs.setup import JobFramework as _JobFramework
from fakekube.components.kueue_jobs.setup import options_from_config as _options_from_config
from fakekube.components.kueue_jobs.setup import setup_job_framework as _setup_job_framework
from fakekube.components.kueue_jobs.tas import topology_request
from fakekube.components.kueue_jobs.workload_names import workload_name_for_owner
from fakekube.errors import AlreadyExists as _AlreadyExists
from fakekube.errors import UsageError as _UsageError

__all__ = [
    "GenericJob",
    "Integration",
    "InvalidPodSetInfo",
    "JobClient",
    "KueueInstallation",
    "PodSetInfo",
    "bad_len",
    "constants",
    "install",
    "merge_into_template",
    "register_integration",
    "registered_integrations",
    "restore_template",
    "topology_request",
    "workload_name_for_owner",
]


@_dataclass(frozen=True)
class KueueInstallation:
    """Handles to what :func:`install` started: ``config`` is the defaulted Configuration (YAML
    names), ``core`` Kueue's core (None with ``core=False``), ``jobs`` the job framework."""

    config: dict[str, _Any]
    core: _Any
    jobs: _JobFramework


def install(cluster: _FakeCluster, config: _Mapping[str, _Any] | None = None, *,
            frameworks: _Iterable[str] | None = None, core: bool = True) -> KueueInstallation:
    """Install Kueue on ``cluster`` with v0.19.2's defaults overridden by ``config``.

    ``frameworks`` are the integrations enabled when ``config`` names none in
    ``integrations.frameworks`` (default: ``batch/job``). Bad configuration is a
    :class:`~fakekube.UsageError`; installing twice too.
    """
    if not isinstance(cluster, _FakeCluster):
        raise _UsageError(f"fakekube.kueue.install() takes a FakeCluster, got {type(cluster).__name__}")
    if config is not None and not isinstance(config, _Mapping):
        raise _UsageError("fakekube.kueue.install(config=...) takes a mapping of Kueue Configuration fields "
                         f"(YAML names, e.g. {{'waitForPodsReady': {{'timeout': '5m'}}}}), got {type(config).__name__}")
    cfg = _copy.deepcopy(dict(config or {}))
    if frameworks is not None and not ((cfg.get("integrations") or {}).get("frameworks")):
        if not isinstance(cfg.get("integrations") or {}, _Mapping):
            raise _UsageError("Kueue configuration integrations must be a mapping")
        cfg["integrations"] = {**(cfg.get("integrations") or {}), "frameworks": list(frameworks)}
    from fakekube.components.kueue.config import resolve_config

    resolved = resolve_config(cfg)
    handle: _Any = None
    if core:
        from fakekube.components.kueue.installation import install_core

        handle = install_core(cluster, cfg)
    else:
        from fakekube.components.kueue.api import crds

        client = cluster.runtime.shared_client("kueue-install")
        try:
            for crd in crds():
                client.create(crd)
        except _AlreadyExists:
            raise _UsageError("Kueue's CRDs are already installed on this cluster; call install() once") from None
    options = _options_from_config(resolved.raw, wait_for_pods_ready=resolved.wait_for_pods_ready is not None)
    jobs = _setup_job_framework(cluster.runtime, cluster.api.admission, cluster.add_component, options)
    cluster.run_until_idle()
    return KueueInstallation(resolved.raw, handle, jobs)
