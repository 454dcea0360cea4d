"""The reconcile runner's one retry rule: ``Backoff(base, cap)``, ``retry_on`` and ``TerminalError``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fakekube import Backoff, Conflict, Result, TerminalError, UsageError
from fakekube._core.clock import MILLISECOND, SECOND
from fakekube._core.loop import EventLoop
from fakekube._core.trace import Trace
from fakekube.runtime.controller import DEFAULT_BACKOFF, Controller

Key = tuple[str, str]
KEY: Key = ("ns", "a")


class Flaky(Exception):
    """A non-API error some controllers retry (like the reference controller's ReconcileError)."""


def make(reconcile: Callable[[Key], Result | None], **kwargs: object) -> tuple[Controller, EventLoop, Trace]:
    holder: list[EventLoop] = []
    trace = Trace(lambda: holder[0].now)
    loop = EventLoop(trace)
    holder.append(loop)
    return Controller("ctl", loop, trace, reconcile, **kwargs), loop, trace  # type: ignore[arg-type]


def scripted(outcomes: list[Exception | None]) -> Callable[[Key], Result | None]:
    """A reconcile that raises (or succeeds, for None) as scripted, then succeeds forever."""
    it = iter(outcomes)

    def reconcile(_key: Key) -> Result | None:
        err = next(it, None)
        if err is not None:
            raise err
        return None

    return reconcile


def retries(trace: Trace) -> list[str]:
    return [line.split("(retry in ")[1].rstrip(")") for line in trace.grep("(retry in ")]


# --------------------------------------------------------------------------- Backoff


def test_default_backoff_is_controller_runtimes_5ms_doubling_capped_at_1000s() -> None:
    assert [DEFAULT_BACKOFF.delay(n) for n in range(4)] == [5 * MILLISECOND, 10 * MILLISECOND, 20 * MILLISECOND,
                                                            40 * MILLISECOND]
    assert DEFAULT_BACKOFF.delay(17) == 655_360 * MILLISECOND  # the last uncapped step
    assert DEFAULT_BACKOFF.delay(18) == 1000 * SECOND
    assert DEFAULT_BACKOFF.delay(10_000) == 1000 * SECOND  # no overflow, no huge power


def test_job_controller_backoff_doubles_from_1s_to_60s() -> None:
    backoff = Backoff(1 * SECOND, 60 * SECOND)
    assert [backoff.delay(n) // SECOND for n in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]


@pytest.mark.parametrize(("base", "cap", "message"), [
    (0, SECOND, "Backoff.base must be a positive number of nanoseconds, got 0"),
    (-1, SECOND, "Backoff.base must be a positive number of nanoseconds, got -1"),
    (0.5, SECOND, "Backoff.base must be a positive number of nanoseconds, got 0.5"),
    (True, SECOND, "Backoff.base must be a positive number of nanoseconds, got True"),
    (SECOND, None, "Backoff.cap must be a positive number of nanoseconds, got None"),
    (2 * SECOND, SECOND, "Backoff.cap (1000000000) must not be less than Backoff.base (2000000000)"),
])
def test_backoff_rejects_bad_values(base: object, cap: object, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Backoff(base, cap)  # type: ignore[arg-type]


def test_backoff_delay_rejects_a_negative_count() -> None:
    with pytest.raises(UsageError, match="failure count >= 0"):
        DEFAULT_BACKOFF.delay(-1)


# --------------------------------------------------------------------------- the Controller


def test_api_errors_retry_with_growing_delays_and_one_line_format() -> None:
    conflict = Conflict("the object has been modified")
    ctl, loop, trace = make(scripted([conflict, conflict, conflict]))
    ctl.enqueue(KEY)
    loop.advance(1 * SECOND)
    assert trace.grep("ctl reconcile") == [
        "t=00:00:00.000 ctl reconcile ns/a error 409 Conflict: the object has been modified (retry in 0.005s)",
        "t=00:00:00.005 ctl reconcile ns/a error 409 Conflict: the object has been modified (retry in 0.01s)",
        "t=00:00:00.015 ctl reconcile ns/a error 409 Conflict: the object has been modified (retry in 0.02s)",
    ]
    assert ctl.reconciles == 4  # the fourth pass (t=35 ms) succeeded; nothing is queued any more
    assert ctl.queued == []


def test_a_successful_pass_resets_the_count() -> None:
    conflict = Conflict("boom")
    ctl, loop, trace = make(scripted([conflict, conflict, None, conflict]))
    ctl.enqueue(KEY)
    loop.advance(1 * SECOND)  # fail, fail, succeed
    ctl.enqueue(KEY)
    loop.advance(1 * SECOND)  # fail again: back to the base delay
    assert retries(trace) == ["0.005s", "0.01s", "0.005s"]


def test_each_key_has_its_own_count() -> None:
    failing = {"a": 2, "b": 1}

    def reconcile(key: Key) -> None:
        if failing[key[1]]:
            failing[key[1]] -= 1
            raise Conflict("x")

    ctl, loop, trace = make(reconcile)
    ctl.enqueue(("ns", "a"))
    ctl.enqueue(("ns", "b"))
    loop.advance(1 * SECOND)
    assert [line.split(" ", 1)[1] for line in trace.grep("(retry in")] == [
        "ctl reconcile ns/a error 409 Conflict: x (retry in 0.005s)",
        "ctl reconcile ns/b error 409 Conflict: x (retry in 0.005s)",
        "ctl reconcile ns/a error 409 Conflict: x (retry in 0.01s)",
    ]


def test_a_component_backoff_and_verb() -> None:
    ctl, loop, trace = make(scripted([Conflict("x")] * 8), backoff=Backoff(1 * SECOND, 60 * SECOND), verb="sync")
    ctl.enqueue(KEY)
    loop.advance(600 * SECOND)
    assert retries(trace) == ["1s", "2s", "4s", "8s", "16s", "32s", "60s", "60s"]
    assert trace.lines[0] == "t=00:00:00.000 ctl sync ns/a error 409 Conflict: x (retry in 1s)"


def test_retry_on_decides_which_errors_are_retried() -> None:
    # Not in retry_on: a bug; strict mode lets it out of the loop, after tracing the crash.
    ctl, loop, trace = make(scripted([Flaky("disk on fire")]))
    ctl.enqueue(KEY)
    with pytest.raises(Flaky):
        loop.advance(1 * SECOND)
    assert trace.grep("ctl reconcile") == ["t=00:00:00.000 ctl reconcile ns/a crashed: Flaky: disk on fire"]
    # In retry_on: retried by the same rule; a non-API error is traced as "error: <text>".
    ctl, loop, trace = make(scripted([Flaky("not yet"), Conflict("c")]), retry_on=(Conflict, Flaky))
    ctl.enqueue(KEY)
    loop.advance(1 * SECOND)
    assert trace.grep("ctl reconcile") == [
        "t=00:00:00.000 ctl reconcile ns/a error: not yet (retry in 0.005s)",
        "t=00:00:00.005 ctl reconcile ns/a error 409 Conflict: c (retry in 0.01s)",  # one count for both kinds
    ]


def test_not_strict_a_crash_is_retried_by_the_same_rule() -> None:
    ctl, loop, trace = make(scripted([ValueError("bug"), ValueError("bug"), None]), strict=False)
    ctl.enqueue(KEY)
    loop.advance(1 * SECOND)
    assert trace.grep("crashed") == ["t=00:00:00.000 ctl reconcile ns/a crashed: ValueError: bug",
                                     "t=00:00:00.005 ctl reconcile ns/a crashed: ValueError: bug"]
    assert ctl.reconciles == 3  # retried at 5 ms, then at 15 ms (10 ms later), which succeeded


def test_terminal_error_drops_the_key_and_forgets_its_failures() -> None:
    ctl, loop, trace = make(scripted([Conflict("c"), TerminalError("never"), Conflict("c")]),
                            retry_on=(Conflict, TerminalError))  # TerminalError wins even when listed
    ctl.enqueue(KEY)
    loop.advance(1 * SECOND)
    assert trace.grep("terminal") == ["t=00:00:00.005 ctl reconcile ns/a terminal error: never"]
    assert ctl.reconciles == 2 and ctl.queued == []  # dropped: no retry
    ctl.enqueue(KEY)
    loop.advance(1 * SECOND)
    assert retries(trace) == ["0.005s", "0.005s"]  # the count started again


def test_requeue_after_is_kept_after_a_success() -> None:
    calls: list[int] = []

    def reconcile(_key: Key) -> Result | None:
        calls.append(loop.now)
        return Result(requeue_after=3 * SECOND) if len(calls) == 1 else None

    ctl, loop, _trace = make(reconcile)
    ctl.enqueue(KEY)
    loop.advance(10 * SECOND)
    assert calls == [0, 3 * SECOND]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"backoff": 5}, "Controller backoff must be a Backoff"),
    ({"retry_on": Conflict}, "Controller retry_on must be a tuple of exception types"),
    ({"retry_on": (Conflict, "Flaky")}, "Controller retry_on must be a tuple of exception types"),
])
def test_controller_rejects_a_bad_rule(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        make(scripted([]), **kwargs)
