"""Who moves virtual time while a cluster is served.

- ``manual``: only the test does (``cluster.advance``/``run_until``); every request is settled at
  the current instant before its answer leaves. Deterministic for a test that drives its
  clients one request at a time.
- ``realtime``: ``speed`` virtual seconds per wall second, by itself.
- ``quiescent``: whenever no request has arrived for ``quiet_ms`` wall milliseconds and every
  watch stream has been written out, virtual time jumps to the next due event. This is how an
  external controller is simulated: it reacts at wall speed, the cluster waits for it to go
  quiet, then the next minute of cluster life takes no wall time at all. A client that keeps
  timers on the served clock announces its next one (``X-Fakekube-Wake-At``,
  :mod:`fakekube._core.served_time`); the clock never jumps past an announced instant, and
  once there it waits for that client to act (until no request came for ``WAKE_GRACE`` wall
  seconds). Each chunk written to such a client's watch (an event, a bookmark) holds the clock
  as if it had announced "now", until it announces again: :mod:`fakekube.remote` steps on
  every chunk it reads and announces after every step that something woke, and remembers an
  announcement only once the server has answered it.

Realtime and quiescent clocks read the wall clock; interleavings with an external client then
depend on the machine, which is why conformance relaxes exact virtual times there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from fakekube._core.clock import SECOND, SimTime
from fakekube._core.served_time import DUE_NOW
from fakekube.errors import SimulationError, UsageError
from fakekube.http.served import ServedCluster

__all__ = ["CLOCKS", "ClockDriver", "QuiescentClock", "RealtimeClock", "make_clock"]

CLOCKS = ("manual", "realtime", "quiescent")
REALTIME_TICK = 0.01  # wall seconds between two realtime steps
HOLD = -1  # the quiescent clock waits: a client's announced timer is due
WAKE_GRACE = 10.0  # wall seconds the quiescent clock holds at a client's announced timer for it to act


def wall() -> float:
    return time.monotonic()  # noqa: TID251  # noqa: wall-clock (served clocks pace against the wall by design)


class ClockDriver:
    """The manual clock: requests are settled, time never moves by itself."""

    name = "manual"
    #: Virtual seconds that pass by themselves per wall second (sent to clients with every answer).
    rate = 0.0

    def __init__(self, cluster: ServedCluster, lock: threading.RLock) -> None:
        self.cluster = cluster
        self.lock = lock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Request accounting has a lock of its own: a request counts as in flight from its first
        # byte, before it waits for the cluster lock (or the clock could jump while it waits).
        self._accounting = threading.Lock()
        self._inflight = 0
        self._last_activity = wall()
        self._busy: Callable[[], bool] = lambda: False
        self._on_stop: Callable[[BaseException], None] = lambda err: None
        self._wakeups: dict[str, SimTime] = {}
        self._announcers: set[str] = set()  # clients that announce their timers

    def wake_at(self, client: str, instant: SimTime | None) -> None:
        """``client`` (its User-Agent) has its next timer at ``instant`` (``None``: no timer)."""
        with self._accounting:
            self._announcers.add(client)
            if instant is None:
                self._wakeups.pop(client, None)
            else:
                self._wakeups[client] = instant

    def _client_timer(self, now: SimTime) -> SimTime | None:
        """The earliest timer a client announced; ``HOLD`` while one is due and requests came
        within ``WAKE_GRACE`` (after that, due announcements are dropped: their client is gone)."""
        with self._accounting:
            if not self._wakeups:
                return None
            wake = min(self._wakeups.values())
            if wake > now:
                return wake
            if wall() - self._last_activity < WAKE_GRACE:
                return HOLD
            self._wakeups = {c: t for c, t in self._wakeups.items() if t > now}
            return min(self._wakeups.values(), default=None)

    # ------------------------------------------------------------------ request accounting
    def request_started(self) -> None:
        with self._accounting:
            self._inflight += 1
            self._last_activity = wall()

    def request_finished(self) -> None:
        with self._accounting:
            self._inflight -= 1
            self._last_activity = wall()

    def delivered(self, client: str | None = None) -> None:
        """A watch event left its queue or was written to ``client``: what it causes comes next, so
        quiet starts now. A client that announces its timers has work due from this event on:
        the clock holds for it as if it had announced ``now`` (it announces again once done), so
        time cannot move on while the event is on its way."""
        with self._accounting:
            self._last_activity = wall()
            if client in self._announcers:
                self._wakeups[client] = DUE_NOW

    def settled(self, quiet: float, *, own_requests: int = 0) -> bool:
        """Nothing is under way at this instant: every watch event written out, no request in flight
        (beyond the caller's ``own_requests``), none for ``quiet`` wall seconds, and no work a client
        announced as due (``now``, or a timer that has come). Pending watch events are read first:
        one leaving its queue marks activity before the queue reads empty."""
        if self._busy() or self.quiet_for(own_requests=own_requests) < quiet:
            return False
        return self._client_timer(self.cluster.loop.now) != HOLD

    def quiet_for(self, *, own_requests: int = 0) -> float:
        """Wall seconds since a request last began or ended or a watch event was written; 0 while
        one is in flight (beyond the ``own_requests`` the caller itself holds open with
        :meth:`request_started`)."""
        if self._inflight > own_requests:  # plain reads: callers may or may not hold the lock
            return 0.0
        return wall() - self._last_activity

    def start(self, busy: Callable[[], bool], on_stop: Callable[[BaseException], None] = lambda err: None) -> None:
        """Run the driver's thread (if it has one). ``on_stop`` hears what stopped a step: a
        ``SimulationError`` (a budget: time goes on, as a request that hits one gets its 500 and the
        server goes on), or a crash, after which time stands still rather than fail again each tick."""
        self._busy = busy
        self._on_stop = on_stop
        if type(self).tick is ClockDriver.tick:
            return
        self._thread = threading.Thread(target=self._run, name=f"fakekube-clock-{self.name}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval()):
            with self.lock:
                try:
                    self.tick()
                except SimulationError as err:
                    self._on_stop(err)
                except Exception as err:  # never a dead thread's traceback on stderr
                    self._on_stop(err)
                    return

    def interval(self) -> float:
        return REALTIME_TICK

    def tick(self) -> None:
        """One step of the driver, under the cluster lock."""


class RealtimeClock(ClockDriver):
    name = "realtime"

    def __init__(self, cluster: ServedCluster, lock: threading.RLock, speed: float) -> None:
        super().__init__(cluster, lock)
        self.speed = speed
        self.rate = float(speed)
        self._last = wall()

    def tick(self) -> None:
        now = wall()
        step = round((now - self._last) * self.speed * SECOND)
        self._last = now
        if step > 0:
            self.cluster.loop.advance(step)
            self.cluster.loop.run_until_idle()


class QuiescentClock(ClockDriver):
    name = "quiescent"

    def __init__(self, cluster: ServedCluster, lock: threading.RLock, quiet_ms: float) -> None:
        super().__init__(cluster, lock)
        self.quiet = quiet_ms / 1000.0
        self.jumps = 0

    def interval(self) -> float:
        return max(self.quiet / 4, 0.001)

    def tick(self) -> None:
        if not self.settled(self.quiet):
            return
        loop = self.cluster.loop
        loop.run_until_idle()
        if self._busy():  # what just ran at this instant has watch events to deliver first
            return
        nxt = loop.next_time()
        wake = self._client_timer(loop.now)
        if wake == HOLD:  # a client announced work at this instant since settled() looked
            return
        if wake is not None and (nxt is None or wake < nxt):
            nxt = wake
        if nxt is None:
            return
        loop.run_to(nxt)
        loop.run_until_idle()
        self.jumps += 1
        self._last_activity = wall()


def make_clock(cluster: ServedCluster, lock: threading.RLock, clock: str, *, speed: float = 1.0,
               quiet_ms: float = 50.0) -> ClockDriver:
    if clock == "manual":
        return ClockDriver(cluster, lock)
    if clock == "realtime":
        if not isinstance(speed, int | float) or isinstance(speed, bool) or speed <= 0:
            raise UsageError(f"serve(clock='realtime', speed=...) takes a positive number of virtual seconds "
                             f"per wall second, got {speed!r}")
        return RealtimeClock(cluster, lock, float(speed))
    if clock == "quiescent":
        if not isinstance(quiet_ms, int | float) or isinstance(quiet_ms, bool) or quiet_ms <= 0:
            raise UsageError(f"serve(clock='quiescent', quiet_ms=...) takes a positive number of wall "
                             f"milliseconds, got {quiet_ms!r}")
        return QuiescentClock(cluster, lock, float(quiet_ms))
    raise UsageError(f"serve(clock=...) takes one of {', '.join(CLOCKS)}, got {clock!r}")
