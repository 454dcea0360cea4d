"""The JobSet conformance suite: declarative YAML scenarios and their runner, shipped in the wheel.

    python -m jobset_ref.conformance                    # run every packaged scenario
    python -m jobset_ref.conformance my/scenarios x.yaml  # run your own scenario files or folders

    from jobset_ref.conformance import load_scenarios, run_scenario
    for scenario in load_scenarios(["my/scenarios"]):   # no argument: the packaged suite
        run_scenario(scenario)                           # raises ExpectationFailed on a mismatch

Under pytest, ``jobset_ref.conformance.pytest_plugin`` turns scenarios into test items. The
packaged scenarios live in ``scenarios/<area>/<name>.yaml`` (golden traces beside them) and
the manifests they apply in ``manifests/``; the format is described in the repository's
``conformance/README.md``. Names are imported lazily: importing a submodule (``scenario``,
``matrix``) does not start the runner.
"""

from __future__ import annotations

from jobset_ref import _lazy

__all__, __getattr__, __dir__ = _lazy.lazy_exports(__name__, {
    "jobset_ref.conformance.scenario": (
        "MANIFESTS_DIR", "SCENARIOS_DIR", "ExpectationFailed", "Scenario", "ScenarioError", "ScenarioSkipped",
        "discover", "load_scenario", "load_scenarios",
    ),
    "jobset_ref.conformance.runner": ("RunResult", "run_scenario"),
})
