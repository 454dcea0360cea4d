"""Trusted writes and strict mode: fakekube's simulators write through a client the API server
trusts (no typed decoding of the body, no second defaulting pass, no validation); ``FakeCluster(strict=True)`` runs those writes
through the whole path and fails loudly when a simulator builds a body the path would reject or
change."""

from __future__ import annotations

import copy
import inspect

import pytest

from fakekube import Client, FakeCluster
from fakekube.cluster import STRICT_ENV
from fakekube.errors import ApiWarning, BadRequest, Invalid, StrictModeError
from fakekube.runtime._shared_client import SharedClient, SimulatorClient
from fakekube.runtime.context import SIMULATORS
from fakekube.testing.builders import make_pod


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite runs every cluster strict (conftest); these tests compare with the default."""
    monkeypatch.delenv(STRICT_ENV, raising=False)


def _running_pod(cluster: FakeCluster) -> dict:
    cluster.add_nodes(1)
    cluster.create(make_pod("p"))
    cluster.run_until_idle()
    return cluster.api.get("pods", "p", "default")


def _bad_label_status_write(cluster: FakeCluster) -> dict:
    """What a buggy kubelet would write: its status update carries a label value Kubernetes rejects."""
    pod = _running_pod(cluster)
    pod["metadata"]["labels"] = {"team": "not valid!"}
    return cluster.kubelet.client.update_status(pod)


def test_strict_mode_names_the_component_the_object_and_the_error(fast: None) -> None:
    cluster = FakeCluster(seed=0, strict=True)
    with pytest.raises(StrictModeError) as caught:
        _bad_label_status_write(cluster)
    message = str(caught.value)
    assert message.startswith("strict mode: the update of Pod default/p built by kubelet fails validation: ")
    assert 'metadata.labels: Invalid value: "not valid!"' in message


def test_the_fast_default_trusts_the_simulator(fast: None) -> None:
    cluster = FakeCluster(seed=0)
    assert not cluster.strict
    assert _bad_label_status_write(cluster)["metadata"]["labels"] == {"team": "not valid!"}


def test_a_user_write_keeps_the_whole_path_in_either_mode(fast: None) -> None:
    cluster = FakeCluster(seed=0)
    pod = _running_pod(cluster)
    pod["metadata"]["labels"] = {"team": "not valid!"}
    with pytest.raises(Invalid):
        cluster.client.update_status(pod)


def test_strict_mode_reports_what_the_skipped_defaulting_pass_would_change(
        fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A trusted create skips the second defaulting pass (nothing mutated the object since the
    first); strict mode runs it and reports any change, here from a defaulting rule that is not
    idempotent."""
    cluster = FakeCluster(seed=0, strict=True)
    strategy = cluster.api.resource("configmaps").strategy
    calls: list[int] = []

    def counting_default(obj: dict) -> None:
        calls.append(1)
        obj.setdefault("data", {})["passes"] = str(len(calls))

    monkeypatch.setattr(strategy, "default", counting_default)
    with pytest.raises(StrictModeError) as caught:
        cluster.job_controller.client.create(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}})
    assert str(caught.value) == ("strict mode: the create of ConfigMap default/c built by job-controller is "
                                 'changed by defaulting: data.passes: "1" -> "2"')
    calls.clear()
    cluster.api.strict = False  # the fast path skips the pass
    created = cluster.job_controller.client.create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}})
    assert created["data"] == {"passes": "1"}


@pytest.mark.parametrize("strict", [False, True])
def test_trusted_updates_default_a_shared_stored_spec_without_editing_it(fast: None, strict: bool) -> None:
    """A kubelet status write and the Job controller's finalizer patch carry the stored pod's own
    spec; their update's defaulting pass (every update has one) finds it defaulted already, so the
    stored, shared spec is neither edited nor replaced, in either mode."""
    cluster = FakeCluster(seed=0, strict=strict)
    _running_pod(cluster)
    stored = cluster.api.store.get("pods", "default", "p")
    stored_spec = stored["spec"]
    snapshot = copy.deepcopy(stored_spec)
    # built as the kubelet builds its status writes: the stored spec itself, shared
    body = {**stored, "metadata": dict(stored["metadata"]), "status": {**stored["status"], "message": "written"}}
    cluster.kubelet.client.update_status(body)
    cluster.job_controller.client.patch("pods", "p", {"metadata": {"labels": {"step": "1"}}}, patch_type="strategic")
    now = cluster.api.store.get("pods", "default", "p")
    assert now["spec"] is stored_spec and stored_spec == snapshot
    assert (now["status"]["message"], now["metadata"]["labels"]["step"]) == ("written", "1")


def _status_write_with(cluster: FakeCluster, **status: object) -> dict:
    """A kubelet status write whose pod status carries the given fields."""
    pod = _running_pod(cluster)
    pod["status"].update(status)
    return cluster.kubelet.client.update_status(pod)


@pytest.mark.parametrize(("status", "problem"), [
    ({"podIP": 7}, "cannot be decoded: json: cannot unmarshal number into Go struct field PodStatus.status.podIP "
                   "of type string"),
    ({"nominatedNodeName": None}, "is changed by decoding: status.nominatedNodeName: null -> (absent)"),
    ({"hostIP": {"a", "set"}}, "is not a JSON value: status.hostIP holds a set"),
    ({"colour": "blue"}, "has fields its kind does not declare: status.colour"),
])
def test_strict_mode_decodes_what_the_simulator_built(fast: None, status: dict, problem: str) -> None:
    """A trusted body skips decoding into the kind's Go type; strict mode decodes it and fails
    when decoding would reject it, change it, or find a field the kind does not have."""
    with pytest.raises(StrictModeError) as caught:
        _status_write_with(FakeCluster(seed=0, strict=True), **status)
    assert str(caught.value).startswith(f"strict mode: the update of Pod default/p built by kubelet {problem}")


def test_strict_mode_blames_a_simulator_only_for_fields_it_added(fast: None) -> None:
    """A field the pod's spec does not declare, sent by a user (kept, as this fake keeps unknown
    fields of built-in kinds), rides along in every kubelet status write: not the kubelet's doing."""
    cluster = FakeCluster(seed=0, strict=True)
    cluster.add_nodes(1)
    pod = make_pod("p")
    pod["spec"]["colour"] = "blue"
    with pytest.warns(ApiWarning, match='^unknown field "spec.colour"$'):
        cluster.create(pod)
    cluster.advance(30)
    assert cluster.get("Pod", "p")["status"]["phase"] == "Running"
    running = cluster.api.get("pods", "p", "default")
    running["status"]["shade"] = "dark"
    with pytest.raises(StrictModeError, match=r"has fields its kind does not declare: status\.shade$"):
        cluster.kubelet.client.update_status(running)


def test_the_fast_default_does_not_decode_a_simulator_body(fast: None) -> None:
    assert _status_write_with(FakeCluster(seed=0), nominatedNodeName=None)["status"]["nominatedNodeName"] is None


def test_a_user_body_is_decoded_in_either_mode(fast: None) -> None:
    cluster = FakeCluster(seed=0)
    pod = _running_pod(cluster)
    pod["status"]["nominatedNodeName"] = None
    assert "nominatedNodeName" not in cluster.client.update_status(pod)["status"]
    pod = cluster.api.get("pods", "p", "default")
    pod["status"]["podIP"] = 7
    with pytest.raises(BadRequest, match=r"cannot unmarshal number into Go struct field PodStatus\.status\.podIP"):
        cluster.client.update_status(pod)


def test_the_environment_switch_makes_every_cluster_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT_ENV, "1")
    assert FakeCluster(seed=0, simulate=False).strict
    monkeypatch.setenv(STRICT_ENV, "0")
    assert not FakeCluster(seed=0, simulate=False).strict


def test_only_the_simulators_write_as_trusted_writers() -> None:
    cluster = FakeCluster(seed=0)
    assert isinstance(cluster.kubelet.client, SimulatorClient)
    assert isinstance(cluster.job_controller.client, SimulatorClient)
    assert isinstance(cluster.scheduler.recorder.client, SimulatorClient)
    for name in ("jobset-controller", "jobset-install", "informer", "test"):
        assert name not in SIMULATORS
        assert type(cluster.runtime.shared_client(name)) is SharedClient
    assert type(cluster.runtime.recorder("jobset-controller").client) is SharedClient


@pytest.mark.parametrize("verb", ["create", "update", "update_status", "patch"])
def test_no_trust_switch_in_the_public_client(verb: str) -> None:
    assert "trusted" not in inspect.signature(getattr(Client, verb)).parameters


def test_strict_takes_a_bool() -> None:
    with pytest.raises(TypeError, match=r"FakeCluster\(strict=...\) takes True or False"):
        FakeCluster(seed=0, strict="yes")  # type: ignore[arg-type]


def test_a_trusted_patch_is_not_json_checked_but_strict_mode_checks_it(fast: None) -> None:
    """A simulator's patch is a JSON value it built: the fast path applies it as it is; strict mode
    fails on anything a request body could not carry. A user's patch is checked in either mode."""
    patch = {"metadata": {"labels": {"team": "a"}, "annotations": {"when": {"not", "json"}}}}
    cluster = FakeCluster(seed=0)
    _running_pod(cluster)
    with pytest.raises(BadRequest, match="the patch is not JSON"):
        cluster.client.patch("pods", "p", patch, patch_type="strategic")
    patched = cluster.job_controller.client.patch("pods", "p", {"metadata": {"labels": {"team": "a"}}},
                                                  patch_type="strategic")
    assert patched["metadata"]["labels"] == {"team": "a"}
    cluster.api.strict = True
    with pytest.raises(StrictModeError) as caught:
        cluster.job_controller.client.patch("pods", "p", patch, patch_type="strategic")
    assert str(caught.value).startswith("strict mode: the patch of Pod default/p built by job-controller sends a "
                                        "patch that is not JSON: metadata.annotations.when holds a set")
