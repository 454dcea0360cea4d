"""Virtual time, publicly: nanosecond ``SimTime`` values and the Kubernetes wire formats.

Everything here is a re-export of fakekube's internal clock module; import from here.
"""

from __future__ import annotations

from fakekube._core.clock import (
    EPOCH,
    MILLISECOND,
    SECOND,
    SimTime,
    epoch,
    format_micro_time,
    format_offset,
    format_time,
    parse_duration,
    parse_time,
    seconds,
    set_epoch,
    to_datetime,
    to_seconds,
)

__all__ = [
    "EPOCH",
    "MILLISECOND",
    "SECOND",
    "SimTime",
    "epoch",
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
