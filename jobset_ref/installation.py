"""``install(cluster)``: put the reference JobSet controller on a :class:`fakekube.FakeCluster`.

What a ``kubectl apply --server-side -f manifests.yaml`` of a JobSet release does, in-process:
the CRD (served at once), the four admission webhooks, the JobSet reconciler and the pod
(exclusive-placement) reconciler, with the manager's feature gates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakekube import AlreadyExists, FakeCluster, UsageError
from jobset_ref.api import constants as c
from jobset_ref.api.crd import jobset_crd
from jobset_ref.controller.pod_controller import PodReconciler, add_pod_name_index
from jobset_ref.controller.reconciler import JobSetReconciler
from jobset_ref.webhooks import register_webhooks

__all__ = ["Installation", "install", "resolve_feature_gates"]


@dataclass(frozen=True, slots=True)
class Installation:
    """Handles to what :func:`install` started."""

    feature_gates: Mapping[str, bool]
    reconciler: JobSetReconciler | None
    pod_controller: PodReconciler | None
    webhooks: tuple[Any, ...]
    kueue: Any = None
    """The :class:`fakekube.kueue.KueueInstallation` when installed with ``kueue=``."""


def resolve_feature_gates(feature_gates: Mapping[str, bool] | None) -> dict[str, bool]:
    """Upstream defaults overridden by ``feature_gates``; unknown or locked gates are usage errors."""
    gates = dict(c.DEFAULT_FEATURE_GATES)
    for name, value in (feature_gates or {}).items():
        if name not in gates:
            known = ", ".join(sorted(gates))
            raise UsageError(f"unknown JobSet feature gate {name!r}; known gates: {known}")
        if not isinstance(value, bool):
            raise UsageError(f"feature gate {name!r} takes True or False, got {value!r}")
        if name == c.FEATURE_TLS_OPTIONS and value is not True:
            raise UsageError("feature gate 'TLSOptions' is GA and locked to true")
        gates[name] = value
    return gates


def install(cluster: FakeCluster, feature_gates: Mapping[str, bool] | None = None, *,
            webhooks: bool = True, controller: bool = True,
            kueue: bool | Mapping[str, Any] | None = None) -> Installation:
    """Install the JobSet CRD, webhooks and controllers on ``cluster``; returns the handles.

    ``feature_gates`` overrides upstream defaults (``RestartJob``, ``InPlaceRestart`` and
    ``ElasticJobSet`` are off unless given ``True``). ``webhooks=False`` reproduces upstream's
    envtest integration suite, which runs the controllers without the webhooks (only CRD
    defaults and CEL rules apply). ``controller=False`` installs the CRD and webhooks only, so
    another JobSet controller (an operator under test, or one out of process over HTTP) does the
    reconciling.

    ``kueue=True`` also installs Kueue v0.19.2 (:func:`fakekube.kueue.install`) with its
    ``batch/job`` and ``jobset.x-k8s.io/jobset`` integrations and upstream's defaults; a mapping
    of Kueue Configuration fields (YAML names) overrides them, e.g.
    ``{"waitForPodsReady": {"timeout": "5m"}}``.
    """
    if not isinstance(cluster, FakeCluster):
        raise UsageError(f"install() takes a FakeCluster, got {type(cluster).__name__}")
    gates = resolve_feature_gates(feature_gates)
    try:
        # A body built for this call and a result nobody reads: no copies of the large CRD either way.
        cluster.runtime.shared_client("jobset-install").create(jobset_crd())
    except AlreadyExists:
        raise UsageError("the JobSet CRD is already installed on this cluster; call install() once") from None
    pods = cluster.runtime.informer("pods")
    add_pod_name_index(pods)
    plugins = register_webhooks(cluster.api.admission, feature_gates=gates, pods=pods) if webhooks else []
    reconciler = pod_controller = None
    if controller:
        reconciler = JobSetReconciler(cluster.runtime, feature_gates=gates)
        pod_controller = PodReconciler(cluster.runtime)
        cluster.add_component(reconciler)
        cluster.add_component(pod_controller)
    cluster.run_until_idle()
    kueue_installation = _install_kueue(cluster, kueue) if kueue not in (None, False) else None
    return Installation(gates, reconciler, pod_controller, tuple(plugins), kueue_installation)


def _install_kueue(cluster: FakeCluster, kueue: Any) -> Any:
    """Kueue with both integrations (the JobSet one registers on import)."""
    if kueue is not True and not isinstance(kueue, Mapping):
        raise UsageError(f"install(kueue=...) takes True or a mapping of Kueue Configuration fields, got {kueue!r}")
    import fakekube.kueue
    from jobset_ref.kueue import FRAMEWORK_NAME

    config = None if kueue is True else kueue
    return fakekube.kueue.install(cluster, config, frameworks=("batch/job", FRAMEWORK_NAME))
