"""``limit`` and ``continue``: a long list served in pages from one consistent snapshot.

The first page of a paged list keeps the whole (frozen) result in a small cache under the
store revision it was read at; later pages come from that snapshot, so objects written between
two pages never show up half-way. Tokens look like kube-apiserver's (base64 JSON with ``v``,
``rv`` and ``start``). A snapshot that fell out of the cache is answered, as a compacted
revision is upstream, with 410 ``Expired``, unless nothing was written since (then the list
is read again: it is the same).
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakekube.errors import ApiError, BadRequest

__all__ = ["Page", "Pager"]

#: Snapshots kept for continuation; a paged list of a big resource holds references, not copies.
SNAPSHOTS = 64
EXPIRED_MESSAGE = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter, or use the continue token in this response to retrieve the "
    "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
    "that were created, modified, or deleted between the time the first chunk was returned and now may show "
    "up in the list.")


@dataclass(frozen=True, slots=True)
class Page:
    items: list[dict[str, Any]]
    resource_version: str
    continue_token: str | None
    remaining: int | None


def _key(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    ns = meta.get("namespace")
    return f"{ns}/{meta['name']}" if ns else str(meta["name"])


def _encode(rv: str, start: str) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": int(rv), "start": start + "\x00"}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode(token: str) -> tuple[str, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        rv, start = data["rv"], data["start"]
        if data.get("v") != "meta.k8s.io/v1" or not isinstance(rv, int) or not isinstance(start, str):
            raise ValueError
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BadRequest("continue key is not valid: incorrect encoded start resourceVersion "
                         "(version meta.k8s.io/v1)") from None
    return str(rv), start.rstrip("\x00")


class Pager:
    """Cuts list results into pages; thread-safe (HTTP handler threads share one)."""

    def __init__(self) -> None:
        self._snapshots: OrderedDict[tuple[str, ...], list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def page(self, query_key: tuple[str, ...], limit: int | None, token: str | None,
             read: Callable[[], tuple[list[dict[str, Any]], str]], current_rv: Callable[[], str]) -> Page:
        """One page of the list ``read()`` returns (items in key order, the revision)."""
        if token:
            rv, start = _decode(token)
            with self._lock:
                items = self._snapshots.get((*query_key, rv))
            if items is None:
                if rv != current_rv():
                    raise ApiError.from_status({"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                "status": "Failure", "message": EXPIRED_MESSAGE,
                                                "reason": "Expired", "code": 410})
                items, rv = read()
            keys = [_key(o) for o in items]
            first = _bisect_after(keys, start)
        else:
            items, rv = read()
            first = 0
        if not limit or limit <= 0:
            return Page(items[first:], rv, None, None)
        chunk = items[first:first + limit]
        remaining = len(items) - first - len(chunk)
        if remaining <= 0:
            return Page(chunk, rv, None, None)
        with self._lock:
            self._snapshots[(*query_key, rv)] = items
            self._snapshots.move_to_end((*query_key, rv))
            while len(self._snapshots) > SNAPSHOTS:
                self._snapshots.popitem(last=False)
        return Page(chunk, rv, _encode(rv, _key(chunk[-1])), remaining)


def _bisect_after(keys: list[str], start: str) -> int:
    """Index of the first key after ``start`` (keys are in the store's order)."""
    lo, hi = 0, len(keys)
    order = _order_key
    target = order(start)
    while lo < hi:
        mid = (lo + hi) // 2
        if order(keys[mid]) <= target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _order_key(key: str) -> tuple[str, str]:
    ns, _, name = key.rpartition("/")
    return ns, name
