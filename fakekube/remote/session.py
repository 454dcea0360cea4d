"""``RemoteSession``: a :class:`~fakekube.runtime.Runtime` whose server is a remote kube-apiserver.

One driver (``run``, on the caller's thread) owns the local event loop: watch events the reader
threads post to its inbox and timers that fall due run under one lock, in order. The local clock
follows the server's: the latest ``Date`` it answered plus the wall time elapsed since (virtual
time on a served fake cluster, wall time on a real one). It never goes backwards.
"""

from __future__ import annotations

import http.client
import os
import queue
import threading
from collections.abc import Callable

from fakekube._core.loop import EventLoop, Priority
from fakekube._core.rand import SeedTree
from fakekube._core.served_time import DUE_NOW, WAKE_HEADER, format_wake
from fakekube._core.trace import Trace
from fakekube.clock import SECOND, SimTime
from fakekube.remote.api import RemoteApiServer
from fakekube.remote.kubeconfig import load_kubeconfig
from fakekube.remote.transport import ServerClock, Transport, wall
from fakekube.runtime import Runtime

__all__ = ["RemoteSession"]

IDLE_WAIT = 0.05  # wall seconds the driver sleeps at most between two looks at the clock
CLOCK_FRESH = 0.01  # wall seconds a Date is trusted before watch events make the driver ask again
CLOCK_PROBE = 0.25  # wall seconds between two GET /version while a timer waits and nothing is said


class RemoteSession:
    """Controllers started on ``runtime`` run against the server of ``kubeconfig`` while ``run`` runs.

    ``on_trace`` receives each trace line (a controller's decisions, retries) as it is added."""

    def __init__(self, kubeconfig: str | os.PathLike[str], *, context: str | None = None, seed: int = 0,
                 user_agent: str = "fakekube-remote", on_trace: Callable[[str], None] | None = None) -> None:
        connection = load_kubeconfig(kubeconfig, context)
        self.clock = ServerClock()
        self.transport = Transport(connection, self.clock, user_agent=user_agent)
        self.lock = threading.RLock()
        self._inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.trace = Trace(lambda: self.loop.now, enabled=on_trace is not None)
        self._on_trace = on_trace
        self.loop = EventLoop(self.trace)
        self.api = RemoteApiServer(self.transport, self._inbox.put, lambda: self.loop.now, connection.namespace)
        self.loop.now = self.clock.now()  # discovery has answered: start at the server's time
        self.runtime = Runtime(self.api, self.loop, self.trace, SeedTree(seed))  # type: ignore[arg-type]  # RemoteApiServer has the verbs; Runtime names the ApiServer class
        self._stop = threading.Event()
        self._probed = wall()
        self._announced: SimTime | None = None

    def step(self, max_wait: float = IDLE_WAIT) -> None:
        """Wait (at most ``max_wait`` wall seconds) for a watch event or the next due timer, then run
        everything due at the server's current time."""
        with self.lock:
            target = max(self.loop.now, self.clock.now())
            nxt = self.loop.next_time()
        wait = max_wait if nxt is None else min(max_wait, max(0.0, (nxt - target) / SECOND))
        if nxt is not None and nxt > target and wall() - max(self._probed, self.clock.seen_at) >= CLOCK_PROBE:
            # A timer waits and no answer told the time lately: ask (the server's clock may have jumped).
            self._probed = wall()
            self.transport.request("GET", "/version")
            return
        try:
            first: Callable[[], None] | None = self._inbox.get(timeout=wait) if wait > 0 else self._inbox.get_nowait()
        except queue.Empty:
            first = None
        if first is not None and self._announced != DUE_NOW:
            # Work has come: a served fake cluster's quiescent clock must hold until it is done
            # (the answer also tells the time the events' consequences are stamped with).
            self._announce(DUE_NOW)
        elif first is not None and wall() - self.clock.seen_at > CLOCK_FRESH:
            # Watch events tell no time: ask, so what they cause is stamped with the server's instant.
            self._ask()
        with self.lock:
            self.loop.run_to(max(self.loop.now, self.clock.now()))
            pending = [] if first is None else [first]
            while True:
                try:
                    pending.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            for fn in pending:
                self.loop.call_soon(fn, priority=Priority.URGENT, label="remote watch")
            self.loop.run_until_idle()
            self._flush_trace()
            nxt = self.loop.next_time()
        if first is not None or nxt != self._announced:
            # A served fake cluster's quiescent clock must not jump past our next timer: say when it is.
            # After a step something woke, say it even if it is unchanged: the server holds its clock
            # for us from each chunk it writes to our watches until we speak again.
            self._announce(nxt)

    def _announce(self, wake: SimTime | None) -> None:
        """Tell the server when our next timer is due (``X-Fakekube-Wake-At``; ignored by a real one).
        Remembered only once the server has heard it: a lost announcement is made again next step."""
        if self._ask({WAKE_HEADER: format_wake(wake)}):
            self._announced = wake

    def _ask(self, headers: dict[str, str] | None = None) -> bool:
        """``GET /version`` (the answer tells the server's time); False if the server did not answer.
        A step that has taken events from the inbox must not lose them to a failed request."""
        try:
            self.transport.request("GET", "/version", headers=headers)
        except (OSError, http.client.HTTPException):
            return False
        return True

    def _flush_trace(self) -> None:
        if self._on_trace is None:
            return
        for record in self.trace.records:
            self._on_trace(record.line())
        self.trace.records.clear()  # a controller runs for days: keep nothing once it is told

    def run(self) -> None:
        """Drive the loop until :meth:`stop` (safe to call from a signal handler or another thread)."""
        while not self._stop.is_set():
            try:
                self.step()
            except (OSError, http.client.HTTPException):  # the server is away: look again shortly
                self._stop.wait(IDLE_WAIT)

    def stop(self) -> None:
        self._stop.set()
        self._inbox.put(lambda: None)  # wake the driver
