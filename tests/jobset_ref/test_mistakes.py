"""The catalogue of mistakes: every edit still applies and undoes exactly, every mistake names real
matrix rows, and each scenario a mistake says catches it does fail while it is applied (so a
scenario that stops catching its mistake fails the default suite)."""

from __future__ import annotations

import pytest

from fakekube import UsageError
from jobset_ref.conformance import matrix
from jobset_ref.conformance.mutants import killers
from jobset_ref.conformance.runner import Scenario, load_scenarios
from jobset_ref.mistakes import CATALOGUE, Edit, EditError, Mistake, applied, mistake

SCENARIOS = {sc.id: sc for sc in load_scenarios(None)}
MISTAKES = sorted(CATALOGUE.values(), key=lambda m: m.name)


@pytest.mark.parametrize("m", MISTAKES, ids=lambda m: m.name)
def test_each_mistake_applies_and_is_undone_exactly(m: Mistake) -> None:
    functions = [edit.resolve() for edit in m.edits]
    before = [f.__code__ for f in functions]
    with applied([m]):
        assert all(f.__code__ is not code for f, code in zip(functions, before, strict=True))
    assert all(f.__code__ is code for f, code in zip(functions, before, strict=True))


@pytest.mark.parametrize("m", [m for m in MISTAKES if m.caught_by], ids=lambda m: m.name)
def test_the_scenarios_named_in_caught_by_fail_under_the_mistake(m: Mistake) -> None:
    named: list[Scenario] = []
    for sid in m.caught_by:
        assert sid in SCENARIOS, f"{m.name}: caught_by names {sid!r}, which is not a packaged scenario"
        named.append(SCENARIOS[sid])
    assert killers(m, named) == m.caught_by


def test_every_mistake_breaks_rows_of_the_matrix() -> None:
    unknown = [(m.name, b) for m in MISTAKES for b in m.behaviours if b not in matrix.CATALOGUE]
    assert not unknown, f"mistakes name behaviours that are not matrix rows: {unknown}"


def test_an_edit_that_no_longer_applies_says_which_and_why() -> None:
    gone = Edit("jobset_ref.controller.policies.success_policy", "evaluate_success_policy", "no such text", "x")
    with pytest.raises(EditError, match=r"success_policy.evaluate_success_policy: the text to replace is not found"):
        gone.compile("test")
    twice = Edit("jobset_ref.controller.policies.success_policy", "evaluate_success_policy", "js", "js")
    with pytest.raises(EditError, match=r"found \d+ times"):
        twice.compile("test")
    missing = Edit("jobset_ref.controller.policies.success_policy", "no_such_function", "a", "b")
    with pytest.raises(EditError, match="'no_such_function' not found"):
        missing.compile("test")


def test_two_mistakes_editing_one_function_are_refused_and_nothing_is_applied() -> None:
    first = MISTAKES[0]
    clone = Mistake(f"{first.name}-again", first.description, first.behaviours, first.edits, first.caught_by)
    code = first.edits[0].resolve().__code__
    with pytest.raises(EditError, match="both edit"), applied([first, clone]):
        pass
    assert first.edits[0].resolve().__code__ is code


def test_an_unknown_name_suggests_the_closest() -> None:
    with pytest.raises(UsageError, match="did you mean restart-attempt"):
        mistake("restart-atempt")


#: Rows whose behaviour is Kueue's own (the Workload it builds from a JobSet), which no mistake of a
#: JobSet implementation can change: the pod sets come from the JobSet's spec as the user wrote it.
KUEUES_OWN = {"kueue.workload-podsets"}


def test_every_behaviour_row_of_the_matrix_is_broken_by_some_mistake() -> None:
    named = {b for m in MISTAKES for b in m.behaviours}
    rows = [row for row in matrix.CATALOGUE if not row.startswith("example:") and row not in KUEUES_OWN]
    assert [row for row in rows if row not in named] == []
