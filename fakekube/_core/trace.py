"""The trace: one record per API write, injected fault, watch delivery and controller decision, in
virtual time.

The trace is the golden artefact of conformance scenarios: the same seed gives a byte-identical
trace in any process. It is kept as structured :class:`Record` values (an API write knows its
verb, resource, object and resourceVersion; an injected fault its request and error; anything
else is free-form text) and rendered on demand, one ``t=HH:MM:SS.mmm <text>`` line per record:

    t=00:00:12.010 update jobset.x-k8s.io/v1alpha2 JobSet/status default/pytorch rv=51
    t=00:00:12.010 fault update jobs.batch default/pytorch-workers-0 -> 409 Conflict
    t=00:00:12.010 delete v1 Pod default/p rv=52 (removed)
    t=00:00:12.010 scheduler assigned default/p to node-0

Tests query ``records`` (``[r for r in cluster.trace.records if r.kind == "JobSet" and
r.subresource == "status"]``) instead of parsing lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from fakekube._core.clock import SimTime, format_offset

__all__ = ["Record", "Trace"]


class Record(NamedTuple):
    """One trace entry.

    An API write has ``verb`` (``create``, ``update``, ``patch``, ``delete``, ``bind`` …),
    ``resource`` (the full resource name, ``jobs.batch``), ``api_version``, ``kind``,
    ``subresource``, ``namespace``, ``name`` and the ``resource_version`` it wrote; ``removed``
    marks a delete that removed the object from storage. An injected fault has the request's
    ``verb``/``resource``/``subresource``/``namespace``/``name`` and the ``code`` and ``reason``
    returned instead. Any other entry is free-form ``note`` text.
    """

    time: SimTime
    note: str = ""
    verb: str = ""
    resource: str = ""
    api_version: str = ""
    kind: str = ""
    subresource: str | None = None
    namespace: str = ""
    name: str = ""
    resource_version: int | None = None
    removed: bool = False
    code: int | None = None
    reason: str = ""

    @property
    def is_write(self) -> bool:
        return self.resource_version is not None

    @property
    def is_fault(self) -> bool:
        return self.code is not None

    @property
    def ref(self) -> str:
        """``namespace/name``, or ``name`` for a cluster-scoped object."""
        return f"{self.namespace}/{self.name}" if self.namespace else str(self.name)

    def text(self) -> str:
        """The line without its time column."""
        sub = f"/{self.subresource}" if self.subresource else ""
        if self.resource_version is not None:
            return (f"{self.verb} {self.api_version} {self.kind}{sub} {self.ref} rv={self.resource_version}"
                    + (" (removed)" if self.removed else ""))
        if self.code is not None:
            return f"fault {self.verb} {self.resource}{sub} {self.ref} -> {self.code} {self.reason}"
        return self.note

    def line(self) -> str:
        return f"t={format_offset(self.time)} {self.text()}"


class Trace:
    """An append-only list of :class:`Record` values, rendered as ``t=HH:MM:SS.mmm <text>`` lines."""

    def __init__(self, now: Callable[[], SimTime], *, enabled: bool = True) -> None:
        self._now = now
        self.records: list[Record] = []
        self.enabled = enabled

    def add(self, text: str) -> None:
        """A free-form line (a controller decision, a kubelet transition …)."""
        if self.enabled:
            self.records.append(Record(self._now(), text))

    def write(self, verb: str, resource: str, api_version: str, kind: str, subresource: str | None,
              namespace: str, name: str, resource_version: int, *, removed: bool = False) -> None:
        """An API write that stored ``resource_version``."""
        if self.enabled:
            self.records.append(Record(self._now(), "", verb, resource, api_version, kind, subresource, namespace,
                                       name, resource_version, removed))

    def fault(self, verb: str, resource: str, subresource: str | None, namespace: str, name: str, code: int,
              reason: str) -> None:
        """A request an injected fault answered with ``code``/``reason`` instead of serving it."""
        if self.enabled:
            self.records.append(Record(self._now(), "", verb, resource, "", "", subresource, namespace, name,
                                       code=code, reason=reason))

    @property
    def lines(self) -> list[str]:
        return [r.line() for r in self.records]

    def tail(self, n: int = 20) -> list[str]:
        return [r.line() for r in self.records[-n:]]

    def text(self) -> str:
        return "".join(f"{r.line()}\n" for r in self.records)

    def grep(self, needle: str) -> list[str]:
        return [line for line in self.lines if needle in line]

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.records)
