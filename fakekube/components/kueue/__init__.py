"""Kueue v0.19.2's core on the fake cluster: the API, queueing, admission, preemption, waitForPodsReady.

A port of kubernetes-sigs/kueue at tag v0.19.2 (commit 8eab68778f), module by module:

- :mod:`.constants`, :mod:`.config` (Configuration defaults, feature gates), :mod:`.api` (the
  six CRDs, v1beta2), :mod:`.webhooks` (``pkg/webhooks``);
- :mod:`.resources` (``pkg/resources``), :mod:`.workload` (``pkg/workload``: conditions, Info);
- :mod:`.cache` (``pkg/cache/scheduler``: the quota tree), :mod:`.queue_manager`
  (``pkg/cache/queue``), :mod:`.manager` (the core controllers' watch handlers);
- :mod:`.flavor_assigner`, :mod:`.preemption`, :mod:`.scheduler` (``pkg/scheduler``);
- :mod:`.workload_controller`, :mod:`.queue_status` (``pkg/controller/core``);
- :mod:`.installation`: :func:`install_core`.

Kueue knows Workloads only; job integrations (batch/v1 Job, JobSet) live elsewhere and talk to
it through the API, as upstream's job framework does.
"""

from __future__ import annotations

from .installation import KueueCore, install_core

__all__ = ["KueueCore", "install_core"]
