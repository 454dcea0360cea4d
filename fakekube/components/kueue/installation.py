"""``install_core``: Kueue's CRDs, webhooks and core controllers on a fake cluster.

What ``kubectl apply --server-side -f manifests.yaml`` of the v0.19.2 release plus the manager's
start does, without the job integrations (``fakekube.components.kueue_jobs`` and
``jobset_ref.kueue`` register those): the six CRDs (served at once), the webhooks of the core
kinds, and the scheduler, the workload controller, the queue status controllers and the
resource-in-use finalizers' controller as components of the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakekube.errors import AlreadyExists, UsageError

from .api import crds
from .config import KueueConfig, resolve_config
from .finalizers import FinalizerController
from .manager import Manager
from .native_rules import register as register_native_rules
from .queue_status import ClusterQueueStatusController, LocalQueueStatusController
from .scheduler import Scheduler
from .webhooks import register_webhooks
from .workload_controller import WorkloadController

__all__ = ["KueueCore", "install_core"]


@dataclass(frozen=True, slots=True)
class KueueCore:
    """Handles to what :func:`install_core` started."""

    settings: KueueConfig
    manager: Manager
    scheduler: Scheduler
    workload_controller: WorkloadController

    @property
    def config(self) -> dict[str, Any]:
        """The defaulted Configuration (YAML names)."""
        return self.settings.raw

    @property
    def feature_gates(self) -> dict[str, bool]:
        return self.settings.feature_gates


def install_core(cluster: Any, config: Mapping[str, Any] | None = None) -> KueueCore:
    """Install Kueue's core on ``cluster`` with the Configuration ``config`` (YAML names;
    None: v0.19.2's defaults). Raises ``UsageError`` for a bad configuration or a second call."""
    if not hasattr(cluster, "runtime") or not hasattr(cluster, "add_component"):
        raise UsageError(f"install_core() takes a FakeCluster, got {type(cluster).__name__}")
    settings = resolve_config(config)
    rt = cluster.runtime
    register_native_rules()
    client = rt.shared_client("kueue-install")
    for crd in crds():
        try:
            client.create(crd)
        except AlreadyExists:
            raise UsageError("Kueue's CRDs are already installed on this cluster; install Kueue once") from None
    cluster.run_until_idle()
    register_webhooks(cluster.api.admission, settings)
    manager = Manager(rt, settings)
    scheduler = Scheduler(manager)
    workloads = WorkloadController(manager)
    for component in (ClusterQueueStatusController(manager), LocalQueueStatusController(manager),
                      FinalizerController(manager), workloads, scheduler):
        cluster.add_component(component)
    cluster.run_until_idle()
    return KueueCore(settings, manager, scheduler, workloads)

