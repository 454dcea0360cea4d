"""batch/v1 Jobs: defaults, generated selector and validation (``pkg/registry/batch/job``).

Mirrors, at Kubernetes 1.33/1.34 with default feature gates:

- ``pkg/apis/batch/v1/defaults.go``: ``SetDefaults_Job``;
- ``pkg/registry/batch/job/strategy.go``: ``PrepareForCreate``/``generateSelector``,
  ``PrepareForUpdate``, ``validationOptionsForJob`` (the suspended-and-never-started template
  carve-out);
- ``pkg/apis/batch/validation/validation.go``: ``ValidateJob``, ``validateGeneratedSelector``,
  ``validateJobSpec``, ``validatePodFailurePolicy*``, ``validateSuccessPolicy*``,
  ``validatePodReplacementPolicy``, ``ValidateJobSpecUpdate``, ``validatePodTemplateUpdate``,
  ``validateCompletions``.

The status rules (``jobStatusStrategy``) and the Job conditions are
:mod:`fakekube.apiserver.kinds.job_status`; completion index sets and their format,
:mod:`fakekube.apiserver.kinds.job_indexes`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.kinds.job_indexes import validate_indexes_format
from fakekube.apiserver.kinds.job_status import validate_job_status_update
from fakekube.apiserver.kinds.pods import PodStrategy, default_pod_spec
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Context, Strategy
from fakekube.errors import OMIT, FieldError
from fakekube.machinery import selectors as sel
from fakekube.machinery import validation as v

__all__ = [
    "CONTROLLER_UID",
    "JOB_CONTROLLER_NAME",
    "JOB_NAME",
    "JobStrategy",
    "install",
]

CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
LEGACY_CONTROLLER_UID = "controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME = "job-name"
JOB_CONTROLLER_NAME = "kubernetes.io/job-controller"

MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000
MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_POD_FAILURE_POLICY_RULES = 20
MAX_ON_EXIT_CODES_VALUES = 255
MAX_ON_POD_CONDITIONS_PATTERNS = 20
MAX_MANAGED_BY_LENGTH = 63
MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024
MAX_SUCCESS_POLICY_RULES = 20

POD_FAILURE_POLICY_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
ON_EXIT_CODES_OPERATORS = ("In", "NotIn")
CONDITION_STATUSES = ("False", "True", "Unknown")
POD_REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile(_HTTP_PATH_FMT)


# =========================================================================== the strategy


def _is_domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """``IsDomainPrefixedPath``."""
    if not value:
        return [FieldError.required(path)]
    segments = value.split("/", 1)
    if len(segments) != 2 or not segments[0] or not segments[1]:
        return [FieldError.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errs = [FieldError.invalid(path, segments[0], m) for m in v.is_dns1123_subdomain(segments[0])]
    if not _HTTP_PATH_RE.fullmatch(segments[1]):
        errs.append(FieldError.invalid(path, segments[1], v.regex_error("Invalid path", _HTTP_PATH_FMT)))
    return errs


def _validate_has_label(template_meta: dict[str, Any], key: str, expected: str) -> list[FieldError]:
    """``ValidateHasLabel``."""
    labels = template_meta.get("labels") or {}
    path = f"spec.template.metadata.labels[{key}]"
    if key not in labels:
        return [FieldError.required(path, expected)]
    if labels[key] != expected:
        return [FieldError.invalid(path, labels, f"must be '{expected}'")]
    return []


def _template_for_immutability(new_template: dict[str, Any], old_template: dict[str, Any]) -> dict[str, Any]:
    """``validatePodTemplateUpdate`` with ``AllowMutableSchedulingDirectives``: the old template
    with node affinity, nodeSelector, tolerations, labels, annotations and schedulingGates
    taken from the new one."""
    old: dict[str, Any] = deep_copy(old_template)
    new_spec = new_template.get("spec") or {}
    old_spec = old.setdefault("spec", {})
    new_aff, old_aff = new_spec.get("affinity"), old_spec.get("affinity")
    if new_aff is None and old_aff is not None:
        old_aff.pop("nodeAffinity", None)
        if not old_aff:
            old_spec.pop("affinity", None)
    elif new_aff is not None and old_aff is None:
        old_spec["affinity"] = {k: val for k, val in new_aff.items() if k == "nodeAffinity"}
    elif new_aff is not None and old_aff is not None:
        if "nodeAffinity" in new_aff:
            old_aff["nodeAffinity"] = new_aff["nodeAffinity"]
        else:
            old_aff.pop("nodeAffinity", None)
    for key in ("nodeSelector", "tolerations", "schedulingGates"):
        if key in new_spec:
            old_spec[key] = new_spec[key]
        else:
            old_spec.pop(key, None)
    old_meta = old.setdefault("metadata", {})
    new_meta = new_template.get("metadata") or {}
    for key in ("labels", "annotations"):
        if key in new_meta:
            old_meta[key] = new_meta[key]
        else:
            old_meta.pop(key, None)
    return old


class JobStrategy(Strategy):
    default_gc_policy = "Orphan"
    merge_schema_name = "jobs"

    # ------------------------------------------------------------------ defaults and create
    def default(self, obj: dict[str, Any]) -> None:
        """``SetDefaults_Job``."""
        spec = obj.setdefault("spec", {})
        if not isinstance(spec, dict):
            return
        if spec.get("completions") is None and spec.get("parallelism") is None:
            spec["completions"] = 1
            spec["parallelism"] = 1
        if spec.get("parallelism") is None:
            spec["parallelism"] = 1
        if spec.get("backoffLimit") is None:
            spec["backoffLimit"] = 2147483647 if spec.get("backoffLimitPerIndex") is not None else 6
        if spec.get("completionMode") is None:
            spec["completionMode"] = "NonIndexed"
        if spec.get("suspend") is None:
            spec["suspend"] = False
        if spec.get("manualSelector") is None:
            spec["manualSelector"] = False
        if spec.get("podReplacementPolicy") is None:
            spec["podReplacementPolicy"] = "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed"
        for rule in (spec.get("podFailurePolicy") or {}).get("rules") or []:
            for pattern in rule.get("onPodConditions") or []:
                if not pattern.get("status"):
                    pattern["status"] = "True"
        template = spec.setdefault("template", {})
        if isinstance(template, dict):
            template_labels = (template.get("metadata") or {}).get("labels")
            if template_labels and not obj["metadata"].get("labels"):
                obj["metadata"]["labels"] = dict(template_labels)
            default_pod_spec(template.setdefault("spec", {}))

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        """``PrepareForCreate``: ``generateSelector`` unless manualSelector; status cleared."""
        obj["status"] = {}
        spec, meta = obj["spec"], obj["metadata"]
        if not spec.get("manualSelector"):
            template_meta = spec["template"].setdefault("metadata", {})
            labels = template_meta.get("labels")
            if labels is None:
                labels = template_meta["labels"] = {}
            for key, value in ((LEGACY_JOB_NAME, meta.get("name") or ""), (JOB_NAME, meta.get("name") or ""),
                               (LEGACY_CONTROLLER_UID, meta["uid"]), (CONTROLLER_UID, meta["uid"])):
                labels.setdefault(key, value)
            selector = spec.get("selector")
            if not isinstance(selector, dict):
                selector = spec["selector"] = {}
            match_labels = selector.setdefault("matchLabels", {})
            match_labels.setdefault(CONTROLLER_UID, meta["uid"])

    # ------------------------------------------------------------------ validation
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """``ValidateJob`` (ObjectMeta is validated by the server)."""
        return self._validate_job(obj, require_prefixed_labels=True)

    def _validate_job(self, obj: dict[str, Any], *, require_prefixed_labels: bool) -> list[FieldError]:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        errors = self._validate_generated_selector(obj, require_prefixed_labels)
        errors += self._validate_job_spec(spec)
        completions = spec.get("completions")
        if spec.get("completionMode") == "Indexed" and isinstance(completions, int) and completions > 0:
            hostname = f"{meta.get('name') or ''}-{completions - 1}"
            if v.is_dns1123_label(hostname):
                errors.append(FieldError.invalid("metadata.name", meta.get("name") or "",
                                                 f"will not able to create pod with invalid DNS label: {hostname}"))
        return errors

    @staticmethod
    def _validate_generated_selector(obj: dict[str, Any], require_prefixed: bool) -> list[FieldError]:
        """``validateGeneratedSelector``."""
        spec = obj.get("spec") or {}
        meta = obj.get("metadata") or {}
        if spec.get("manualSelector") or spec.get("selector") is None:
            return []
        errors: list[FieldError] = []
        uid, name = meta.get("uid") or "", meta.get("name") or ""
        if not uid:
            errors.append(FieldError.required("metadata.uid"))
        template_meta = (spec.get("template") or {}).get("metadata") or {}
        errors += _validate_has_label(template_meta, LEGACY_CONTROLLER_UID, uid)
        errors += _validate_has_label(template_meta, LEGACY_JOB_NAME, name)
        expected = {LEGACY_CONTROLLER_UID: uid, LEGACY_JOB_NAME: name}
        if require_prefixed:
            errors += _validate_has_label(template_meta, CONTROLLER_UID, uid)
            errors += _validate_has_label(template_meta, JOB_NAME, name)
            expected.update({CONTROLLER_UID: uid, JOB_NAME: name})
        try:
            selector = sel.selector_from_label_selector_dict(spec["selector"])
        except (sel.SelectorError, ValueError):
            return errors
        if not selector.matches(expected):
            errors.append(FieldError.invalid("spec.selector", spec["selector"], "`selector` not auto-generated"))
        return errors

    def _validate_job_spec(self, spec: dict[str, Any]) -> list[FieldError]:
        """``ValidateJobSpec`` = ``validateJobSpec`` + the selector rules."""
        errors = self._validate_job_spec_fields(spec)
        selector = spec.get("selector")
        if selector is None:
            errors.append(FieldError.required("spec.selector"))
        else:
            errors += sel.validate_label_selector(selector, "spec.selector")
        try:
            parsed = sel.selector_from_label_selector_dict(selector)
        except (sel.SelectorError, ValueError):
            return errors
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if not parsed.matches(labels):
            errors.append(FieldError.invalid("spec.template.metadata.labels", labels,
                                             "`selector` does not match template `labels`"))
        return errors

    def _validate_job_spec_fields(self, spec: dict[str, Any]) -> list[FieldError]:
        """``validateJobSpec``."""
        errors: list[FieldError] = []
        for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                    "ttlSecondsAfterFinished", "backoffLimitPerIndex"):
            if spec.get(key) is not None:
                errors += v.validate_nonnegative_field(int(spec[key]), f"spec.{key}")
        parallelism, completions = spec.get("parallelism"), spec.get("completions")
        per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
        if max_failed is not None:
            errors += v.validate_nonnegative_field(int(max_failed), "spec.maxFailedIndexes")
            if per_index is None:
                errors.append(FieldError.required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
        managed_by = spec.get("managedBy")
        if managed_by is not None:
            errors += _is_domain_prefixed_path("spec.managedBy", managed_by)
            if len(managed_by.encode()) > MAX_MANAGED_BY_LENGTH:
                errors.append(FieldError.too_long("spec.managedBy", managed_by, MAX_MANAGED_BY_LENGTH))
        mode = spec.get("completionMode")
        if mode is not None:
            if mode not in ("NonIndexed", "Indexed"):
                errors.append(FieldError.not_supported("spec.completionMode", mode, ("NonIndexed", "Indexed")))
            if mode == "Indexed":
                if completions is None:
                    errors.append(FieldError.required("spec.completions", "when completion mode is Indexed"))
                if parallelism is not None and parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB:
                    errors.append(FieldError.invalid(
                        "spec.parallelism", parallelism,
                        f"must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed"))
                if completions is not None and max_failed is not None and max_failed > completions:
                    errors.append(FieldError.invalid("spec.maxFailedIndexes", max_failed,
                                                     "must be less than or equal to completions"))
                if max_failed is not None and max_failed > MAX_FAILED_INDEXES_FOR_INDEXED_JOB:
                    errors.append(FieldError.invalid("spec.maxFailedIndexes", max_failed,
                                                     f"must be less than or equal to {MAX_FAILED_INDEXES_FOR_INDEXED_JOB}"))
                if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
                    suffix = (f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit "
                              "per index")
                    if max_failed is None:
                        errors.append(FieldError.required(
                            "spec.maxFailedIndexes", f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}"))
                    if parallelism is not None and parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS:
                        errors.append(FieldError.invalid(
                            "spec.parallelism", parallelism,
                            f"must be less than or equal to {PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} {suffix}"))
                    if max_failed is not None and max_failed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS:
                        errors.append(FieldError.invalid(
                            "spec.maxFailedIndexes", max_failed,
                            f"must be less than or equal to {MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} {suffix}"))
        if mode is None or mode == "NonIndexed":
            if per_index is not None:
                errors.append(FieldError.invalid("spec.backoffLimitPerIndex", per_index, "requires indexed completion mode"))
            if max_failed is not None:
                errors.append(FieldError.invalid("spec.maxFailedIndexes", max_failed, "requires indexed completion mode"))
        if spec.get("podFailurePolicy") is not None:
            errors += self._validate_pod_failure_policy(spec)
        if spec.get("successPolicy") is not None:
            if mode != "Indexed":
                errors.append(FieldError.invalid("spec.successPolicy", spec["successPolicy"],
                                                 "requires indexed completion mode"))
            else:
                errors += self._validate_success_policy(spec)
        replacement = spec.get("podReplacementPolicy")
        if replacement is not None:
            if spec.get("podFailurePolicy") is not None:
                if replacement != "Failed":
                    errors.append(FieldError.not_supported("spec.podReplacementPolicy", replacement, ("Failed",)))
            elif replacement not in POD_REPLACEMENT_POLICIES:
                errors.append(FieldError.not_supported("spec.podReplacementPolicy", replacement,
                                                       POD_REPLACEMENT_POLICIES))
        errors += self._validate_template(spec.get("template") or {})
        restart = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
        if restart in ("Always", "", None):
            errors.append(FieldError.required("spec.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"'))
        elif restart not in ("OnFailure", "Never"):
            errors.append(FieldError.not_supported("spec.template.spec.restartPolicy", restart,
                                                   ("OnFailure", "Never")))
        elif spec.get("podFailurePolicy") is not None and restart != "Never":
            errors.append(FieldError.invalid("spec.template.spec.restartPolicy", restart,
                                             'only "Never" is supported when podFailurePolicy is specified'))
        return errors

    @staticmethod
    def _validate_template(template: dict[str, Any]) -> list[FieldError]:
        """``ValidatePodTemplateSpec``: template metadata maps and the pod spec.

        SIMPLIFICATION: the pod spec is checked with the fake's pod validation (containers,
        restartPolicy, hostname/subdomain, nodeSelector), not the full ``ValidatePodSpec``.
        """
        meta = template.get("metadata") or {}
        errors = v.validate_labels(meta.get("labels"), "spec.template.metadata.labels")
        errors += v.validate_annotations(meta.get("annotations"), "spec.template.metadata.annotations")
        pod_errors = PodStrategy().validate({"spec": template.get("spec") or {}})
        # The Job's own restartPolicy rule replaces the pod's.
        pod_errors = [e for e in pod_errors if e.field != "spec.restartPolicy"]
        errors += [dataclasses.replace(e, field="spec.template." + e.field) for e in pod_errors]
        return errors

    @staticmethod
    def _validate_pod_failure_policy(spec: dict[str, Any]) -> list[FieldError]:
        """``validatePodFailurePolicy`` and its rule helpers."""
        errors: list[FieldError] = []
        rules = (spec.get("podFailurePolicy") or {}).get("rules") or []
        path = "spec.podFailurePolicy.rules"
        if len(rules) > MAX_POD_FAILURE_POLICY_RULES:
            errors.append(FieldError.too_many(path, len(rules), MAX_POD_FAILURE_POLICY_RULES))
        pod_spec = (spec.get("template") or {}).get("spec") or {}
        names = {c.get("name") for c in (pod_spec.get("containers") or []) + (pod_spec.get("initContainers") or [])}
        actions_list = "[" + " ".join(f'"{a}"' for a in POD_FAILURE_POLICY_ACTIONS) + "]"
        for i, rule in enumerate(rules):
            rpath = f"{path}[{i}]"
            action = rule.get("action") or ""
            if not action:
                errors.append(FieldError.required(f"{rpath}.action", f"valid values: {actions_list}"))
            elif action == "FailIndex":
                if spec.get("backoffLimitPerIndex") is None:
                    errors.append(FieldError.invalid(f"{rpath}.action", action,
                                                     "requires the backoffLimitPerIndex to be set"))
            elif action not in POD_FAILURE_POLICY_ACTIONS:
                errors.append(FieldError.not_supported(f"{rpath}.action", action, POD_FAILURE_POLICY_ACTIONS))
            on_exit = rule.get("onExitCodes")
            on_conditions = rule.get("onPodConditions") or []
            if on_exit is not None:
                epath = f"{rpath}.onExitCodes"
                op = on_exit.get("operator") or ""
                if not op:
                    errors.append(FieldError.required(f"{epath}.operator", 'valid values: ["In" "NotIn"]'))
                elif op not in ON_EXIT_CODES_OPERATORS:
                    errors.append(FieldError.not_supported(f"{epath}.operator", op, ON_EXIT_CODES_OPERATORS))
                cname = on_exit.get("containerName")
                if cname is not None and cname not in names:
                    errors.append(FieldError.invalid(f"{epath}.containerName", cname,
                                                     "must be one of the container or initContainer names in the pod template"))
                values = on_exit.get("values") or []
                if not values:
                    errors.append(FieldError.invalid(f"{epath}.values", values, "at least one value is required"))
                elif len(values) > MAX_ON_EXIT_CODES_VALUES:
                    errors.append(FieldError.too_many(f"{epath}.values", len(values), MAX_ON_EXIT_CODES_VALUES))
                seen: set[int] = set()
                ordered = True
                for j, value in enumerate(values):
                    if op == "In" and value == 0:
                        errors.append(FieldError.invalid(f"{epath}.values[{j}]", value, "must not be 0 for the In operator"))
                    if value in seen:
                        errors.append(FieldError.duplicate(f"{epath}.values[{j}]", value))
                    else:
                        seen.add(value)
                    if j > 0 and values[j - 1] > value:
                        ordered = False
                if not ordered:
                    errors.append(FieldError.invalid(f"{epath}.values", values, "must be ordered"))
            if on_conditions:
                cpath = f"{rpath}.onPodConditions"
                if len(on_conditions) > MAX_ON_POD_CONDITIONS_PATTERNS:
                    errors.append(FieldError.too_many(cpath, len(on_conditions), MAX_ON_POD_CONDITIONS_PATTERNS))
                for j, pattern in enumerate(on_conditions):
                    ppath = f"{cpath}[{j}]"
                    errors += [FieldError.invalid(f"{ppath}.type", pattern.get("type") or "", m)
                               for m in v.is_qualified_name(pattern.get("type") or "")]
                    status = pattern.get("status") or ""
                    if not status:
                        errors.append(FieldError.required(f"{ppath}.status", 'valid values: ["False" "True" "Unknown"]'))
                    elif status not in CONDITION_STATUSES:
                        errors.append(FieldError.not_supported(f"{ppath}.status", status, CONDITION_STATUSES))
            if on_exit is not None and on_conditions:
                errors.append(FieldError.invalid(rpath, OMIT, "specifying both OnExitCodes and OnPodConditions is not supported"))
            if on_exit is None and not on_conditions:
                errors.append(FieldError.invalid(rpath, OMIT, "specifying one of OnExitCodes and OnPodConditions is required"))
        return errors

    @staticmethod
    def _validate_success_policy(spec: dict[str, Any]) -> list[FieldError]:
        """``validateSuccessPolicy`` / ``validateSuccessPolicyRule``."""
        errors: list[FieldError] = []
        rules = (spec.get("successPolicy") or {}).get("rules") or []
        path = "spec.successPolicy.rules"
        completions = int(spec.get("completions") or 0)
        if not rules:
            errors.append(FieldError.required(path, "at least one rules must be specified when the successPolicy is specified"))
        if len(rules) > MAX_SUCCESS_POLICY_RULES:
            errors.append(FieldError.too_many(path, len(rules), MAX_SUCCESS_POLICY_RULES))
        for i, rule in enumerate(rules):
            rpath = f"{path}[{i}]"
            indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
            if indexes is None and count is None:
                errors.append(FieldError.required(rpath, "at least one of succeededCount or succeededIndexes must be specified"))
            total = 0
            if indexes is not None:
                ipath = f"{rpath}.succeededIndexes"
                if len(indexes.encode()) > MAX_SUCCEEDED_INDEXES_LENGTH:
                    errors.append(FieldError.too_long(ipath, indexes, MAX_SUCCEEDED_INDEXES_LENGTH))
                try:
                    total = validate_indexes_format(indexes, completions)
                except ValueError as err:
                    errors.append(FieldError.invalid(ipath, indexes, f"error parsing succeededIndexes: {err}"))
            if count is not None:
                cpath = f"{rpath}.succeededCount"
                errors += v.validate_nonnegative_field(int(count), cpath)
                if count > completions:
                    errors.append(FieldError.invalid(
                        cpath, count, f"must be less than or equal to {completions} (the number of specified completions)"))
                if indexes is not None and count > total:
                    errors.append(FieldError.invalid(
                        cpath, count,
                        f"must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)"))
        return errors

    # ------------------------------------------------------------------ update
    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """``ValidateJob`` + ``ValidateJobSpecUpdate`` with ``validationOptionsForJob(new, old)``."""
        old_spec, spec = old.get("spec") or {}, new.get("spec") or {}
        old_labels = ((old_spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        require_prefixed = JOB_NAME in old_labels and CONTROLLER_UID in old_labels
        errors = self._validate_job(new, require_prefixed_labels=require_prefixed)
        # ValidateJobSpecUpdate runs ValidateJobSpec a second time (upstream reports twice;
        # the aggregate message drops the duplicate text).
        errors += self._validate_job_spec(spec)
        errors += self._validate_completions_update(spec, old_spec)
        # SIMPLIFICATION: immutable struct values render as JSON, not Go's %#v struct dump.
        if spec.get("selector") != old_spec.get("selector"):
            errors.append(FieldError.invalid("spec.selector", spec.get("selector"), v.FIELD_IMMUTABLE))
        template, old_template = spec.get("template") or {}, old_spec.get("template") or {}
        mutable_scheduling = bool(old_spec.get("suspend")) and not (old.get("status") or {}).get("startTime")
        if mutable_scheduling:
            old_template = _template_for_immutability(template, old_template)
        if template != old_template:
            errors.append(FieldError.invalid("spec.template", template, v.FIELD_IMMUTABLE))
        for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"):
            if spec.get(key) != old_spec.get(key):
                errors.append(FieldError.invalid(f"spec.{key}", spec.get(key), v.FIELD_IMMUTABLE))
        return errors

    @staticmethod
    def _validate_completions_update(spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
        """``validateCompletions`` (ElasticIndexedJob on)."""
        new, old = spec.get("completions"), old_spec.get("completions")
        if new == old:
            return []
        if spec.get("completionMode") != "Indexed":
            return [FieldError.invalid("spec.completions", new, v.FIELD_IMMUTABLE)]
        if new is None:
            return []
        if new != spec.get("parallelism"):
            return [FieldError.invalid("spec.completions", new, "can only be modified in tandem with spec.parallelism")]
        return []

    # ------------------------------------------------------------------ status
    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """``ValidateJobUpdateStatus`` (:func:`~fakekube.apiserver.kinds.job_status.validate_job_status_update`)."""
        return validate_job_status_update(new, old)


def install(server: ApiServer) -> None:
    server.registry.add(ResourceType("batch", "v1", "Job", "jobs", namespaced=True, strategy=JobStrategy(),
                                     subresources=frozenset({"status"}), categories=("all",)))
