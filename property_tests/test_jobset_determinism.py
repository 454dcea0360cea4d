"""Determinism: the same seed gives a byte-identical trace; perturbing same-time events
(``shuffle_ties=True``) keeps every invariant."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube import FakeCluster
from jobset_ref.testing import invariants as inv
from jobset_ref.testing import strategies as s

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")

SEMANTIC_FAULTS = ("fail-pod", "complete-pod", "fail-node", "suspend", "resume", "delete-jobset",
                   "restart-controllers")


@settings(max_examples=20)
@given(s.scenarios(max_faults=4, horizon=60), st.integers(0, 2**32 - 1))
def test_same_seed_same_trace(scenario: s.Scenario, seed: int) -> None:
    first, log1 = scenario.run(seed)
    second, log2 = scenario.run(seed)
    assert log1 == log2
    assert first.trace.text() == second.trace.text()


@settings(max_examples=30)
@given(s.scenarios(fault_kinds=SEMANTIC_FAULTS, max_faults=4, horizon=60), st.integers(0, 2**32 - 1))
def test_shuffled_ties_keep_every_invariant(scenario: s.Scenario, seed: int) -> None:
    cluster = scenario.start(seed, shuffle_ties=True)
    monitor = inv.Monitor(cluster)

    def check(cl: FakeCluster, fault: s.Fault, line: str) -> None:
        inv.assert_invariants(cl, scenario.name, monitor=monitor, feature_gates=scenario.feature_gates,
                              context=f"after {line}")

    scenario.run(cluster=cluster, after_each=check)
    inv.assert_invariants(cluster, scenario.name, monitor=monitor, context="at the horizon")
