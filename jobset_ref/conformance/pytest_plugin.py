"""Conformance scenarios as pytest items: one item per scenario file, named by its id.

In a test module, a module-level :class:`Scenarios` names the scenario files or folders to
collect (relative paths are resolved against the test module's folder; no path: the packaged
suite)::

    # tests/test_conformance.py
    from jobset_ref.conformance.pytest_plugin import Scenarios

    test_packaged = Scenarios()                 # every packaged scenario
    test_mine = Scenarios("scenarios")          # tests/scenarios/**/*.yaml

and register this plugin once, in the root ``conftest.py``::

    pytest_plugins = ["jobset_ref.conformance.pytest_plugin"]

A scenario with ``xfail: "<reason>"`` is a strict xfail (an unexpected pass fails the run, so a
fixed bug is noticed); ``skip: "<reason>"`` skips it, and so does a missing optional input (the
repository's ``examples/``, ``../shared/upstream/examples``). ``--update-golden`` rewrites the
golden ``.trace`` files of scenarios with ``golden: true``. A failure shows the scenario file,
its description and the runner's report instead of a Python traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobset_ref.conformance.runner import (
    ExpectationFailed,
    Scenario,
    ScenarioError,
    ScenarioSkipped,
    load_scenarios,
    run_scenario,
)

__all__ = ["ScenarioItem", "Scenarios", "pytest_addoption", "pytest_pycollect_makeitem"]


class Scenarios:
    """A module-level marker: collect these scenario files or folders (none: the packaged suite)."""

    def __init__(self, *paths: str | Path) -> None:
        self.paths = [Path(p) for p in paths]

    def load(self, base: Path) -> list[Scenario]:
        if not self.paths:
            return _packaged_suite()
        return load_scenarios([p if p.is_absolute() else base / p for p in self.paths])

    def __repr__(self) -> str:
        return f"Scenarios({', '.join(repr(str(p)) for p in self.paths)})"


_PACKAGED: list[Scenario] = []


def _packaged_suite() -> list[Scenario]:
    """The packaged suite, parsed once a process: a process that collects more than once (the
    mutation run, ``mutmut run``, forks a child per mutant from a process that has collected)
    does not parse its YAML again (two thirds of the cost of a quickly killed mutant)."""
    if not _PACKAGED:
        _PACKAGED.extend(load_scenarios())
    return list(_PACKAGED)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "jobset-ref conformance scenarios")
    group.addoption("--update-golden", action="store_true", default=False,
                    help="rewrite the golden .trace files of scenarios with golden: true")


def pytest_pycollect_makeitem(collector: pytest.Module | pytest.Class, name: str, obj: object
                              ) -> list[pytest.Item] | None:
    if not isinstance(obj, Scenarios):
        return None
    try:
        scenarios = obj.load(collector.path.parent)
    except ScenarioError as err:
        raise collector.CollectError(f"{name} = {obj!r}: {err}") from None
    items: list[pytest.Item] = []
    for scenario in scenarios:
        item = ScenarioItem.from_parent(collector, name=scenario.id, scenario=scenario)
        if scenario.xfail:
            item.add_marker(pytest.mark.xfail(reason=scenario.xfail, strict=True, raises=AssertionError))
        if scenario.skip:
            item.add_marker(pytest.mark.skip(reason=scenario.skip))
        items.append(item)
    return items


class ScenarioItem(pytest.Item):
    """One scenario run start to end (``jobset_ref.conformance.runner.run_scenario``)."""

    def __init__(self, *, scenario: Scenario, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        try:
            run_scenario(self.scenario, update_golden=bool(self.config.getoption("--update-golden", False)))
        except ScenarioSkipped as skipped:
            pytest.skip(str(skipped))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        err = excinfo.value
        if isinstance(err, ExpectationFailed | ScenarioError):
            path = self.scenario.path
            shown = path.relative_to(self.config.rootpath) if path.is_relative_to(self.config.rootpath) else path
            return f"{shown}: {self.scenario.description}\n{err}"
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.scenario.path, 0, f"scenario {self.scenario.id}"
