"""Unit tests of the scenario runner's own machinery (paths, matchers, loading, failure reports)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobset_ref.conformance import runner, scenario
from jobset_ref.conformance.runner import MISSING, match_value, resolve_path

OBJ = {
    "metadata": {"labels": {"jobset.sigs.k8s.io/job-index": "0"}},
    "status": {"replicatedJobsStatus": [{"name": "a", "ready": 1}, {"name": "b", "ready": 2}]},
    "spec": {"containers": [{"name": "c", "env": [{"name": "X", "value": "1"}]}]},
}


@pytest.mark.parametrize(("path", "expected"), [
    ('metadata.labels["jobset.sigs.k8s.io/job-index"]', "0"),
    ("status.replicatedJobsStatus[name=b].ready", 2),
    ("status.replicatedJobsStatus[1].name", "b"),
    ("spec.containers[0].env[name=X].value", "1"),
    ("spec.containers[3]", MISSING),
    ("status.replicatedJobsStatus[name=zz].ready", MISSING),
    ("metadata.annotations", MISSING),
])
def test_resolve_path(path: str, expected: object) -> None:
    assert resolve_path(OBJ, path) == expected if expected is not MISSING else resolve_path(OBJ, path) is MISSING


@pytest.mark.parametrize(("expected", "actual", "ok"), [
    ({"a": 1}, {"a": 1, "b": 2}, True),
    ({"a": None}, {"b": 2}, True),
    ({"a": 1}, {"a": "1"}, False),
    ([{"n": 1}], [{"n": 1, "m": 2}], True),
    ([1, 2], [1], False),
    ({"$regex": "^ab"}, "abc", True),
    ({"$len": 2}, [1, 2], True),
    ({"$contains": {"n": 1}}, [{"n": 2}, {"n": 1}], True),
    ({"$absent": True}, MISSING, True),
    ({"$not": 3}, 3, False),
])
def test_match_value(expected: object, actual: object, ok: bool) -> None:
    assert (match_value(expected, actual, "x") == []) is ok


@pytest.mark.parametrize(("actual", "where"), [
    ([{"reason": "A"}, {"reason": "X"}, {"reason": "B"}], 'first difference at [1]: expected {"reason": "B"}'),
    ([{"reason": "A"}], 'missing from [1]: {"reason": "B"}'),
    ([{"reason": "A"}, {"reason": "B"}, {"reason": "C"}], "unexpected from [2]"),
])
def test_a_list_of_another_length_shows_where_it_parts_and_every_item(actual: list[dict[str, str]], where: str) -> None:
    """An event list one item longer than expected must say which item, however long the items are."""
    long = "m" * 400
    [report] = match_value([{"reason": "A"}, {"reason": "B"}], [{**item, "message": long} for item in actual], "events")
    assert report.startswith(f"events: expected 2 item(s), got {len(actual)}; {where}; got:")
    assert report.count("\n        [") == len(actual)
    assert all(f'"message": "{long}", "reason": "{item["reason"]}"' in report for item in actual)


def test_parse_seconds() -> None:
    assert runner.parse_seconds("1m30s", "t") == 90
    assert runner.parse_seconds("2h", "t") == 7200
    assert runner.parse_seconds(1.5, "t") == 1.5
    with pytest.raises(runner.ScenarioError):
        runner.parse_seconds("soon", "t")


def test_unknown_keys_are_authoring_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("description: x\ncovers: [a]\ntimeline:\n  - at: 1\n    failpod: x\n")
    with pytest.raises(runner.ScenarioError, match="unknown key"):
        runner.load_scenario(bad, tmp_path)


def test_failure_report_names_expectation_and_values(tmp_path: Path) -> None:
    sc = tmp_path / "report.yaml"
    sc.write_text("""
description: a JobSet that never exists
covers: [naming.job-name]
cluster: {nodes: []}
end: {at: 1}
expect:
  - jobset: nope
""")
    with pytest.raises(runner.ExpectationFailed) as info:
        runner.run_scenario(runner.load_scenario(sc, tmp_path))
    text = str(info.value)
    assert "expect[0]" in text and "jobset nope: expected to exist" in text and "trace tail" in text


def test_upstream_scenarios_skip_when_the_folder_is_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario, "UPSTREAM_EXAMPLES", tmp_path / "missing")
    sc = tmp_path / "up.yaml"
    sc.write_text("description: x\ncovers: [success.all]\nmanifests:\n  - upstream: simple/paralleljobs.yaml\n")
    with pytest.raises(runner.ScenarioSkipped, match=r"upstream examples folder .* is absent"):
        runner.run_scenario(runner.load_scenario(sc, tmp_path))


def test_expect_error_mismatch_is_reported(tmp_path: Path) -> None:
    sc = tmp_path / "err.yaml"
    sc.write_text("""
description: a rejection with the wrong expected text
covers: [validation.depends-on-first]
timeline:
  - apply:
      inline:
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: x}
        spec:
          replicatedJobs:
            - name: a
              dependsOn: [{name: a, status: Ready}]
              template: {spec: {template: {spec: {containers: [{name: c, image: i}]}}}}
      expectError: {code: 422, message: nope}
end: {at: 0}
""")
    with pytest.raises(runner.ExpectationFailed) as info:
        runner.run_scenario(runner.load_scenario(sc, tmp_path))
    assert "DependsOn can't be set for the first ReplicatedJob" in str(info.value)


_PATCH_POD = """
description: patch pods picked by a pod target
covers: [gates.in-place-attempts]
cluster: {pods: {runSeconds: 600}}
manifests:
  - manifest: simple/paralleljobs.yaml
timeline:
  - at: 5
    patch: {kind: Pod, pod: %s, patch: {metadata: {labels: {picked: "yes"}}}}
  - expect:
      - {kind: Pod, selector: picked=yes, count: %d}
end: {at: 6}
"""


@pytest.mark.parametrize(("target", "count"), [
    ("paralleljobs-workers-0-1", 1),                                             # a hostname
    ("{selector: jobset.sigs.k8s.io/replicatedjob-name=workers, all: true}", 4),  # every match
])
def test_patch_takes_a_pod_target(tmp_path: Path, target: str, count: int) -> None:
    sc = tmp_path / "patch-pod.yaml"
    sc.write_text(_PATCH_POD % (target, count))
    runner.run_scenario(runner.load_scenario(sc, tmp_path))
    sc.write_text(_PATCH_POD % (target, count + 1))
    with pytest.raises(runner.ExpectationFailed):
        runner.run_scenario(runner.load_scenario(sc, tmp_path))


def test_patch_needs_a_name_or_a_pod_target(tmp_path: Path) -> None:
    sc = tmp_path / "patch-both.yaml"
    sc.write_text(_PATCH_POD.replace("pod: %s", "name: x, pod: %s") % ("y", 0))
    with pytest.raises(runner.ScenarioError, match="give either name or pod"):
        runner.run_scenario(runner.load_scenario(sc, tmp_path))
    sc.write_text(_PATCH_POD % ("no-such-hostname", 0))
    with pytest.raises(runner.ExpectationFailed, match="no live pod matches"):
        runner.run_scenario(runner.load_scenario(sc, tmp_path))


def test_out_of_process_an_event_list_may_hold_a_create_the_cache_had_not_seen(tmp_path: Path) -> None:
    """Out of process, a cached controller can create a Job twice (upstream records JobCreationFailed): the
    sequence check passes with such an event left out, but in process, and for any other event, it fails."""
    from types import SimpleNamespace

    from jobset_ref.conformance.checks import Checks
    from jobset_ref.conformance.external import ExternalController

    sc = tmp_path / "events.yaml"
    sc.write_text("description: events\ncovers: [naming.job-name]\ncluster: {nodes: []}\nend: {at: 1}\n")
    checks = Checks(runner.load_scenario(sc, tmp_path))

    def record(reason: str, message: str) -> None:
        name = f"js.{len(checks.cluster.events())}"
        checks.cluster.create({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
                               "involvedObject": {"kind": "JobSet", "name": "js", "namespace": "default"},
                               "reason": reason, "message": message, "type": "Warning", "count": 1})

    record("JobCreationFailed", 'job "js-w-0" creation failed with error: jobs.batch "js-w-0" already exists')
    record("DefaultFailurePolicy", "x")
    item = {"events": "js", "sequence": [{"reason": "DefaultFailurePolicy"}]}
    assert checks.check(item), "in process an unexpected event is a mismatch"
    checks.external = SimpleNamespace(stale_cache_create=ExternalController.stale_cache_create)  # type: ignore[assignment]  # only the predicate is used
    assert checks.check(item) == []
    record("JobCreationFailed", 'job "js-w-1" creation failed with error: quota exceeded')
    assert checks.check(item), "a creation that failed for another reason is still a mismatch"
