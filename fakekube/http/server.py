"""Serve a :class:`~fakekube.FakeCluster` over HTTP, so real clients and kubectl can talk to it.

A thin translation layer on the in-process API server: decode (JSON or YAML only, bounded) →
the same request path as in-process calls → encode (a ``Status`` on every error, a ``Table``
when asked). One lock serialises requests, harness calls from the test thread and the clock
driver against the event loop; every write is settled (``run_until_idle``) before its answer
is sent. Watch streams take their events from bounded queues the loop fills.

TLS is the default, as kube-apiserver serves (:mod:`fakekube.http.tls`: a CA drawn per server); each
accepted connection's handshake runs on its own handler thread, never on the accepting one.

The standard library's threading server is used (see ``docs/http.md`` for the measurements
behind that choice): it starts in a millisecond, needs no event loop of its own, and with
``TCP_NODELAY`` answers a keep-alive GET in well under a millisecond.
"""

from __future__ import annotations

import hmac
import http.client
import json
import os
import secrets
import shutil
import socket
import ssl
import tempfile
import threading
import traceback
from collections import deque
from collections.abc import Callable
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Generic, TypeVar, cast
from urllib.parse import parse_qsl, urlsplit

from fakekube._core.served_time import RATE_HEADER, TIME_HEADER, WAKE_HEADER, parse_wake
from fakekube.clock import format_micro_time, to_datetime
from fakekube.errors import BadRequest, SimulationError
from fakekube.http.clocks import ClockDriver, QuiescentClock, make_clock, wall
from fakekube.http.kubeconfig import write_kubeconfig
from fakekube.http.requests import RequestHandler, Response
from fakekube.http.served import ServedCluster
from fakekube.http.tls import ServerTLS, make_tls
from fakekube.http.watch import DEFAULT_LIMIT, WatchQueue

__all__ = ["ClusterServer", "http_date"]

#: The type of the cluster a ``ClusterServer`` serves (``FakeCluster``): ``server.cluster`` is one.
Cluster_co = TypeVar("Cluster_co", bound=ServedCluster, covariant=True)

IDLE_TIMEOUT = 60.0  # wall seconds a keep-alive connection may sit idle
HANDSHAKE_TIMEOUT = 10.0  # wall seconds a client has for its TLS handshake
#: What a socket raises when the client went away (a reset, a TLS alert): the end of its
#: connection, as Go's server takes it, never a server error.
CLIENT_GONE = (ConnectionError, ssl.SSLError)
#: Go's net/http answers plain HTTP on a TLS port with this (kube-apiserver does).
PLAIN_HTTP_ON_TLS = b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
TLS_HANDSHAKE = 0x16  # the first byte of a TLS record carrying a handshake


def http_date(t: int) -> str:
    """The virtual instant ``t`` as an HTTP ``Date`` (RFC 7231 IMF-fixdate, whole seconds)."""
    return format_datetime(to_datetime(t).replace(microsecond=0), usegmt=True)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], app: ClusterServer[ServedCluster], tls: ssl.SSLContext | None) -> None:
        self.app = app
        self.tls = tls
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = super().get_request()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls is not None:  # the handshake itself runs on the handler's thread (_Handler.setup)
            sock = self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        with self.connections_lock:
            self.connections.add(sock)
        return sock, addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection's failure goes to ``ClusterServer.errors``, never to stderr."""
        self.app.errors.append(traceback.format_exc())

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self.connections_lock:
            socks = list(self.connections)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakekube"
    sys_version = ""
    server: _HTTPServer

    def setup(self) -> None:
        self.timeout = self.server.app.idle_timeout  # type: ignore[misc]  # typeshed: ClassVar; setup() reads it per instance
        super().setup()
        self.handshaken = True
        if isinstance(self.connection, ssl.SSLSocket):
            self.handshaken = self._handshake(self.connection)

    def _handshake(self, conn: ssl.SSLSocket) -> bool:
        """Complete the TLS handshake; a client speaking plain HTTP gets Go's plain-text 400, and
        one that fails the handshake (an untrusted CA, a port scan) is dropped."""
        conn.settimeout(HANDSHAKE_TIMEOUT)
        try:
            first = socket.socket.recv(conn, 1, socket.MSG_PEEK)  # the raw bytes, under the TLS layer
            if first and first[0] != TLS_HANDSHAKE:
                socket.socket.sendall(conn, PLAIN_HTTP_ON_TLS)
                return False
            conn.do_handshake()
        except (OSError, ValueError):  # ssl.SSLError is an OSError
            return False
        conn.settimeout(self.timeout)
        return True

    def handle(self) -> None:
        """Serve the connection's requests. A client that goes away mid-connection (a reset, or a
        TLS alert such as an untrusted CA sent after the server's side of a TLS 1.3 handshake has
        finished) ends the connection quietly, as Go's server does: it is not a server error."""
        if not self.handshaken:
            return
        try:
            super().handle()
        except CLIENT_GONE:
            self.close_connection = True

    def date_time_string(self, timestamp: float | None = None) -> str:
        """Every response's ``Date`` is the cluster's virtual time, so a client out of process (the
        remote transport, ``fakekube.remote``) can follow the server's clock."""
        if timestamp is not None:
            return super().date_time_string(timestamp)
        return http_date(self.server.app.cluster.loop.now)

    def send_response(self, code: int, message: str | None = None) -> None:
        super().send_response(code, message)
        app = self.server.app
        self.send_header(TIME_HEADER, format_micro_time(app.cluster.loop.now))
        self.send_header(RATE_HEADER, f"{app.clock.rate:g}")

    def _serve(self) -> None:
        self.server.app.handle(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors the standard library raises itself (a too-long URL, bad headers) as a Status."""
        reason = {400: "BadRequest", 414: "RequestURITooLong", 431: "RequestHeaderFieldsTooLarge",
                  501: "MethodNotAllowed"}.get(code, "BadRequest")
        status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": message or explain or "bad request", "reason": reason, "code": code}
        body = json.dumps(status).encode()
        try:
            self.send_response(code, message)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except OSError:
            pass
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: requests are kept in ``ClusterServer.requests`` instead of stderr."""


class ClusterServer(Generic[Cluster_co]):
    """A running HTTP server for one cluster; use as a context manager.

    ``url`` is ``https://127.0.0.1:<port>`` (``http://`` with ``tls=False``); ``kubeconfig`` the
    path of a kubeconfig written for it (cluster, context and user ``fakekube``, namespace
    ``default``, the user's bearer token ``token``, the server's CA as
    ``certificate-authority-data``). For raw HTTP: ``ca_file`` (the CA's PEM), ``ssl_context`` (a
    client context that trusts it) and ``connect()`` (an ``http.client`` connection to the server).

    Authentication is kube-apiserver's with anonymous requests allowed: a request without an
    ``Authorization`` header is served, and one that presents anything but this server's own
    ``Bearer <token>`` gets 401 ``Unauthorized``. Each server draws a new token, so a client left
    running from an earlier server (a stray operator or controller process in a parallel test
    run) cannot act on a later server that reuses its port.
    """

    def __init__(self, cluster: Cluster_co, *, host: str = "127.0.0.1", port: int = 0, clock: str = "manual",
                 speed: float = 1.0, quiet_ms: float = 50.0, kubeconfig: str | os.PathLike[str] | None = None,
                 idle_timeout: float = IDLE_TIMEOUT, watch_queue_limit: int | None = None,
                 tls: bool = True) -> None:
        self.cluster: Cluster_co = cluster
        self.lock: threading.RLock = cluster.lock
        self.clock: ClockDriver = make_clock(cluster, self.lock, clock, speed=speed, quiet_ms=quiet_ms)
        self.idle_timeout = idle_timeout
        self.requests: deque[str] = deque(maxlen=1000)
        self.errors: list[str] = []
        #: What the simulation could not take when time brought it (a budget, ``SimulationError``), each
        #: once, in order; a request that hits one answers 500 with it instead. Time goes on after each.
        self.simulation_errors: list[str] = []
        self._watches: set[WatchQueue] = set()
        self._watches_lock = threading.Lock()
        self.watch_queue_limit = watch_queue_limit
        self._handler = RequestHandler(self)
        self._tmpdir = tempfile.mkdtemp(prefix="fakekube-")
        self._tls: ServerTLS | None = make_tls(host, self._tmpdir) if tls else None
        try:
            self._httpd = _HTTPServer((host, port), self, self._tls.server_context if self._tls else None)
        except BaseException:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            raise
        # server_bind() reads the address back from the bound socket: an AF_INET(6) socket's is (str, int, ...)
        self.host, self.port = cast(tuple[str, int], self._httpd.server_address[:2])
        if kubeconfig is None:
            kubeconfig = Path(self._tmpdir) / "kubeconfig"
        self.kubeconfig = str(kubeconfig)
        self.token = secrets.token_urlsafe(24)  # not the simulation's randomness: no seed decides it
        self._authorization = f"Bearer {self.token}"
        write_kubeconfig(self.kubeconfig, self.url, token=self.token,
                         ca_pem=self._tls.ca_pem if self._tls else None)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"fakekube-http-{self.port}", daemon=True)
        self._closed = False
        self._thread.start()
        self.clock.start(busy=self.watches_pending, on_stop=self._clock_stopped)

    # ------------------------------------------------------------------ public
    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in str(self.host) else self.host
        return f"{'https' if self._tls else 'http'}://{host}:{self.port}"

    @property
    def tls(self) -> bool:
        """Whether the server speaks TLS (the default)."""
        return self._tls is not None

    @property
    def ca_file(self) -> str | None:
        """The path of the server's CA certificate (PEM), for ``curl --cacert``; ``None`` without TLS.
        Removed on close."""
        return self._tls.ca_file if self._tls else None

    @property
    def ssl_context(self) -> ssl.SSLContext | None:
        """A client-side ``ssl.SSLContext`` that trusts the server's CA; ``None`` without TLS."""
        return self._tls.client_context if self._tls else None

    def connect(self, timeout: float | None = 10.0) -> http.client.HTTPConnection:
        """A new ``http.client`` connection to the server (HTTPS with :attr:`ssl_context` over TLS)."""
        if self._tls is not None:
            return http.client.HTTPSConnection(str(self.host), self.port, timeout=timeout,
                                               context=self._tls.client_context)
        return http.client.HTTPConnection(str(self.host), self.port, timeout=timeout)

    @property
    def open_watches(self) -> int:
        """How many watch streams are open now (to wait, in wall time, until a client watches or stopped)."""
        with self._watches_lock:
            return len(self._watches)

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 5.0, interval: float | None = None) -> Any:
        """Poll ``predicate`` every ``interval`` WALL seconds until it is truthy.

        Returns its value; raises the builtin ``TimeoutError`` after ``timeout`` wall seconds. For
        waiting on a client outside the test thread (an operator, kubectl in a subprocess).

        The predicate runs WITHOUT the cluster lock, so it may ask the served cluster through a
        client (kubectl, the ``kubernetes`` client) while handlers and the clock go on. Each
        harness call in it (``cluster.get``, ``cluster.events``...) is atomic on its own; to read
        several things at one instant, take ``server.lock`` inside the predicate around those
        reads (never around a client's request: the server needs the lock to answer it).

        ``interval`` defaults to 0.01, and under the quiescent clock to twice its ``quiet_ms``: a
        predicate that asks the server is a request, and polling faster than ``quiet_ms`` would
        keep the clock from ever finding the cluster quiet.
        """
        if interval is None:
            interval = max(0.01, 2 * self.clock.quiet) if isinstance(self.clock, QuiescentClock) else 0.01
        deadline = wall() + timeout
        stop = threading.Event()
        while True:
            value = predicate()
            if value:
                return value
            if wall() >= deadline:
                stopped = "".join(f"; the simulation could not take: {message}" for message in self.simulation_errors)
                raise TimeoutError(f"wait_for: the predicate did not hold within {timeout:g} wall seconds "
                                   f"(virtual time t={self.cluster.elapsed:g}s){stopped}")
            stop.wait(interval)

    def close(self) -> None:
        """Stop serving: ends every watch stream, closes every connection, removes the kubeconfig."""
        if self._closed:
            return
        self._closed = True
        self.clock.stop()
        with self._watches_lock:
            watches = list(self._watches)
        for queue in watches:
            queue.close()
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        self._thread.join(timeout=5)
        shutil.rmtree(self._tmpdir, ignore_errors=True)

    def __enter__(self) -> ClusterServer[Cluster_co]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ClusterServer {self.url} clock={self.clock.name}{' closed' if self._closed else ''}>"

    # ------------------------------------------------------------------ internals
    @property
    def closed(self) -> bool:
        return self._closed

    def open_watch(self) -> WatchQueue:
        queue = WatchQueue(self.watch_queue_limit or DEFAULT_LIMIT, on_take=self.clock.delivered)
        with self._watches_lock:
            self._watches.add(queue)
        if self._closed:
            queue.close()
        return queue

    def close_watch(self, queue: WatchQueue) -> None:
        queue.close()
        with self._watches_lock:
            self._watches.discard(queue)

    def _clock_stopped(self, err: BaseException) -> None:
        if isinstance(err, SimulationError):
            if str(err) not in self.simulation_errors:  # each retry of the same object says it again
                self.simulation_errors.append(str(err))
        else:  # a crash of the simulation: recorded as a connection's is, never on stderr
            self.errors.append("".join(traceback.format_exception(err)))

    def watches_pending(self) -> bool:
        """Some watch stream has events not yet written to its client."""
        with self._watches_lock:
            return any(len(q) for q in self._watches)

    def handle(self, h: _Handler) -> None:
        url = urlsplit(h.path)
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        self.requests.append(f"{h.command} {h.path}")
        self.clock.request_started()
        streaming = False
        try:
            response = self._refused(h)
            if response is None:
                wake = h.headers.get(WAKE_HEADER)
                response = self._wake_at(h, wake) if wake is not None else None
            if response is None:
                response = self._handler.handle(h.command, url.path, query, h.headers, h.rfile)
            if response.stream is not None:
                streaming = True
                self.clock.request_finished()  # an open watch is not a request in flight
                self._write_stream(h, response)
            else:
                self._write(h, response)
        except CLIENT_GONE:  # mid-answer
            h.close_connection = True
        except Exception as err:  # never a traceback on the wire
            self.errors.append("".join(traceback.format_exception(err)))
            if not isinstance(err, OSError):
                try:
                    self._write(h, Response.internal_error())
                except OSError:
                    pass
            h.close_connection = True
        finally:
            if not streaming:
                self.clock.request_finished()

    def _refused(self, h: _Handler) -> Response | None:
        """401 for credentials other than this server's token (none at all is anonymous, served)."""
        credentials = h.headers.get("Authorization")
        if credentials is None or hmac.compare_digest(credentials.encode(), self._authorization.encode()):
            return None
        return Response.unauthorized()

    def _wake_at(self, h: _Handler, value: str) -> Response | None:
        """Take a client's announced next timer (``X-Fakekube-Wake-At``, see
        :mod:`fakekube._core.served_time`); a malformed value is the request's 400."""
        try:
            instant = parse_wake(value)
        except ValueError:
            return Response.status(BadRequest(f"{WAKE_HEADER} must be an RFC 3339 time in UTC "
                                              f"(2030-01-01T00:00:20.500000Z), 'now' or 'none', got {value!r}").status)
        self.clock.wake_at(h.headers.get("User-Agent") or "", instant)
        return None

    @staticmethod
    def _write(h: _Handler, response: Response) -> None:
        body = response.body
        h.send_response(response.code)
        h.send_header("Content-Type", response.content_type)
        h.send_header("Cache-Control", "no-cache, private")
        for name, value in response.headers:
            h.send_header(name, value)
        h.send_header("Content-Length", str(len(body)))
        if response.close:
            h.send_header("Connection", "close")
            h.close_connection = True
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)

    def _write_stream(self, h: _Handler, response: Response) -> None:
        assert response.stream is not None
        h.send_response(response.code)
        h.send_header("Content-Type", response.content_type)
        h.send_header("Cache-Control", "no-cache, private")
        h.send_header("Transfer-Encoding", "chunked")
        for name, value in response.headers:
            h.send_header(name, value)
        h.end_headers()
        client = h.headers.get("User-Agent") or ""
        try:
            for chunk in response.stream:
                self.clock.delivered(client)  # before the client can read it
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            h.wfile.write(b"0\r\n\r\n")
        except OSError:
            h.close_connection = True
