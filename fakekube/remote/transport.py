"""HTTP/JSON to one API server with the standard library's ``http.client``: one keep-alive
connection per thread, a ``Status`` error answer raised as its ``ApiError`` subclass, and every
response's ``Date`` header handed to the :class:`ServerClock` so the caller follows the server's
time (virtual time on a served fake cluster, wall time on a real one)."""

from __future__ import annotations

import http.client
import json
import ssl
import threading
import time
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from fakekube._core.served_time import RATE_HEADER, TIME_HEADER
from fakekube.clock import SECOND, SimTime, epoch, parse_time
from fakekube.errors import ApiError, InternalError
from fakekube.remote.kubeconfig import Connection

__all__ = ["ServerClock", "Transport", "wall"]

TIMEOUT = 30.0  # wall seconds for one request's answer (watches use their own, longer timeout)


def wall() -> float:
    return time.monotonic()  # noqa: TID251  # noqa: wall-clock (the remote clock follows the server's between answers)


def _instant(date: str | None, precise: str | None) -> SimTime | None:
    try:
        if precise:
            return parse_time(precise)
        if date:
            delta = parsedate_to_datetime(date) - epoch()
            return (delta.days * 86_400 + delta.seconds) * SECOND + delta.microseconds * 1000
    except (TypeError, ValueError):
        pass
    return None


def _rate(text: str | None) -> float:
    try:
        value = float(text) if text else 1.0
    except ValueError:
        return 1.0
    return value if value >= 0 and value != float("inf") else 1.0


class ServerClock:
    """The server's time as last seen in a ``Date`` header plus the time elapsed since (wall time,
    or the clock rate a served fake cluster states: none under its manual and quiescent clocks).

    Dates have whole seconds, so against a real server the estimate may trail it by up to a second
    (a served fake cluster also sends ``X-Fakekube-Time``, to the microsecond); it never goes
    backwards."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: SimTime | None = None
        self._seen_at = 0.0
        self._floor: SimTime | None = None  # none yet: the server's time may lie before our epoch
        self._rate = 1.0

    def observe(self, date: str | None, precise: str | None = None, rate: str | None = None) -> None:
        """Take an answer's time: ``precise`` (``X-Fakekube-Time``, microseconds) when a served fake
        cluster sent it, else ``Date``; ``rate`` is its ``X-Fakekube-Clock-Rate``."""
        t = _instant(date, precise)
        if t is None:
            return
        speed = _rate(rate)
        with self._lock:
            if self._seen is not None:
                self._floor = self._estimate_locked()
            self._seen, self._seen_at, self._rate = t, wall(), speed

    def _estimate_locked(self) -> SimTime:
        if self._seen is None:
            return 0
        estimate = self._seen + round((wall() - self._seen_at) * self._rate * 1e9)
        return estimate if self._floor is None else max(self._floor, estimate)

    @property
    def seen_at(self) -> float:
        """The wall instant of the latest ``Date`` seen."""
        return self._seen_at

    @property
    def known(self) -> bool:
        return self._seen is not None

    def now(self) -> SimTime:
        with self._lock:
            return self._estimate_locked()


class Transport:
    """Requests to the server of ``connection``; safe to use from several threads."""

    def __init__(self, connection: Connection, clock: ServerClock, *, user_agent: str = "fakekube-remote") -> None:
        self.connection = connection
        self.clock = clock
        self.user_agent = user_agent
        url = urlsplit(connection.server)
        self.https = url.scheme == "https"
        self.host = url.hostname or "localhost"
        self.port = url.port or (443 if self.https else 80)
        self.prefix = url.path.rstrip("/")
        self._local = threading.local()
        self._ssl: ssl.SSLContext | None = None
        if self.https:
            ctx = ssl.create_default_context(cafile=connection.ca_file)
            if connection.insecure:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            if connection.cert_file:
                ctx.load_cert_chain(connection.cert_file, connection.key_file)
            self._ssl = ctx

    def observe(self, response: http.client.HTTPResponse) -> None:
        """Hand an answer's time to the clock (``Date``, and a served fake cluster's own headers)."""
        self.clock.observe(response.getheader("Date"), response.getheader(TIME_HEADER),
                           response.getheader(RATE_HEADER))

    def open(self, timeout: float | None = TIMEOUT) -> http.client.HTTPConnection:
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self._ssl)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def headers(self, content_type: str | None = None, user_agent: str | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": user_agent or self.user_agent}
        if content_type:
            headers["Content-Type"] = content_type
        if self.connection.token:
            headers["Authorization"] = f"Bearer {self.connection.token}"
        return headers

    def url(self, path: str, query: dict[str, str] | None = None) -> str:
        return self.prefix + path + (f"?{urlencode(query)}" if query else "")

    def request(self, method: str, path: str, *, query: dict[str, str] | None = None, body: Any = None,
                content_type: str = "application/json", user_agent: str | None = None,
                warnings: list[str] | None = None, headers: dict[str, str] | None = None) -> Any:
        """The decoded JSON answer; a non-2xx answer raises its ``ApiError``. ``headers`` are sent
        beside the standard ones."""
        data = None
        if body is not None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        headers = {**self.headers(content_type if data is not None else None, user_agent), **(headers or {})}
        target = self.url(path, query)
        for attempt in (0, 1):  # a keep-alive connection the server closed is retried once
            conn = getattr(self._local, "conn", None)
            if conn is None:
                conn = self._local.conn = self.open()
            try:
                conn.request(method, target, body=data, headers=headers)
                response = conn.getresponse()
                raw = response.read()
            except (http.client.HTTPException, OSError):
                conn.close()
                self._local.conn = None
                if attempt:
                    raise
                continue
            break
        self.observe(response)
        if warnings is not None:
            for value in response.headers.get_all("Warning") or []:
                text = value.split(" ", 2)[-1].strip().strip('"')
                warnings.append(text)
        try:
            decoded = json.loads(raw) if raw else {}
        except ValueError:
            decoded = None
        if 200 <= response.status < 300:
            return decoded
        if isinstance(decoded, dict) and decoded.get("kind") == "Status":
            raise ApiError.from_status(decoded)
        raise InternalError(f"the server answered {response.status} {response.reason} to {method} {path}: "
                            f"{raw[:200].decode(errors='replace')}")

    def request_object(self, method: str, path: str, *, query: dict[str, str] | None = None, body: Any = None,
                       content_type: str = "application/json", user_agent: str | None = None,
                       warnings: list[str] | None = None) -> dict[str, Any]:
        """:meth:`request` for an answer that must be a JSON object (every API verb's, discovery's):
        a successful answer of any other shape is the server's ``InternalError``, said, not passed on."""
        answer = self.request(method, path, query=query, body=body, content_type=content_type,
                              user_agent=user_agent, warnings=warnings)
        if isinstance(answer, dict):
            return answer
        shape = "a body that is null or not JSON" if answer is None else f"a JSON {type(answer).__name__}"
        raise InternalError(f"the server answered {method} {path} with {shape} where an object was expected")
