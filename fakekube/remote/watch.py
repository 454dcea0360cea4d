"""A watch on the remote server, run in a reader thread as a reflector does: list (when no
resourceVersion is given), then watch from the list's resourceVersion; an expired (410) or broken
stream relists and hands the difference on (DELETED for what went, ADDED for what is new or
changed). Events reach ``handler`` on the driver's thread, through its inbox, in stream order."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable
from typing import Any

from fakekube.apiserver.server import WatchEvent
from fakekube.errors import ApiError
from fakekube.remote.transport import Transport

__all__ = ["RemoteWatch"]

WATCH_TIMEOUT_SECONDS = 300  # asked of the server; the stream is then re-opened from the last RV
RETRY_WAIT = 0.5  # wall seconds before relisting after a broken stream


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return (meta.get("namespace") or "", meta.get("name") or "")


class RemoteWatch:
    """Started by :meth:`RemoteApiServer.watch`; ``stop()`` ends it (no event is handed on after).

    It reads the server through ``transport`` and hands events on with ``post`` (which queues a
    function for the driver's thread), the two things it needs of the ``RemoteApiServer``."""

    def __init__(self, transport: Transport, post: Callable[[Callable[[], None]], None], path: str,
                 query: dict[str, str], handler: Callable[[WatchEvent], None], resource_version: str | None) -> None:
        self.transport = transport
        self.post = post
        self.path = path
        self.query = query
        self.handler = handler
        self.resource_version = resource_version if resource_version not in ("", "0") else None
        self.known: dict[tuple[str, str], dict[str, Any]] = {}
        self.stopped = False
        self._stop = threading.Event()
        self._conn: http.client.HTTPConnection | None = None
        self._thread = threading.Thread(target=self._run, name=f"fakekube-remote-watch {path}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stopped = True
        self._stop.set()
        conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(2)
            except OSError:
                pass

    # ------------------------------------------------------------------ reader thread
    def _hand_on(self, events: list[WatchEvent]) -> None:
        """Queue ``events`` for the driver, even none: a served quiescent clock holds for this session from
        each chunk it writes (a BOOKMARK, an ERROR before a relist) until the session announces again,
        and the session announces after every step that something woke."""
        self.post(lambda: self._deliver(events))

    def _deliver(self, events: list[WatchEvent]) -> None:
        for event in events:
            if self.stopped:
                return
            self.handler(event)

    def _relist(self) -> None:
        lst = self.transport.request_object("GET", self.path, query=self.query)
        items = {_key(o): o for o in lst.get("items") or []}
        kind = str(lst.get("kind", "")).removesuffix("List")
        events = [WatchEvent("DELETED", obj) for key, obj in sorted(self.known.items()) if key not in items]
        for key, obj in items.items():
            obj.setdefault("kind", kind)
            obj.setdefault("apiVersion", lst.get("apiVersion"))
            old = self.known.get(key)
            if old is None or (old.get("metadata") or {}).get("resourceVersion") != obj["metadata"].get(
                    "resourceVersion"):
                events.append(WatchEvent("ADDED", obj))
        self.known = items
        self.resource_version = str((lst.get("metadata") or {}).get("resourceVersion") or "")
        self._hand_on(events)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self.resource_version is None:
                    self._relist()
                self._stream()
            except (ApiError, OSError, http.client.HTTPException, ValueError):
                self.resource_version = None
                self._stop.wait(RETRY_WAIT)

    def _stream(self) -> None:
        transport = self.transport
        query = {**self.query, "watch": "true", "resourceVersion": str(self.resource_version),
                 "allowWatchBookmarks": "true", "timeoutSeconds": str(WATCH_TIMEOUT_SECONDS)}
        conn = self._conn = transport.open(timeout=WATCH_TIMEOUT_SECONDS + 30)
        try:
            conn.request("GET", transport.url(self.path, query), headers=transport.headers())
            response = conn.getresponse()
            transport.observe(response)
            if response.status != 200:
                body = response.read()
                status = json.loads(body) if body else {}
                raise ApiError.from_status(status) if isinstance(status, dict) and status else OSError(
                    f"watch answered {response.status}")
            while not self._stop.is_set():
                line = response.readline()
                if not line:
                    return  # the server ended the stream: watch again from the last resourceVersion
                if not line.strip():
                    continue
                self._event(json.loads(line))
        finally:
            self._conn = None
            conn.close()

    def _event(self, raw: dict[str, Any]) -> None:
        kind, obj = raw.get("type"), raw.get("object") or {}
        if kind == "ERROR":
            self.resource_version = None  # 410 Expired (or any other error): relist
            raise OSError(f"watch error: {obj.get('message')}")
        rv = (obj.get("metadata") or {}).get("resourceVersion")
        if rv:
            self.resource_version = str(rv)
        if kind == "BOOKMARK":
            self._hand_on([])
            return
        key = _key(obj)
        if kind == "DELETED":
            self.known.pop(key, None)
        else:
            self.known[key] = obj
        self._hand_on([WatchEvent(str(kind), obj)])
