"""The pieces kubectl's printers are made of: columns, the :class:`Printer`, human durations.

Shared by the printers of the built-in kinds (:mod:`fakekube.http.printers`) and the ``Table``
engine with its custom-resource printers (:mod:`fakekube.http.tables`). Ages and durations are
``duration.HumanDuration`` of the virtual clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from fakekube._core.clock import SECOND, SimTime, parse_time
from fakekube.apiserver import builtin_schemas

__all__ = [
    "AGE_COLUMN",
    "CONTAINERS_COLUMN",
    "CORE",
    "IMAGES_COLUMN",
    "META",
    "NAME_COLUMN",
    "Cells",
    "Column",
    "Printer",
    "get_path",
    "human_duration",
    "object_age",
    "object_name",
    "parse_timestamp",
    "since",
]

Cells = Callable[[dict[str, Any], SimTime], list[Any]]


# --------------------------------------------------------------------------- time

def human_duration(d: SimTime) -> str:
    """``k8s.io/apimachinery/pkg/util/duration.HumanDuration`` of ``d`` nanoseconds."""
    seconds = d // SECOND if d >= 0 else -(-d // SECOND)  # int(d.Seconds()) truncates toward zero
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = d // (60 * SECOND)
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = d // (3600 * SECOND)
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = hours // 24 % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


_RFC3339: Final = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def parse_timestamp(ts: Any) -> SimTime | None:
    """A ``metav1.Time`` / ``MicroTime`` value as virtual time; None when absent or not RFC 3339."""
    if not isinstance(ts, str) or not _RFC3339.match(ts):
        return None
    return parse_time(ts.upper())


def since(ts: Any, now: SimTime) -> str:
    """``translateTimestampSince``: ``<unknown>`` for a zero (absent) time."""
    if not ts:
        return "<unknown>"
    t = parse_timestamp(ts)
    return "<invalid>" if t is None else human_duration(now - t)


# --------------------------------------------------------------------------- columns

META: Final = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
CORE: Final = "io.k8s.api.core.v1."


@dataclass(frozen=True, slots=True)
class Column:
    """A column; ``doc`` is a literal description or ``(definition, field)`` of the built-in schemas."""

    name: str
    doc: str | tuple[str, str] = ""
    priority: int = 0
    type: str = "string"
    format: str = ""

    def definition(self) -> dict[str, Any]:
        doc = self.doc if isinstance(self.doc, str) else builtin_schemas.description(*self.doc)
        return {"name": self.name, "type": self.type, "format": self.format, "description": doc,
                "priority": self.priority}


NAME_COLUMN: Final = Column("Name", (META, "name"), format="name")
AGE_COLUMN: Final = Column("Age", (META, "creationTimestamp"))
CONTAINERS_COLUMN: Final = Column("Containers", "Names of each container in the template.", 1)
IMAGES_COLUMN: Final = Column("Images", "Images referenced by each container in the template.", 1)


@dataclass(frozen=True, slots=True)
class Printer:
    """How one kind prints: its columns, its cells, and row conditions (pods only)."""

    columns: tuple[Column, ...]
    cells: Cells
    conditions: Callable[[dict[str, Any]], list[dict[str, str]]] | None = None

    def column_definitions(self) -> list[dict[str, Any]]:
        return [c.definition() for c in self.columns]


# --------------------------------------------------------------------------- helpers of the printers

def get_path(obj: Mapping[str, Any] | None, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def object_name(obj: Mapping[str, Any]) -> str:
    return str(get_path(obj, "metadata", "name") or "")


def object_age(obj: Mapping[str, Any], now: SimTime) -> str:
    return since(get_path(obj, "metadata", "creationTimestamp"), now)
