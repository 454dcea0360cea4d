"""Recording core/v1 Events the way client-go's ``tools/record`` does.

Every event goes through the ``EventCorrelator`` (``tools/record/events_cache.go``), in its order:

1. **Aggregation** (``EventAggregator``): events with the same source, involved object, type,
   reason, reporting controller and instance ("similar": only the message differs) are grouped; a
   group is started afresh when its last event is more than 600 s old. Once a group holds 10
   distinct messages, the event is replaced by one named ``<object>.<hex UnixNano>`` with message
   ``(combined from similar events): <message>``, and later similar events patch that one.
2. **Counting** (``eventLogger``): an event seen before (same source, involved object, type,
   reason and message; or the same group, once aggregated) is not created again: the stored
   Event is patched (strategic merge) with ``count``, ``lastTimestamp`` and ``message``.
   The count is taken before the spam filter, so it also counts dropped occurrences.
3. **Spam filter** (``EventSourceObjectSpamFilter``): a token bucket per source, involved object
   and type (not reason), burst 25, refilled at ``float32(1/300)`` tokens per second
   (``golang.org/x/time/rate``, one token per 299.999993 s); an event without a token is dropped.

Each of the three caches is an LRU of 4096 entries. Time is the client's virtual clock. A write
the server refuses is dropped (client-go retries only transport errors); a patch of an Event that
is gone creates it again. Event names are ``<object name>.<hex of the virtual UnixNano>``.

Simplified: when a group reaches 10 messages client-go forgets one of them arbitrarily (Go map
order); we forget the oldest. Several events about one object in one virtual nanosecond are named
with the following nanoseconds (real clocks never repeat a nanosecond), not dropped as
``AlreadyExists``.

``correlate=False`` skips aggregation and the spam filter (identical events are still counted):
for components whose upstream uses the events.k8s.io/v1 recorder (``tools/events``), which has
neither (its ``series`` are not modelled).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from fakekube._core.clock import SECOND, SimTime, epoch_unix_ns, format_time
from fakekube._core.lru import Lru
from fakekube.errors import AlreadyExists, ApiError, NotFound
from fakekube.runtime._shared_client import SharedClient

__all__ = ["NORMAL", "WARNING", "EventRecorder"]

NORMAL, WARNING = "Normal", "Warning"

LRU_CACHE_ENTRIES = 4096
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL = 600 * SECOND
AGGREGATE_PREFIX = "(combined from similar events): "
SPAM_BURST = 25
SPAM_QPS = struct.unpack("f", struct.pack("f", 1 / 300))[0]
"""``defaultSpamQPS = 1. / 300.`` as the ``float32`` client-go keeps it."""

@dataclass(slots=True)
class _TokenBucket:
    """``rate.Limiter`` (golang.org/x/time v0.9.0) asked ``AllowN(now, 1)``: it starts full."""

    tokens: float = float(SPAM_BURST)
    last: SimTime | None = None  # None: Go's zero time, long enough ago to refill everything

    def allow(self, now: SimTime) -> bool:
        tokens = float(SPAM_BURST)
        if self.last is not None:
            elapsed = now - min(self.last, now)
            seconds = float(elapsed // SECOND) + float(elapsed % SECOND) / 1e9  # Duration.Seconds()
            tokens = min(self.tokens + seconds * SPAM_QPS, tokens)
        tokens -= 1
        # The wait for a missing fraction of a token truncates to whole nanoseconds; none: allowed.
        if tokens < 0 and int(float(SECOND) * (-tokens / SPAM_QPS)) > 0:
            return False
        self.tokens, self.last = tokens, now
        return True


@dataclass(slots=True)
class _Group:
    """``aggregateRecord``: the distinct messages of similar events, and when the last one came."""

    messages: dict[str, None] = field(default_factory=dict)
    last: SimTime = 0


@dataclass(slots=True)
class _Logged:
    """``eventLog``: how often an event occurred, and the Event that records it."""

    count: int
    first_timestamp: str
    name: str


def _event_key(component: str, host: str, involved: dict[str, str], type_: str, reason: str, message: str) -> str:
    """``getEventKey``: what makes two events identical (joined without separators, as upstream)."""
    return "".join((component, host, involved.get("kind", ""), involved.get("namespace", ""),
                    involved.get("name", ""), involved.get("fieldPath", ""), involved.get("uid", ""),
                    involved.get("apiVersion", ""), type_, reason, message))


class EventRecorder:
    """Records Events for one component (``source.component``), as a ``tools/record`` recorder
    whose broadcaster records to the API server through an ``EventCorrelator``."""

    def __init__(self, client: SharedClient, component: str, *, host: str = "", correlate: bool = True) -> None:
        self.client = client
        self.component = component
        self.host = host
        self.correlate = correlate
        self._groups: Lru[str, _Group] = Lru(LRU_CACHE_ENTRIES)
        self._logged: Lru[str, _Logged] = Lru(LRU_CACHE_ENTRIES)
        self._buckets: Lru[str, _TokenBucket] = Lru(LRU_CACHE_ENTRIES)
        self._last_stamp: dict[tuple[str, str], int] = {}

    def event(self, obj: dict[str, Any], type_: str, reason: str, message: str, *, action: str = "") -> None:
        """Record ``reason``/``message`` about ``obj`` (``action``: an extension for callers modelling
        events.k8s.io's ``Eventf``); dropped, filtered and failed events are not reported."""
        meta = obj.get("metadata") or {}
        kind, api_version = obj.get("kind", ""), obj.get("apiVersion", "")
        namespace_field, name, uid = meta.get("namespace", ""), meta.get("name", ""), meta.get("uid", "")
        involved = {"kind": kind, "namespace": namespace_field, "name": name, "uid": uid,
                    "apiVersion": api_version, "resourceVersion": meta.get("resourceVersion", "")}
        now = self.client.now
        # getSpamKey: source, involved object and type. getEventKey is the same followed by reason and
        # message (the involved object has no fieldPath here), EventAggregatorByReasonFunc's key by
        # reason, reporting controller and instance.
        spam_key = "".join((self.component, self.host, kind, namespace_field, name, uid, api_version, type_))
        key = spam_key + reason + message  # _event_key(self.component, self.host, involved, ...)
        event = {"involvedObject": {k: v for k, v in involved.items() if v}, "reason": reason,
                 "message": message, "type": type_, "reportingComponent": self.component,
                 "reportingInstance": self.host}
        if action:
            event["action"] = action
        if self.correlate:
            event, key = self._aggregate(event, key, spam_key + reason + self.component + self.host,
                                         type_, reason, message, now)
        namespace = meta.get("namespace") or "default"
        logged = self._logged.get(key)
        if logged is None:  # a new Event, named now
            logged = _Logged(1, format_time(now), self._name(namespace, name, now))
        else:
            logged = _Logged(logged.count + 1, logged.first_timestamp, logged.name)
        self._logged.add(key, logged)
        if self.correlate and not self._bucket(spam_key).allow(now):
            return
        self._write(event, logged, namespace, now)

    def _name(self, namespace: str, object_name: str, now: SimTime, *, taken: bool = False) -> str:
        """``<object>.<hex UnixNano>``; the next free nanosecond if this recorder named one in this
        nanosecond already (or if ``taken``: another recorder did)."""
        last = self._last_stamp.get((namespace, object_name), -1)
        stamp = max(epoch_unix_ns() + now, last + 1) if not taken else last + 1
        self._last_stamp[(namespace, object_name)] = stamp
        return f"{object_name}.{stamp:x}"

    def _aggregate(self, event: dict[str, Any], key: str, group_key: str, type_: str, reason: str, message: str,
                   now: SimTime) -> tuple[dict[str, Any], str]:
        """``EventAggregator.EventAggregate``: the event to record and its counting key (``key``,
        or ``group_key`` once the group holds the maximum of distinct messages)."""
        group = self._groups.get(group_key)
        if group is None or now - group.last > AGGREGATE_INTERVAL:
            group = _Group()
        group.messages[message] = None
        group.last = now
        self._groups.add(group_key, group)
        if len(group.messages) < AGGREGATE_MAX_EVENTS:
            return event, key
        del group.messages[next(iter(group.messages))]  # do not grow the set beyond the maximum
        # The aggregate Event carries no reporting controller/instance (and no action).
        return {"involvedObject": event["involvedObject"], "reason": reason,
                "message": AGGREGATE_PREFIX + message, "type": type_,
                "reportingComponent": "", "reportingInstance": ""}, group_key

    def _bucket(self, spam_key: str) -> _TokenBucket:
        bucket = self._buckets.get(spam_key) or _TokenBucket()
        self._buckets.add(spam_key, bucket)
        return bucket

    def _write(self, event: dict[str, Any], logged: _Logged, namespace: str, now: SimTime) -> None:
        """``recordToSink``: patch a counted Event (creating it if it is gone), else create it."""
        last_timestamp = format_time(now)
        patch: dict[str, Any] = {"count": logged.count, "lastTimestamp": last_timestamp}
        if event["message"]:
            patch["message"] = event["message"]
        try:
            stored = None
            if logged.count > 1:
                try:
                    stored = self.client.patch("events", logged.name, patch, namespace, patch_type="strategic")
                except NotFound:
                    pass
            while stored is None:
                try:
                    stored = self.client.create(self._body(event, logged, namespace, last_timestamp))
                except AlreadyExists:
                    if logged.count > 1:
                        return
                    logged.name = self._name(namespace, event["involvedObject"].get("name", ""), now, taken=True)
        except ApiError:
            return
        # UpdateState: remember the Event as the server holds it, under its own key.
        source = stored.get("source") or {}
        key = _event_key(source.get("component", ""), source.get("host", ""), stored.get("involvedObject") or {},
                         stored.get("type", ""), stored.get("reason", ""), stored.get("message", ""))
        self._logged.add(key, _Logged(stored.get("count") or 0, stored.get("firstTimestamp") or "",
                                      stored["metadata"]["name"]))

    def _body(self, event: dict[str, Any], logged: _Logged, namespace: str, last_timestamp: str) -> dict[str, Any]:
        body = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": logged.name, "namespace": namespace},
                "involvedObject": event["involvedObject"], "reason": event["reason"],
                "message": event["message"], "type": event["type"],
                "source": {"component": self.component, **({"host": self.host} if self.host else {})},
                "firstTimestamp": logged.first_timestamp, "lastTimestamp": last_timestamp,
                "count": logged.count, "eventTime": None,
                "reportingComponent": event["reportingComponent"], "reportingInstance": event["reportingInstance"]}
        if "action" in event:
            body["action"] = event["action"]
        return body
