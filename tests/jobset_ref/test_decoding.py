"""``jobset_ref.api.decoding``: what upstream's webhooks cannot decode into the Go types."""

from __future__ import annotations

from typing import Any

import pytest

from jobset_ref.api.decoding import decoding_error

INT32 = "json: cannot unmarshal number {} into Go struct field {} of type int32"


def jobset(rjob: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    rjob = {"name": "w", "template": {"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}, **(rjob or {})}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
            "spec": {"replicatedJobs": [rjob], **spec}}


def pod_spec(js: dict[str, Any]) -> dict[str, Any]:
    return js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("value", "fits"), [(2147483647, True), (2147483648, False),
                                             (-2147483648, True), (-2147483649, False)])
def test_an_int32_decodes_exactly_within_its_range(value: int, fits: bool) -> None:
    error = decoding_error(jobset(failurePolicy={"maxRestarts": value}))
    assert error == (None if fits else INT32.format(value, "FailurePolicy.spec.failurePolicy.maxRestarts"))


def test_the_error_names_the_go_struct_holding_the_field_and_its_path_without_list_indexes() -> None:
    assert decoding_error(jobset({"replicas": 2**31})) == INT32.format(
        2**31, "ReplicatedJob.spec.replicatedJobs.replicas")
    assert decoding_error(jobset({"template": {"spec": {"completions": 2**31}}})) == INT32.format(
        2**31, "JobSpec.spec.replicatedJobs.template.spec.completions")
    js = jobset()
    js["spec"]["replicatedJobs"].insert(0, jobset()["spec"]["replicatedJobs"][0])
    pod_spec(js)["containers"] = [{"name": "a"}, {"name": "b", "ports": [{"containerPort": 80}, {"containerPort": 2**32}]}]
    assert decoding_error(js) == INT32.format(
        2**32, "ContainerPort.spec.replicatedJobs.template.spec.template.spec.containers.ports.containerPort")
    exit_codes = {"podFailurePolicy": {"rules": [{"action": "FailJob",
                                                  "onExitCodes": {"operator": "In", "values": [1, 2**31]}}]}}
    assert decoding_error(jobset({"template": {"spec": exit_codes}})) == INT32.format(
        2**31, "PodFailurePolicyOnExitCodesRequirement.spec.replicatedJobs.template.spec.podFailurePolicy.rules"
        ".onExitCodes.values")
    status = {"replicatedJobsStatus": [{"name": "w", "jobRestarts": [0, -(2**31) - 1]}]}
    assert decoding_error({**jobset(), "status": status}) == INT32.format(
        -(2**31) - 1, "ReplicatedJobStatus.status.replicatedJobsStatus.jobRestarts")


def test_the_first_field_in_key_order_is_reported_whatever_order_the_dict_has() -> None:
    """The API server writes a custom resource with sorted keys: replicas before template."""
    rjob = {"template": {"spec": {"parallelism": 2**31}}, "replicas": 2**33, "name": "w"}
    assert decoding_error(jobset(rjob)) == INT32.format(2**33, "ReplicatedJob.spec.replicatedJobs.replicas")
    assert decoding_error(jobset(rjob, failurePolicy={"maxRestarts": 2**34})) == INT32.format(
        2**34, "FailurePolicy.spec.failurePolicy.maxRestarts")


def test_an_int_or_string_names_no_field_and_wins_over_an_earlier_int32() -> None:
    js = jobset({"replicas": 2**31})
    pod_spec(js)["containers"][0]["readinessProbe"] = {"tcpSocket": {"port": 2**31}}
    assert decoding_error(js) == "json: cannot unmarshal number 2147483648 into Go value of type int32"
    pod_spec(js)["containers"][0]["readinessProbe"] = {"tcpSocket": {"port": "http"}}
    assert decoding_error(js) == INT32.format(2**31, "ReplicatedJob.spec.replicatedJobs.replicas")


def test_int64_fields_quantities_and_fields_without_a_schema_decode() -> None:
    js = jobset()
    js["spec"]["replicatedJobs"][0]["template"]["spec"]["activeDeadlineSeconds"] = 2**40
    pod_spec(js)["containers"][0]["resources"] = {"requests": {"cpu": 10**12}}
    pod_spec(js)["volumes"] = [{"name": "scratch", "emptyDir": {"sizeLimit": 10**12}}]
    js["metadata"]["labels"] = {"n": "1"}
    js["metadata"]["generation"] = 2**40
    assert decoding_error(js) is None
