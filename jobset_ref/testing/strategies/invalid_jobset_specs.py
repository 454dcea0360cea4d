"""Strategies for JobSets the API rejects: :func:`invalid_jobsets` breaks exactly one rule of
:data:`INVALID_RULES` in a valid :func:`jobsets` value and pairs it with the error it must produce."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from fakekube import UsageError
from jobset_ref.api import constants as c
from jobset_ref.testing.strategies._arguments import _MAX_DNS_LABEL, _digits
from jobset_ref.testing.strategies.jobset_parts import dns_labels
from jobset_ref.testing.strategies.jobset_specs import jobsets

__all__ = ["INVALID_RULES", "InvalidJobSet", "invalid_jobsets"]

# =============================================================================== invalid jobsets


@dataclass(frozen=True, slots=True)
class InvalidJobSet:
    """A JobSet the API must reject, and why.

    ``layer`` is ``"webhook"`` (``validate_create`` produces ``expected``) or ``"schema"``
    (the API server's CRD schema / CEL validation does). ``expected`` is a substring of exactly
    one rendered error (``str(FieldError)`` / the 422 message).
    """

    rule: str
    manifest: dict[str, Any]
    expected: str
    layer: Literal["webhook", "schema"] = "webhook"

    def __repr__(self) -> str:
        return (f"InvalidJobSet(rule={self.rule!r}, expected={self.expected!r}, layer={self.layer!r}, "
                f"manifest={self.manifest!r})")


#: Where a rule is enforced: the JobSet webhook or the API server's CRD schema / CEL.
_Layer = Literal["webhook", "schema"]
_Mutation = Callable[[st.DrawFn, dict[str, Any], Mapping[str, bool]], tuple[str, _Layer] | None]


def _rjobs(js: dict[str, Any]) -> list[dict[str, Any]]:
    rjobs: list[dict[str, Any]] = js["spec"]["replicatedJobs"]
    return rjobs


def _job_spec(rjob: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = rjob["template"].setdefault("spec", {})
    return spec


def _m_job_name_too_long(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    fixed = 2 + len(rjob["name"]) + _digits(rjob["replicas"] - 1)
    js["metadata"]["name"] = "a" * (_MAX_DNS_LABEL - fixed + 1 + draw(st.integers(0, 5)))
    js["spec"].pop("coordinator", None)
    return c.JOB_NAME_TOO_LONG_ERROR_MSG, "webhook"


def _m_pod_name_too_long(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjob = _rjobs(js)[0]
    job_spec = _job_spec(rjob)
    job_spec["completionMode"] = c.INDEXED_COMPLETION
    job_spec["completions"] = 10 ** 9
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    js["metadata"]["name"] = "p" * max(1, 63 - 2 - len(rjob["name"]) - _digits(rjob["replicas"] - 1) - 12)
    js["spec"].pop("coordinator", None)
    return c.POD_NAME_TOO_LONG_ERROR_MSG, "webhook"


def _m_subdomain_too_long(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    js["spec"].setdefault("network", {})["subdomain"] = "s" * draw(st.integers(64, 70))
    js["spec"].pop("coordinator", None)
    return c.SUBDOMAIN_TOO_LONG_ERR_MSG, "webhook"


def _m_subdomain_invalid(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    js["spec"].setdefault("network", {})["subdomain"] = draw(st.sampled_from(["Bad_Sub", "has.dot", "9lives"]))
    js["spec"].pop("coordinator", None)
    return "a DNS-1035 label must consist of lower case alphanumeric characters", "webhook"


def _m_first_depends_on(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    first = _rjobs(js)[0]
    first["dependsOn"] = draw(st.sampled_from([[], [{"name": first["name"], "status": "Ready"}]]))
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    return "DependsOn can't be set for the first ReplicatedJob", "webhook"


def _m_forward_depends_on(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjobs = _rjobs(js)
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    if len(rjobs) >= 2:
        rjobs[0].pop("dependsOn", None)
        rjobs[1].pop("dependsOn", None)
        rjobs[0], rjobs[1] = rjobs[1], rjobs[0]
        rjobs[1]["dependsOn"] = [{"name": rjobs[0]["name"], "status": "Ready"}]
        rjobs[0]["dependsOn"] = [{"name": rjobs[1]["name"], "status": "Complete"}]
        return f"replicatedJob: {rjobs[0]['name']} cannot depend on replicatedJob: {rjobs[1]['name']}", "webhook"
    ghost = "ghost" if rjobs[0]["name"] != "ghost" else "phantom"
    rjobs.append({"name": ghost + "x", "replicas": 1, "template": copy.deepcopy(rjobs[0]["template"]),
                  "dependsOn": [{"name": ghost, "status": "Ready"}]})
    return f"replicatedJob: {ghost}x cannot depend on replicatedJob: {ghost}", "webhook"


def _ghost(js: dict[str, Any]) -> str:
    names = {r["name"] for r in _rjobs(js)}
    return next(n for n in ("ghost", "phantom", "nobody", "missing") if n not in names)


def _m_success_target(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    ghost = _ghost(js)
    js["spec"]["successPolicy"] = {"operator": draw(st.sampled_from(["All", "Any"])), "targetReplicatedJobs": [ghost]}
    return f"invalid replicatedJob name '{ghost}' does not appear in .spec.ReplicatedJobs", "webhook"


def _safe_failure_policy(js: dict[str, Any]) -> dict[str, Any]:
    policy: dict[str, Any] = {"maxRestarts": 1, "rules": []}
    js["spec"]["failurePolicy"] = policy
    return policy


def _m_failure_target(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    ghost = _ghost(js)
    _safe_failure_policy(js)["rules"] = [{"name": "r", "action": "FailJobSet", "targetReplicatedJobs": [ghost]}]
    return f"invalid replicatedJob name '{ghost}' in failure policy does not appear in .spec.ReplicatedJobs", "webhook"


def _m_failure_reason(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    reason = draw(st.sampled_from(["OOMKilled", "Evicted", "backofflimitexceeded"]))
    _safe_failure_policy(js)["rules"] = [{"name": "r", "action": "RestartJobSet", "onJobFailureReasons": [reason]}]
    return f"invalid job failure reason '{reason}' in failure policy is not a recognized job failure reason", "webhook"


def _m_rule_name_format(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    bad = draw(st.sampled_from(["1rule", "rule-with-dash", "ends,", "_x"]))
    _safe_failure_policy(js)["rules"] = [{"name": bad, "action": "FailJobSet"}]
    return f"invalid failure policy rule name '{bad}', a failure policy rule name must start with", "webhook"


def _m_rule_name_length(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    size = draw(st.integers(129, 140))
    _safe_failure_policy(js)["rules"] = [{"name": "r" * size, "action": "FailJobSet"}]
    return f"invalid failure policy rule name of length {size}", "webhook"


def _m_rule_name_duplicate(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    _safe_failure_policy(js)["rules"] = [{"name": "dup", "action": "FailJobSet"},
                                         {"name": "dup", "action": "RestartJobSet"}]
    return "rule names are not unique, rules with indices [0 1] all have the same name 'dup'", "webhook"


def _m_restart_job_gate(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer] | None:
    if gates.get(c.FEATURE_RESTART_JOB):
        rjob = _rjobs(js)[0]
        rjob["replicas"] = 1025
        _job_spec(rjob)["parallelism"] = 1
        js["metadata"]["name"] = "x"
        js["spec"].pop("coordinator", None)
        js["spec"].pop("network", None)
        _safe_failure_policy(js)["rules"] = [{"name": "r", "action": "RestartJob"}]
        return ("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
                "action and a replicated job with replicas > 1024"), "webhook"
    action = draw(st.sampled_from(["RestartJob", "RestartJobAndIgnoreMaxRestarts"]))
    _safe_failure_policy(js)["rules"] = [{"name": "r", "action": action}]
    return ("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob "
            "feature gate is disabled"), "webhook"


def _m_in_place_gate(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer] | None:
    if gates.get(c.FEATURE_IN_PLACE_RESTART):
        rjob = _rjobs(js)[0]
        _job_spec(rjob).pop("backoffLimit", None)
        _safe_failure_policy(js)["restartStrategy"] = "InPlaceRestart"
        return f"replicatedJob {rjob['name']}: must be set to 2147483647 (MaxInt32) when in-place restart is enabled", \
            "webhook"
    _safe_failure_policy(js)["restartStrategy"] = "InPlaceRestart"
    return "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled", "webhook"


def _m_coordinator_rjob(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    ghost = _ghost(js)
    js["spec"]["coordinator"] = {"replicatedJob": ghost}
    return f"coordinator replicatedJob {ghost} does not exist", "webhook"


def _m_coordinator_job_index(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjob = _rjobs(js)[0]
    index = draw(st.sampled_from([rjob.get("replicas", 1), -1]))
    js["spec"]["coordinator"] = {"replicatedJob": rjob["name"], "jobIndex": index}
    return f"coordinator job index {index} is invalid for replicatedJob {rjob['name']}", "webhook"


def _m_coordinator_not_indexed(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    job_spec = _job_spec(rjob)
    if draw(st.booleans()):
        job_spec["completionMode"] = c.NON_INDEXED_COMPLETION
    else:
        job_spec.pop("completions", None)
    js["spec"]["coordinator"] = {"replicatedJob": rjob["name"]}
    return "job for coordinator pod must be indexed completion mode, and completions number must be set", "webhook"


def _m_coordinator_pod_index(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = max(rjob.get("replicas", 1), 1)
    job_spec = _job_spec(rjob)
    job_spec["completionMode"] = c.INDEXED_COMPLETION
    completions = job_spec.get("completions") or 1
    job_spec["completions"] = completions
    js["spec"]["coordinator"] = {"replicatedJob": rjob["name"], "podIndex": completions}
    return f"coordinator pod index {completions} is invalid for replicatedJob {rjob['name']} job index 0", "webhook"


def _m_managed_by_format(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    js["spec"]["managedBy"] = draw(st.sampled_from(["kueue", "no-slash-here", "/path-only"]))
    return 'must be a domain-prefixed path (such as "acme.io/foo")', "webhook"


def _m_managed_by_length(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    js["spec"]["managedBy"] = "example.com/" + "m" * draw(st.integers(52, 60))
    return "spec.managedBy: Too long: may not be more than 63 bytes", "webhook"


def _m_group_name(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjob = _rjobs(js)[0]
    if draw(st.booleans()):
        rjob["groupName"] = "g" * 64
        return c.GROUP_NAME_TOO_LONG_ERROR_MSG, "webhook"
    rjob["groupName"] = draw(st.sampled_from(["Bad_Group", "", "1group"]))
    return "a DNS-1035 label must consist of lower case alphanumeric characters", "webhook"


def _m_pod_overflow(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjob = _rjobs(js)[0]
    rjob["replicas"] = 2
    job_spec = _job_spec(rjob)
    job_spec["parallelism"] = c.MAX_INT32
    job_spec.pop("completions", None)
    job_spec["completionMode"] = c.NON_INDEXED_COMPLETION
    js["spec"].pop("coordinator", None)
    return (f"the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
            f"'{rjob['name']}'"), "webhook"


def _m_in_order_with_depends_on(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    rjobs = _rjobs(js)
    if len(rjobs) < 2:
        rjobs.append({"name": _ghost(js), "replicas": 1, "template": copy.deepcopy(rjobs[0]["template"])})
    rjobs[1]["dependsOn"] = [{"name": rjobs[0]["name"], "status": "Ready"}]
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    return "StartupPolicy and DependsOn APIs are mutually exclusive", "schema"


def _m_negative_replicas(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    _rjobs(js)[0]["replicas"] = draw(st.integers(-3, -1))
    js["spec"].pop("coordinator", None)
    return "spec.replicatedJobs[0].replicas in body should be greater than or equal to 0", "schema"


def _m_negative_ttl(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    js["spec"]["ttlSecondsAfterFinished"] = draw(st.integers(-5, -1))
    return "spec.ttlSecondsAfterFinished in body should be greater than or equal to 0", "schema"


def _m_bad_operator(draw: st.DrawFn, js: dict[str, Any], gates: Mapping[str, bool]) -> tuple[str, _Layer]:
    js["spec"]["successPolicy"] = {"operator": draw(st.sampled_from(["Some", "all", "None"]))}
    return 'spec.successPolicy.operator: Unsupported value: "', "schema"


#: Rule name → mutation. Each turns a valid JobSet into one the API rejects with a known error.
INVALID_RULES: dict[str, _Mutation] = {
    "job-name-too-long": _m_job_name_too_long,
    "pod-name-too-long": _m_pod_name_too_long,
    "subdomain-too-long": _m_subdomain_too_long,
    "subdomain-invalid": _m_subdomain_invalid,
    "first-depends-on": _m_first_depends_on,
    "forward-depends-on": _m_forward_depends_on,
    "success-target-unknown": _m_success_target,
    "failure-target-unknown": _m_failure_target,
    "failure-reason-unknown": _m_failure_reason,
    "rule-name-format": _m_rule_name_format,
    "rule-name-length": _m_rule_name_length,
    "rule-name-duplicate": _m_rule_name_duplicate,
    "restart-job-gate": _m_restart_job_gate,
    "in-place-restart": _m_in_place_gate,
    "coordinator-replicated-job": _m_coordinator_rjob,
    "coordinator-job-index": _m_coordinator_job_index,
    "coordinator-not-indexed": _m_coordinator_not_indexed,
    "coordinator-pod-index": _m_coordinator_pod_index,
    "managed-by-format": _m_managed_by_format,
    "managed-by-length": _m_managed_by_length,
    "group-name": _m_group_name,
    "pod-count-overflow": _m_pod_overflow,
    "in-order-with-depends-on": _m_in_order_with_depends_on,
    "negative-replicas": _m_negative_replicas,
    "negative-ttl": _m_negative_ttl,
    "success-operator-enum": _m_bad_operator,
}


def invalid_jobsets(*, rules: Sequence[str] | None = None, feature_gates: Mapping[str, bool] | None = None,
                    layers: Sequence[str] = ("webhook", "schema")) -> SearchStrategy[InvalidJobSet]:
    """JobSets the API rejects, each paired with the error it must produce.

    Starts from a valid :func:`jobsets` value and breaks exactly one rule (``rules`` narrows the
    catalogue :data:`INVALID_RULES`). ``layer="webhook"`` errors come from
    :func:`jobset_ref.api.validate_create` after defaulting; ``layer="schema"`` errors from the
    API server's CRD schema / CEL. Both surface as a 422 ``Invalid`` from ``cluster.apply``.
    """
    chosen = list(INVALID_RULES) if rules is None else list(rules)
    unknown = [r for r in chosen if r not in INVALID_RULES]
    if unknown:
        raise UsageError(f"unknown invalid_jobsets rule(s) {unknown}; known: {', '.join(INVALID_RULES)}")
    if not chosen:
        raise UsageError("invalid_jobsets(rules=[]) can generate nothing; pass at least one rule")
    bad_layers = [x for x in layers if x not in ("webhook", "schema")]
    if bad_layers or not layers:
        raise UsageError(f"layers= takes a non-empty subset of ('webhook', 'schema'), got {layers!r}")
    gates = dict(feature_gates or {})
    base = jobsets(max_replicated_jobs=2, max_replicas=2, max_parallelism=2, exclusive_placement=False,
                   feature_gates=gates, managed_by=st.none(), names=dns_labels(max_size=12))

    @st.composite
    def build(draw: st.DrawFn) -> InvalidJobSet:
        js = copy.deepcopy(draw(base))
        rule = draw(st.sampled_from(chosen))
        # Isolate the mutation: drop features that could fail for unrelated reasons.
        out = INVALID_RULES[rule](draw, js, gates)
        assert out is not None
        expected, layer = out
        if layer not in layers:
            raise UsageError(f"invalid_jobsets(rules={chosen!r}, layers={tuple(layers)!r}): rule {rule!r} is a "
                             f"{layer}-layer rule; include {layer!r} in layers or drop the rule")
        return InvalidJobSet(rule, js, expected, layer)

    return build()
