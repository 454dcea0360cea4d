"""The packaged manifests stand for the upstream JobSet examples; optionally, the upstream
examples themselves still behave as the scenarios pin.

The scenarios apply the project's own manifests (``jobset_ref/conformance/manifests/<path>``,
written with the shape of upstream's ``examples/<path>``), so the suite needs nothing beside
the repository. When ``../shared/upstream/examples`` is present, one optional test checks that
its JobSet examples are exactly the catalogued ones and runs each scenario reading such a
manifest once more with upstream's file in its place: the example must pass admission (or be
rejected exactly as pinned) and meet every expectation. Without the folder it is one skip.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest
import yaml

from jobset_ref.conformance import matrix
from jobset_ref.conformance.runner import (
    MANIFESTS_DIR,
    UPSTREAM_EXAMPLES,
    ExpectationFailed,
    Scenario,
    load_scenarios,
    run_scenario,
)


def _mirroring(scenarios: list[Scenario]) -> list[Scenario]:
    return [sc for sc in scenarios if any(p in matrix.UPSTREAM_JOBSET_EXAMPLES for p in sc.manifest_refs())]


def _with_upstream_sources(sc: Scenario) -> Scenario:
    """``sc`` reading ``upstream: <path>`` wherever it reads the packaged ``manifest: <path>``."""
    data = copy.deepcopy(sc.data)
    sources: list[Any] = [*(data.get("manifests") or []), *(step.get("apply") for step in data.get("timeline") or [])]
    for src in sources:
        if isinstance(src, dict) and src.get("manifest") in matrix.UPSTREAM_JOBSET_EXAMPLES:
            src["upstream"] = src.pop("manifest")
    return replace(sc, data=data, golden=False)  # a golden trace pins the packaged manifests' run


def test_every_upstream_example_has_a_packaged_manifest_and_a_scenario() -> None:
    files = sorted(p.relative_to(MANIFESTS_DIR).as_posix() for p in MANIFESTS_DIR.rglob("*.yaml"))
    assert files == sorted(matrix.UPSTREAM_JOBSET_EXAMPLES)
    read = {p for sc in _mirroring(load_scenarios()) for p in sc.manifest_refs()}
    assert sorted(set(matrix.UPSTREAM_JOBSET_EXAMPLES) - read) == []


def test_the_upstream_examples_meet_the_scenarios() -> None:
    if not UPSTREAM_EXAMPLES.is_dir():
        pytest.skip(f"needs upstream's examples at {UPSTREAM_EXAMPLES} (../shared/upstream beside the clone) to run "
                    f"the scenarios once more on them; the packaged manifests of their shapes ran already")
    found = sorted(p.relative_to(UPSTREAM_EXAMPLES).as_posix() for p in UPSTREAM_EXAMPLES.rglob("*.yaml")
                   if _holds_jobset(list(yaml.safe_load_all(p.read_text()))))
    assert found == sorted(matrix.UPSTREAM_JOBSET_EXAMPLES), "the upstream JobSet examples changed"
    failures: list[str] = []
    for sc in _mirroring(load_scenarios()):
        variant = _with_upstream_sources(sc)
        assert variant.upstream_refs()
        try:
            run_scenario(variant)
        except ExpectationFailed as err:
            failures.append(f"{sc.id} on {', '.join(variant.upstream_refs())}:\n{err.headline}\n  where: {err.where}\n"
                            + "\n".join(f"    - {m}" for m in err.mismatches))
    assert not failures, "upstream examples that no longer meet their scenario:\n\n" + "\n\n".join(failures)


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
