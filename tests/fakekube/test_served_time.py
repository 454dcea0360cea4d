"""The wake announcement on the wire: a timer rounds up to the microsecond the header carries, so
a clock stopping at the announced instant finds the timer due; ``now`` and ``none`` are words."""

from __future__ import annotations

import pytest

from fakekube._core.served_time import DUE_NOW, format_wake, parse_wake


@pytest.mark.parametrize(("t", "text", "back"), [
    (7_500_000_000, "2030-01-01T00:00:07.500000Z", 7_500_000_000),
    (1, "2030-01-01T00:00:00.000001Z", 1000),
    (1001, "2030-01-01T00:00:00.000002Z", 2000),
    (2_000_000_000_000_001, "2030-01-24T03:33:20.000001Z", 2_000_000_000_001_000),  # exact far out
    (DUE_NOW, "now", DUE_NOW),
    (None, "none", None),
])
def test_a_timer_rounds_up_to_the_wire_and_reads_back_no_earlier(t: int | None, text: str, back: int | None) -> None:
    assert format_wake(t) == text
    assert parse_wake(text) == back
    assert t is None or back >= t  # type: ignore[operator]


@pytest.mark.parametrize("text", ["soon", "2030-01-01T00:00:07", "", "7.5"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_wake(text)
