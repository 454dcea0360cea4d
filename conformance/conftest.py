"""Collect every ``conformance/scenarios/<area>/<name>.yaml`` as one pytest item.

    pytest conformance/                          # run all scenarios and the matrix checks
    pytest conformance/ -k failure-policy        # one area
    pytest conformance/ --update-golden          # rewrite the golden ``.trace`` files

A scenario with ``xfail: "<reason>"`` is a strict xfail (an unexpected pass fails the run, so a
fixed bug is noticed); ``skip: "<reason>"`` skips it. Scenarios reading
``../shared/upstream/examples`` skip with a clear reason when that folder is absent.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:  # ``conformance`` is a folder of the repository, not an installed package
    sys.path.insert(0, _ROOT)

from conformance import runner  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "jobset-ref conformance scenarios")
    group.addoption("--update-golden", action="store_true", default=False,
                    help="rewrite the golden .trace files of scenarios with golden: true")


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix == ".yaml" and runner.SCENARIOS_DIR in file_path.resolve().parents:
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            scenario = runner.load_scenario(self.path)
        except runner.ScenarioError as err:
            raise self.CollectError(str(err)) from None
        item = ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)
        if scenario.xfail:
            item.add_marker(pytest.mark.xfail(reason=scenario.xfail, strict=True, raises=AssertionError))
        if scenario.skip:
            item.add_marker(pytest.mark.skip(reason=scenario.skip))
        yield item


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: runner.Scenario, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario

    def runtest(self) -> None:
        try:
            runner.run_scenario(self.scenario, update_golden=self.config.getoption("--update-golden"))
        except runner.ScenarioSkipped as skipped:
            pytest.skip(str(skipped))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        err = excinfo.value
        if isinstance(err, runner.ExpectationFailed | runner.ScenarioError):
            return f"{self.scenario.path.relative_to(runner.REPO_ROOT)}: {self.scenario.description}\n{err}"
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario {self.scenario.id}"
