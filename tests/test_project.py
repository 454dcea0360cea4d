"""Project-level checks that run with the suite: lint, layering, determinism rules."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fakekube", "jobset_ref")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_is_clean() -> None:
    if shutil.which("ruff") is None and _run(sys.executable, "-m", "ruff", "--version").returncode != 0:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    result = _run(sys.executable, "-m", "ruff", "check", *PACKAGES, "tests", "property_tests", "conformance",
                  "benchmarks", "examples", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_layering_contracts_hold() -> None:
    # Beside the interpreter first: a venv's python run without activating the venv has no bin/ on PATH.
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    result = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout + result.stderr


WALL_CLOCK = re.compile(r"\b(datetime\.now|datetime\.utcnow|date\.today|time\.time|time\.monotonic|"
                        r"time\.perf_counter|uuid\.uuid[14]|random\.(random|randint|choice|shuffle|seed))\(")


def test_library_code_never_reads_the_wall_clock_or_global_random() -> None:
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "cli.py":
                continue  # the CLI may time itself for its progress line; it never feeds the simulation
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if WALL_CLOCK.search(line) and "noqa: wall-clock" not in line:
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_a_plain_clone_runs_every_test_but_the_upstream_comparisons() -> None:
    """Tests use the project's own fixtures (its CRD, its manifests of the upstream examples' shapes);
    only the two comparisons with upstream's files read ``../shared/upstream``, and they skip with
    a reason without it (``-rs`` prints every skip's reason)."""
    readers = sorted(str(p.relative_to(ROOT)) for folder in ("tests", "conformance", "property_tests")
                     for p in (ROOT / folder).rglob("*.py")
                     if re.search(r"""["']shared["']|/shared/|UPSTREAM_EXAMPLES\b""", p.read_text())
                     and p.name != "test_project.py")
    assert readers == ["conformance/test_runner.py", "conformance/test_upstream_examples.py",
                       "tests/jobset_ref/test_api_crd.py"]
    assert " -rs " in re.search(r"^addopts = (.*)$", (ROOT / "pyproject.toml").read_text(), re.M).group(1)  # type: ignore[union-attr]


_DRAWS = """
from hypothesis import given, strategies as st

def test_draws():
    drawn: list[int] = []

    @given(st.integers())
    def inner(x):
        drawn.append(x)

    inner()
    print("DRAWN", drawn)
"""


def _draws(tmp_path: Path, *args: str, ci: bool = False) -> str:
    (tmp_path / "test_draws.py").write_text(_DRAWS)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "conftest", "-p", "no:randomly",
                             "-p", "no:cacheprovider", *args, str(tmp_path / "test_draws.py")],
                            cwd=tmp_path, capture_output=True, text=True, check=False,
                            env={**{k: v for k, v in os.environ.items() if k != "CI"}, "PYTHONPATH": str(ROOT),
                                 **({"CI": "true"} if ci else {})})
    assert result.returncode == 0, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if line.startswith("DRAWN")]
    return line


def test_the_suite_draws_the_same_examples_every_run_and_explore_draws_anew(tmp_path: Path) -> None:
    """A clean clone's CI must pass or fail as the run before it did: no new random counterexample there.

    Both with and without a CI variable: under one, hypothesis's own parent profile is derandomized,
    and a profile that does not say otherwise inherits it.
    """
    for ci in (False, True):
        assert _draws(tmp_path, ci=ci) == _draws(tmp_path, ci=ci)
        explore = "--hypothesis-profile=explore"
        assert _draws(tmp_path, explore, ci=ci) != _draws(tmp_path, explore, ci=ci)
