"""Virtual time on the wire between a served cluster and a client out of process.

Every answer of a served cluster carries its virtual instant twice: in ``Date`` (RFC 7231, whole
seconds, what any HTTP client reads) and in ``X-Fakekube-Time`` (RFC 3339 with microseconds), and
in ``X-Fakekube-Clock-Rate`` the virtual seconds that pass by themselves per wall second (``0``
under the manual and quiescent clocks, the speed under the realtime one), so a client can tell
the time between two answers.

A client that keeps timers on the served clock (``fakekube.remote`` does) announces its next one
with ``X-Fakekube-Wake-At`` on any request (an RFC 3339 time, or ``none``). The quiescent clock
then never jumps past an announced instant: it stops there and waits for the client to act (and
announce its next timer). ``now`` says the client has work due at once (watch events it has just
received): the clock holds until the client announces again. A hold lasts at most a few wall
seconds after the last request (a client that died does not stop the clock for good). Against a
real API server the header is ignored, and nothing is lost.
"""

from __future__ import annotations

from fakekube._core.clock import SimTime, format_micro_time, parse_time

__all__ = ["DUE_NOW", "NO_WAKE", "RATE_HEADER", "TIME_HEADER", "WAKE_HEADER", "format_wake", "parse_wake"]

TIME_HEADER = "X-Fakekube-Time"
RATE_HEADER = "X-Fakekube-Clock-Rate"
WAKE_HEADER = "X-Fakekube-Wake-At"
NO_WAKE = "none"
#: A timer due at the start of virtual time, so due at any instant: the client has work now.
DUE_NOW: SimTime = 0
_NOW = "now"
_MICRO = 1000


def format_wake(t: SimTime | None) -> str:
    """The header value for a timer due at ``t`` (rounded up to the microsecond the wire carries,
    so the clock stopping there finds the timer due), or ``none``."""
    if t is None:
        return NO_WAKE
    if t == DUE_NOW:
        return _NOW
    return format_micro_time(-(-t // _MICRO) * _MICRO)


def parse_wake(text: str) -> SimTime | None:
    """Inverse of :func:`format_wake`; ``ValueError`` for anything else."""
    value = text.strip()
    if value.lower() == NO_WAKE:
        return None
    if value.lower() == _NOW:
        return DUE_NOW
    if not value.endswith("Z"):
        raise ValueError(value)
    return parse_time(value)
