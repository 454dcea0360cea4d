"""JobSet admission validation: the validating webhook's ``ValidateCreate`` / ``ValidateUpdate``.

Mirrors upstream ``pkg/webhooks/jobset_webhook.go`` (kubernetes-sigs/jobset @ 08dfbdf), plus the
library validators it calls from ``k8s.io/apimachinery/pkg/util/validation`` (v0.36.3):
``IsDNS1035Label``, ``IsDNS1123Subdomain``, ``IsValidLabelValue``, ``IsDomainPrefixedPath``,
and ``apivalidation.ValidateImmutableField`` / ``equality.Semantic``.

Every rule runs in upstream evaluation order and every failure is a
:class:`fakekube.errors.FieldError` with the exact upstream path and text. Plain Go errors
(``fmt.Errorf``) become *Internal* field errors at path ``<nil>``, as ``toFieldErrorList``
does. :func:`invalid_error` builds the 422 the webhook returns.

Pure functions: the only cluster read upstream performs (existing-PVC lookup, §6.1 step 9.5)
is a callable parameter.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from fakekube.errors import ApiError, FieldError, Invalid, NotFound, ResourceName, go_quote
from fakekube.machinery.validation import is_dns1035_label, is_dns1123_subdomain
from fakekube.machinery.validation import regex_error as _regex_error
from jobset_ref.api import constants as c
from jobset_ref.api.models import (
    FailurePolicyAction,
    JobSet,
    JobSetRestartStrategy,
    ReplicatedJob,
    RetentionPolicyType,
)

__all__ = [
    "JOBSET_RESOURCE",
    "PvcLookup",
    "feature_enabled",
    "invalid_error",
    "is_dns1035_label",
    "is_dns1123_subdomain",
    "is_domain_prefixed_path",
    "is_valid_label_value",
    "name_for_validation",
    "plain_error",
    "semantic_equal",
    "validate_create",
    "validate_update",
]

#: How the JobSet resource is named in API errors.
JOBSET_RESOURCE = ResourceName(c.PLURAL, c.GROUP, c.KIND)

#: ``(namespace, name) -> PVC wire dict``, or ``None`` when it does not exist. May raise
#: :class:`fakekube.errors.ApiError` (``NotFound`` counts as "does not exist").
PvcLookup = Callable[[str, str], "dict[str, Any] | None"]

# Path of an error that has none: Go renders a nil *field.Path as "<nil>".
NIL_PATH = "<nil>"

# --------------------------------------------------------------------------- library validators

_LABEL_VALUE_FMT = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"

_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_HTTP_PATH_RE = re.compile(_HTTP_PATH_FMT)
_RULE_NAME_RE = re.compile(c.RULE_NAME_FMT.removeprefix("^").removesuffix("$"))


def _golen(s: str) -> int:
    """Go's ``len(string)``: bytes of the UTF-8 encoding."""
    return len(s.encode("utf-8", "surrogatepass"))


def is_valid_label_value(value: str) -> list[str]:
    """``content.IsLabelValue`` as the webhook's apimachinery v0.36.3 has it.

    Unlike the 1.34 API server that fakekube models (``fakekube.machinery.validation``), this
    library version says ``bytes`` in the length message, so the webhook keeps its own copy.
    """
    errs: list[str] = []
    if _golen(value) > 63:
        errs.append("must be no more than 63 bytes")
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(_regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """``validation.IsDomainPrefixedPath`` (field errors at ``path``)."""
    if _golen(value) == 0:
        return [FieldError.required(path)]
    segments = value.split("/", 1)
    if len(segments) != 2 or not segments[0] or not segments[1]:
        return [FieldError.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    host, http_path = segments
    errs = [FieldError.invalid(path, host, msg) for msg in is_dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.fullmatch(http_path):
        errs.append(FieldError.invalid(path, http_path, _regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


# --------------------------------------------------------------------------- shared helpers


def plain_error(text: str) -> FieldError:
    """A plain Go error as the webhook reports it: ``field.InternalError(nil, err)``."""
    return FieldError.internal(NIL_PATH, text)


def feature_enabled(feature_gates: Mapping[str, bool] | None, name: str) -> bool:
    """Gate value from ``feature_gates``, falling back to the upstream default."""
    if feature_gates is not None and name in feature_gates:
        return bool(feature_gates[name])
    return bool(c.DEFAULT_FEATURE_GATES.get(name, False))


def _int32(value: int) -> int:
    """Two's-complement 32-bit wrap-around (Go ``int32`` arithmetic)."""
    return ((value + 2**31) % 2**32) - 2**31


def _as_jobset(js: JobSet | Mapping[str, Any]) -> JobSet:
    return js if isinstance(js, JobSet) else JobSet.from_wire(dict(js))


def generated_name_suffix(generate_name: str) -> str:
    """A 5-character suffix from ``names.SimpleNameGenerator``'s alphabet, derived from the prefix."""
    # DEVIATION(upstream): SimpleNameGenerator draws 5 random characters; we derive them from a
    # hash of generateName so validation output is deterministic. Only the length is observable
    # in the checks, but the simulated name appears in error values.
    digest = hashlib.blake2b(generate_name.encode("utf-8"), digest_size=16).digest()
    alphabet = c.GENERATE_NAME_ALPHABET
    return "".join(alphabet[b % len(alphabet)] for b in digest[: c.GENERATE_NAME_RANDOM_LENGTH])


def name_for_validation(js: JobSet | Mapping[str, Any], *, suffix: str | None = None) -> str:
    """``getJobSetNameForValidation`` (§6.0): the name, else a simulated generateName result, else ""."""
    model = _as_jobset(js)
    if model.name:
        return model.name
    base = model.generate_name
    if not base:
        return ""
    raw = base.encode("utf-8")
    if len(raw) > c.GENERATE_NAME_MAX_PREFIX_LENGTH:
        base = raw[: c.GENERATE_NAME_MAX_PREFIX_LENGTH].decode("utf-8", "ignore")
    return base + (suffix if suffix is not None else generated_name_suffix(model.generate_name))


def coordinator_endpoint(js: JobSet, jobset_name: str) -> str:
    """``controllers.CoordinatorEndpoint`` for a JobSet named ``jobset_name``."""
    coord = js.spec.coordinator
    assert coord is not None
    network = js.spec.network
    subdomain = network.subdomain if network is not None and network.subdomain else jobset_name
    return f"{jobset_name}-{coord.replicated_job}-{coord.job_index}-{coord.pod_index}.{subdomain}"


def invalid_error(name: str, errors: list[FieldError], *, via_apiserver: bool = True) -> Invalid:
    """The 422 ``Invalid`` the validating webhook returns for ``errors`` (§2.2).

    With ``via_apiserver`` the message carries the prefix the API server adds to webhook denials.
    """
    prefix = f'admission webhook "{c.VALIDATING_JOBSET_WEBHOOK_NAME}" denied the request: ' if via_apiserver else ""
    return Invalid.for_object(JOBSET_RESOURCE, name, errors, prefix=prefix)


# --------------------------------------------------------------------------- ValidateCreate


def validate_create(
    js: JobSet | Mapping[str, Any],
    *,
    feature_gates: Mapping[str, bool] | None = None,
    pvc_lookup: PvcLookup | None = None,
    generate_name_suffix: str | None = None,
) -> list[FieldError]:
    """``ValidateCreate`` (§6): every error, in upstream order; ``[]`` means admitted.

    ``pvc_lookup`` answers the existing-PVC read of step 9 (``None`` = no PVC exists).
    ``generate_name_suffix`` overrides the 5 simulated random characters of §6.0.
    """
    model = _as_jobset(js)
    spec = model.spec
    rjobs = spec.replicated_jobs_list
    name = name_for_validation(model, suffix=generate_name_suffix)
    errs: list[FieldError] = []
    in_place = (spec.failure_policy is not None
                and spec.failure_policy.restart_strategy == JobSetRestartStrategy.IN_PLACE_RESTART)

    # Step 1: InPlaceRestart feature gate.
    if not feature_enabled(feature_gates, c.FEATURE_IN_PLACE_RESTART) and in_place:
        errs.append(plain_error(
            "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled"))

    # Step 2: the first ReplicatedJob may not use dependsOn (an explicit empty list counts).
    if rjobs and rjobs[0].depends_on is not None:
        errs.append(plain_error("DependsOn can't be set for the first ReplicatedJob"))

    # Step 3: network subdomain must be a DNS-1123 subdomain and a DNS-1035 label.
    if spec.network is not None and spec.network.subdomain:
        subdomain = spec.network.subdomain
        path = "spec.network.subdomain"
        errs.extend(FieldError.invalid(path, subdomain, msg) for msg in is_dns1123_subdomain(subdomain))
        for msg in is_dns1035_label(subdomain):
            if c.DNS1035_MAX_LENGTH_EXCEEDED_ERROR_MSG in msg:
                msg = c.SUBDOMAIN_TOO_LONG_ERR_MSG
            errs.append(FieldError.invalid(path, subdomain, msg))

    # Step 4: managedBy is a domain-prefixed path of at most 63 bytes.
    if spec.managed_by is not None:
        errs.extend(is_domain_prefixed_path("spec.managedBy", spec.managed_by))
        if _golen(spec.managed_by) > c.MAX_MANAGED_BY_LENGTH:
            errs.append(FieldError.too_long("spec.managedBy", spec.managed_by, c.MAX_MANAGED_BY_LENGTH))

    # Step 5: each ReplicatedJob.
    known: set[str] = set()
    gate_in_place = feature_enabled(feature_gates, c.FEATURE_IN_PLACE_RESTART)
    for index, rjob in enumerate(rjobs):
        errs.extend(_validate_replicated_job(index, rjob, name, known, in_place and gate_in_place))

    # Step 6: success-policy targets must exist. (Upstream dereferences successPolicy
    # unconditionally; it is never nil after defaulting. Nil reads as "no targets" here.)
    if spec.success_policy is not None:
        for target in spec.success_policy.target_replicated_jobs or []:
            if target not in known:
                errs.append(plain_error(
                    f"invalid replicatedJob name '{target}' does not appear in .spec.ReplicatedJobs"))

    # Step 7: failure policy.
    if spec.failure_policy is not None:
        errs.extend(_validate_failure_policy(model, known, feature_gates))

    # Step 8: coordinator (structural check, then label-value check).
    if spec.coordinator is not None:
        coordinator_err = _validate_coordinator(model)
        if coordinator_err is not None:
            errs.append(coordinator_err)
        endpoint = coordinator_endpoint(model, name)
        label_errs = is_valid_label_value(endpoint)
        if label_errs:
            errs.append(plain_error(
                f"spec will lead to invalid label value {go_quote(endpoint)} for coordinator label "
                f"{go_quote(c.COORDINATOR_KEY)} (long JobSet / ReplicatedJob / SubDomain name?): "
                + ", ".join(label_errs)))

    # Step 9: volumeClaimPolicies.
    if spec.volume_claim_policies:
        errs.extend(_validate_volume_claim_policies(model, name, pvc_lookup))
    return errs


def _validate_replicated_job(index: int, rjob: ReplicatedJob, jobset_name: str, known: set[str],
                             check_in_place: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    base = f"spec.replicatedJobs[{index}]"
    # a. Register the name first: a ReplicatedJob may depend on itself.
    known.add(rjob.name)
    parallelism = rjob.parallelism if rjob.parallelism is not None else 1
    if parallelism * rjob.replicas > c.MAX_INT32:
        errs.append(plain_error(
            f"the product of replicas and parallelism must not exceed {c.MAX_INT32} "
            f"for replicatedJob '{rjob.name}'"))
    # b. groupName is a DNS-1035 label.
    for msg in is_dns1035_label(rjob.group_name):
        if c.DNS1035_MAX_LENGTH_EXCEEDED_ERROR_MSG in msg:
            msg = c.GROUP_NAME_TOO_LONG_ERROR_MSG
        errs.append(FieldError.invalid(f"{base}.groupName", rjob.group_name, msg))
    # c. The longest child Job name is a DNS-1035 label.
    max_job_index = _int32(rjob.replicas - 1)
    longest_job_name = f"{jobset_name}-{rjob.name}-{max_job_index}"
    for msg in is_dns1035_label(longest_job_name):
        if c.DNS1035_MAX_LENGTH_EXCEEDED_ERROR_MSG in msg:
            msg = c.JOB_NAME_TOO_LONG_ERROR_MSG
        errs.append(FieldError.invalid(f"{base}.name", longest_job_name, msg))
    # d. The longest pod name (Indexed with completions only) is a DNS-1035 label; the
    #    reported value is the Job name, as upstream.
    completions = rjob.completions
    if rjob.is_indexed and completions is not None:
        max_pod_index = _int32(completions - 1)
        longest_pod_name = (f"{jobset_name}-{rjob.name}-{max_job_index}-{max_pod_index}"
                            + c.POD_NAME_SUFFIX_FOR_VALIDATION)
        for msg in is_dns1035_label(longest_pod_name):
            if c.DNS1035_MAX_LENGTH_EXCEEDED_ERROR_MSG in msg:
                msg = c.POD_NAME_TOO_LONG_ERROR_MSG
            errs.append(FieldError.invalid(f"{base}.name", longest_job_name, msg))
    # e. dependsOn refers to this or an earlier ReplicatedJob.
    for dep in rjob.depends_on or []:
        if dep.name not in known:
            errs.append(plain_error(f"replicatedJob: {rjob.name} cannot depend on replicatedJob: {dep.name}"))
    # g. In-place restart constraints.
    if check_in_place:
        spec_path = f"{base}.template.spec"
        if rjob.backoff_limit is None or rjob.backoff_limit != c.MAX_INT32:
            errs.append(FieldError.invalid(
                f"{spec_path}.backoffLimit", rjob.backoff_limit,
                f"replicatedJob {rjob.name}: must be set to {c.MAX_INT32} (MaxInt32) when in-place restart is enabled"))
        if rjob.pod_replacement_policy is None or rjob.pod_replacement_policy != c.POD_REPLACEMENT_POLICY_FAILED:
            errs.append(FieldError.invalid(
                f"{spec_path}.podReplacementPolicy", rjob.pod_replacement_policy,
                f"replicatedJob {rjob.name}: must be set to {c.POD_REPLACEMENT_POLICY_FAILED} "
                "when in-place restart is enabled"))
        if completions is None or rjob.parallelism is None or completions != rjob.parallelism:
            errs.append(FieldError.invalid(
                f"{spec_path}.completions", completions,
                f"replicatedJob {rjob.name}: completions and parallelism must be set and equal to each other "
                "when in-place restart is enabled"))
    return errs


_RESTART_JOB_ACTIONS = (FailurePolicyAction.RESTART_JOB, FailurePolicyAction.RESTART_JOB_AND_IGNORE_MAX_RESTARTS)


def _validate_failure_policy(js: JobSet, known: set[str],
                             feature_gates: Mapping[str, bool] | None) -> list[FieldError]:
    policy = js.spec.failure_policy
    assert policy is not None
    rules = policy.rules or []
    errs: list[FieldError] = []
    if any(rule.action in _RESTART_JOB_ACTIONS for rule in rules):
        if not feature_enabled(feature_gates, c.FEATURE_RESTART_JOB):
            # Early return: nothing else of the failure policy is checked.
            return [plain_error(
                "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed "
                "when RestartJob feature gate is disabled")]
        if any(rjob.replicas > c.MAX_REPLICAS_PER_REPLICATED_JOB for rjob in js.replicated_jobs):
            errs.append(plain_error(
                "JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
                f"action and a replicated job with replicas > {c.MAX_REPLICAS_PER_REPLICATED_JOB}"))
    indices_by_name: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        length = _golen(rule.name)
        if length < c.MIN_RULE_NAME_LENGTH or length > c.MAX_RULE_NAME_LENGTH:
            errs.append(plain_error(
                f"invalid failure policy rule name of length {length}, the rule name must be at least "
                f"{c.MIN_RULE_NAME_LENGTH} characters long and at most {c.MAX_RULE_NAME_LENGTH} characters long"))
        indices_by_name.setdefault(rule.name, []).append(index)
        if not _RULE_NAME_RE.fullmatch(rule.name):
            errs.append(plain_error(
                f"invalid failure policy rule name '{rule.name}', a failure policy rule name must start with "
                "an alphabetic character, optionally followed by a string of alphanumeric characters or "
                "'_,:', and must end with an alphanumeric character or '_'"))
        for target in rule.target_replicated_jobs or []:
            if target not in known:
                errs.append(plain_error(
                    f"invalid replicatedJob name '{target}' in failure policy does not appear in "
                    ".spec.ReplicatedJobs"))
        for reason in rule.on_job_failure_reasons or []:
            if reason not in c.VALID_ON_JOB_FAILURE_REASONS:
                errs.append(plain_error(
                    f"invalid job failure reason '{reason}' in failure policy is not a recognized job "
                    "failure reason"))
    # DEVIATION(upstream): upstream ranges over a Go map here (random order when several names
    # are duplicated); we report duplicated names in order of first appearance.
    for rule_name, indices in indices_by_name.items():
        if len(indices) > 1:
            rendered = "[" + " ".join(str(i) for i in indices) + "]"
            errs.append(plain_error(
                f"rule names are not unique, rules with indices {rendered} all have the same name '{rule_name}'"))
    return errs


def _validate_coordinator(js: JobSet) -> FieldError | None:
    coord = js.spec.coordinator
    assert coord is not None
    rjob = next((r for r in js.replicated_jobs if r.name == coord.replicated_job), None)
    if rjob is None:
        return plain_error(f"coordinator replicatedJob {coord.replicated_job} does not exist")
    if coord.job_index < 0 or coord.job_index >= rjob.replicas:
        return plain_error(f"coordinator job index {coord.job_index} is invalid for replicatedJob {rjob.name}")
    completions = rjob.completions
    if rjob.completion_mode is None or completions is None or not rjob.is_indexed:
        return plain_error(
            "job for coordinator pod must be indexed completion mode, and completions number must be set")
    if coord.pod_index < 0 or coord.pod_index >= completions:
        return plain_error(
            f"coordinator pod index {coord.pod_index} is invalid for replicatedJob {coord.replicated_job} "
            f"job index {coord.job_index}")
    return None


def _validate_volume_claim_policies(js: JobSet, jobset_name: str,
                                    pvc_lookup: PvcLookup | None) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    rjobs = js.replicated_jobs
    for pi, policy in enumerate(js.spec.volume_claim_policies or []):
        policy_path = f"spec.volumeClaimPolicies[{pi}]"
        for ti, template in enumerate(policy.templates or []):
            # Upstream names the path segment "template" although the JSON field is "templates".
            tpath = f"{policy_path}.template[{ti}]"
            tname = policy.template_name(ti)
            if tname in seen:
                errs.append(FieldError.invalid(f"{tpath}.name", tname,
                                               "names must be unique for VolumeClaimPolicies template"))
            errs.extend(FieldError.invalid(f"{tpath}.name", tname, msg) for msg in is_dns1123_subdomain(tname))
            pvc_name = f"{tname}-{jobset_name}"
            if _golen(pvc_name) > c.MAX_VOLUME_CLAIM_LENGTH:
                errs.append(FieldError.invalid(f"{tpath}.name", tname, "VolumeClaimPolicies template name is too long"))
            errs.extend(_validate_replicated_jobs_volume_claims(rjobs, tname))
            existing, lookup_err = _lookup_pvc(pvc_lookup, js.namespace, pvc_name)
            if lookup_err is not None:
                errs.append(FieldError.internal(tpath, f"failed to check for existing PVC {pvc_name}: {lookup_err}"))
            elif existing is not None:
                template_spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
                existing_spec = existing.get("spec") if isinstance(existing.get("spec"), dict) else {}
                if _drop_nulls(existing_spec) != _drop_nulls(template_spec):
                    errs.append(FieldError.invalid(
                        f"{tpath}.spec", template_spec,
                        f"spec does not match existing PVC {pvc_name} in namespace {js.namespace}"))
                retention = policy.retention_policy
                if retention is not None and retention.when_deleted != RetentionPolicyType.RETAIN:
                    when_deleted = None if retention.when_deleted is None else str(retention.when_deleted)
                    errs.append(FieldError.invalid(f"{policy_path}.retentionPolicy.whenDeleted", when_deleted,
                                                   "retentionPolicy must be retain when PVC exists"))
            seen.add(tname)
    return errs


def _lookup_pvc(pvc_lookup: PvcLookup | None, namespace: str, name: str) -> tuple[dict[str, Any] | None, str | None]:
    if pvc_lookup is None:
        return None, None
    try:
        return pvc_lookup(namespace, name), None
    except NotFound:
        return None, None
    except ApiError as err:
        return None, err.message


def _validate_replicated_jobs_volume_claims(rjobs: list[ReplicatedJob], claim: str) -> list[FieldError]:
    errs: list[FieldError] = []
    has_mount = False
    for ri, rjob in enumerate(rjobs):
        for vi, volume in enumerate(rjob.volumes()):
            if volume.get("name") == claim:
                errs.append(FieldError.invalid(
                    f"spec.replicatedJobs[{ri}].template.spec.template.spec.volumes[{vi}].name", claim,
                    f"volume name conflicts with VolumeClaimPolicy template name: {claim}"))
        if not has_mount:
            has_mount = any(
                any(m.get("name") == claim for m in container.get("volumeMounts") or [] if isinstance(m, dict))
                for kind in ("initContainers", "containers") for container in rjob.containers(kind))
    if not has_mount:
        errs.append(FieldError.invalid(
            "spec.replicatedJobs", [r.to_wire() for r in rjobs],
            f"replicatedJob containers don't have a matching volumeMount: {claim} from VolumeClaimPolicies"))
    return errs


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


# --------------------------------------------------------------------------- ValidateUpdate

_SUSPEND_MUTABLE_POD_FIELDS = (("metadata", "annotations"), ("metadata", "labels"), ("spec", "nodeSelector"),
                               ("spec", "tolerations"), ("spec", "schedulingGates"))


def validate_update(
    old: JobSet | Mapping[str, Any],
    new: JobSet | Mapping[str, Any],
    *,
    feature_gates: Mapping[str, bool] | None = None,
) -> list[FieldError]:
    """``ValidateUpdate`` (§7): elastic scaling, suspended relaxation, immutability of
    ``replicatedJobs`` and ``managedBy``. ``[]`` means admitted."""
    old_js, new_js = _as_jobset(old), _as_jobset(new)
    errs: list[FieldError] = []
    old_by_name = {r.name: r for r in old_js.replicated_jobs}
    munged: list[dict[str, Any]] | None = (
        None if new_js.spec.replicated_jobs is None else [r.to_wire() for r in new_js.replicated_jobs])

    if feature_enabled(feature_gates, c.FEATURE_ELASTIC_JOBSET):
        status = old_js.status
        terminal = status is not None and (status.is_condition_true(c.JOBSET_COMPLETED)
                                           or status.is_condition_true(c.JOBSET_FAILED))
        for index, new_rjob in enumerate(new_js.replicated_jobs):
            old_rjob = old_by_name.get(new_rjob.name)
            if old_rjob is None or not new_rjob.is_indexed:
                continue
            path = f"spec.replicatedJobs[{index}].template.spec"
            new_p, new_c = new_rjob.parallelism, new_rjob.completions
            p_changed = new_p != old_rjob.parallelism
            c_changed = new_c != old_rjob.completions
            if p_changed or c_changed:
                if terminal:
                    errs.append(FieldError.forbidden(
                        path, "Cannot mutate parallelism or completions when JobSet is in a terminal state "
                              "(Completed or Failed)"))
                else:
                    if p_changed and new_p is not None and new_p < 1:
                        errs.append(FieldError.invalid(f"{path}.parallelism", new_p, "parallelism must be >= 1"))
                    if c_changed and new_c is not None and new_c < 1:
                        errs.append(FieldError.invalid(f"{path}.completions", new_c, "completions must be >= 1"))
                    if new_p is not None and new_c is not None and new_p != new_c:
                        errs.append(FieldError.invalid(f"{path}.completions", new_c,
                                                       "completions must be equal to parallelism for Elastic Indexed Jobs"))
            assert munged is not None
            job_spec = _ensure_path(munged[index], ("template", "spec"))
            _copy_key(job_spec, old_rjob.job_spec, "parallelism")
            _copy_key(job_spec, old_rjob.job_spec, "completions")

    if new_js.spec.suspend or old_js.spec.suspend:
        for index, new_rjob in enumerate(new_js.replicated_jobs):
            old_rjob = old_by_name.get(new_rjob.name)
            if old_rjob is None:
                continue
            assert munged is not None
            pod_template = _ensure_path(munged[index], ("template", "spec", "template"))
            for section, key in _SUSPEND_MUTABLE_POD_FIELDS:
                target = _ensure_path(pod_template, (section,))
                source = old_rjob.pod_template.get(section)
                _copy_key(target, source if isinstance(source, dict) else {}, key)
                if not target:
                    del pod_template[section]  # ObjectMeta/PodSpec are Go structs: empty ≡ absent

    old_list = None if old_js.spec.replicated_jobs is None else [r.to_wire() for r in old_js.replicated_jobs]
    if not semantic_equal(munged, old_list):
        errs.append(FieldError.invalid("spec.replicatedJobs", munged, "field is immutable"))
    if new_js.spec.managed_by != old_js.spec.managed_by:
        errs.append(FieldError.invalid("spec.managedBy", new_js.spec.managed_by, "field is immutable"))
    return errs


def _ensure_path(obj: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    for key in keys:
        child = obj.get(key)
        if not isinstance(child, dict):
            child = {}
            obj[key] = child
        obj = child
    return obj


def _copy_key(target: dict[str, Any], source: Mapping[str, Any], key: str) -> None:
    """``target.key = source.key`` with Go pointer semantics (absent in source → absent in target)."""
    if source.get(key) is None:
        target.pop(key, None)
    else:
        target[key] = copy.deepcopy(source[key])


# --------------------------------------------------------------------------- semantic equality

#: Keys whose values are Go maps (nil and empty are semantically equal) or non-pointer Go structs
#: (an empty struct is indistinguishable from an absent one).
_MAP_KEYS = frozenset({"labels", "annotations", "nodeSelector", "matchLabels", "limits", "requests",
                       "overhead", "data", "binaryData", "stringData", "capacity", "allocatable",
                       "volumeAttributes", "parameters", "options",
                       "metadata", "spec", "template", "resources"})
#: Keys whose values (or whose values' values) are resource.Quantity strings.
_QUANTITY_PARENTS = frozenset({"limits", "requests", "overhead", "capacity", "allocatable"})
_QUANTITY_KEYS = frozenset({"sizeLimit"})


def semantic_equal(a: Any, b: Any) -> bool:
    """``equality.Semantic.DeepEqual`` on wire values, approximated without the Go types.

    nil ≡ absent ≡ empty list; empty map ≡ absent for known map-typed keys; resource quantities
    compare by value. Explicit scalar zero values are *not* equated with absence (pointer fields
    make that distinction in Go and we do not know which fields are pointers).
    """
    return _normalize(a, None) == _normalize(b, None)


def _normalize(value: Any, key: str | None) -> object:
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for k, v in value.items():
            norm = _normalize(v, k)
            if norm is None:
                continue
            if key in _QUANTITY_PARENTS and _is_quantity_text(v):
                norm = _quantity_or_str(str(v))
            out[k] = norm
        if not out and key in _MAP_KEYS:
            return None
        return out
    if isinstance(value, list):
        return [_normalize(v, None) for v in value] or None
    if key in _QUANTITY_KEYS and _is_quantity_text(value):
        return _quantity_or_str(str(value))
    return value


def _is_quantity_text(value: Any) -> bool:
    """A ``resource.Quantity`` decodes from a JSON string or a JSON number alike (``cpu: 2`` is
    ``cpu: "2"``), so both are compared as quantities."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


_QUANTITY_RE = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?")
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
            "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
            "P": Fraction(10**15), "E": Fraction(10**18)}


def _quantity_or_str(text: str) -> Any:
    """A ``resource.Quantity`` value as an exact fraction (tagged), or the string when unparsable."""
    m = _QUANTITY_RE.fullmatch(text.strip())
    if not m:
        return text
    number, suffix = Fraction(m.group(1)), m.group(2) or ""
    if suffix in _BINARY:
        scale: Fraction = Fraction(_BINARY[suffix])
    elif suffix in _DECIMAL:
        scale = _DECIMAL[suffix]
    else:
        scale = Fraction(10) ** int(suffix[1:])
    return ("quantity", number * scale)
