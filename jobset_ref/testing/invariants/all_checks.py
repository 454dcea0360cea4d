"""Every JobSet invariant at once: :func:`check_jobset` runs the snapshot checks of one JobSet and
:func:`assert_invariants` adds a :class:`Monitor`'s history checks and raises on any violation."""

from __future__ import annotations

from collections.abc import Mapping

from fakekube import FakeCluster
from jobset_ref.testing.invariants.dns import check_dns
from jobset_ref.testing.invariants.history import Monitor
from jobset_ref.testing.invariants.names_and_labels import (
    check_global_index,
    check_labels,
    check_naming,
    check_owners,
)
from jobset_ref.testing.invariants.placement import check_exclusive_placement
from jobset_ref.testing.invariants.snapshot import Snapshot, Violation, assert_no_violations
from jobset_ref.testing.invariants.status import (
    check_stale_attempts,
    check_status_recount,
    check_suspended,
    check_terminal_state,
)

__all__ = ["assert_invariants", "check_jobset"]

def check_jobset(cluster: FakeCluster, name: str, namespace: str = "default", *, settled: bool = True,
                 feature_gates: Mapping[str, bool] | None = None) -> list[Violation]:
    """Every snapshot invariant of one JobSet (the *settled* ones only when ``settled``)."""
    snap = Snapshot.take(cluster, name, namespace, feature_gates=feature_gates)
    out = (check_owners(snap) + check_naming(snap) + check_labels(snap) + check_global_index(snap)
           + check_terminal_state(snap) + check_stale_attempts(snap))
    if settled:
        out += (check_status_recount(snap) + check_suspended(snap) + check_exclusive_placement(snap)
                + check_dns(cluster, snap))
    return out



def assert_invariants(cluster: FakeCluster, name: str, namespace: str = "default", *, monitor: Monitor | None = None,
                      settled: bool = True, feature_gates: Mapping[str, bool] | None = None,
                      context: str = "") -> None:
    """Run :func:`check_jobset` (and ``monitor.check()``) and raise ``AssertionError`` on any violation."""
    found = check_jobset(cluster, name, namespace, settled=settled, feature_gates=feature_gates)
    if monitor is not None:
        found = monitor.check() + found
    assert_no_violations(found, context=context or f"at t={cluster.elapsed:g}s")
