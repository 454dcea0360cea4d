"""Built-in kinds' bodies are decoded into their Go types first: a wrong JSON type is a 400 with
encoding/json's message, ``null`` s become Go's zero values, and nothing reaches the store."""

from __future__ import annotations

from typing import Any

import pytest

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
