"""What the HTTP front end needs of the cluster it serves: :class:`ServedCluster`.

The front end serves "a cluster": its API server, the event loop whose virtual time the
answers carry and the served clocks move, and the lock every request, harness call and clock
step takes. ``FakeCluster`` is one (``FakeCluster.serve`` starts the server); nothing in
``fakekube.http`` imports it.
"""

from __future__ import annotations

import threading
from typing import Protocol

from fakekube._core.loop import EventLoop
from fakekube.apiserver.server import ApiServer

__all__ = ["ServedCluster"]


class ServedCluster(Protocol):
    """A cluster the HTTP front end can serve (read-only members: the server never replaces them)."""

    @property
    def api(self) -> ApiServer:
        """The API server requests are answered by."""
        ...

    @property
    def loop(self) -> EventLoop:
        """The event loop: its ``now`` is every answer's time; requests settle it, clocks advance it."""
        ...

    @property
    def lock(self) -> threading.RLock:
        """Held around everything that touches the loop or the store (re-entrant)."""
        ...

    @property
    def elapsed(self) -> float:
        """Virtual seconds since the cluster started (for messages)."""
        ...
