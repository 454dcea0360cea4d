"""Bad input from a Python caller or in YAML text: a UsageError that says how to fix it, or the
400/422 kube-apiserver answers; never a traceback, and nothing reaches the store."""

from __future__ import annotations

from typing import Any

import pytest

import jobset_ref
from fakekube import FakeCluster
from fakekube.errors import ApiError, UsageError
from fakekube.machinery import wire


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=0)
    jobset_ref.install(c)
    return c


@pytest.mark.parametrize(("call", "message"), [
    (lambda c: c.list("Pod", label_selector=5), "label_selector must be a string or None, got int 5"),
    (lambda c: c.patch("Pod", "p", {}, patch_type=5),
     "patch_type (merge, json, strategic, apply or a media type) must be a string, got int 5"),
    (lambda c: c.get("Pod", b"p"), "the name must be a string, got bytes b'p'"),
    (lambda c: c.run_until(lambda: True, timeout=None),
     "run_until(timeout=...) takes a non-negative number of virtual seconds, got None"),
    (lambda c: c.delete("Pod", "p", grace_period_seconds=1.5), "grace_period_seconds must be an int or None, got 1.5"),
    (lambda c: c.watch("Pod", field_selector=["a"]), "field_selector must be a string or None, got list ['a']"),
    (lambda c: c.add_node("n", labels={"a": 1}),
     "add_node(labels=...) must be a dict with string keys and values or None, got {'a': 1}"),
])
def test_a_wrong_argument_type_is_a_usage_error(cluster: FakeCluster, call: Any, message: str) -> None:
    rv = cluster.api.store.rv
    with pytest.raises(UsageError) as err:
        call(cluster)
    assert str(err.value) == message
    assert cluster.api.store.rv == rv


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: {value}\n"


@pytest.mark.parametrize(("text", "code", "message"), [
    (CM.format(name="true", value="b"), 400,
     'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct '
     "field ObjectMeta.metadata.name of type string"),
    (CM.format(name="x", value=".nan"), 400, "error converting YAML to JSON: data.a is nan, which is not a JSON number"),
    (CM.format(name="x", value="-.inf"), 400,
     "error converting YAML to JSON: data.a is -inf, which is not a JSON number"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nbinaryData:\n  a: !!binary aGk=\n", 400,
     "error converting YAML to JSON: line 6: the tag tag:yaml.org,2002:binary is not a JSON type"),
    ("a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
     "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
     "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n", 400,
     "error converting YAML to JSON: yaml: document contains excessive aliasing"),
])
def test_yaml_is_decoded_to_json_types_only(cluster: FakeCluster, text: str, code: int, message: str | None) -> None:
    rv = cluster.api.store.rv
    with pytest.raises(ApiError) as err:
        cluster.apply(text)
    assert err.value.code == code
    if message is not None:
        assert err.value.message == message
    assert cluster.api.store.rv == rv


def test_a_date_stays_a_string(cluster: FakeCluster) -> None:
    assert cluster.apply(CM.format(name="2020-01-01", value="2020-01-01"))["data"] == {"a": "2020-01-01"}


def test_a_python_value_json_cannot_hold_is_a_400(cluster: FakeCluster) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": float("nan")}}
    with pytest.raises(ApiError) as err:
        cluster.create(body)
    assert (err.value.code, err.value.message) == (
        400, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: data.a is nan, which is not a JSON number')


def test_deep_nesting_is_a_400_in_bounded_time(cluster: FakeCluster) -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"a": deep}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "annotations": deep}}
    with pytest.raises(ApiError) as err:
        cluster.create(body)
    assert err.value.code == 400
    assert f"nested more than {wire.MAX_DEPTH} levels deep" in err.value.message
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    with pytest.raises(ApiError) as err:
        cluster.patch("ConfigMap", "x", "[" * 5000 + "]" * 5000, patch_type="json")
    assert err.value.code == 400


JOB_SPEC = {"template": {"spec": {"containers": [{"name": "c", "image": "b"}], "restartPolicy": "Never"}}}


def _jobset(rjob: Any) -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
            "spec": {"replicatedJobs": [rjob]}}


@pytest.mark.parametrize(("body", "message"), [
    (_jobset(None), 'JobSet.jobset.x-k8s.io "js" is invalid: spec.replicatedJobs[0]: Invalid value: "null": '
                    'spec.replicatedJobs[0] in body must be of type object: "null"'),
    (_jobset({"name": "w", "replicas": 10**30, "template": {"spec": JOB_SPEC}}),
     'JobSet.jobset.x-k8s.io "js" is invalid: spec.replicatedJobs[0].replicas: Invalid value: "number": '
     'spec.replicatedJobs[0].replicas in body must be of type integer: "number"'),
    (_jobset({"name": "w", "template": {"spec": {"template": {"metadata": {"annotations": "A"}}}}}),
     'JobSet.jobset.x-k8s.io "js" is invalid: spec.replicatedJobs[0].template.spec.template.metadata.annotations: '
     'Invalid value: "string": spec.replicatedJobs[0].template.spec.template.metadata.annotations in body must be '
     'of type object: "string"'),
])
def test_a_custom_resource_of_wrong_types_is_refused_before_its_webhooks(
        cluster: FakeCluster, body: dict[str, Any], message: str) -> None:
    rv = cluster.api.store.rv
    with pytest.raises(ApiError) as err:
        cluster.create(body)
    assert (err.value.code, err.value.reason, err.value.message) == (422, "Invalid", message)
    assert err.value.causes[0]["reason"] == "FieldValueTypeInvalid"
    assert cluster.api.store.rv == rv


def test_http_bodies_share_the_json_rules(cluster: FakeCluster) -> None:
    from fakekube.http.requests import decode_body

    with pytest.raises(ApiError) as err:
        decode_body(b"[" * 100_000 + b"]" * 100_000, "application/json")
    assert err.value.code == 400
    with pytest.raises(ApiError) as err:
        decode_body(b"data:\n  a: .inf\n", "application/yaml")
    assert err.value.message == "error converting YAML to JSON: data.a is inf, which is not a JSON number"


def test_apply_of_an_object_whose_name_is_not_a_string_is_a_400(cluster: FakeCluster) -> None:
    with pytest.raises(ApiError) as err:
        cluster.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": {"a": []}}})
    assert err.value.message == ('Namespace in version "v1" cannot be handled as a Namespace: json: cannot '
                                 "unmarshal object into Go struct field ObjectMeta.metadata.name of type string")


def test_a_config_map_over_one_mebibyte_is_refused(cluster: FakeCluster) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": {"a": "x" * (1 << 20)}}
    with pytest.raises(ApiError) as err:
        cluster.create(body)
    assert (err.value.code, err.value.message) == (
        422, 'ConfigMap "big" is invalid: Too long: may not be more than 1048576 bytes')
    body["data"] = {"a": "x" * ((1 << 20) - 1)}
    assert cluster.create(body)["metadata"]["name"] == "big"


def test_an_unread_watch_is_bounded_and_ends(cluster: FakeCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    from fakekube import cluster as cluster_module

    monkeypatch.setattr(cluster_module, "MAX_WATCH_EVENTS", 3)
    stream = cluster.watch("ConfigMap")
    for i in range(5):
        cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}})
    assert len(stream.events) == 3 and stream.closed


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: ConfigMap\nmetadata: null\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: A\n",
])
def test_apply_of_odd_metadata_is_an_api_error(cluster: FakeCluster, text: str) -> None:
    with pytest.raises(ApiError) as err:
        cluster.apply(text)
    assert err.value.code in (400, 422)


@pytest.mark.parametrize(("body", "message"), [
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [{"name": "c", "image": "b", "ports": [None]}], "restartPolicy": "Never"}},
     'Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Required value'),
    ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [None]}},
     'Service "s" is invalid: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive'),
    ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
      "spec": {"taints": [{"key": "k", "effect": "Sometimes"}]}},
     'Node "n" is invalid: spec.taints[0].effect: Unsupported value: "Sometimes": supported values: '
     '"NoExecute", "NoSchedule", "PreferNoSchedule"'),
    ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"taints": [None]}}, None),
])
def test_null_items_are_zero_values_that_validation_refuses(
        cluster: FakeCluster, body: dict[str, Any], message: str | None) -> None:
    rv = cluster.api.store.rv
    with pytest.raises(ApiError) as err:
        cluster.create(body)
    assert err.value.code == 422
    if message is not None:
        assert err.value.message == message
    else:
        assert "spec.taints[0].effect: Required value" in err.value.message
    assert cluster.api.store.rv == rv


def test_a_custom_resource_name_of_the_wrong_type_is_a_400(cluster: FakeCluster) -> None:
    with pytest.raises(ApiError) as err:
        cluster.create({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": [None]},
                        "spec": {"replicatedJobs": []}})
    assert err.value.message == ('JobSet in version "v1alpha2" cannot be handled as a JobSet: json: cannot '
                                 "unmarshal array into Go struct field ObjectMeta.metadata.name of type string")


def test_a_create_with_a_resource_version_is_judged_by_validation_first(cluster: FakeCluster) -> None:
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "resourceVersion": "5"}, "spec": {}}
    with pytest.raises(ApiError) as err:  # kube-apiserver checks the resourceVersion in storage, after validation
        cluster.create(body)
    assert (err.value.code, err.value.message) == (422, 'Service "s" is invalid: spec.ports: Required value')
    body["spec"] = {"ports": [{"port": 80}]}
    with pytest.raises(ApiError) as err:
        cluster.create(body)
    assert (err.value.code, err.value.reason, err.value.message) == (
        500, "", "resourceVersion should not be set on objects to be created")
    assert not cluster.exists("Service", "s")


def test_server_side_apply_bodies_share_the_json_rules(cluster: FakeCluster) -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"a": deep}
    for body in ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "annotations": deep}},
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: .nan\n"):
        with pytest.raises(ApiError) as err:
            cluster.api.patch("configmaps", "a", body, namespace="default", patch_type="apply", field_manager="t")
        assert err.value.code == 400 and err.value.message.startswith("error decoding patch: ")


def test_a_custom_resource_reads_whole_floats_back_as_integers_as_kube_apiserver_does(cluster: FakeCluster) -> None:
    """Go encodes a float64 holding a whole number without its fraction: ``replicas: n / 2`` from Python
    reads back as an integer, and the Jobs a controller builds from it are accepted (int32 fields)."""
    created = cluster.create(_jobset({"name": "w", "replicas": 2.0,
                                      "template": {"spec": {**JOB_SPEC, "parallelism": 3.0}}}))
    rjob = created["spec"]["replicatedJobs"][0]
    assert (rjob["replicas"], type(rjob["replicas"])) == (2, int)
    assert (rjob["template"]["spec"]["parallelism"], type(rjob["template"]["spec"]["parallelism"])) == (3, int)
    assert cluster.get("JobSet", "js") == created
    with pytest.raises(ApiError) as err:
        cluster.create({**_jobset({"name": "w", "replicas": 2.5, "template": {"spec": JOB_SPEC}}),
                        "metadata": {"name": "half"}})
    assert err.value.message == ('JobSet.jobset.x-k8s.io "half" is invalid: spec.replicatedJobs[0].replicas: '
                                 'Invalid value: "float64": spec.replicatedJobs[0].replicas in body must be of type '
                                 'int32: "float64"')
