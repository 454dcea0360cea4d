"""Invariants of a JobSet and its children, reusable by property tests and the conformance runner.

Two kinds:

* **Snapshot checks** read one consistent view of the cluster (:class:`Snapshot`) and return
  a list of :class:`Violation` (empty = fine): naming, hostnames and DNS limits, the upstream
  label/annotation set, job keys, global/group index bijections, owner references, DNS answers,
  status counters vs a recount, suspension, exclusive placement, stale restart attempts.
  Those marked *settled* hold only once the controllers have caught up (the loop is idle at
  this instant and no requeue or delayed watch event is pending); :func:`check_jobset` takes
  ``settled=``.
* **History checks** (:class:`Monitor`) watch JobSets and Jobs from the start and replay every
  event in resourceVersion order: terminalState never changes once set, restarts never
  decrease, at most one Job per (replicatedJob, index, attempt), no Job of an older attempt
  exists when a restart is reported finished (``RestartingJobSet=False``/``JobsReady``), and
  InOrder / dependsOn never start a later ReplicatedJob early.

:func:`assert_invariants` runs everything and raises ``AssertionError`` listing every violation
with the object it concerns.

This is a package, one module per kind of invariant (:mod:`.snapshot` what the checks read and
return; :mod:`.names_and_labels` owners, names, labels and indices; :mod:`.status` terminal
state, counters, suspension and stale attempts; :mod:`.placement` exclusive placement;
:mod:`.dns` DNS; :mod:`.history` the :class:`Monitor`; :mod:`.all_checks` everything at once).
It stays a package rather than becoming a facade module next to its parts so that the parts
live under the one public name: ``from jobset_ref.testing import invariants`` (or ``from
jobset_ref.testing.invariants import Monitor``) reaches every public name from here, as it
always did, and no part imports this ``__init__``.
"""

from __future__ import annotations

from jobset_ref.testing.invariants.all_checks import assert_invariants, check_jobset
from jobset_ref.testing.invariants.dns import check_dns
from jobset_ref.testing.invariants.history import Monitor
from jobset_ref.testing.invariants.names_and_labels import JOBSET_KEYS as JOBSET_KEYS
from jobset_ref.testing.invariants.names_and_labels import (
    check_global_index,
    check_labels,
    check_naming,
    check_owners,
    expected_job_labels,
    job_key,
)
from jobset_ref.testing.invariants.placement import check_exclusive_placement
from jobset_ref.testing.invariants.snapshot import JOBSETS, Snapshot, Violation, assert_no_violations
from jobset_ref.testing.invariants.snapshot import _cond as _cond  # property_tests read conditions through it
from jobset_ref.testing.invariants.status import (
    check_stale_attempts,
    check_status_recount,
    check_suspended,
    check_terminal_state,
)

__all__ = [
    "JOBSETS",
    "Monitor",
    "Snapshot",
    "Violation",
    "assert_invariants",
    "assert_no_violations",
    "check_dns",
    "check_exclusive_placement",
    "check_global_index",
    "check_jobset",
    "check_labels",
    "check_naming",
    "check_owners",
    "check_stale_attempts",
    "check_status_recount",
    "check_suspended",
    "check_terminal_state",
    "expected_job_labels",
    "job_key",
]
