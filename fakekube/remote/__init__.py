"""Run fakekube's runtime (informers, controllers, event recorders) against a remote API server.

``RemoteSession(kubeconfig)`` reads a kubeconfig (server URL; bearer token, CA and client
certificate when present), builds a :class:`~fakekube.runtime.Runtime` whose server is
:class:`RemoteApiServer` (HTTP/JSON with ``http.client``, errors as fakekube's ``ApiError``
classes, watches as reflectors in reader threads) and drives the local event loop on the
server's clock (``Date`` headers: virtual time on a served ``FakeCluster``, wall time on a real
cluster)::

    session = RemoteSession("~/.kube/config")
    session.runtime  # start controllers on it, then
    session.run()    # until session.stop()
"""

from __future__ import annotations

from fakekube.remote.api import RemoteApiServer
from fakekube.remote.kubeconfig import Connection, load_kubeconfig
from fakekube.remote.session import RemoteSession
from fakekube.remote.transport import ServerClock

__all__ = ["Connection", "RemoteApiServer", "RemoteSession", "ServerClock", "load_kubeconfig"]
