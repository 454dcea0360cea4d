"""The strategies themselves: valid by construction, invalid ones rejected with their error,
``from_manifest`` keeps upstream examples admissible, impossible arguments are usage errors."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import jobset_ref
from fakekube import ApiError, FakeCluster, UsageError
from jobset_ref.api import constants as c
from jobset_ref.conformance.scenario import MANIFESTS_DIR
from jobset_ref.testing import strategies as s

GATES_ON = {c.FEATURE_RESTART_JOB: True, c.FEATURE_IN_PLACE_RESTART: True}
EXAMPLES = MANIFESTS_DIR  # the project's own manifests, of the upstream examples' shapes


@settings(max_examples=150)
@given(st.sampled_from([{}, GATES_ON]), st.data())
def test_jobsets_are_admitted_after_defaulting(gates: dict[str, bool], data: st.DataObject) -> None:
    js = data.draw(s.jobsets(feature_gates=gates))
    assert s.admitted(js, feature_gates=gates) == []
    if not gates:
        actions = {r["action"] for r in (js["spec"].get("failurePolicy") or {}).get("rules") or []}
        assert not {"RestartJob", "RestartJobAndIgnoreMaxRestarts"} & actions


@settings(max_examples=60)
@given(s.jobsets(depends_on=True, coordinator=True, network=True, failure_policy=True, success_policy=True,
                 exclusive_placement=True, completion_modes=st.just("Indexed"), min_replicas=1))
def test_forced_features_are_present(js: dict[str, Any]) -> None:
    spec = js["spec"]
    assert any(r.get("dependsOn") for r in spec["replicatedJobs"][1:])
    assert "dependsOn" not in spec["replicatedJobs"][0]
    assert spec["coordinator"] and "network" in spec and "failurePolicy" in spec and "successPolicy" in spec
    annotated = c.EXCLUSIVE_KEY in (js["metadata"].get("annotations") or {}) or any(
        c.EXCLUSIVE_KEY in ((r["template"].get("metadata") or {}).get("annotations") or {})
        for r in spec["replicatedJobs"])
    assert annotated
    assert s.admitted(js) == []


@settings(max_examples=40)
@given(s.jobsets(max_pods=5, max_replicas=4, max_parallelism=4))
def test_pod_budget_is_respected(js: dict[str, Any]) -> None:
    total = sum(r["replicas"] * r["template"]["spec"]["parallelism"] for r in js["spec"]["replicatedJobs"])
    assert total <= 5


@settings(max_examples=200)
@given(st.sampled_from([{}, GATES_ON]), st.data())
def test_invalid_jobsets_fail_webhook_validation_with_their_error(gates: dict[str, bool], data: st.DataObject) -> None:
    bad = data.draw(s.invalid_jobsets(feature_gates=gates, layers=("webhook",),
                                      rules=[r for r in s.INVALID_RULES if r not in SCHEMA_RULES]))
    errors = s.admitted(bad.manifest, feature_gates=gates)
    assert any(bad.expected in e for e in errors), (bad.rule, bad.expected, errors)


SCHEMA_RULES = ("in-order-with-depends-on", "negative-replicas", "negative-ttl", "success-operator-enum")


@settings(max_examples=60)
@given(s.invalid_jobsets())
def test_invalid_jobsets_are_rejected_by_the_api_server(bad: s.InvalidJobSet) -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    jobset_ref.install(cluster)
    with pytest.raises(ApiError) as info:
        cluster.apply(bad.manifest)
    assert info.value.code == 422, info.value
    assert bad.expected in info.value.message, (bad.rule, info.value.message)
    assert cluster.list("jobs") == []


def _example_docs() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == c.KIND:
                out.append((f"{path.parent.name}/{path.name}", doc))
    return out


EXAMPLE_DOCS = _example_docs()


@settings(max_examples=60)
@given(st.data())
def test_from_manifest_keeps_upstream_examples_admissible(data: st.DataObject) -> None:
    label, doc = data.draw(st.sampled_from(EXAMPLE_DOCS), "example")
    gates = GATES_ON
    if s.admitted(doc, feature_gates=gates):
        return  # e.g. examples that need a gate we don't model
    varied = data.draw(s.from_manifest(doc, feature_gates=gates))
    assert s.admitted(varied, feature_gates=gates) == [], label
    assert [r["name"] for r in varied["spec"]["replicatedJobs"]] == [r["name"] for r in doc["spec"]["replicatedJobs"]]


@settings(max_examples=30)
@given(s.scenarios())
def test_drawn_values_print_as_python(scenario: s.Scenario) -> None:
    namespace = {name: getattr(s, name) for name in s.__all__}
    for value in (scenario.shape, scenario.scripts, scenario.timeline):
        assert eval(repr(value), namespace) == value


@pytest.mark.parametrize("make", [
    lambda: s.jobsets(min_replicas=3, max_replicas=2),
    lambda: s.jobsets(startup_policy=True, depends_on=True),
    lambda: s.jobsets(depends_on=True, max_replicated_jobs=1),
    lambda: s.jobsets(min_replicated_jobs=3, min_replicas=2, min_parallelism=2, max_pods=5),
    lambda: s.jobsets(max_replicas=10**60),
    lambda: s.jobsets(suspend=True),  # a value, not a strategy
    lambda: s.jobsets(network="yes"),
    lambda: s.dns_labels(max_size=64),
    lambda: s.invalid_jobsets(rules=["nope"]),
    lambda: s.invalid_jobsets(rules=[]),
    lambda: s.fault_timelines({"metadata": {"name": "x"}}, kinds=["meteor"]),
    lambda: s.cluster_shapes(min_pools=0),
    lambda: s.from_manifest({"apiVersion": c.API_VERSION, "kind": c.KIND,
                             "metadata": {"name": "9bad"}, "spec": {"replicatedJobs": [
                                 {"name": "r", "template": {"spec": {"template": {"spec": {
                                     "containers": [{"name": "c", "image": "i"}]}}}}}]}}),
])
def test_impossible_arguments_raise_usage_error(make: Any) -> None:
    with pytest.raises(UsageError):
        make()


def test_usage_error_for_drawn_names_that_do_not_fit() -> None:
    strategy = s.jobsets(names=st.just("x" * 60))

    @settings(max_examples=1, database=None)
    @given(strategy)
    def draw(js: dict[str, Any]) -> None:
        del js

    with pytest.raises(UsageError, match="JobSet names must be DNS-1035 labels"):
        draw()
