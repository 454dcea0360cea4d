"""``-k`` expressions select scenarios as pytest's do: substrings with and/or/not and parentheses."""

from __future__ import annotations

import io

import pytest

from jobset_ref.conformance.__main__ import main
from jobset_ref.conformance.selection import SelectionError, compile_selection

IDS = ["failure/rule-matching", "failure/restart-job", "startup/in-order", "success/all-default",
       "examples/simple-success-policy"]


@pytest.mark.parametrize(("expr", "chosen"), [
    ("failure/", ["failure/rule-matching", "failure/restart-job"]),
    ("failure/ and not restart", ["failure/rule-matching"]),
    ("startup or success", ["startup/in-order", "success/all-default", "examples/simple-success-policy"]),
    ("(startup or success) and not examples/", ["startup/in-order", "success/all-default"]),
    ("not (failure/ or examples/)", ["startup/in-order", "success/all-default"]),
    ("success and default or in-order", ["startup/in-order", "success/all-default"]),
    ("not not startup", ["startup/in-order"]),
])
def test_expressions_choose_the_ids_pytest_would(expr: str, chosen: list[str]) -> None:
    match = compile_selection(expr)
    assert [i for i in IDS if match(i)] == chosen


@pytest.mark.parametrize(("expr", "message"), [
    ("", "-k needs an expression: a word of a scenario id, with and/or/not"),
    ("failure and", "-k 'failure and': the expression ends too soon"),
    ("(failure or success", "-k '(failure or success': the expression ends too soon"),
    ("failure)", "-k 'failure)': unexpected ')'"),
    ("or failure", "-k 'or failure': unexpected 'or'"),
    ("failure success", "-k 'failure success': unexpected 'success'"),
])
def test_an_expression_that_does_not_parse_says_where(expr: str, message: str) -> None:
    with pytest.raises(SelectionError) as err:
        compile_selection(expr)
    assert str(err.value) == message


def test_the_command_takes_expressions_and_reports_bad_ones(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert main(["--list", "-k", "failure/ and not restart", "-k", "startup/in-order"], out=out) == 0
    listed = out.getvalue().splitlines()
    assert "startup/in-order-after-restart" in listed and "failure/no-rule-matches" in listed
    assert not any(i.startswith("failure/") and "restart" in i for i in listed)
    assert main(["--list", "-k", "failure and"]) == 2
    assert capsys.readouterr().err == "error: -k 'failure and': the expression ends too soon\n"
