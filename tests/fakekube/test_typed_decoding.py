"""Built-in kinds' bodies are decoded into their Go types first: a wrong JSON type is a 400 with
encoding/json's message, ``null`` s become Go's zero values, and nothing reaches the store."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube import FakeCluster
from fakekube.errors import ApiError


def _pod(spec: Any, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **meta}, "spec": spec}


def _job(spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": spec}


CONTAINER = {"name": "a", "image": "busybox"}
POD_PREFIX = 'Pod in version "v1" cannot be handled as a Pod: '
JOB_PREFIX = 'Job in version "v1" cannot be handled as a Job: '


@pytest.mark.parametrize(("body", "message"), [
    (_pod({"containers": "x"}),
     POD_PREFIX + "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"),
    (_pod({"containers": [{**CONTAINER, "resources": {"requests": ["a"]}}]}),
     POD_PREFIX + "json: cannot unmarshal array into Go struct field ResourceRequirements.spec.containers.resources"
                  ".requests of type v1.ResourceList"),
    (_pod({"containers": [{**CONTAINER, "resources": {"requests": {"cpu": "lots"}}}]}),
     POD_PREFIX + "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    (_pod({"containers": [CONTAINER]}, labels={"a": 1}),
     POD_PREFIX + "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": True}, "spec": {"containers": [CONTAINER]}},
     POD_PREFIX + "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string"),
    (_pod({"containers": [{**CONTAINER, "ports": [{"containerPort": "80"}]}]}),
     POD_PREFIX + "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports"
                  ".containerPort of type int32"),
    (_job({"parallelism": 10**30}),
     JOB_PREFIX + "json: cannot unmarshal number 1000000000000000000000000000000 into Go struct field "
                  "JobSpec.spec.parallelism of type int32"),
    (_job({"parallelism": 1.5}),
     JOB_PREFIX + "json: cannot unmarshal number 1.5 into Go struct field JobSpec.spec.parallelism of type int32"),
    (_job({"activeDeadlineSeconds": 2**40, "template": {"spec": {"containers": [CONTAINER],
                                                                   "restartPolicy": "Never"}},
           "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In",
                                                                                  "values": [[1]]}}]}}),
     JOB_PREFIX + "json: cannot unmarshal array into Go struct field PodFailurePolicyOnExitCodesRequirement"
                  ".spec.podFailurePolicy.rules.onExitCodes.values of type int32"),
])
def test_a_wrong_json_type_is_a_400_and_stores_nothing(body: dict[str, Any], message: str) -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    rv = cluster.api.store.rv
    with pytest.raises(ApiError) as err:
        cluster.create(body)
    assert (err.value.code, err.value.reason, err.value.message) == (400, "BadRequest", message)
    assert cluster.api.store.rv == rv


def test_nulls_decode_to_go_zero_values_and_validation_then_answers() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    with pytest.raises(ApiError) as err:  # spec: null is the zero JobSpec: validation says what is missing
        cluster.create(_job(None))
    assert err.value.code == 422
    assert err.value.message == ('Job.batch "j" is invalid: [spec.template.spec.containers: Required value, '
                                 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"]')


def test_a_patch_that_produces_a_wrong_type_is_a_400_and_changes_nothing() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.create(_pod({"containers": [CONTAINER]}))
    before = cluster.get("Pod", "p")
    with pytest.raises(ApiError) as err:
        cluster.patch("Pod", "p", {"metadata": {"labels": {"a": ["b"]}}})
    assert err.value.code == 400
    assert err.value.message == POD_PREFIX + ("json: cannot unmarshal array into Go struct field "
                                              "ObjectMeta.metadata.labels of type string")
    assert cluster.get("Pod", "p") == before


def test_null_stays_where_go_encodes_the_zero_value_as_null() -> None:
    """A Time held by value and a slice without omitempty come back as null, as from a real API
    server (``lastProbeTime: null``, an EndpointSlice's ``ports: null``); nil pointers, slices and
    maps with omitempty are dropped."""
    c = FakeCluster(seed=0, simulate=False)
    c.add_nodes(1)
    pod = c.client.create(_pod({"containers": [CONTAINER], "volumes": None}))
    assert "volumes" not in pod["spec"]
    status = {**pod, "status": {"conditions": [{"type": "Ready", "status": "False", "lastProbeTime": None,
                                                "lastTransitionTime": "2030-01-01T00:00:00Z"}],
                                "startTime": None}}
    written = c.client.update_status(status)
    assert written["status"]["conditions"][0]["lastProbeTime"] is None
    assert "startTime" not in written["status"]
    eps = c.client.create({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                           "metadata": {"name": "s"}, "addressType": "IPv4", "endpoints": [], "ports": None})
    assert "ports" in eps and eps["ports"] is None
    svc = c.client.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "h"},
                           "spec": {"clusterIP": "None", "ports": None, "selector": {"a": "b"}}})
    assert "ports" not in svc["spec"]


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
                    st.sampled_from(["", "x", "100m", "1Gi", "2030-01-01T00:00:00Z", " 4 "]),
                    st.lists(st.none() | st.text(max_size=3), max_size=2),
                    st.dictionaries(st.text(max_size=3), st.none() | st.integers(0, 3), max_size=2))
_PATHS = [("spec", "containers", 0, "resources", "limits", "cpu"), ("spec", "containers", 0, "ports"),
          ("spec", "containers", 0, "ports", 0, "containerPort"), ("spec", "priority"),
          ("spec", "activeDeadlineSeconds"), ("spec", "hostNetwork"), ("metadata", "labels"),
          ("metadata", "labels", "app"), ("status", "conditions", 0, "lastProbeTime"), ("status", "startTime"),
          ("spec", "containers", 0, "env", 0, "valueFrom"), ("spec", "overhead", "cpu"), ("spec", "volumes"),
          ("spec", "containers", 0, "livenessProbe", "httpGet", "port"), ("spec", "nodeSelector"),
          ("spec", "colour"), ("status", "conditions", 0, "colour"), ("metadata", "annotations")]


def _sample_pod() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"app": "a"}},
            "spec": {"containers": [{"name": "a", "image": "i", "resources": {"limits": {"cpu": "1"}},
                                     "ports": [{"containerPort": 80}], "env": [{"name": "E", "value": "v"}],
                                     "livenessProbe": {"httpGet": {"port": 8080}}}], "priority": 0},
            "status": {"conditions": [{"type": "Ready", "status": "True", "lastProbeTime": None}]}}


@given(st.lists(st.tuples(st.sampled_from(_PATHS), _VALUES), max_size=4))
@settings(max_examples=300, deadline=None)
def test_the_quick_decoders_take_the_precise_ones_decisions(edits: list[tuple[tuple[Any, ...], Any]]) -> None:
    """Every body decodes to the same object and the same first error whether the fast walk
    (exact JSON types, no error) takes it or hands it to the decoder that words errors; and
    strict mode's one-walk check of a simulator's body accepts only what the JSON check, the
    decoder and field validation would all pass unchanged."""
    from fakekube.apiserver import typed_decoding as td

    body = _sample_pod()
    for path, value in edits:
        node: Any = body
        for part in path[:-1]:
            fits = (isinstance(node, dict) and part in node) or (
                isinstance(node, list) and isinstance(part, int) and part < len(node))
            node = node[part] if fits else None
            if node is None:
                break
        if isinstance(node, dict):
            node[path[-1]] = value
    kind = td._kind_type("v1", "Pod")
    assert kind is not None
    slow = td._Decoder()
    expected = slow.value(body, kind, "", "")
    api = FakeCluster(seed=0, simulate=False).api
    pods = api.resource("pods")
    decoded, error = td._decoded(pods, body)
    assert error == slow.first
    if error is None:
        assert decoded == expected
    # Strict mode's one walk over a simulator's body passes only what every precise check passes.
    if td.exact(pods, body):
        assert td.undecoded(pods, body) is None
        assert api.fields.unknown_fields(pods, body) == []
