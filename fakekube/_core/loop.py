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
from typing import Any, Concatenate, ParamSpec, TypeVar

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


def _noop() -> None:
    """What a cancelled handle keeps instead of its callable (which may hold a whole object graph)."""


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
        self._fn = _noop  # it never runs now: let go of what it holds while it waits in the heap


@dataclass(frozen=True, slots=True)
class LoopStatistics:
    now: SimTime
    pending: int
    steps: int


_P = ParamSpec("_P")
_R = TypeVar("_R")

def _relaxed_gc(method: Callable[Concatenate[EventLoop, _P], _R]) -> Callable[Concatenate[EventLoop, _P], _R]:
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
    def run(loop: EventLoop, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
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

    return run


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


_SEQ_BITS = 48
"""An event's order among those due at the same time, without a tie stream, is one int:
``priority << _SEQ_BITS | seq`` (the same order as the pair, for fewer than 2**48 events)."""

_IDLE, _BUDGET, _HELD = "idle", "budget", "held"
"""How :meth:`EventLoop._drain` ended: nothing due by the deadline, out of steps, the predicate held."""


class EventLoop:
    """Virtual-time scheduler; the only place the clock moves.

    The queue is a heap of ``(when, order, handle)``: ``order`` is ``priority << _SEQ_BITS | seq``,
    or ``(priority, tie, seq)`` with a tie stream. Keys are unique, so the order in which events
    run depends only on what is queued, never on the heap's layout."""

    def __init__(self, trace: Trace, *, tie_stream: Stream | None = None,
                 max_steps_per_instant: int = 250_000) -> None:
        self.now: SimTime = 0
        self.max_steps_per_instant = max_steps_per_instant
        self._instant_steps = 0
        self.trace = trace
        self._queue: list[tuple[SimTime, Any, Handle]] = []
        self._seq = itertools.count()
        self._tie_stream = tie_stream
        self.steps = 0

    # ------------------------------------------------------------------ scheduling
    def call_at(self, when: SimTime, fn: Callable[[], None], *, label: str = "",
                priority: Priority = Priority.NORMAL) -> Handle:
        if when < self.now:
            when = self.now
        handle = Handle(when, fn, label)
        order = priority << _SEQ_BITS | next(self._seq) if self._tie_stream is None else self._tied(priority, self._tie_stream)
        heapq.heappush(self._queue, (when, order, handle))
        return handle

    def call_later(self, delay: SimTime, fn: Callable[[], None], *, label: str = "",
                   priority: Priority = Priority.NORMAL) -> Handle:
        # call_at(now + max(0, delay)) without the second call (every watch delivery comes here)
        when = self.now + delay if delay > 0 else self.now
        handle = Handle(when, fn, label)
        order = priority << _SEQ_BITS | next(self._seq) if self._tie_stream is None else self._tied(priority, self._tie_stream)
        heapq.heappush(self._queue, (when, order, handle))
        return handle

    def call_soon(self, fn: Callable[[], None], *, label: str = "",
                  priority: Priority = Priority.NORMAL) -> Handle:
        return self.call_at(self.now, fn, label=label, priority=priority)

    def _tied(self, priority: Priority, ties: Stream) -> tuple[int, float, int]:
        """The next event's order among those due at the same time when ``ties`` shuffles them
        (without a tie stream, ``priority << _SEQ_BITS | seq``, inline in ``call_at`` and ``call_later``)."""
        return (priority, ties.random(), next(self._seq))

    # ------------------------------------------------------------------ running
    def next_time(self) -> SimTime | None:
        """When the next live event is due, or None when nothing is scheduled."""
        queue = self._queue
        while queue and queue[0][2].cancelled:
            heapq.heappop(queue)
        return queue[0][0] if queue else None

    def _drain(self, deadline: SimTime, max_steps: int,
               predicate: Callable[[], bool] | None = None) -> tuple[str, int]:
        """Run the events due by ``deadline`` in order, at most ``max_steps`` of them, until
        ``predicate()`` (checked after each) holds. Returns how it ended (``_IDLE``, ``_BUDGET``
        or ``_HELD``) and the events it ran; raises on a livelock (more than
        ``max_steps_per_instant`` events at one instant)."""
        queue = self._queue
        pop = heapq.heappop
        done = 0
        while queue:
            when, _, handle = queue[0]
            if handle.cancelled:
                pop(queue)
                continue
            if when > deadline:
                return _IDLE, done
            if done >= max_steps:
                return _BUDGET, done
            pop(queue)
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
            done += 1
            handle.cancelled = True
            handle._fn()
            if predicate is not None and predicate():
                return _HELD, done
        return _IDLE, done

    @_relaxed_gc
    def run_until_idle(self, *, max_steps: int = 1_000_000) -> int:
        """Process every event due at or before now; the clock does not move. Returns steps run."""
        ended, done = self._drain(self.now, max_steps)
        if ended == _BUDGET:
            raise self._budget_error(f"run_until_idle: {max_steps} steps at "
                                     f"t={format_offset(self.now)} without settling")
        return done

    def advance(self, duration: SimTime, *, max_steps: int = 10_000_000) -> None:
        """Move the clock forward by ``duration``, processing due events in order."""
        if duration < 0:
            raise UsageError(f"advance() needs a non-negative duration, got {duration / SECOND} s")
        self.run_to(self.now + duration, max_steps=max_steps)

    @_relaxed_gc
    def run_to(self, deadline: SimTime, *, max_steps: int = 10_000_000) -> None:
        if self._drain(deadline, max_steps)[0] == _BUDGET:
            raise self._budget_error(f"advance: {max_steps} steps before t={format_offset(deadline)}")
        self.now = max(self.now, deadline)

    @_relaxed_gc
    def run_until(self, predicate: Callable[[], bool], *, timeout: SimTime,
                  max_steps: int = 10_000_000, description: str = "") -> SimTime:
        """Advance until ``predicate()`` holds; return the virtual time at which it first held."""
        deadline = self.now + timeout
        if predicate():
            return self.now
        ended, _ = self._drain(deadline, max_steps, predicate)
        if ended == _HELD:
            return self.now
        if ended == _BUDGET:
            raise self._budget_error(f"run_until: {max_steps} steps without the predicate holding")
        nothing_left = self.next_time() is None
        self.now = max(self.now, deadline)
        what = description or getattr(predicate, "__name__", "predicate")
        raise self._budget_error(
            f"run_until: {what} did not hold within {timeout / SECOND:g} s of virtual time "
            f"(now t={format_offset(self.now)}" + (", nothing left to simulate)" if nothing_left else ")"))

    def statistics(self) -> LoopStatistics:
        return LoopStatistics(now=self.now, pending=sum(1 for e in self._queue if not e[2].cancelled),
                              steps=self.steps)

    def _budget_error(self, message: str) -> SimulationError:
        tail = "\n".join(self.trace.tail(30))
        return SimulationError(f"{message}\n--- trace tail ---\n{tail}")
