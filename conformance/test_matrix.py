"""The coverage matrix is complete and the committed ``docs/conformance-matrix.md`` is current."""

from __future__ import annotations

import pytest

from jobset_ref.conformance import matrix, runner


@pytest.fixture(scope="module")
def scenarios() -> list[runner.Scenario]:
    return matrix.load_all()


def test_every_covers_id_is_in_the_catalogue(scenarios: list[runner.Scenario]) -> None:
    unknown = matrix.unknown_ids(scenarios)
    assert not unknown, "scenarios name unknown catalogue ids:\n" + "\n".join(f"  {s}: {c}" for s, c in unknown)


def test_every_row_is_covered(scenarios: list[runner.Scenario]) -> None:
    cov = matrix.coverage(scenarios)
    missing = [f"  {rid}: {matrix.CATALOGUE[rid].text}" for rid in matrix.CATALOGUE if not cov[rid]]
    assert not missing, f"{len(missing)} matrix row(s) have no scenario:\n" + "\n".join(missing)


def test_committed_matrix_is_current(scenarios: list[runner.Scenario]) -> None:
    text = matrix.render(scenarios)
    have = matrix.MATRIX_PATH.read_text() if matrix.MATRIX_PATH.exists() else ""
    assert have == text, "docs/conformance-matrix.md is stale: run `python -m jobset_ref.conformance.matrix` and commit it"


def test_repo_examples_are_used_by_scenarios(scenarios: list[runner.Scenario]) -> None:
    used = {ref for sc in scenarios for ref in sc.example_refs()}
    files = sorted(p.relative_to(runner.EXAMPLES_DIR).as_posix()
                   for p in [*runner.EXAMPLES_DIR.glob("*.yaml"), *runner.EXAMPLES_DIR.glob("nodes/*.yaml")])
    assert files, "examples/ is empty"
    unused = [f for f in files if f not in used]
    assert not unused, f"examples not referenced by any scenario: {unused}"
