"""Reactors: fault injection at the API server's front door.

A reactor matches requests by verb, resource, subresource, namespace and name, optionally only
the n-th matching call or the first ``times`` calls, and either fails them with an ``ApiError``
or delays the visibility of their effect (watch delivery) by virtual seconds. It is the API
half of the fault vocabulary (``fakekube.faults``); add one with ``cluster.inject(Reactor(...))``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from fakekube._core.clock import SimTime, seconds
from fakekube.errors import ApiError, UsageError

__all__ = ["VERBS", "Reactor", "Request"]

VERBS = ("create", "get", "list", "update", "patch", "delete", "watch")


@dataclass(frozen=True, slots=True)
class Request:
    """What a reactor sees of a request."""

    verb: str
    resource: str
    namespace: str
    name: str
    subresource: str | None = None


@dataclass
class Reactor:
    """Fail or slow down matching requests.

    ``error`` is raised (a fresh copy each time); ``delay_seconds`` postpones the watch events
    of a successful write by that many virtual seconds. ``nth`` fires on exactly the n-th match
    (1-based); ``times`` on the first ``times`` matches; neither means every match. ``when`` is
    an extra predicate. ``resource`` is a resource's full name (``jobs.batch``); ``inject``
    turns a kind or short name (``Job``, ``jobs``) into it. ``subresource=None`` matches only
    the main resource, ``"*"`` any.
    """

    verb: str = "*"
    resource: str = "*"
    subresource: str | None = "*"
    namespace: str = "*"
    name: str = "*"
    error: ApiError | None = None
    delay_seconds: float = 0
    nth: int | None = None
    times: int | None = None
    when: Callable[[Request], bool] | None = None
    delay: SimTime = field(default=0, init=False, repr=False)
    """``delay_seconds`` in virtual nanoseconds (what the server adds to watch delivery)."""
    matched: int = field(default=0, init=False)
    fired: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.verb != "*" and self.verb not in VERBS:
            raise UsageError(f"reactor verb {self.verb!r} is not one of {', '.join(VERBS)} (or '*')")
        if self.error is not None and not isinstance(self.error, ApiError):
            raise UsageError(f"Reactor(error=...) takes an ApiError such as Conflict('...'), got {self.error!r}")
        delay = self.delay_seconds
        if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay < math.inf:
            raise UsageError(f"Reactor(delay_seconds=...) takes a non-negative number of virtual seconds, got {delay!r}")
        self.delay = seconds(delay)
        if self.error is None and self.delay <= 0:
            raise UsageError("a reactor needs error=ApiError(...) or delay_seconds > 0")
        if self.nth is not None and self.times is not None:
            raise UsageError("give a reactor either nth= or times=, not both")
        for key in ("nth", "times"):
            value = getattr(self, key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise UsageError(f"Reactor({key}=...) takes a positive int, got {value!r}")

    def _matches(self, req: Request) -> bool:
        return ((self.verb in ("*", req.verb)) and (self.resource in ("*", req.resource))
                and (self.subresource == "*" or self.subresource == req.subresource)
                and (self.namespace in ("*", req.namespace)) and (self.name in ("*", req.name))
                and (self.when is None or self.when(req)))

    def fires(self, req: Request) -> bool:
        """Count a match and say whether this call is one the reactor acts on."""
        if not self._matches(req):
            return False
        self.matched += 1
        if self.nth is not None:
            hit = self.matched == self.nth
        elif self.times is not None:
            hit = self.matched <= self.times
        else:
            hit = True
        if hit:
            self.fired += 1
        return hit
