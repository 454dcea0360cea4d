"""The reconcile runner: a deduplicating work queue on virtual time (controller-runtime's contract).

- ``enqueue(key)`` queues a key once; enqueueing a queued key earlier moves it earlier.
- A reconcile returns ``Result(requeue_after=…)`` or None.
- ``TerminalError`` drops the key; an ``ApiError`` (a Conflict, a NotFound race) requeues the
  key with per-key exponential backoff (5 ms · 2ⁿ, capped at 1000 s) on virtual time.
- Any other exception is a bug: in ``strict`` mode (the default) it propagates out of the loop
  into the test that is running the simulation, so failures are never silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fakekube._core.clock import MILLISECOND, SECOND, SimTime
from fakekube._core.loop import EventLoop, Handle, Priority
from fakekube._core.trace import Trace
from fakekube.errors import ApiError

__all__ = ["Controller", "Result", "TerminalError"]

Key = tuple[str, str]
BASE_BACKOFF = 5 * MILLISECOND
MAX_BACKOFF = 1000 * SECOND


@dataclass(frozen=True, slots=True)
class Result:
    requeue_after: SimTime = 0


class TerminalError(Exception):
    """Reconciling this key cannot succeed by retrying; drop it."""


class Controller:
    """Runs ``reconcile(key)`` for queued keys, one at a time, as loop events."""

    def __init__(self, name: str, loop: EventLoop, trace: Trace, reconcile: Callable[[Key], Result | None], *,
                 strict: bool = True, priority: Priority = Priority.NORMAL) -> None:
        self.name = name
        self.loop = loop
        self.trace = trace
        self._reconcile = reconcile
        self.strict = strict
        self.priority = priority
        self._queued: dict[Key, Handle] = {}
        self._failures: dict[Key, int] = {}
        self.reconciles = 0
        self.stopped = False

    def enqueue(self, key: Key, after: SimTime = 0) -> None:
        if self.stopped:
            return
        when = self.loop.now + max(0, after)
        handle = self._queued.get(key)
        if handle is not None and not handle.cancelled:
            if handle.when <= when:
                return
            handle.cancel()
        self._queued[key] = self.loop.call_at(when, lambda: self._run(key), label=f"{self.name} {key}",
                                              priority=self.priority)

    def _run(self, key: Key) -> None:
        self._queued.pop(key, None)
        if self.stopped:
            return
        self.reconciles += 1
        try:
            result = self._reconcile(key)
        except TerminalError as err:
            self.trace.add(f"{self.name} reconcile {key[0]}/{key[1]} terminal error: {err}")
            self._failures.pop(key, None)
            return
        except ApiError as err:
            n = self._failures.get(key, 0)
            self._failures[key] = n + 1
            delay = min(BASE_BACKOFF * (2**n), MAX_BACKOFF)
            self.trace.add(f"{self.name} reconcile {key[0]}/{key[1]} error {err.code} {err.reason}: "
                           f"{err.message} (retry in {delay / SECOND:g}s)")
            self.enqueue(key, delay)
            return
        except Exception as err:
            self.trace.add(f"{self.name} reconcile {key[0]}/{key[1]} crashed: {type(err).__name__}: {err}")
            if self.strict:
                raise
            self.enqueue(key, BASE_BACKOFF)
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
