"""The benchmarks' quick mode completes correctly (no timing is asserted: timings belong in
``python -m benchmarks``, not in tests)."""

from __future__ import annotations

from benchmarks import core, multislice
from benchmarks.__main__ import run_core


def test_core_quick_runs_and_lists_by_selector() -> None:
    lines = run_core(quick=True)
    assert lines[0] == "## API server"
    assert any("list group=g7 of 1000 pods (5 match)" in line for line in lines)


def test_multislice_scenario_restarts_once_then_completes() -> None:
    result = multislice.run_one(2)
    assert (result["slices"], result["pods"], result["restarts"]) == (2, 128, 1)
    assert result["virtual_s"] == 904.01
    assert result["api_writes"] > 0


def test_pod_factory_labels_groups() -> None:
    assert core.pod(7, 7 % 200)["metadata"]["labels"] == {"app": "bench", "group": "g7", "idx": "7"}


def test_the_floor_replays_the_runs_writes_with_the_same_outcomes() -> None:
    from benchmarks import floor

    writes, refused, _ = floor.record_writes(2)
    _, failed = floor.write_floor(writes)
    assert len(writes) > 2000 and failed == refused
