"""The conformance scenario runner: load a YAML scenario, drive a ``FakeCluster`` through its
timeline on virtual time, check its expectations, and explain failures.

The format is documented in ``conformance/README.md`` (in the repository). In short::

    description: one failing pod restarts the whole JobSet
    covers: [failurePolicy.maxRestarts, labels.restart-attempt]
    cluster: {seed: 0, nodes: [{count: 4}], pods: {runSeconds: 60}}
    manifests: [{example: pytorch.yaml}]
    timeline:
      - at: 10
        failPod: {hostname: pytorch-workers-0-1}
      - waitFor: {jobset: pytorch, conditions: [{type: RestartingJobSet, status: "True"}]}
        expectTime: 10
    end: {until: finished, expectTime: 132.01}
    expect:
      - jobset: pytorch
        match: {status: {restarts: 1, terminalState: Completed}}

``run_scenario(scenario)`` for each of ``load_scenarios([path, ...])`` (files or folders, from
anywhere; no argument: the packaged suite) raises :class:`ExpectationFailed` (an ``AssertionError``)
with the expectation, expected vs actual values, an object summary and the trace tail;
:class:`ScenarioError` for a malformed scenario; :class:`ScenarioSkipped` when an input (the
repository's ``examples/``, the shared upstream examples folder) is absent.

The runner is split by concern: ``scenario`` (the format's vocabulary and loading), ``matching``
(field paths and value matchers), ``context`` (a run's state, failure reports, reading objects),
``checks`` (expectations, invariants, golden traces) and ``actions`` (cluster setup, sources and
the timeline). This module runs a scenario start to end and re-exports the public names.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from fakekube import FakeCluster
from jobset_ref.conformance.actions import Actions
from jobset_ref.conformance.external import ExternalOptions
from jobset_ref.conformance.matching import MISSING, match_value, resolve_path
from jobset_ref.conformance.scenario import (
    EXAMPLES_DIR,
    MANIFESTS_DIR,
    REPO_ROOT,
    SCENARIOS_DIR,
    UPSTREAM_DIR,
    UPSTREAM_EXAMPLES,
    ExpectationFailed,
    Scenario,
    ScenarioError,
    ScenarioSkipped,
    describe_keys,
    discover,
    in_source_tree,
    load_scenario,
    load_scenarios,
    parse_seconds,
)

__all__ = [
    "EXAMPLES_DIR",
    "MANIFESTS_DIR",
    "MISSING",
    "REPO_ROOT",
    "SCENARIOS_DIR",
    "UPSTREAM_DIR",
    "UPSTREAM_EXAMPLES",
    "ExpectationFailed",
    "ExternalOptions",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "ScenarioSkipped",
    "describe_keys",
    "discover",
    "in_source_tree",
    "load_scenario",
    "load_scenarios",
    "match_value",
    "parse_seconds",
    "resolve_path",
    "run_scenario",
]


# ====================================================================== the run


@dataclass
class RunResult:
    """What a successful run leaves behind (for tests of the runner and for curiosity)."""

    scenario: Scenario
    cluster: FakeCluster
    elapsed: float
    golden_updated: bool = False


def run_scenario(scenario: Scenario, *, update_golden: bool = False,
                 external: ExternalOptions | None = None) -> RunResult:
    """Run ``scenario`` start to end; raises :class:`ExpectationFailed` on the first failure.

    ``external``: the JobSet controller is a command run out of process against the served
    cluster (see ``jobset_ref.conformance.external``); exact virtual times become windows and
    golden traces are not compared (the interleavings of two processes differ)."""
    if scenario.skip:
        raise ScenarioSkipped(scenario.skip)
    if external is not None and update_golden:
        raise ScenarioError("golden traces are written in process only: drop --controller-cmd or --update-golden")
    run = Actions(scenario, update_golden=update_golden, external=external)
    try:
        run.setup()
        for i, src in enumerate(scenario.data.get("manifests") or []):
            run.where = f"manifests[{i}]"
            run.apply_source(src, run.where)
        run.run_timeline()
        run.run_end()
        run.check_all(list(scenario.data.get("expect") or []), "expect")
        if scenario.data.get("invariants", True):
            run.check_invariants()
        run.cluster.api.store.verify_frozen()
        updated = run.check_golden() if scenario.golden and external is None else False
    except (ScenarioError, ScenarioSkipped, ExpectationFailed):
        raise
    except Exception as err:  # a crash in the code under test: report it like a failed expectation
        frames = traceback.extract_tb(err.__traceback__)[-6:]
        raise run.fail(f"the simulation raised {type(err).__name__}: {err}",
                       mismatches=[f"{f.filename}:{f.lineno} in {f.name}: {f.line}" for f in frames]) from err
    finally:
        run.stop()
    return RunResult(scenario=scenario, cluster=run.cluster, elapsed=run.cluster.elapsed, golden_updated=updated)
