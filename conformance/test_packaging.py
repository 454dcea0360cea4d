"""The suite ships in the wheel and runs scenario files from anywhere: ``load_scenarios``, the
``python -m jobset_ref.conformance`` command, the pytest plugin and the package data."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from jobset_ref.conformance import scenario
from jobset_ref.conformance.__main__ import main
from jobset_ref.conformance.runner import (
    EXAMPLES_DIR,
    MANIFESTS_DIR,
    SCENARIOS_DIR,
    ScenarioError,
    load_scenarios,
    run_scenario,
)

REPO_ROOT = Path(__file__).resolve().parent.parent

PASSING = """
description: a JobSet applied from a manifest file beside this scenario completes
covers: [success.all]
cluster:
  nodesFile: ../../data/nodes.yaml     # a plain path: relative to this file
  pods: {runSeconds: 30}
manifests:
  - file: ../../data/tiny.yaml
end: {until: finished, expectTime: 32.01}
expect:
  - jobset: tiny
    match: {status: {terminalState: Completed}}
  - node: mine-0
    exists: true
"""

TINY = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: tiny}
spec:
  replicatedJobs:
    - name: w
      template:
        spec:
          template:
            spec:
              containers: [{name: main, image: busybox}]
"""

FAILING = """
description: expects a JobSet that is never created
covers: [naming.job-name]
end: {at: 1}
expect:
  - jobset: nowhere
"""


@pytest.fixture
def own_suite(tmp_path: Path) -> Path:
    """A folder of one's own scenarios, outside the repository; manifests live beside it."""
    suite = tmp_path / "suite"
    (suite / "area").mkdir(parents=True)
    (suite / "area" / "passing.yaml").write_text(PASSING)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "tiny.yaml").write_text(TINY)
    (tmp_path / "data" / "nodes.yaml").write_text("nodes: [{name: mine-0}, {name: mine-1}]\n")
    return suite


def test_scenarios_load_and_run_from_any_folder(own_suite: Path) -> None:
    (loaded,) = load_scenarios([own_suite])
    assert loaded.id == "area/passing"
    result = run_scenario(loaded)
    assert result.elapsed == 32.01


def test_a_lone_file_is_named_by_its_stem_and_a_packaged_one_by_its_area() -> None:
    packaged = SCENARIOS_DIR / "failure" / "no-rule-matches.yaml"
    ids = [sc.id for sc in load_scenarios([packaged])]
    assert ids == ["failure/no-rule-matches"]


def test_no_argument_loads_the_packaged_suite() -> None:
    ids = [sc.id for sc in load_scenarios()]
    assert len(ids) == len(scenario.discover(SCENARIOS_DIR)) and "failure/no-rule-matches" in ids


@pytest.mark.parametrize(("setup", "message"), [
    ("missing", "no such scenario file or folder"),
    ("empty", r"no scenario files \(\*\.yaml\) in this folder"),
    ("duplicate", "two scenarios have the id 'x'"),
])
def test_bad_paths_are_authoring_errors(tmp_path: Path, setup: str, message: str) -> None:
    if setup == "missing":
        paths = [tmp_path / "nope"]
    elif setup == "empty":
        paths = [tmp_path]
    else:
        for d in ("a", "b"):
            (tmp_path / d).mkdir()
            (tmp_path / d / "x.yaml").write_text(FAILING)
        paths = [tmp_path / "a" / "x.yaml", tmp_path / "b" / "x.yaml"]
    with pytest.raises(ScenarioError, match=message):
        load_scenarios(paths)


def test_the_readme_examples_ship_in_the_package_and_run_outside_a_source_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario, "in_source_tree", lambda: False)
    assert (scenario.EXAMPLES_DIR / "pytorch.yaml").is_file()
    assert scenario.EXAMPLES_DIR.parent.name == "jobset_ref"
    repo_examples = scenario.REPO_ROOT / "examples"
    for name in ("coordinator.yaml", "pytorch.yaml", "tpu-multislice.yaml", "trainer.yaml", "nodes"):
        assert (repo_examples / name).resolve() == (scenario.EXAMPLES_DIR / name).resolve()
    sc = tmp_path / "story.yaml"
    sc.write_text("description: x\ncovers: [story.pytorch]\nmanifests:\n  - example: pytorch.yaml\n")
    result = run_scenario(scenario.load_scenario(sc, tmp_path))
    assert result.cluster.list("jobsets")


def test_the_command_runs_own_scenarios_and_reports_failures(own_suite: Path) -> None:
    (own_suite / "area" / "failing.yaml").write_text(FAILING)
    out = io.StringIO()
    assert main([str(own_suite)], out=out) == 1
    text = out.getvalue()
    assert "FAIL  area/failing" in text and "PASS  area/passing: 32.01s virtual" in text
    assert "jobset nowhere: expected to exist" in text and text.rstrip().endswith("1 passed, 1 failed")
    out = io.StringIO()
    assert main([str(own_suite), "-k", "passing"], out=out) == 0
    assert out.getvalue().rstrip().endswith("1 passed, 0 failed")


def test_the_command_lists_and_refuses_an_empty_selection(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert main(["--list", "-k", "failure/"], out=out) == 0
    assert "failure/no-rule-matches" in out.getvalue().splitlines()
    assert main(["-k", "no-such-scenario"]) == 2
    assert capsys.readouterr().err == "error: no scenario id matches -k 'no-such-scenario'\n"


def test_the_pytest_plugin_collects_own_scenarios(own_suite: Path) -> None:
    (own_suite / "area" / "failing.yaml").write_text(FAILING.replace("description:", "xfail: known gap\ndescription:"))
    project = own_suite.parent
    (project / "conftest.py").write_text('pytest_plugins = ["jobset_ref.conformance.pytest_plugin"]\n')
    (project / "test_mine.py").write_text(
        "from jobset_ref.conformance.pytest_plugin import Scenarios\n\ntest_mine = Scenarios('suite')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", str(project)],
                          cwd=project, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED test_mine.py::area/passing" in proc.stdout
    assert "XFAIL test_mine.py::area/failing - known gap" in proc.stdout


def test_package_data_ships_every_scenario_trace_and_manifest() -> None:
    """Each file under the packaged scenarios, manifests and examples matches a ``package-data`` pattern,
    so the wheel carries it (the patterns are globs relative to the ``jobset_ref`` package)."""
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["jobset_ref"]
    package = REPO_ROOT / "jobset_ref"
    shipped = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    data = [p for root in (SCENARIOS_DIR, MANIFESTS_DIR, EXAMPLES_DIR) if root.is_dir()
            for p in root.rglob("*") if p.is_file()]
    assert data
    missing = sorted(str(p.relative_to(package)) for p in data if p not in shipped)
    assert not missing, f"{len(missing)} file(s) not in [tool.setuptools.package-data] jobset_ref: {missing[:5]}"
