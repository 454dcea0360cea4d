"""``jobset-ref conformance --mutants``: the catalogue listed, a mistake killed by name, a survivor
and a bad name reported, as a person runs the command."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from jobset_ref.conformance.__main__ import main
from jobset_ref.mistakes import CATALOGUE, Edit, Mistake

ROOT = Path(__file__).resolve().parents[1]


def jobset_ref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobset_ref.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_the_list_names_every_mistake_with_its_side_and_what_it_gets_wrong() -> None:
    result = jobset_ref("conformance", "--mutants", "--list")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(CATALOGUE)
    for line, m in zip(lines, CATALOGUE.values(), strict=True):
        assert line.split()[:2] == [m.name, m.side]
        assert line.endswith(m.description)


def test_a_named_mistake_is_killed_by_the_scenarios_that_fail_and_scored() -> None:
    result = jobset_ref("conformance", "--mutants", "restart-attempt", "-k", "failure/rule-matching",
                        "-k", "success/any")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == "KILLED    restart-attempt  by failure/rule-matching"
    assert result.stdout.rstrip().endswith("mutants: 1 killed, 0 survived (0 explained) of 1: 100.0% killed")


def test_an_unexplained_survivor_fails_the_run_and_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    harmless = Mistake("harmless-edit", "an edit no scenario can see", ("success.any",),
                       (Edit("jobset_ref.controller.policies.success_policy", "evaluate_success_policy",
                             '"""``executeSuccessPolicy``: the completion operations, or an empty decision."""',
                             '"""Edited."""'),), survives="for this test")
    unexplained = Mistake("harmless-edit", harmless.description, harmless.behaviours, harmless.edits,
                          caught_by=("success/any",))
    out = io.StringIO()
    monkeypatch.setitem(CATALOGUE, "harmless-edit", harmless)
    assert main(["--mutants", "harmless-edit", "-k", "success/any"], out=out) == 0
    assert "SURVIVED  harmless-edit  (explained: for this test)" in out.getvalue()
    monkeypatch.setitem(CATALOGUE, "harmless-edit", unexplained)
    out = io.StringIO()
    assert main(["--mutants", "harmless-edit", "-k", "success/any"], out=out) == 1
    assert "problem: harmless-edit survived every scenario and its entry gives no reason" in out.getvalue()


def test_a_bad_name_or_an_out_of_process_request_is_a_usage_error() -> None:
    result = jobset_ref("conformance", "--mutants", "restart-atempt")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --mutants: unknown mistake 'restart-atempt'; did you mean restart-attempt")
    result = jobset_ref("conformance", "--mutants", "--controller-cmd", "true")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --mutants runs in process; it takes neither --controller-cmd")


@pytest.mark.slow  # every mistake against every scenario: a few minutes
def test_every_mistake_is_killed_or_explained() -> None:
    result = jobset_ref("conformance", "--mutants")
    assert result.returncode == 0, result.stdout[-6000:]


def test_mistakes_run_in_parallel_print_what_one_process_prints() -> None:
    argv = ["--mutants", "restart-attempt,success-targets-ignored", "-k", "failure/rule-matching",
            "-k", "success/any-targets"]
    one, two = io.StringIO(), io.StringIO()
    assert main([*argv, "-j", "1"], out=one) == main([*argv, "-j", "2"], out=two) == 0
    assert one.getvalue() == two.getvalue()
    assert one.getvalue().splitlines()[:2] == [
        "KILLED    restart-attempt          by failure/rule-matching",
        "KILLED    success-targets-ignored  by success/any-targets"]
