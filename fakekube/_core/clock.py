"""Virtual time: integer nanoseconds since a fixed epoch.

Nothing in fakekube reads the wall clock. ``EPOCH`` is far from any real date so that a value
leaking from the wall clock stands out in a trace. A process that serves a cluster to people
(``jobset-ref serve``) may move the epoch once, before it makes its cluster, with
:func:`set_epoch` (to the wall clock's now, so kubectl's client-side ages read naturally); every
other use (tests, fixtures, simulations) keeps ``EPOCH`` and byte-identical traces.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

__all__ = [
    "EPOCH",
    "MILLISECOND",
    "SECOND",
    "SimTime",
    "epoch",
    "epoch_unix_ns",
    "format_micro_time",
    "format_offset",
    "format_time",
    "parse_duration",
    "parse_time",
    "seconds",
    "set_epoch",
    "to_datetime",
    "to_seconds",
]

SimTime = int
"""Nanoseconds since ``EPOCH``."""

SECOND: SimTime = 1_000_000_000
MILLISECOND: SimTime = 1_000_000
EPOCH = datetime(2030, 1, 1, tzinfo=UTC)
"""The default epoch: virtual instant 0. Always this value; the epoch in force is :func:`epoch`."""

_epoch = EPOCH
_epoch_unix_ns = int(EPOCH.timestamp()) * SECOND


def epoch() -> datetime:
    """The instant virtual time 0 stands for in this process (``EPOCH`` unless :func:`set_epoch`)."""
    return _epoch


def epoch_unix_ns() -> int:
    """:func:`epoch` as Unix nanoseconds."""
    return _epoch_unix_ns


def set_epoch(when: datetime) -> datetime:
    """Make ``when`` (an aware datetime, cut to whole seconds) virtual instant 0 for this whole
    process; returns the previous epoch. Call it before any cluster exists: times already written
    into objects keep the epoch they were written with."""
    global _epoch, _epoch_unix_ns
    if not isinstance(when, datetime) or when.tzinfo is None:
        raise ValueError(f"the epoch must be an aware datetime (with a time zone), got {when!r}")
    previous = _epoch
    _epoch = when.astimezone(UTC).replace(microsecond=0)
    _epoch_unix_ns = int(_epoch.timestamp()) * SECOND
    _FORMATTED.clear()
    return previous


def seconds(value: float) -> SimTime:
    """Convert seconds (int or float) to SimTime, rounding to the nearest nanosecond."""
    if isinstance(value, int):
        return value * SECOND
    return round(value * SECOND)


_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$")


def parse_duration(value: object) -> float:
    """Virtual seconds from a number (``90``, ``1.5``) or a duration text (``"90s"``, ``"10m"``,
    ``"1h30m"``). Raises ``ValueError`` (with a fix-it message) for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"a time cannot be negative, got {value!r}")
        return float(value)
    if isinstance(value, str):
        match = _DURATION.match(value.strip())
        if match and any(match.groups()):
            h, m, s = (float(g) if g else 0.0 for g in match.groups())
            return h * 3600 + m * 60 + s
    raise ValueError(f"expected seconds (a number or a duration like '1m30s'), got {value!r}")


def to_seconds(t: SimTime) -> float:
    """The float seconds of ``t``: the double nearest the exact value, so ``to_seconds(62_010_000_000)
    == 62.01``. The one conversion out of virtual time; :func:`seconds` inverts it exactly for any
    ``t`` below 2**51 ns (about 26 virtual days)."""
    return t / SECOND


def to_datetime(t: SimTime) -> datetime:
    """The aware UTC datetime of a virtual instant (microsecond precision)."""
    return _epoch + timedelta(microseconds=t // 1000)


_FORMATTED: dict[int, str] = {}  # whole virtual seconds -> their metav1.Time text (hot: every write)


def format_time(t: SimTime) -> str:
    """``metav1.Time`` on the wire: RFC 3339, UTC, second precision (``2030-01-01T00:01:03Z``)."""
    whole = t // SECOND
    text = _FORMATTED.get(whole)
    if text is None:
        if len(_FORMATTED) >= 4096:
            _FORMATTED.clear()
        text = _FORMATTED[whole] = (_epoch + timedelta(seconds=whole)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return text


def format_micro_time(t: SimTime) -> str:
    """``metav1.MicroTime`` on the wire: RFC 3339 with microseconds."""
    return to_datetime(t).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> SimTime:
    """Inverse of :func:`format_time` / :func:`format_micro_time` (for times written by the fake)."""
    value = text.replace("Z", "+00:00")
    delta = datetime.fromisoformat(value) - _epoch
    return (delta.days * 86_400 + delta.seconds) * SECOND + delta.microseconds * 1000


def format_offset(t: SimTime) -> str:
    """Elapsed virtual time as ``HH:MM:SS.mmm`` (the trace's time column); a negative ``t`` (a
    remote client's clock before its epoch) with a leading ``-``."""
    if t < 0:
        return "-" + format_offset(-t)
    total_ms = t // MILLISECOND
    ms = total_ms % 1000
    s = total_ms // 1000
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{ms:03d}"
