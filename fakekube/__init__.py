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
"""

from __future__ import annotations

from fakekube.apiserver.admission import AdmissionRequest
from fakekube.apiserver.faults import Reactor
from fakekube.apiserver.server import WatchEvent
from fakekube.cluster import FakeCluster
from fakekube.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    Conflict,
    FakeKubeError,
    FieldError,
    Forbidden,
    Gone,
    Invalid,
    NotFound,
    SimulationError,
    UsageError,
)
from fakekube.runtime.client import Client
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Backoff, Result, TerminalError

__all__ = [
    "AdmissionRequest",
    "AlreadyExists",
    "ApiError",
    "Backoff",
    "BadRequest",
    "Client",
    "Conflict",
    "FakeCluster",
    "FakeKubeError",
    "FieldError",
    "Forbidden",
    "Gone",
    "Invalid",
    "NotFound",
    "Reactor",
    "Result",
    "Runtime",
    "SimulationError",
    "TerminalError",
    "UsageError",
    "WatchEvent",
]
