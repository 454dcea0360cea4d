"""The client fakekube's simulators use (internal): :class:`~fakekube.runtime.client.Client`'s verbs
without its copies.

The scheduler, kubelet, Job controller, DNS, garbage collector, informers and event recorders
touch every pod several times; copying each object at every crossing would dominate their cost.
So objects cross this client as the server's own:

- **Results are frozen; never mutate them.** ``get``, ``list``, watch events and what a write
  returns are the stored objects, shared with every other reader. To change one, copy it
  (``fakekube._core.jsonutil.deep_copy``) and write the copy.
- **Bodies are taken, not copied.** The server keeps (and edits) the dict passed to ``create``,
  ``update`` and ``update_status``: pass only a body built for the call, with a ``metadata``
  dict of its own, that shares nothing mutable with anything the caller keeps, and never touch
  it afterwards. Other subtrees may be shared with stored (frozen) objects: the server replaces
  them, it never edits them in place. Anything else the caller still holds must be
  deep-copied first.

``FakeCluster(check_frozen=True)`` (every conformance scenario) fails on the first stored object
edited in place. User controllers get the copying ``Client`` from ``Runtime.client``.
"""

from __future__ import annotations

from fakekube.runtime.client import _Verbs

__all__ = ["SharedClient", "SimulatorClient"]


class SharedClient(_Verbs):
    """Client verbs over the server's frozen objects: results are frozen (never mutate them),
    bodies become the server's (never touch them again)."""

    _shares = True


class SimulatorClient(SharedClient):
    """A ``SharedClient`` whose writes are trusted: the API server skips the defaulting and
    validation they cannot need (``FakeCluster(strict=True)`` checks that claim on every write).
    Only ``Runtime.shared_client`` hands it out, to the components named in
    ``fakekube.runtime.context.SIMULATORS``."""

    _trusted = True
