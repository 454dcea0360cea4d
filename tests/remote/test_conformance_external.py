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
RESTARTS = ["failure/rule-matching", "failure/restarts-count-towards-max"]


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
    assert text.rstrip().endswith(f"0 passed, {len(RESTARTS)} failed")
    report = (tmp_path / "report.md").read_text()
    for scenario in RESTARTS:
        assert f"| `{scenario}` |" in report
    failed_table = report.split("## Failed scenarios", 1)[1].split("\n## ", 1)[0]
    assert all(f"| `{scenario}` |" in failed_table for scenario in RESTARTS)
    assert "| failed |" in report


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


@pytest.mark.slow  # about 3.5 wall minutes on two cores
def test_the_whole_suite_out_of_process(tmp_path: Path) -> None:
    """Every scenario that passes in process passes against the reference controller out of process."""
    code, text = _run("--controller-cmd", CONTROLLER, "--report", str(tmp_path / "report.md"))
    assert code == 0, text[-8000:]
    assert ", 0 failed" in text.rstrip().splitlines()[-1]
