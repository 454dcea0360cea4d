"""The trace: one line per API write, watch delivery and controller decision, in virtual time.

The trace is the golden artefact of conformance scenarios: the same seed gives a byte-identical
trace in any process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from fakekube._core.clock import SimTime, format_offset

__all__ = ["Trace"]


class Trace:
    """An append-only list of ``t=HH:MM:SS.mmm <text>`` lines."""

    def __init__(self, now: Callable[[], SimTime], *, enabled: bool = True) -> None:
        self._now = now
        self.lines: list[str] = []
        self.enabled = enabled

    def add(self, text: str) -> None:
        if self.enabled:
            self.lines.append(f"t={format_offset(self._now())} {text}")

    def tail(self, n: int = 20) -> list[str]:
        return self.lines[-n:]

    def text(self) -> str:
        return "\n".join(self.lines) + ("\n" if self.lines else "")

    def grep(self, needle: str) -> list[str]:
        return [line for line in self.lines if needle in line]

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.lines)
