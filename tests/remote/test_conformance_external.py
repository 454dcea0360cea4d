"""``jobset-ref conformance --controller-cmd``: scenarios against a controller out of process."""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import pytest

from jobset_ref.conformance.__main__ import main

CONTROLLER = f"{shlex.quote(sys.executable)} -m jobset_ref.cli controller --kubeconfig {{kubeconfig}}"
SUBSET = ["naming/labels-and-annotations", "naming/job-spec-and-owner", "failure/max-restarts-zero",
          "failure/no-failure-policy", "failure/rule-matching", "lifecycle/ttl-zero"]
#: What the ``restart-attempt`` mistake breaks (the first) and what it does not (maxRestarts 0 never restarts).
RESTARTS = ["failure/rule-matching", "failure/max-restarts-zero"]


def _run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(args), out=out), out.getvalue()


def test_a_representative_subset_passes_with_the_controller_out_of_process(tmp_path: Path) -> None:
    select = [arg for sc in SUBSET for arg in ("-k", sc)]
    code, text = _run("--controller-cmd", CONTROLLER, *select, "--junit-xml", str(tmp_path / "j.xml"))
    assert code == 0, text
    assert text.rstrip().endswith(f"{len(SUBSET)} passed, 0 failed")
    assert f'tests="{len(SUBSET)}" failures="0"' in (tmp_path / "j.xml").read_text()


def test_a_controller_that_never_counts_restarts_fails_and_the_report_names_it(tmp_path: Path) -> None:
    select = [arg for sc in RESTARTS for arg in ("-k", sc)]
    code, text = _run("--controller-cmd", f"{CONTROLLER} --break restart-attempt", *select,
                      "--report", str(tmp_path / "report.md"))
    assert code == 1
    assert text.rstrip().endswith("1 passed, 1 failed")
    report = (tmp_path / "report.md").read_text()
    for scenario in RESTARTS:
        assert f"| `{scenario}` |" in report
    failed_table = report.split("## Failed scenarios", 1)[1].split("\n## ", 1)[0]
    assert f"| `{RESTARTS[0]}` |" in failed_table
    assert f"| `{RESTARTS[1]}` |" not in failed_table
    assert "| failed |" in report


def test_a_mistake_of_the_webhooks_out_of_process_is_served_by_the_controller_and_caught() -> None:
    """``--break`` of a webhook mistake makes the controller serve the JobSet webhooks, which replace
    the served cluster's reference webhooks of the same names: the scenario that guards the
    mistake fails, and one it does not touch passes through the controller's webhooks."""
    code, text = _run("--controller-cmd", f"{CONTROLLER} --break parallelism-overflow-unchecked",
                      "-k", "webhooks/parallelism-overflow", "-k", "webhooks/coordinator")
    assert code == 1, text[-4000:]
    assert "FAIL  webhooks/parallelism-overflow" in text
    assert "PASS  webhooks/coordinator" in text


def test_admission_through_the_controllers_own_webhooks_answers_as_the_reference() -> None:
    """A sample (the whole suite: ``-m slow``): an update denial, a PVC read from the controller's
    cache, and exclusive placement through the pod webhooks."""
    select = ["webhooks/update-immutability", "webhooks/volume-claim-policies", "exclusive/replicated-job-level"]
    code, text = _run("--controller-cmd", f"{CONTROLLER} --webhooks", *(a for sc in select for a in ("-k", sc)))
    assert code == 0, text[-8000:]
    assert text.rstrip().endswith(f"{len(select)} passed, 0 failed")


def test_bad_external_options_are_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert _run("--controller-cmd", " ")[0] == 2
    assert capsys.readouterr().err == "error: --controller-cmd: needs a command\n"
    assert _run("--time-tolerance", "-1")[0] == 2
    capsys.readouterr()
    assert _run("--controller-cmd", "no-such-controller --kubeconfig {kubeconfig}")[0] == 2
    assert capsys.readouterr().err == "error: --controller-cmd: 'no-such-controller' is not found (not on PATH)\n"
    script = tmp_path / "ctl.sh"
    script.write_text("#!/bin/sh\n")
    assert _run("--controller-cmd", f"{script} --kubeconfig {{kubeconfig}}")[0] == 2
    assert capsys.readouterr().err == f"error: --controller-cmd: {str(script)!r} is not executable\n"
    assert _run("--controller-cmd", "'unbalanced")[0] == 2
    assert capsys.readouterr().err.startswith("error: --controller-cmd: cannot split \"'unbalanced\" into words")


@pytest.mark.slow  # about 3.5 wall minutes on two cores, each
@pytest.mark.parametrize("webhooks", ["", " --webhooks"], ids=["reference-webhooks", "controller-webhooks"])
def test_the_whole_suite_out_of_process(tmp_path: Path, webhooks: str) -> None:
    """Every scenario that passes in process passes against the reference controller out of process,
    with the served cluster's webhooks or with the controller serving its own."""
    code, text = _run("--controller-cmd", CONTROLLER + webhooks, "--report", str(tmp_path / "report.md"))
    assert code == 0, text[-8000:]
    assert ", 0 failed" in text.rstrip().splitlines()[-1]


#: Mistakes of the catalogue (three of the controller, one of the webhooks, one of the CRD) checked against the
#: whole suite out of process.
SAMPLED_MISTAKES = ["restart-attempt", "first-failed-job-is-last", "resume-node-selector-not-carried",
                    "validator-create-only", "crd-network-mutable"]


@pytest.mark.slow  # about 3.5 wall minutes per mistake on two cores
@pytest.mark.parametrize("name", SAMPLED_MISTAKES)
def test_the_whole_suite_out_of_process_fails_a_mistaken_controller_where_the_catalogue_says(name: str) -> None:
    from jobset_ref.mistakes import mistake

    code, text = _run("--controller-cmd", f"{CONTROLLER} --break {name}")
    assert code == 1, text[-8000:]
    failed = {line.split()[1] for line in text.splitlines() if line.startswith(("FAIL ", "ERROR "))}
    assert set(mistake(name).caught_by) <= failed, text[-8000:]


def test_a_controller_that_never_starts_stops_the_run_early_and_says_why(tmp_path: Path) -> None:
    select = [arg for sc in SUBSET for arg in ("-k", sc)]
    code, text = _run("--controller-cmd", "sleep 60", "--controller-start-timeout", "0.5", *select,
                      "--report", str(tmp_path / "report.md"), "--junit-xml", str(tmp_path / "j.xml"))
    assert code == 1
    assert [line.split()[0] for line in text.splitlines() if line.startswith(("PASS", "FAIL"))] == ["FAIL", "FAIL"]
    assert "the controller did not start: it opened no watch within 0.5 wall seconds (--controller-start-timeout)" \
        in text
    assert (f"stopped: the controller did not start in the first 2 scenarios (it opened no watch within 0.5 wall "
            f"seconds (--controller-start-timeout)): the others would fail the same way; check --controller-cmd, "
            f"or raise --controller-start-timeout; {len(SUBSET) - 2} scenario(s) not run") in text
    assert text.rstrip().endswith("0 passed, 2 failed")
    assert 'tests="2" failures="2"' in (tmp_path / "j.xml").read_text()
    report = (tmp_path / "report.md").read_text()
    assert "Only what ran is listed (" in report and "| not run |" not in report
    # a command that exits at once fails as fast, and the same way
    code, text = _run("--controller-cmd", "false", *select)
    assert code == 1
    assert "stopped: the controller did not start in the first 2 scenarios (it exited with status 1 before it " \
           "watched anything" in text


def test_the_start_timeout_is_a_positive_number(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("--controller-cmd", "sleep 1", "--controller-start-timeout", "0")[0] == 2
    assert capsys.readouterr().err == "error: --controller-start-timeout takes a positive number of seconds\n"
    assert _run("--help")[0] == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--controller-start-timeout SECONDS with --controller-cmd: wall seconds the command has to open its " \
           "first watch in each scenario (default 60)" in help_text


def test_a_report_of_a_k_subset_lists_only_what_ran(tmp_path: Path) -> None:
    code, text = _run("-k", "failure/max-restarts-zero", "--report", str(tmp_path / "report.md"))
    assert code == 0, text
    report = (tmp_path / "report.md").read_text()
    assert "Only what ran is listed (-k 'failure/max-restarts-zero')." in report
    assert "| not run |" not in report
    rows = [line for line in report.splitlines() if line.startswith("| `") and "| passed |" in line]
    assert rows and all("`failure/max-restarts-zero`" in row for row in rows)
    from jobset_ref.conformance.report import markdown_report

    assert "| not run |" in markdown_report([])  # the whole suite's report still shows the gaps
