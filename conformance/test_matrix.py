"""The coverage matrix is complete and the committed ``docs/conformance-matrix.md`` is current."""

from __future__ import annotations

import pytest
import yaml

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


def test_upstream_example_list_matches_the_folder() -> None:
    if not runner.UPSTREAM_EXAMPLES.is_dir():
        pytest.skip(f"upstream examples folder {runner.UPSTREAM_EXAMPLES} is absent")
    found = sorted(p.relative_to(runner.UPSTREAM_EXAMPLES).as_posix()
                   for p in runner.UPSTREAM_EXAMPLES.rglob("*.yaml") if _holds_jobset(list(yaml.safe_load_all(p.read_text()))))
    assert found == sorted(matrix.UPSTREAM_JOBSET_EXAMPLES)


def _holds_jobset(value: object) -> bool:
    """A JobSet document, or a JobSet manifest embedded as YAML text (Argo resource templates)."""
    if isinstance(value, dict):
        if value.get("kind") == "JobSet" and str(value.get("apiVersion", "")).startswith("jobset.x-k8s.io/"):
            return True
        return any(_holds_jobset(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_jobset(v) for v in value)
    if isinstance(value, str) and "kind: JobSet" in value and "\n" in value:
        return _holds_jobset(list(yaml.safe_load_all(value)))
    return False


def test_repo_examples_are_used_by_scenarios(scenarios: list[runner.Scenario]) -> None:
    used = {ref for sc in scenarios for ref in sc.example_refs()}
    files = sorted(p.relative_to(runner.EXAMPLES_DIR).as_posix()
                   for p in [*runner.EXAMPLES_DIR.glob("*.yaml"), *runner.EXAMPLES_DIR.glob("nodes/*.yaml")])
    assert files, "examples/ is empty"
    unused = [f for f in files if f not in used]
    assert not unused, f"examples not referenced by any scenario: {unused}"
