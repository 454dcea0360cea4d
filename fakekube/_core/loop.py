"""The event loop: one total order on everything that happens, ``(time, priority, seq)``.

Single-threaded and synchronous. ``run_until_idle`` drains what is due at the current instant
without moving the clock; ``advance`` moves the clock through due events in order;
``run_until`` advances until a predicate holds. Budgets raise ``SimulationError`` with the tail
of the trace instead of hanging.

``shuffle_ties=True`` orders events that share ``(time, priority)`` by a seeded random key
instead of submission order, so property tests can look for order dependence.
"""

from __future__ import annotations

import functools
import gc
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeVar

from fakekube._core.clock import SECOND, SimTime, format_offset
from fakekube._core.rand import Stream
from fakekube._core.trace import Trace
from fakekube.errors import SimulationError, UsageError

__all__ = ["EventLoop", "Handle", "LoopStatistics", "Priority"]


class Priority(IntEnum):
    """Same-time events run URGENT first (watch deliveries), then NORMAL (controller work)."""

    URGENT = 0
    NORMAL = 1
    LATE = 2


class Handle:
    """A scheduled call; ``cancel()`` makes it a no-op (lazy deletion)."""

    __slots__ = ("_fn", "cancelled", "label", "when")

    def __init__(self, when: SimTime, fn: Callable[[], None], label: str) -> None:
        self.when = when
        self._fn = fn
        self.label = label
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


@dataclass(frozen=True, slots=True)
class LoopStatistics:
    now: SimTime
    pending: int
    steps: int


_F = TypeVar("_F", bound=Callable[..., Any])

def _relaxed_gc(method: _F) -> _F:
    """Python's cyclic garbage collector is off while the loop runs, back on when the run returns.

    A simulation allocates millions of short-lived, acyclic JSON dicts and builds almost no
    cycles (peak RSS at 50 slices: 216 MB with the collector, 219 MB without): collections took
    ~12 % of a 3,200-pod run even with a gen-0 threshold of 100,000 (session 2), and their cost
    grows with the heap. A run inside a run, or a caller who disabled the collector, leaves it
    as it is.

    What a large run (more than ``_LARGE_RUN`` loop events) allocated and still holds (the
    store, the caches) counts as old when the run returns: it joins the oldest generation, where
    the next full collection examines it, instead of staying young, where the first allocation
    after the run would make a young collection walk all of it (~5 % of a 1,600-pod run,
    growing with the run). Nothing is kept
    from the collector: cycles the run left behind go with the next full collection. A small run
    (most of a test suite's) leaves the collector's generations as they are, and a caller who
    froze objects (``gc.freeze()``) keeps them frozen; the run's objects then stay young. What
    was frozen before this module was imported (CPython 3.12 keeps a few hundred immortal
    objects of its own frozen) is not a caller's: see :func:`_age_survivors`."""

    @functools.wraps(method)
    def run(loop: EventLoop, *args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return method(loop, *args, **kwargs)
        gc.disable()
        steps = loop.steps
        try:
            return method(loop, *args, **kwargs)
        finally:
            if loop.steps - steps > _LARGE_RUN:
                _age_survivors()
            gc.enable()

    return run  # type: ignore[return-value]


_LARGE_RUN = 5_000
"""Loop events above which a run counts as large: what it leaves is aged by :func:`_age_survivors`
(a young collection after a smaller run costs a few milliseconds at most)."""


_FROZEN_AT_IMPORT = gc.get_freeze_count()
"""What was frozen before this module was imported: none on CPython 3.11; on 3.12 a few hundred
immortal objects of the interpreter's own, which every full collection puts back in the permanent
generation (so the count returns to this figure after an unfreeze)."""


def _age_survivors() -> None:
    """Move every tracked object into the oldest generation without a collection (``gc.freeze()``
    then ``gc.unfreeze()``, which puts the frozen objects in the oldest generation), unless a
    caller has frozen objects of its own: only when nothing is frozen or exactly what was frozen
    at import (which then joins the oldest generation until the next full collection)."""
    if gc.get_freeze_count() in (0, _FROZEN_AT_IMPORT):
        gc.freeze()
        gc.unfreeze()


class EventLoop:
    """Virtual-time scheduler; the only place the clock moves."""

    def __init__(self, trace: Trace, *, tie_stream: Stream | None = None,
                 max_steps_per_instant: int = 250_000) -> None:
        self.now: SimTime = 0
        self.max_steps_per_instant = max_steps_per_instant
        self._instant_steps = 0
        self.trace = trace
        self._queue: list[tuple[SimTime, int, float, int, Handle]] = []
        self._seq = itertools.count()
        self._tie_stream = tie_stream
        self.steps = 0

    # ------------------------------------------------------------------ scheduling
    def call_at(self, when: SimTime, fn: Callable[[], None], *, label: str = "",
                priority: Priority = Priority.NORMAL) -> Handle:
        if when < self.now:
            when = self.now
        handle = Handle(when, fn, label)
        tie = self._tie_stream.random() if self._tie_stream is not None else 0.0
        heapq.heappush(self._queue, (when, priority, tie, next(self._seq), handle))
        return handle

    def call_later(self, delay: SimTime, fn: Callable[[], None], *, label: str = "",
                   priority: Priority = Priority.NORMAL) -> Handle:
        # call_at(now + max(0, delay)) without the second call (every watch delivery comes here)
        when = self.now + delay if delay > 0 else self.now
        handle = Handle(when, fn, label)
        tie = self._tie_stream.random() if self._tie_stream is not None else 0.0
        heapq.heappush(self._queue, (when, priority, tie, next(self._seq), handle))
        return handle

    def call_soon(self, fn: Callable[[], None], *, label: str = "",
                  priority: Priority = Priority.NORMAL) -> Handle:
        return self.call_at(self.now, fn, label=label, priority=priority)

    # ------------------------------------------------------------------ running
    def next_time(self) -> SimTime | None:
        """When the next live event is due, or None when nothing is scheduled."""
        queue = self._queue
        while queue and queue[0][4].cancelled:
            heapq.heappop(queue)
        return queue[0][0] if queue else None

    def _step(self) -> None:
        when, _, _, _, handle = heapq.heappop(self._queue)
        if handle.cancelled:
            return
        if when == self.now:
            self._instant_steps += 1
            if self._instant_steps > self.max_steps_per_instant:
                self._instant_steps = 0
                raise self._budget_error(
                    f"livelock: more than {self.max_steps_per_instant} events at t={format_offset(when)} "
                    "without virtual time moving (a controller keeps re-triggering itself?)")
        else:
            self._instant_steps = 1
        self.now = when
        self.steps += 1
        handle.cancelled = True
        handle._fn()

    @_relaxed_gc
    def run_until_idle(self, *, max_steps: int = 1_000_000) -> int:
        """Process every event due at or before now; the clock does not move. Returns steps run."""
        done = 0
        while True:
            nxt = self.next_time()
            if nxt is None or nxt > self.now:
                return done
            if done >= max_steps:
                raise self._budget_error(f"run_until_idle: {max_steps} steps at "
                                         f"t={format_offset(self.now)} without settling")
            self._step()
            done += 1

    def advance(self, duration: SimTime, *, max_steps: int = 10_000_000) -> None:
        """Move the clock forward by ``duration``, processing due events in order."""
        if duration < 0:
            raise UsageError(f"advance() needs a non-negative duration, got {duration / SECOND} s")
        self.run_to(self.now + duration, max_steps=max_steps)

    @_relaxed_gc
    def run_to(self, deadline: SimTime, *, max_steps: int = 10_000_000) -> None:
        done = 0
        while True:
            nxt = self.next_time()
            if nxt is None or nxt > deadline:
                break
            if done >= max_steps:
                raise self._budget_error(f"advance: {max_steps} steps before t={format_offset(deadline)}")
            self._step()
            done += 1
        self.now = max(self.now, deadline)

    @_relaxed_gc
    def run_until(self, predicate: Callable[[], bool], *, timeout: SimTime,
                  max_steps: int = 10_000_000, description: str = "") -> SimTime:
        """Advance until ``predicate()`` holds; return the virtual time at which it first held."""
        deadline = self.now + timeout
        if predicate():
            return self.now
        done = 0
        while True:
            nxt = self.next_time()
            if nxt is None or nxt > deadline:
                self.now = max(self.now, deadline)
                what = description or getattr(predicate, "__name__", "predicate")
                raise self._budget_error(
                    f"run_until: {what} did not hold within {timeout / SECOND:g} s of virtual time "
                    f"(now t={format_offset(self.now)}"
                    + (", nothing left to simulate)" if nxt is None else ")"))
            if done >= max_steps:
                raise self._budget_error(f"run_until: {max_steps} steps without the predicate holding")
            self._step()
            done += 1
            if predicate():
                return self.now

    def statistics(self) -> LoopStatistics:
        return LoopStatistics(now=self.now, pending=sum(1 for e in self._queue if not e[4].cancelled),
                              steps=self.steps)

    def _budget_error(self, message: str) -> SimulationError:
        tail = "\n".join(self.trace.tail(30))
        return SimulationError(f"{message}\n--- trace tail ---\n{tail}")
