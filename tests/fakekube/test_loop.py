"""The event loop, the clock and the seeded streams."""

from __future__ import annotations

import random
import uuid

import pytest

from fakekube._core.clock import SECOND, format_offset, format_time, parse_time, seconds
from fakekube._core.loop import _LARGE_RUN, EventLoop, Priority
from fakekube._core.rand import KUBE_NAME_ALPHABET, SeedTree
from fakekube._core.trace import Trace
from fakekube.errors import SimulationError, UsageError


def make_loop(**kwargs: object) -> EventLoop:
    holder: list[EventLoop] = []
    trace = Trace(lambda: holder[0].now)
    loop = EventLoop(trace, **kwargs)  # type: ignore[arg-type]
    holder.append(loop)
    return loop


def test_events_run_in_time_then_priority_then_submission_order() -> None:
    loop = make_loop()
    seen: list[str] = []
    loop.call_at(2 * SECOND, lambda: seen.append("t2"))
    loop.call_at(1 * SECOND, lambda: seen.append("t1-normal-a"))
    loop.call_at(1 * SECOND, lambda: seen.append("t1-urgent"), priority=Priority.URGENT)
    loop.call_at(1 * SECOND, lambda: seen.append("t1-normal-b"))
    loop.advance(3 * SECOND)
    assert seen == ["t1-urgent", "t1-normal-a", "t1-normal-b", "t2"]
    assert loop.now == 3 * SECOND


def test_run_until_idle_never_moves_the_clock() -> None:
    loop = make_loop()
    seen: list[int] = []
    loop.call_soon(lambda: loop.call_soon(lambda: seen.append(loop.now)))
    loop.call_later(5 * SECOND, lambda: seen.append(-1))
    assert loop.run_until_idle() == 2
    assert seen == [0]
    assert loop.now == 0


def test_cancelled_handles_do_not_run() -> None:
    loop = make_loop()
    seen: list[str] = []
    handle = loop.call_later(SECOND, lambda: seen.append("x"))
    handle.cancel()
    loop.advance(2 * SECOND)
    assert seen == []
    assert loop.next_time() is None


def test_a_cancelled_timer_lets_go_of_what_its_callable_holds() -> None:
    """A timer cancelled long before it is due (a killed pod's exit) waits in the queue until then;
    what its callable references is freed at once, not when the timer's instant comes."""
    import gc
    import weakref

    class Payload:
        pass

    loop = make_loop()
    payload = Payload()
    ref = weakref.ref(payload)
    handle = loop.call_later(600 * SECOND, lambda held=payload: None)
    del payload
    handle.cancel()
    gc.collect()
    assert ref() is None
    assert loop.statistics().pending == 0
    loop.advance(601 * SECOND)


def test_run_until_returns_the_first_instant_the_predicate_holds() -> None:
    loop = make_loop()
    state = {"n": 0}
    for i in range(1, 6):
        loop.call_at(i * SECOND, lambda: state.__setitem__("n", state["n"] + 1))
    assert loop.run_until(lambda: state["n"] >= 3, timeout=10 * SECOND) == 3 * SECOND


def test_run_until_times_out_with_trace_tail() -> None:
    loop = make_loop()
    loop.trace.add("something happened")
    with pytest.raises(SimulationError, match=r"did not hold within 5 s.*nothing left to simulate") as err:
        loop.run_until(lambda: False, timeout=5 * SECOND)
    assert "something happened" in str(err.value)
    assert loop.now == 5 * SECOND


def test_run_until_idle_budget_raises_instead_of_hanging() -> None:
    loop = make_loop()

    def forever() -> None:
        loop.call_soon(forever)

    loop.call_soon(forever)
    with pytest.raises(SimulationError, match="100 steps"):
        loop.run_until_idle(max_steps=100)


def test_advance_rejects_negative_durations() -> None:
    with pytest.raises(UsageError):
        make_loop().advance(-1)


def test_shuffle_ties_permutes_same_time_events_deterministically() -> None:
    def order(seed: int) -> list[int]:
        loop = make_loop(tie_stream=SeedTree(seed).stream("ties"))
        seen: list[int] = []
        for i in range(8):
            loop.call_soon(lambda i=i: seen.append(i))
        loop.run_until_idle()
        return seen

    assert order(1) == order(1)
    assert sorted(order(1)) == list(range(8))
    assert any(order(s) != list(range(8)) for s in range(5))


def test_clock_formats() -> None:
    t = seconds(63.5)
    assert format_time(t) == "2030-01-01T00:01:03Z"
    assert format_offset(t) == "00:01:03.500"
    assert parse_time("2030-01-01T00:01:03Z") == 63 * SECOND


def test_seed_streams_are_independent_and_stable() -> None:
    a = SeedTree(7).stream("apiserver/names").name_suffix()
    assert a == SeedTree(7).stream("apiserver/names").name_suffix()
    assert len(a) == 5 and set(a) <= set(KUBE_NAME_ALPHABET)
    assert SeedTree(7).stream("x").uid() != SeedTree(8).stream("x").uid()
    uid = SeedTree(0).stream("u").uid()
    assert len(uid) == 36 and uid[14] == "4"


def test_a_uid_is_the_uuid4_of_the_streams_next_128_bits() -> None:
    """UIDs (in every golden trace and stored object) stay what ``uuid.UUID(version=4)`` made of the
    stream's draws: same text, RFC 4122 variant and version bits set."""
    stream, rng = SeedTree(3).stream("uids"), random.Random(SeedTree(3).child_seed("uids"))
    for _ in range(2000):
        uid = stream.uid()
        assert uid == str(uuid.UUID(int=rng.getrandbits(128), version=4))
        assert uuid.UUID(uid).version == 4 and uuid.UUID(uid).variant == uuid.RFC_4122


def test_a_name_suffix_is_the_streams_choices_from_the_alphabet() -> None:
    """Generated names (in every golden trace and stored object) stay what ``random.choice`` made
    of the stream's draws."""
    stream, rng = SeedTree(3).stream("names"), random.Random(SeedTree(3).child_seed("names"))
    for length in [5] * 2000 + [0, 1, 13]:
        assert stream.name_suffix(length) == "".join(rng.choice(KUBE_NAME_ALPHABET) for _ in range(length))


def test_a_livelock_inside_advance_fails_fast_naming_the_instant() -> None:
    loop = make_loop(max_steps_per_instant=500)

    def forever() -> None:
        loop.call_soon(forever)

    loop.call_later(2 * SECOND, forever)
    with pytest.raises(SimulationError, match=r"livelock: more than 500 events at t=00:00:02\.000"):
        loop.advance(10 * SECOND)
    assert loop.now == 2 * SECOND


def test_runs_pause_the_cyclic_gc_and_restore_it_even_on_error() -> None:
    import gc

    loop = make_loop()
    assert gc.isenabled()
    seen: list[bool] = []
    loop.call_at(SECOND, lambda: seen.append(gc.isenabled()))
    loop.advance(2 * SECOND)
    assert seen == [False] and gc.isenabled()

    def boom() -> None:
        raise RuntimeError("handler failed")

    loop.call_soon(boom)
    with pytest.raises(RuntimeError):
        loop.run_until_idle()
    assert gc.isenabled()
    try:  # a caller who disabled it keeps it disabled
        gc.disable()
        loop.call_soon(lambda: seen.append(gc.isenabled()))
        loop.run_until_idle()
        assert seen[-1] is False and not gc.isenabled()
    finally:
        gc.enable()


def test_what_a_run_leaves_is_old_yet_collectable_and_a_callers_freeze_stays() -> None:
    """The first allocations after a large run do not make a young collection walk everything the
    run built (it is in the oldest generation), cycles the run dropped are still collected, and
    objects a caller froze stay frozen."""
    import gc
    import weakref

    class Cyclic:
        me: object

    loop = make_loop()
    kept: list[list[int]] = []
    dropped: list[weakref.ref[Cyclic]] = []

    def build() -> None:
        kept.extend([i] for i in range(5_000))
        cyclic = Cyclic()
        cyclic.me = cyclic
        dropped.append(weakref.ref(cyclic))

    def large_run() -> None:
        for _ in range(_LARGE_RUN):
            loop.call_soon(lambda: None)
        loop.call_soon(build)
        loop.run_until_idle()

    large_run()  # on CPython 3.12 past the interpreter's own frozen objects
    gc.collect()
    assert dropped[0]() is None
    large_run()
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(item) in oldest for item in kept)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        large_run()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_run_ages_what_it_leaves_past_what_was_frozen_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """Objects frozen before the loop was imported (CPython 3.12 starts with a few hundred of its
    own) do not stop a large run from aging what it leaves; a caller's later freeze does."""
    import gc

    from fakekube._core import loop as loop_module

    loop = make_loop()
    kept: list[list[int]] = []

    def large_run() -> None:
        for _ in range(_LARGE_RUN):
            loop.call_soon(lambda: None)
        loop.call_soon(lambda: kept.extend([i] for i in range(1_000)))
        loop.run_until_idle()

    gc.freeze()  # stands for what the interpreter froze before the import
    try:
        monkeypatch.setattr(loop_module, "_FROZEN_AT_IMPORT", gc.get_freeze_count())
        large_run()
        assert gc.get_freeze_count() == 0
        oldest = {id(o) for o in gc.get_objects(generation=2)}
        assert all(id(item) in oldest for item in kept)
        gc.freeze()  # a caller's own freeze after the import is left alone
        frozen = gc.get_freeze_count()
        large_run()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("t", [0, 1, SECOND - 1, SECOND, 63 * SECOND + 999_999_999, -1, -SECOND, -SECOND - 1,
                               10**15 + 7])
def test_format_time_truncates_to_the_whole_second_like_metav1_time(t: int) -> None:
    from datetime import UTC, datetime, timedelta

    expected = datetime(2030, 1, 1, tzinfo=UTC) + timedelta(microseconds=t // 1000)
    assert format_time(t) == format_time(t) == expected.strftime("%Y-%m-%dT%H:%M:%SZ")
