"""What a client holds of a watch it started: :class:`WatchHandle`.

``Client.watch`` hands back the server's watch: the in-process API server's ``Watch``
(:mod:`fakekube.apiserver.server`) or, when the runtime runs against a remote API server,
a ``RemoteWatch`` (:mod:`fakekube.remote.watch`), a reflector in a reader thread. Informers,
the garbage collector and the harness's watch streams only ever stop it; this protocol says
so, and both satisfy it.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["WatchHandle"]


class WatchHandle(Protocol):
    """A started watch: events reach its handler until ``stop()``; none is handed on after."""

    def stop(self) -> None: ...
