"""The reconcile runner: a deduplicating work queue on virtual time (controller-runtime's contract).

- ``enqueue(key)`` queues a key once; enqueueing a queued key earlier moves it earlier.
- A reconcile returns ``Result(requeue_after=…)`` or None.
- ``TerminalError`` drops the key (and forgets its failures).
- An exception of a ``retry_on`` type (by default ``ApiError``: a Conflict, a NotFound race)
  requeues the key after ``backoff.delay(n)``, where ``n`` counts the key's consecutive failures
  (client-go's ``ItemExponentialFailureRateLimiter``: by default 5 ms · 2ⁿ, capped at 1000 s,
  controller-runtime's default); a pass that returns normally forgets them. Every retry is
  traced in one format: ``<name> <verb> <ns>/<name> error <code> <reason>: <message> (retry in
  <s>s)`` for an ``ApiError``, ``… error: <text> (retry in <s>s)`` for any other retried error.
- A :class:`~fakekube.errors.SimulationError` (a budget ran out) stops the simulation: it
  propagates out of the loop, strict or not.
- Any other exception is a bug: in ``strict`` mode (the default) it propagates out of the loop
  into the test that is running the simulation, so failures are never silently ignored; with
  ``strict=False`` it is traced as a crash and retried by the same rule.

This is the one retry rule of fakekube and the reference controller: components pass their own
``Backoff`` (the Job controller's is upstream's 1 s doubling to 60 s) and error types, never
their own counters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from fakekube._core.clock import MILLISECOND, SECOND, SimTime
from fakekube._core.loop import EventLoop, Handle, Priority
from fakekube._core.trace import Trace
from fakekube.errors import ApiError, SimulationError, UsageError

__all__ = ["DEFAULT_BACKOFF", "Backoff", "Controller", "Result", "TerminalError"]

Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Backoff:
    """Per-key exponential failure backoff: the n-th consecutive failure (from 0) waits ``base · 2ⁿ``,
    never more than ``cap`` (client-go ``NewItemExponentialFailureRateLimiter(base, cap)``)."""

    base: SimTime
    cap: SimTime

    def __post_init__(self) -> None:
        for field_name in ("base", "cap"):
            value = getattr(self, field_name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise UsageError(f"Backoff.{field_name} must be a positive number of nanoseconds, got {value!r}")
        if self.cap < self.base:
            raise UsageError(f"Backoff.cap ({self.cap}) must not be less than Backoff.base ({self.base})")

    def delay(self, failures: int) -> SimTime:
        """The wait before retrying after ``failures`` earlier consecutive failures (0 for the first)."""
        if failures < 0:
            raise UsageError(f"Backoff.delay needs a failure count >= 0, got {failures}")
        if failures >= self.cap.bit_length():  # base · 2ⁿ >= 2ⁿ > cap: no need for a huge power
            return self.cap
        return min(self.base << failures, self.cap)


DEFAULT_BACKOFF = Backoff(5 * MILLISECOND, 1000 * SECOND)
"""controller-runtime's default per-item rate limiter."""


@dataclass(frozen=True, slots=True)
class Result:
    requeue_after: SimTime = 0


class TerminalError(Exception):
    """Reconciling this key cannot succeed by retrying; drop it."""


class Controller:
    """Runs ``reconcile(key)`` for queued keys, one at a time, as loop events."""

    def __init__(self, name: str, loop: EventLoop, trace: Trace, reconcile: Callable[[Key], Result | None], *,
                 strict: bool = True, priority: Priority = Priority.NORMAL, backoff: Backoff = DEFAULT_BACKOFF,
                 retry_on: tuple[type[Exception], ...] = (ApiError,), verb: str = "reconcile") -> None:
        """``backoff`` and ``retry_on`` are the retry rule; ``verb`` names one pass in the trace
        (``"reconcile"``; the Job controller says ``"sync"``, after upstream's ``syncJob``)."""
        if not isinstance(backoff, Backoff):
            raise UsageError(f"Controller backoff must be a Backoff(base, cap), got {backoff!r}")
        if not isinstance(retry_on, tuple) or not all(
                isinstance(t, type) and issubclass(t, Exception) for t in retry_on):
            raise UsageError(f"Controller retry_on must be a tuple of exception types, got {retry_on!r}")
        self.name = name
        self.loop = loop
        self.trace = trace
        self._reconcile = reconcile
        self.strict = strict
        self.priority = priority
        self.backoff = backoff
        self.retry_on = retry_on
        self.verb = verb
        self._queued: dict[Key, Handle] = {}
        self._failures: dict[Key, int] = {}
        self.reconciles = 0
        self.stopped = False

    def enqueue(self, key: Key, after: SimTime = 0) -> None:
        if self.stopped:
            return
        when = self.loop.now + after if after > 0 else self.loop.now
        handle = self._queued.get(key)
        if handle is not None and not handle.cancelled:
            if handle.when <= when:
                return
            handle.cancel()
        # The label is the controller's name (formatting the key cost ~1 µs a queued key; nothing reads
        # it); a partial, not a lambda: one Python frame less per work item.
        self._queued[key] = self.loop.call_at(when, partial(self._run, key), label=self.name, priority=self.priority)

    def _run(self, key: Key) -> None:
        self._queued.pop(key, None)
        if self.stopped:
            return
        self.reconciles += 1
        try:
            result = self._reconcile(key)
        except TerminalError as err:
            self.trace.add(f"{self.name} {self.verb} {key[0]}/{key[1]} terminal error: {err}")
            self._failures.pop(key, None)
            return
        except SimulationError as err:  # a budget: the simulation stops here, strict or not
            self.trace.add(f"{self.name} {self.verb} {key[0]}/{key[1]} stopped the simulation: {err}")
            raise
        except Exception as err:
            retried = isinstance(err, self.retry_on)
            if not retried:
                self.trace.add(f"{self.name} {self.verb} {key[0]}/{key[1]} crashed: {type(err).__name__}: {err}")
                if self.strict:
                    raise
            n = self._failures.get(key, 0)
            self._failures[key] = n + 1
            delay = self.backoff.delay(n)
            if retried:
                self.trace.add(f"{self.name} {self.verb} {key[0]}/{key[1]} error{_describe(err)} "
                               f"(retry in {delay / SECOND:g}s)")
            self.enqueue(key, delay)
            return
        self._failures.pop(key, None)
        if result is not None and result.requeue_after > 0:
            self.enqueue(key, result.requeue_after)

    def stop(self) -> None:
        self.stopped = True
        for handle in self._queued.values():
            handle.cancel()
        self._queued.clear()

    def start(self) -> None:
        self.stopped = False

    @property
    def queued(self) -> list[Key]:
        return sorted(self._queued)


def _describe(err: Exception) -> str:
    """The error part of a retry line: ``" <code> <reason>: <message>"`` for an API Status, else ``": <text>"``."""
    if isinstance(err, ApiError):
        return f" {err.code} {err.reason}: {err.message}"
    return f": {err}"
