"""Recording core/v1 Events the way client-go's ``tools/record`` does.

An identical event (same source, object, type, reason and message) is not created twice: the
stored Event is patched with ``count + 1`` and a new ``lastTimestamp``. Event names are
``<object name>.<hex of the virtual UnixNano>``.
"""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import EPOCH, format_time
from fakekube.errors import AlreadyExists, ApiError
from fakekube.runtime.client import Client

__all__ = ["NORMAL", "WARNING", "EventRecorder"]

NORMAL, WARNING = "Normal", "Warning"
_EPOCH_UNIX_NS = int(EPOCH.timestamp()) * 1_000_000_000


class EventRecorder:
    """Records Events for one component (``source.component``)."""

    def __init__(self, client: Client, component: str, *, host: str = "") -> None:
        self.client = client
        self.component = component
        self.host = host
        self._seen: dict[tuple[str, ...], tuple[str, str, int]] = {}
        self._last_stamp: dict[tuple[str, str], int] = {}

    def event(self, obj: dict[str, Any], type_: str, reason: str, message: str, *, action: str = "") -> None:
        """Record ``reason``/``message`` about ``obj``; failures to write are dropped, as client-go does."""
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace") or "default"
        involved = {"kind": obj.get("kind", ""), "namespace": meta.get("namespace", ""),
                    "name": meta.get("name", ""), "uid": meta.get("uid", ""),
                    "apiVersion": obj.get("apiVersion", ""), "resourceVersion": meta.get("resourceVersion", "")}
        key = (self.component, involved["kind"], involved["namespace"], involved["name"], involved["uid"],
               type_, reason, message)
        now = format_time(self.client.now)
        seen = self._seen.get(key)
        try:
            if seen is not None:
                ns, name, count = seen
                self.client.patch("events", name, {"count": count + 1, "lastTimestamp": now}, ns, copy_result=False)
                self._seen[key] = (ns, name, count + 1)
                return
            # Names are <object>.<hex UnixNano>; several events about one object in one virtual
            # nanosecond take the next nanoseconds (AlreadyExists covers other recorders).
            last = self._last_stamp.get((namespace, meta.get("name", "")), -1)
            stamp = max(_EPOCH_UNIX_NS + self.client.now, last + 1)
            while True:
                name = f"{meta.get('name', '')}.{stamp:x}"
                body = {"apiVersion": "v1", "kind": "Event",
                        "metadata": {"name": name, "namespace": namespace},
                        "involvedObject": {k: v for k, v in involved.items() if v},
                        "reason": reason, "message": message, "type": type_,
                        "source": {"component": self.component, **({"host": self.host} if self.host else {})},
                        "firstTimestamp": now, "lastTimestamp": now, "count": 1, "eventTime": None,
                        "reportingComponent": self.component, "reportingInstance": self.host}
                if action:
                    body["action"] = action
                try:
                    self.client.create(body, copy_result=False, fresh_body=True)
                    break
                except AlreadyExists:
                    stamp += 1
            self._last_stamp[(namespace, meta.get("name", ""))] = stamp
            self._seen[key] = (namespace, name, 1)
        except ApiError:
            return
