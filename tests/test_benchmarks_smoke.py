"""The benchmarks' quick mode completes correctly (no timing is asserted: timings belong in
``python -m benchmarks``, not in tests)."""

from __future__ import annotations

import pytest

from benchmarks import core, multislice
from benchmarks.__main__ import run_core
from fakekube.cluster import STRICT_ENV


def test_core_quick_runs_and_lists_by_selector() -> None:
    lines = run_core(quick=True)
    assert lines[0] == "## API server"
    assert any("list group=g7 of 1000 pods (5 match)" in line for line in lines)


def test_multislice_scenario_restarts_once_then_completes() -> None:
    result = multislice.run_one(2)
    assert (result["slices"], result["pods"], result["restarts"]) == (2, 128, 1)
    assert result["virtual_s"] == 904.01
    assert result["api_writes"] > 0


def test_the_scaling_table_opens_with_the_machine_reference() -> None:
    """Tables from different days compare only next to the same fixed workload's time."""
    lines = multislice.run_scaling(quick=True)
    assert lines[0].startswith("machine reference: ") and " ms CPU " in lines[0]
    assert float(lines[0].split()[2]) > 0
    assert lines[2].startswith("## multislice") and len([r for r in lines if r.startswith("| 2 |")]) == 1


def test_pod_factory_labels_groups() -> None:
    assert core.pod(7, 7 % 200)["metadata"]["labels"] == {"app": "bench", "group": "g7", "idx": "7"}


def test_the_floor_replays_the_runs_writes_with_the_same_outcomes() -> None:
    from benchmarks import floor

    writes, refused, _ = floor.record_writes(2)
    _, failed = floor.write_floor(writes)
    assert len(writes) > 2000 and failed == refused


# The trace and the final stored objects of the 2-slice multislice run (seed 0). A speed-up must
# leave both byte-identical; a change that alters them on purpose updates these and says why.
MULTISLICE_2_TRACE = "baaefc1689a30cd1bb3fba06b6e04c44a4a30e147df43f02d0d19e019ba947e7"
MULTISLICE_2_STORE = "1e6f25dca246c9ccc0dbecae5cccc59c94595c8948cd98d3a24e2d8a99b3a6fe"  # the CRD has descriptions


@pytest.mark.parametrize("strict", [False, True])
def test_multislice_digests_are_unchanged_in_fast_and_strict_mode(strict: bool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT_ENV, raising=False)  # the suite runs strict; compare both modes
    result = multislice.run_one(2, digest=True, strict=strict)
    assert (result["trace_sha256"], result["store_sha256"]) == (MULTISLICE_2_TRACE, MULTISLICE_2_STORE)


def test_kueue_queue_admits_the_jobsets_one_after_another() -> None:
    from benchmarks import kueue_queue

    result = kueue_queue.run_one(3)  # run_one asserts each reservation follows the previous finish
    assert (result["jobsets"], result["pods"]) == (3, 12)
    assert result["virtual_s"] == 186.03  # three 62.01 s runs back to back
    lines = kueue_queue.run(quick=True)
    assert lines[0].startswith("## Kueue: JobSets queued on one ClusterQueue")
    assert [line.split("|")[1].strip() for line in lines[4:]] == ["2", "4"]
