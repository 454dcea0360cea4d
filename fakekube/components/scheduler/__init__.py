"""The kube-scheduler subset a JobSet can observe (``spec/kubernetes.md`` §4), built to scale.

One module per concern, each a layer on the one before:

* :mod:`.filters` -- what decides: the filters in upstream order (node unschedulable, taints and
  tolerations, nodeSelector and required node affinity, resources, inter-pod (anti-)affinity),
  the pod facts they read (effective requests, affinity terms) and the exact unschedulable
  message (``FitError`` with its post-filter text, §4.7). :class:`.filters.Filters` runs them
  over the scheduler's view of nodes and bound pods.
* :mod:`.indexes` -- what makes it fast: the cache of nodes and bound pods (assume, forget) and
  the orders that find the feasible node with the best score without filtering every node
  (cached node keys, per-label orders, the exclusive-placement walk over topology domains and
  the guards of domains closed by existing pods' anti-affinity).
* :mod:`.preemption` -- default preemption: victims, the chosen node, nominations and the
  resources they reserve.
* :mod:`.scheduler` -- the component: informers, the scheduling queue with its backoff, binding,
  evicting victims and the ``PodScheduled=False`` status and events of a pod that fits nowhere.

Not modelled: soft (preferred) affinity and taints, pod topology spread, ports,
volumes, DRA, the 5-minute unschedulable flush, scheduler extenders and profiles, pods that name
another ``schedulerName`` (ignored), and the PreFilter form of ``matchFields`` (treated as an
ordinary filter).
"""

from __future__ import annotations

from .filters import pod_requests
from .scheduler import DEFAULT_SCHEDULER_NAME, INITIAL_BACKOFF, MAX_BACKOFF, SCHEDULING_DELAY, Scheduler

__all__ = [
    "DEFAULT_SCHEDULER_NAME",
    "INITIAL_BACKOFF",
    "MAX_BACKOFF",
    "SCHEDULING_DELAY",
    "Scheduler",
    "pod_requests",
]
