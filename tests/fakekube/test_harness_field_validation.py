"""fieldValidation on the harness API: the same Strict/Warn/Ignore answers as over HTTP."""

from __future__ import annotations

import warnings

import pytest

from fakekube import ApiWarning, BadRequest, FakeCluster, Invalid, UsageError

CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}, "dta": {"x": "1"}}


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(seed=0, simulate=False)


def test_strict_rejects_unknown_fields_on_create_and_apply(cluster: FakeCluster) -> None:
    for write in (lambda: cluster.create(CONFIGMAP, field_validation="Strict"),
                  lambda: cluster.apply(CONFIGMAP, field_validation="Strict")):
        with pytest.raises(BadRequest) as err:
            write()
        assert err.value.message == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding '
                                     'error: unknown field "dta"')
    assert not cluster.exists("ConfigMap", "a")


def test_warn_issues_one_api_warning_per_unknown_field(cluster: FakeCluster) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cluster.create(CONFIGMAP, field_validation="Warn")
    assert [(w.category, str(w.message)) for w in caught] == [(ApiWarning, 'unknown field "dta"')]
    assert cluster.exists("ConfigMap", "a")


def test_by_default_every_write_warns_as_kube_apiserver_does(cluster: FakeCluster) -> None:
    """A real API server's default is Warn: a typo is dropped, never silently. The warning points
    at the caller's line, not at the harness."""
    assert cluster.field_validation == "Warn"
    writes = [lambda: cluster.apply(CONFIGMAP), lambda: cluster.create({**CONFIGMAP, "metadata": {"name": "b"}}),
              lambda: cluster.update({**cluster.get("ConfigMap", "b"), "dta": {"y": "2"}}),
              lambda: cluster.patch("ConfigMap", "b", {"dta": {"z": "3"}})]
    for write in writes:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            write()
        assert [(w.category, str(w.message), w.filename) for w in caught] == [
            (ApiWarning, 'unknown field "dta"', __file__)]


def test_ignore_drops_unknown_fields_silently(cluster: FakeCluster) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cluster.apply(CONFIGMAP, field_validation="Ignore")
    quiet = FakeCluster(seed=0, simulate=False, field_validation="Ignore")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet.apply(CONFIGMAP)
        quiet.patch("ConfigMap", "a", {"dta": {"z": "3"}})


def test_the_cluster_default_applies_to_every_write_and_a_verb_overrides_it() -> None:
    cluster = FakeCluster(seed=0, simulate=False, field_validation="Strict")
    rv = cluster.api.store.rv
    for write in (lambda: cluster.apply(CONFIGMAP), lambda: cluster.create(CONFIGMAP)):
        with pytest.raises(BadRequest) as err:
            write()
        assert err.value.message.endswith('strict decoding error: unknown field "dta"')
    assert cluster.api.store.rv == rv
    cluster.create({k: v for k, v in CONFIGMAP.items() if k != "dta"})
    with pytest.raises(BadRequest):
        cluster.update({**cluster.get("ConfigMap", "a"), "dta": {}})
    with pytest.raises(Invalid):
        cluster.patch("ConfigMap", "a", {"dta": {"z": "3"}})
    with pytest.warns(ApiWarning, match='unknown field "dta"'):
        cluster.apply(CONFIGMAP, field_validation="Warn")


def test_a_bad_cluster_default_is_a_usage_error() -> None:
    for bad in ("strict", "Loud", None, True):
        with pytest.raises(UsageError) as err:
            FakeCluster(seed=0, simulate=False, field_validation=bad)  # type: ignore[arg-type]
        assert str(err.value) == ("FakeCluster(field_validation=...) takes 'Ignore', 'Strict', 'Warn', "
                                  f"got {bad!r}")


def test_strict_patch_is_422_as_upstream(cluster: FakeCluster) -> None:
    cluster.create({k: v for k, v in CONFIGMAP.items() if k != "dta"})
    with pytest.raises(Invalid) as err:
        cluster.patch("ConfigMap", "a", {"spec": {"x": 1}}, field_validation="Strict")
    assert err.value.code == 422 and 'strict decoding error: unknown field "spec"' in err.value.message


def test_a_bad_field_validation_value_is_rejected(cluster: FakeCluster) -> None:
    with pytest.raises(Invalid) as err:
        cluster.create(CONFIGMAP, field_validation="Loud")
    assert "fieldValidation" in err.value.message and '"Loud"' in err.value.message


def test_apply_of_yaml_keeps_the_last_of_duplicate_keys_as_kubectl_apply_does(cluster: FakeCluster) -> None:
    """`kubectl apply -f` converts YAML to JSON on the client, where a repeated key keeps its last
    value, and sends no duplicate: even Strict reports nothing (observed with kubectl 1.32). Only a
    body that reaches the server with duplicates (HTTP JSON or YAML) has them reported."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\ndata:\n  a: '1'\n  a: '2'\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        applied = cluster.apply(text, field_validation="Strict")
        assert applied["data"] == {"a": "2"}
        assert cluster.apply(text, field_validation="Warn")["data"] == {"a": "2"}
