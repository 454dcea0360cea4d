"""What a simulated component (or a user's controller) is handed: the clock, the trace, seeded
streams, a client, shared informers, controllers and event recorders.

Informers and event recorders read and write through a ``SharedClient`` (frozen objects, no
copies); what a controller gets from ``client()`` copies every object it passes or returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fakekube._core.clock import SimTime
from fakekube._core.loop import EventLoop, Priority
from fakekube._core.rand import SeedTree, Stream
from fakekube._core.trace import Trace
from fakekube.apiserver.server import ApiServer
from fakekube.errors import ApiError
from fakekube.runtime._shared_client import SharedClient, SimulatorClient
from fakekube.runtime.client import Client
from fakekube.runtime.controller import DEFAULT_BACKOFF, Backoff, Controller, Result
from fakekube.runtime.events import EventRecorder
from fakekube.runtime.informer import Informer

__all__ = ["SIMULATORS", "Component", "Runtime"]

#: The one place that decides which writers are trusted: fakekube's own simulators, whose write
#: bodies are built by fakekube from objects that already went through the whole request path
#: (kubelet status, scheduler bindings and events, the Job controller's pods, finalizer patches
#: and events, EndpointSlices, the garbage collector's and namespace controller's writes). Their
#: writes skip the API server's second defaulting pass and validation (see ``ApiServer``);
#: ``FakeCluster(strict=True)`` runs them through the whole path and fails on any difference.
#: Users, the HTTP front end, the JobSet controller and its installer keep the whole path.
SIMULATORS = frozenset({"kubelet", "default-scheduler", "job-controller", "endpointslice-controller",
                        "garbage-collector", "namespace-controller"})


class Component(Protocol):
    """A simulated cluster part (scheduler, kubelet, Job controller, …) or a user's controller."""

    name: str

    def start(self) -> None: ...

    def stop(self) -> None: ...


class Runtime:
    """Shared plumbing; one per cluster. Informers are shared per (kind, delay)."""

    def __init__(self, server: ApiServer, loop: EventLoop, trace: Trace, seeds: SeedTree) -> None:
        self.server = server
        self.loop = loop
        self.trace = trace
        self.seeds = seeds
        self._informers: dict[tuple[str, SimTime], Informer] = {}

    @property
    def now(self) -> SimTime:
        return self.loop.now

    def client(self, user_agent: str) -> Client:
        """A client for a controller: every object crosses it as a deep copy."""
        return Client(self.server, user_agent=user_agent)

    def shared_client(self, user_agent: str) -> SharedClient:
        """The client of fakekube's simulators (internal): results are the server's frozen objects
        (never mutate them) and bodies become the server's own; see ``fakekube.runtime._shared_client``.
        A simulator's client (``SIMULATORS``) also writes as a trusted writer."""
        cls = SimulatorClient if user_agent in SIMULATORS else SharedClient
        return cls(self.server, user_agent=user_agent)

    def informer(self, kind: str, *, delay: SimTime = 0) -> Informer:
        """The shared informer of ``kind`` (resolved to its resource key); started on first use."""
        key = (self.server.resource(kind).key, delay)
        informer = self._informers.get(key)
        if informer is None:
            informer = self._informers[key] = Informer(self.shared_client("informer"), key[0], delay=delay)
            informer.start()
        return informer

    def informers(self, kind: str | None = None) -> list[Informer]:
        """The shared informers of ``kind`` (one per delivery delay), or all of them, started so far."""
        key = None if kind is None else self.server.resource(kind).key
        return [informer for (k, _), informer in sorted(self._informers.items()) if key in (None, k)]

    def controller(self, name: str, reconcile: Callable[[Any], Result | None], *, strict: bool = True,
                   priority: Priority = Priority.NORMAL, backoff: Backoff = DEFAULT_BACKOFF,
                   retry_on: tuple[type[Exception], ...] = (ApiError,), verb: str = "reconcile") -> Controller:
        """A reconcile work queue; ``backoff``/``retry_on`` are its retry rule (see ``fakekube.runtime.controller``)."""
        return Controller(name, self.loop, self.trace, reconcile, strict=strict, priority=priority,
                          backoff=backoff, retry_on=retry_on, verb=verb)

    def recorder(self, component: str, *, host: str = "", correlate: bool = True) -> EventRecorder:
        """A core/v1 Event recorder; ``correlate=False`` for components whose upstream records through
        events.k8s.io (no spam filter, no aggregation)."""
        return EventRecorder(self.shared_client(component), component, host=host, correlate=correlate)

    def stream(self, name: str) -> Stream:
        return self.seeds.stream(name)

    def restart_informers(self) -> None:
        """Relist every shared informer (as after a controller-manager restart)."""
        for key in sorted(self._informers):
            self._informers[key].restart()
