"""``--jobset-mistake NAME``: the pytest plugin applies catalogue mistakes for a whole session, and
``python -m jobset_ref.mistakes.properties`` reports whether the property tests catch them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from jobset_ref.mistakes import properties

pytest_plugins = ["pytester"]

PROBE = """
from jobset_ref.controller.construct import job_hash_key

def test_job_key_is_sha1_of_namespace_and_name():
    assert job_hash_key("default", "labels-b-1") == "efbf1140a38e4ad82fb95b2326acd4b131f2b53e"
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    pytester.makepyfile(test_probe=textwrap.dedent(PROBE))
    return pytester


def test_without_the_option_the_reference_is_untouched(project: pytest.Pytester) -> None:
    project.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_mistake_is_applied_for_the_session_and_undone_after(project: pytest.Pytester) -> None:
    from jobset_ref.controller import construct

    code = construct.job_hash_key.__code__
    result = project.runpytest_inprocess("-p", "no:cacheprovider", "--jobset-mistake", "job-key-sha256")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["jobset-ref mistakes applied: job-key-sha256"])
    assert construct.job_hash_key.__code__ is code
    # Repeatable; a name given twice is applied once.
    again = project.runpytest_inprocess("-p", "no:cacheprovider", "--jobset-mistake", "job-key-without-namespace",
                                        "--jobset-mistake", "success-any-needs-all",
                                        "--jobset-mistake", "success-any-needs-all")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["jobset-ref mistakes applied: job-key-without-namespace, success-any-needs-all"])


def test_an_unknown_mistake_is_a_usage_error_naming_the_closest(project: pytest.Pytester) -> None:
    result = project.runpytest_inprocess("-p", "no:cacheprovider", "--jobset-mistake", "job-key-sha265")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --jobset-mistake: unknown mistake 'job-key-sha265'; did you mean job-key-sha256*"])


def test_two_mistakes_editing_one_function_are_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest_inprocess("-p", "no:cacheprovider", "--jobset-mistake", "job-key-sha256",
                                         "--jobset-mistake", "job-key-without-namespace")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --jobset-mistake: *both edit jobset_ref.controller.construct.job_hash_key*"])


def test_the_properties_script_reports_killed_and_survived(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test_probe.py").write_text(textwrap.dedent(PROBE))
    assert properties.main(["job-key-sha256", "success-any-needs-all", "--tests", str(tmp_path),
                            "--timeout", "120", "--jobs", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("KILLED    job-key-sha256")
    assert "test_probe.py::test_job_key_is_sha1_of_namespace_and_name" in out[0]
    assert out[1].startswith("SURVIVED  success-any-needs-all")
    assert out[2] == "property tests: 1 killed, 1 survived, 0 timed out, 0 errors of 2: 50.0% killed"


def test_the_properties_script_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert properties.main(["no-such-mistake", "--tests", str(tmp_path)]) == 2
    assert "unknown mistake 'no-such-mistake'" in capsys.readouterr().err
    assert properties.main(["job-key-sha256", "--tests", str(tmp_path / "nowhere")]) == 2
    assert "no property tests at" in capsys.readouterr().err
