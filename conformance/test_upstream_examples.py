"""Optional: the upstream JobSet examples themselves still behave as the scenarios pin.

The scenarios apply the project's own manifests (``jobset_ref/conformance/manifests/<path>``,
written with the shape of upstream's ``examples/<path>``), so the suite needs nothing beside
the repository. When ``../shared/upstream/examples`` is present, each scenario reading such a
manifest runs once more with upstream's file in its place: the example must pass admission (or
be rejected exactly as pinned) and meet every expectation. Skipped when the folder is absent.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from jobset_ref.conformance import matrix
from jobset_ref.conformance.runner import UPSTREAM_EXAMPLES, Scenario, load_scenarios, run_scenario


def _mirrors_upstream(sc: Scenario) -> bool:
    return any(p in matrix.UPSTREAM_JOBSET_EXAMPLES for p in sc.manifest_refs())


SCENARIOS = [sc for sc in load_scenarios() if _mirrors_upstream(sc)]


def _with_upstream_sources(sc: Scenario) -> Scenario:
    """``sc`` reading ``upstream: <path>`` wherever it reads the packaged ``manifest: <path>``."""
    data = copy.deepcopy(sc.data)
    sources: list[Any] = [*(data.get("manifests") or []), *(step.get("apply") for step in data.get("timeline") or [])]
    for src in sources:
        if isinstance(src, dict) and src.get("manifest") in matrix.UPSTREAM_JOBSET_EXAMPLES:
            src["upstream"] = src.pop("manifest")
    return replace(sc, data=data, golden=False)  # a golden trace pins the packaged manifests' run


def test_every_upstream_example_has_a_packaged_manifest() -> None:
    covered = {p for sc in SCENARIOS for p in sc.manifest_refs()}
    assert sorted(set(matrix.UPSTREAM_JOBSET_EXAMPLES) - covered) == []


@pytest.mark.parametrize("sc", SCENARIOS, ids=[sc.id for sc in SCENARIOS])
def test_the_upstream_example_meets_the_scenario(sc: Scenario) -> None:
    if not UPSTREAM_EXAMPLES.is_dir():
        pytest.skip(f"upstream examples folder {UPSTREAM_EXAMPLES} is absent")
    variant = _with_upstream_sources(sc)
    assert variant.upstream_refs() and not [p for p in variant.manifest_refs() if p in matrix.UPSTREAM_JOBSET_EXAMPLES]
    run_scenario(variant)
