"""fakekube: a deterministic, in-memory Kubernetes on a virtual clock.

An API server with real semantics (resourceVersion, conflicts, watch, selectors, status
subresource, finalizers, garbage collection, admission) plus simulators of the scheduler, the
kubelet, the batch/v1 Job controller and cluster DNS. Everything runs on one event loop in
virtual time, so a test that simulates minutes of cluster life takes milliseconds and the same
seed always gives the same trace.

    from fakekube import FakeCluster
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(4)
    cluster.apply(manifest)
    cluster.run_until(lambda: ..., timeout=600)

The public modules: ``fakekube`` (the names below), ``fakekube.runtime`` (for controllers:
informers, work queues, event recorders), ``fakekube.errors`` (the error tree and field
errors), ``fakekube.clock`` (virtual time), ``fakekube.machinery`` (selectors, patches,
quantities, validation helpers), ``fakekube.testing`` (object builders) and
``fakekube.generated``. Everything else (``_core``, ``store``, ``apiserver``, ``components``,
the modules inside ``runtime``) is implementation.
"""

from __future__ import annotations

from fakekube.apiserver.admission import AdmissionRequest, ClusterReader
from fakekube.apiserver.faults import Reactor
from fakekube.apiserver.server import WatchEvent
from fakekube.cluster import FakeCluster
from fakekube.errors import (
    AlreadyExists,
    ApiError,
    ApiWarning,
    BadRequest,
    Conflict,
    FakeKubeError,
    FieldError,
    Forbidden,
    Gone,
    InternalError,
    Invalid,
    MethodNotAllowed,
    NotFound,
    SimulationError,
    TooManyRequests,
    UnsupportedMediaType,
    UsageError,
)
from fakekube.runtime.client import Client
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Backoff, Result, TerminalError

__all__ = [
    "AdmissionRequest",
    "AlreadyExists",
    "ApiError",
    "ApiWarning",
    "Backoff",
    "BadRequest",
    "Client",
    "ClusterReader",
    "Conflict",
    "FakeCluster",
    "FakeKubeError",
    "FieldError",
    "Forbidden",
    "Gone",
    "InternalError",
    "Invalid",
    "MethodNotAllowed",
    "NotFound",
    "Reactor",
    "Result",
    "Runtime",
    "SimulationError",
    "TerminalError",
    "TooManyRequests",
    "UnsupportedMediaType",
    "UsageError",
    "WatchEvent",
]
