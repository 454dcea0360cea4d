"""Every command the README shows is run by a test. ``RUN_ELSEWHERE`` names the test that runs each
command another file already covers (it must exist); the others run here. A command added to the
README fails :func:`test_every_readme_command_is_run_by_a_test` until it gets a test."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent

#: README command pattern -> the test that runs it (``path::test`` in this repository) or what runs it.
RUN_ELSEWHERE: dict[str, str] = {
    r"jobset-ref (simulate|validate)( .*)?": "tests/test_readme_cli.py::test_each_readme_command_works_as_written",
    r"pip install -e \. && jobset-ref simulate examples/pytorch\.yaml":
        "tests/test_readme_cli.py::test_each_readme_command_works_as_written",
    r"pip install -e '\.\[test\]' && python -m pytest": ".ci/run",
    r"pytest conformance/": ".ci/run",  # `python -m pytest` collects conformance/ (testpaths)
    r"jobset-ref serve examples/pytorch\.yaml .*": "tests/test_readme_real_clients.py::test_the_serve_command_and_kubectl",
    r"KUBECONFIG=kubeconfig\.fakekube kubectl .*":
        "tests/test_readme_real_clients.py::test_the_serve_command_and_kubectl",
    r"jobset-ref conformance --controller-cmd 'jobset-ref controller --kubeconfig \{kubeconfig\}'":
        "tests/remote/test_conformance_external.py::test_the_whole_suite_out_of_process",
    r"jobset-ref conformance --controller-cmd '\./my-controller .*":  # the same, with a controller of one's own
        "tests/remote/test_conformance_external.py::test_a_controller_that_never_counts_restarts_fails_and_the_report_names_it",
    r"jobset-ref controller --kubeconfig PATH":
        "tests/remote/test_controller_process.py::test_the_controller_out_of_process_completes_a_jobset_as_in_process",
    r"jobset-ref conformance --mutants --list": "tests/test_mutants_command.py::test_the_list_names_every_mistake_with_its_side_and_what_it_gets_wrong",
    r"jobset-ref conformance --mutants": "tests/test_mutants_command.py::test_every_mistake_is_killed_or_explained",
    r"jobset-ref conformance --controller-cmd 'jobset-ref controller --break restart-attempt .*":
        "tests/remote/test_conformance_external.py::test_a_controller_that_never_counts_restarts_fails_and_the_report_names_it",
    r"jobset-ref controller --webhooks":
        "tests/remote/test_conformance_external.py::test_admission_through_the_controllers_own_webhooks_answers_as_the_reference",
    r"jobset-ref serve": "tests/test_readme_real_clients.py::test_the_serve_command_and_kubectl",
    r"jobset-ref serve --no-tls":
        "tests/test_cli_serve.py::test_epoch_pins_the_start_of_virtual_time_and_no_tls_serves_plain_http",
    r"python -m benchmarks": "benchmarks/README.md",  # minutes of measurement; its --quick mode runs here
    r"python -m mypy": "tests/test_type_check.py::test_mypy_strict_is_clean_over_both_packages",
    # minutes of random draws; the test runs pytest under each profile and compares what it draws
    r"python -m pytest property_tests tests --hypothesis-profile=explore":
        "tests/test_project.py::test_the_suite_draws_the_same_examples_every_run_and_explore_draws_anew",
    r"ruff check \.": "tests/test_project.py::test_ruff_is_clean",
    r"lint-imports": "tests/test_project.py::test_import_layering_contracts_hold",
}

#: Commands this file runs.
RUN_HERE = ("jobset-ref --version", "jobset-ref COMMAND --help", "python -m jobset_ref",
            "python -m jobset_ref.conformance", "python -m jobset_ref.conformance my/scenarios",
            "python -m pytest -m slow", "python -m benchmarks --quick", "pip wheel --no-deps -w dist .",
            "pip install dist/jobset_ref-0.1.0-py3-none-any.whl")


def readme_commands() -> list[str]:
    """The commands of the README's shell blocks (comments, a trailing ``&`` and line continuations
    dropped) and of its inline code that starts like a command."""
    found: list[str] = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", README, re.S):
        if lang not in ("bash", ""):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip().rstrip("&").strip()
            if line:
                found.append(" ".join(line.split()))
    found += re.findall(r"`((?:jobset-ref|python -m|pytest|pip) [^`]*|python -m jobset_ref)`", README.replace("\n", " "))
    return list(dict.fromkeys(found))


def run(*argv: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None) \
        -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout,
                          env={**os.environ, **(env or {})})


def test_every_readme_command_is_run_by_a_test() -> None:
    commands = readme_commands()
    assert len(commands) >= 20
    unrun = [c for c in commands if c not in RUN_HERE and not any(re.fullmatch(p, c) for p in RUN_ELSEWHERE)]
    assert unrun == [], "give these README commands a test (here, or name it in RUN_ELSEWHERE)"
    assert [c for c in RUN_HERE if c not in commands] == [], "RUN_HERE lists commands the README no longer shows"
    for pattern, where in RUN_ELSEWHERE.items():
        assert any(re.fullmatch(pattern, c) for c in commands), f"the README no longer shows {pattern!r}"
        path, _, test = where.partition("::")
        text = (ROOT / path).read_text()
        assert not test or f"def {test}(" in text, f"{where} does not exist"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest" in ci and "pip install -e '.[test]'" in ci


def test_version_help_and_the_bare_module() -> None:
    jobset_ref = str(BIN / "jobset-ref")
    result = run(jobset_ref, "--version", cwd=ROOT)
    assert result.returncode == 0 and re.fullmatch(r"jobset-ref \S+\n", result.stdout)
    for command in ("simulate", "validate", "serve", "controller", "conformance"):
        result = run(jobset_ref, command, "--help", cwd=ROOT)
        assert result.returncode == 0 and result.stdout.startswith("usage: "), (command, result.stderr)
    result = run(sys.executable, "-m", "jobset_ref", cwd=ROOT)
    assert result.returncode == 2 and result.stdout.startswith("usage: jobset-ref")


def test_the_conformance_runner_takes_your_own_scenario_folder(tmp_path: Path) -> None:
    from jobset_ref.conformance.scenario import SCENARIOS_DIR

    mine = tmp_path / "my" / "scenarios"
    mine.mkdir(parents=True)
    shutil.copy(SCENARIOS_DIR / "failure" / "max-restarts-zero.yaml", mine / "max-restarts-zero.yaml")
    result = run(sys.executable, "-m", "jobset_ref.conformance", "my/scenarios", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("PASS ") and result.stdout.rstrip().endswith("1 passed, 0 failed")


def test_the_slow_tests_are_what_minus_m_slow_selects() -> None:
    result = run(sys.executable, "-m", "pytest", "-m", "slow", "--collect-only", "-q", "-p", "no:randomly", cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    # the whole suite out of process (with either webhooks, and against sampled mistakes)
    assert re.search(r"^tests/remote/test_conformance_external.py: \d+$", result.stdout, re.M), result.stdout


def test_the_wheel_name_in_the_readme_is_the_version_built() -> None:
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert version is not None
    assert f"pip install dist/jobset_ref-{version.group(1)}-py3-none-any.whl" in readme_commands()


@pytest.mark.slow  # about 20 wall seconds each
@pytest.mark.parametrize("argv", [["-m", "jobset_ref.conformance"], ["-m", "benchmarks", "--quick"]],
                         ids=["conformance", "benchmarks-quick"])
def test_the_long_readme_commands(argv: list[str]) -> None:
    result = run(sys.executable, *argv, cwd=ROOT, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.mark.slow  # builds the wheel in an isolated environment: needs the package index for setuptools
def test_the_wheel_builds_installs_and_runs_outside_the_clone(tmp_path: Path) -> None:
    """``pip wheel`` in a copy of the clone, then ``pip install`` of the wheel into a folder of its
    own: the command, the package data (the scenarios) and the plugin come from the wheel alone,
    and a user's mypy finds the types through the ``py.typed`` the wheel ships."""
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(".venv", ".git", "*.egg-info", "build", "dist",
                                                               "__pycache__", ".ci"))
    pip = [sys.executable, "-m", "pip"]
    built = run(*pip, "wheel", "--no-deps", "-w", "dist", ".", cwd=clone, timeout=600)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheels = sorted((clone / "dist").glob("*.whl"))
    assert [w.name for w in wheels] == [re.search(r"dist/(\S+\.whl)", README).group(1)]  # type: ignore[union-attr]
    with zipfile.ZipFile(wheels[0]) as wheel:
        assert sorted(n for n in wheel.namelist() if n.endswith("/py.typed")) == ["fakekube/py.typed",
                                                                                 "jobset_ref/py.typed"]
    target = tmp_path / "site"
    installed = run(*pip, "install", "--no-deps", "--target", str(target), str(wheels[0]), cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-2000:]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {"PYTHONPATH": str(target)}
    where = run(sys.executable, "-c", "import jobset_ref, fakekube; print(jobset_ref.__file__, fakekube.__file__)",
                cwd=outside, env=env)
    assert where.stdout.split() and all(p.startswith(str(target)) for p in where.stdout.split()), where
    conformance = run(sys.executable, "-m", "jobset_ref.conformance", "-k", "failure/max-restarts-zero", cwd=outside,
                      env=env)
    assert conformance.returncode == 0 and conformance.stdout.rstrip().endswith("1 passed, 0 failed"), conformance
    command = run(sys.executable, str(target / "bin" / "jobset-ref"), "--version", cwd=outside, env=env)
    assert command.stdout == "jobset-ref 0.1.0\n", command.stderr
    typed = run(sys.executable, "-m", "mypy", "--strict", "--config-file", os.devnull, "--cache-dir",
                str(tmp_path / "mypy-cache"), str(ROOT / "tests" / "typing" / "user_suite.py"), cwd=outside, env=env)
    assert typed.returncode == 0, typed.stdout + typed.stderr
