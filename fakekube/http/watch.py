"""A watch leaving the simulation: from the event loop to an HTTP handler thread.

The loop (run by whichever thread holds the cluster lock) hands events to :class:`WatchQueue`;
the handler thread that owns the HTTP stream takes them out and writes them. The queue is
bounded: a watcher that falls more than ``limit`` events behind is cut off with one ``ERROR``
event carrying a 410 ``Expired`` Status, as kube-apiserver's cacher drops an unresponsive
watcher, and the client re-lists. Objects in the queue are the store's frozen objects (never
edited in place), so the handler thread may serialise them without the lock. Each event keeps
the virtual instant the loop delivered it at: a Table row's ages are computed at that instant,
as kube-apiserver renders a row when it sends the event, not whenever the stream thread runs.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from fakekube.apiserver.server import WatchEvent

__all__ = ["WatchQueue", "expired_status"]

DEFAULT_LIMIT = 10_000


def expired_status(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": "Expired", "code": 410}


class WatchQueue:
    """Bounded hand-over of watch events between the loop and one stream."""

    def __init__(self, limit: int = DEFAULT_LIMIT, on_take: Callable[[], None] = lambda: None) -> None:
        """``on_take`` runs as events leave the queue, before it reads empty (the quiescent clock
        counts that as activity, so "nothing pending and quiet" never misses an event in transit)."""
        self.limit = limit
        self._on_take = on_take
        self._events: deque[tuple[WatchEvent, int]] = deque()
        self._cond = threading.Condition(threading.Lock())
        self.closed = False
        self.overflowed = False

    def put(self, event: WatchEvent, at: int = 0) -> None:
        """Called by the loop at virtual instant ``at``. Never blocks: overflow closes the stream instead."""
        with self._cond:
            if self.closed:
                return
            if len(self._events) >= self.limit:
                self._events.clear()
                self._events.append((WatchEvent("ERROR", expired_status(
                    f"watch closed: the client fell more than {self.limit} events behind; list again")), at))
                self.overflowed = True
                self.closed = True
            else:
                self._events.append((event, at))
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify()

    def take(self, timeout: float) -> list[tuple[WatchEvent, int]] | None:
        """Every queued event with its instant (waiting up to ``timeout`` wall seconds for one); None once
        closed and drained."""
        with self._cond:
            if not self._events and not self.closed:
                self._cond.wait(timeout)
            if self._events:
                self._on_take()
                out = list(self._events)
                self._events.clear()
                return out
            return None if self.closed else []

    def __len__(self) -> int:
        return len(self._events)
