"""Mistakes in the JobSet webhooks: defaulting and validation (api spec §2, §5, §6, §7, §8).

Each is what an implementer of the mutating (``Default``) or validating (``ValidateCreate`` /
``ValidateUpdate``) JobSet webhook could get wrong on a first reading of the spec: a default
missing or wrong, a check skipped, a limit off by one, a message not replaced, a check run on
the wrong verb, the suspended-template relaxation applied to the wrong fields or updates.
"""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

VALIDATION = "jobset_ref.api.validation"
DEFAULTING = "jobset_ref.api.defaulting"
WEBHOOKS = "jobset_ref.webhooks"
DECODING = "jobset_ref.api.decoding"
CRD = "jobset_ref.api.crd"

_DEFAULTING = (
    Mistake(
        "success-policy-default-any",
        "Default() sets successPolicy to {operator: Any} instead of {operator: All} when it is absent",
        behaviours=("defaulting.success-policy",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    'spec["successPolicy"] = {"operator": "All"}', 'spec["successPolicy"] = {"operator": "Any"}'),),
        caught_by=("success/all-default",),
        side="webhooks",
    ),
    Mistake(
        "startup-policy-default-in-order",
        "Default() sets startupPolicy to InOrder instead of AnyOrder when it is absent",
        behaviours=("defaulting.startup-policy",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    '{"startupPolicyOrder": "AnyOrder"}', '{"startupPolicyOrder": "InOrder"}'),),
        caught_by=("success/all-default",),
        side="webhooks",
    ),
    Mistake(
        "completion-mode-not-defaulted",
        "Default() leaves completionMode unset, so the Job controller's NonIndexed default applies",
        behaviours=("defaulting.completion-mode",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    'job_spec["completionMode"] = c.INDEXED_COMPLETION', "pass"),),
        caught_by=("examples/tensorflow-mnist",),
        side="webhooks",
    ),
    Mistake(
        "restart-policy-default-never",
        "Default() sets the pod template's restartPolicy to Never instead of OnFailure",
        behaviours=("defaulting.restart-policy",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    'pod_spec["restartPolicy"] = c.RESTART_POLICY_ON_FAILURE', 'pod_spec["restartPolicy"] = "Never"'),),
        caught_by=("examples/tensorflow-mnist",),
        side="webhooks",
    ),
    Mistake(
        "dns-hostnames-default-false",
        "Default() sets network.enableDNSHostnames to false instead of true (DNS hostnames opt-in)",
        behaviours=("defaulting.network",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    'network["enableDNSHostnames"] = True', 'network["enableDNSHostnames"] = False'),),
        caught_by=("stories/pytorch",),
        side="webhooks",
    ),
    Mistake(
        "publish-not-ready-default-false",
        "Default() sets network.publishNotReadyAddresses to false instead of true",
        behaviours=("defaulting.network",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    'network["publishNotReadyAddresses"] = True', 'network["publishNotReadyAddresses"] = False'),),
        caught_by=("network/dns-not-ready-addresses",),
        side="webhooks",
    ),
    Mistake(
        "network-defaults-only-when-absent",
        "Default() fills in enableDNSHostnames and publishNotReadyAddresses only when spec.network is absent, "
        "not in a network the user gave (e.g. with just a subdomain)",
        behaviours=("defaulting.network",),
        edits=(Edit(DEFAULTING, "default_jobset", 'network = _child(spec, "network")',
                    'network = _child(spec, "network") if spec.get("network") is None else {}'),),
        caught_by=("network/service-lifecycle",),
        side="webhooks",
    ),
    Mistake(
        "rule-names-one-based",
        "Default() names unnamed failure-policy rules failurePolicyRule<i+1> instead of failurePolicyRule<i>",
        behaviours=("defaulting.rule-names",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    "c.DEFAULT_RULE_NAME_FMT % index", "c.DEFAULT_RULE_NAME_FMT % (index + 1)"),),
        caught_by=("examples/failure-policy-failjobset-action",),
        side="webhooks",
    ),
    Mistake(
        "retention-policy-default-retain",
        "Default() sets a volume claim policy's retentionPolicy to Retain instead of Delete",
        behaviours=("defaulting.retention-policy",),
        edits=(Edit(DEFAULTING, "default_jobset",
                    'policy["retentionPolicy"] = {"whenDeleted": "Delete"}',
                    'policy["retentionPolicy"] = {"whenDeleted": "Retain"}'),),
        caught_by=("examples/volume-claim-policy-single-pvc",),
        side="webhooks",
    ),
    Mistake(
        "defaulting-on-update",
        "the mutating JobSet webhook is registered for UPDATE too, so a field the user removes is defaulted back",
        behaviours=("defaulting.create-only", "defaulting.startup-policy"),
        edits=(Edit(WEBHOOKS, "JobSetDefaulter.admit",
                    'if request.operation != "CREATE":', 'if request.operation not in ("CREATE", "UPDATE"):'),
               Edit(WEBHOOKS, "webhook_rules",
                    'c.MUTATING_JOBSET_WEBHOOK_NAME: (JOBSET_RESOURCE, ("CREATE",), True)',
                    'c.MUTATING_JOBSET_WEBHOOK_NAME: (JOBSET_RESOURCE, ("CREATE", "UPDATE"), True)')),
        caught_by=("webhooks/defaulting-create-only",),
        side="webhooks",
    ),
    Mistake(
        "crd-group-name-no-default",
        "the CRD schema declares no default for replicatedJobs[].groupName (it should default to `default`)",
        behaviours=("defaulting.crd",),
        edits=(Edit(CRD, "jobset_crd",
                    "return crd",
                    'crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]'
                    '["replicatedJobs"]["items"]["properties"]["groupName"].pop("default")\n    return crd'),),
        caught_by=("examples/simple-group",),
        side="crd",
    ),
    Mistake(
        "crd-replicas-no-default",
        "the CRD schema declares no default for replicatedJobs[].replicas (it should default to 1)",
        behaviours=("defaulting.crd",),
        edits=(Edit(CRD, "jobset_crd",
                    "return crd",
                    'crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]'
                    '["replicatedJobs"]["items"]["properties"]["replicas"].pop("default")\n    return crd'),),
        caught_by=("examples/simple-paralleljobs",),
        side="crd",
    ),
)

_SPEC = 'crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]'
_RJOB = _SPEC + '["properties"]["replicatedJobs"]["items"]["properties"]'

# The CRD mistakes edit the CRD (``jobset_crd``): they act where the CRD is installed. In process
# that is ``jobset_ref.install``; out of process ``jobset-ref controller --break crd-…`` installs its
# own (mistaken) CRD over the served one, as an implementation brings its own CRD.
_CRD = (
    Mistake(
        "crd-startup-depends-on-rule-missing",
        "the CRD schema lacks the CEL rule that makes InOrder startup and dependsOn mutually exclusive",
        behaviours=("validation.cel-startup-depends-on",),
        edits=(Edit(CRD, "jobset_crd", "return crd", f'{_SPEC}.pop("x-kubernetes-validations")\n    return crd'),),
        caught_by=("webhooks/cel-and-schema",),
        side="crd",
    ),
    Mistake(
        "crd-network-mutable",
        "the CRD schema lacks the `self == oldSelf` rule on spec.network, so the network settings may change",
        behaviours=("validation.cel-immutable",),
        edits=(Edit(CRD, "jobset_crd", "return crd",
                    f'{_SPEC}["properties"]["network"].pop("x-kubernetes-validations")\n    return crd'),),
        caught_by=("webhooks/update-immutability",),
        side="crd",
    ),
    Mistake(
        "crd-replicas-no-minimum",
        "the CRD schema has no `minimum: 0` on replicatedJobs[].replicas",
        behaviours=("validation.crd-schema",),
        edits=(Edit(CRD, "jobset_crd", "return crd", f'{_RJOB}["replicas"].pop("minimum")\n    return crd'),),
        caught_by=("webhooks/cel-and-schema",),
        side="crd",
    ),
    Mistake(
        "crd-depends-on-status-any-string",
        "the CRD schema declares dependsOn[].status a free string instead of the enum Ready, Complete",
        behaviours=("validation.crd-schema",),
        edits=(Edit(CRD, "jobset_crd", "return crd",
                    f'{_RJOB}["dependsOn"]["items"]["properties"]["status"].pop("enum")\n    return crd'),),
        caught_by=("webhooks/cel-and-schema",),
        side="crd",
    ),
)

_CREATE = (
    Mistake(
        "int32-range-unchecked",
        "the webhooks take a JobSet's integers as they come, without the Go decoder's int32 range "
        "(replicas: 3000000000 is admitted, and its Jobs can never be created)",
        behaviours=("validation.int32-decoding",),
        edits=(Edit(DECODING, "_integers_out_of_range",
                    "and not c.MIN_INT32 <= value <= c.MAX_INT32:", "and False:"),),
        caught_by=("webhooks/int32-decoding",),
        side="webhooks",
    ),
    Mistake(
        "int32-range-checked-by-validator-only",
        "only the validating webhook checks the int32 range, so on CREATE vjobset.kb.io refuses what "
        "mjobset.kb.io refuses upstream, after the defaulting ran",
        behaviours=("validation.int32-decoding",),
        edits=(Edit(WEBHOOKS, "JobSetDefaulter.admit", "_refuse_undecodable(self.name, request.obj)", "pass"),),
        caught_by=("webhooks/int32-decoding",),
        side="webhooks",
    ),
    Mistake(
        "parallelism-overflow-unchecked",
        "the webhook does not check that replicas * parallelism fits in an int32",
        behaviours=("validation.parallelism-overflow",),
        edits=(Edit(VALIDATION, "_validate_replicated_job",
                    "if parallelism * rjob.replicas > c.MAX_INT32:", "if False:"),),
        caught_by=("webhooks/parallelism-overflow",),
        side="webhooks",
    ),
    Mistake(
        "in-place-gate-ignored",
        "ValidateCreate admits restartStrategy InPlaceRestart with the InPlaceRestart feature gate off",
        behaviours=("validation.in-place-gate",),
        edits=(Edit(VALIDATION, "validate_create",
                    "if not feature_enabled(feature_gates, c.FEATURE_IN_PLACE_RESTART) and in_place:", "if False:"),),
        caught_by=("examples/in-place-restart-jobset-main-container-mode",),
        side="webhooks",
    ),
    Mistake(
        "depends-on-first-empty-allowed",
        "ValidateCreate rejects dependsOn on the first replicatedJob only when non-empty (upstream: when set, "
        "an explicit empty list too)",
        behaviours=("validation.depends-on-first",),
        edits=(Edit(VALIDATION, "validate_create",
                    "if rjobs and rjobs[0].depends_on is not None:", "if rjobs and rjobs[0].depends_on:"),),
        caught_by=("webhooks/depends-on-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "depends-on-later-allowed",
        "ValidateCreate does not check that dependsOn names this or an earlier replicatedJob",
        behaviours=("validation.depends-on-order",),
        edits=(Edit(VALIDATION, "_validate_replicated_job", "if dep.name not in known:", "if False:"),),
        caught_by=("webhooks/depends-on",),
        side="webhooks",
    ),
    Mistake(
        "self-dependency-rejected",
        "ValidateCreate rejects a replicatedJob that depends on itself (upstream registers its name first)",
        behaviours=("validation.depends-on-order",),
        edits=(Edit(VALIDATION, "_validate_replicated_job",
                    "if dep.name not in known:", "if dep.name not in known or dep.name == rjob.name:"),),
        caught_by=("webhooks/depends-on-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "subdomain-too-long-message-not-replaced",
        "ValidateCreate reports a too-long subdomain with the library's DNS-1035 length message instead of "
        "`.spec.network.subdomain is too long, must be less than 63 characters`",
        behaviours=("validation.subdomain",),
        edits=(Edit(VALIDATION, "validate_create", "msg = c.SUBDOMAIN_TOO_LONG_ERR_MSG", "pass"),),
        caught_by=("webhooks/network-subdomain",),
        side="webhooks",
    ),
    Mistake(
        "subdomain-dns1035-unchecked",
        "ValidateCreate checks the subdomain as a DNS-1123 subdomain only, so dots are accepted",
        behaviours=("validation.subdomain",),
        edits=(Edit(VALIDATION, "validate_create", "for msg in is_dns1035_label(subdomain):", "for msg in []:"),),
        caught_by=("webhooks/network-subdomain",),
        side="webhooks",
    ),
    Mistake(
        "managed-by-length-off-by-one",
        "ValidateCreate rejects a managedBy of exactly 63 bytes (>= instead of >)",
        behaviours=("validation.managed-by",),
        edits=(Edit(VALIDATION, "validate_create",
                    "if _golen(spec.managed_by) > c.MAX_MANAGED_BY_LENGTH:",
                    "if _golen(spec.managed_by) >= c.MAX_MANAGED_BY_LENGTH:"),),
        caught_by=("webhooks/length-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "managed-by-format-unchecked",
        "ValidateCreate checks only the length of managedBy, not that it is a domain-prefixed path",
        behaviours=("validation.managed-by",),
        edits=(Edit(VALIDATION, "validate_create",
                    'errs.extend(is_domain_prefixed_path("spec.managedBy", spec.managed_by))', "pass"),),
        caught_by=("webhooks/managed-by",),
        side="webhooks",
    ),
    Mistake(
        "job-name-length-uses-replicas",
        "ValidateCreate checks the Job name <jobset>-<rjob>-<replicas> instead of <jobset>-<rjob>-<replicas-1>",
        behaviours=("validation.job-name-length",),
        edits=(Edit(VALIDATION, "_validate_replicated_job",
                    "max_job_index = _int32(rjob.replicas - 1)", "max_job_index = _int32(rjob.replicas)"),),
        caught_by=("webhooks/length-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "pod-name-length-without-suffix",
        "ValidateCreate checks the longest pod name without the 5-character random suffix",
        behaviours=("validation.pod-name-length",),
        edits=(Edit(VALIDATION, "_validate_replicated_job", "+ c.POD_NAME_SUFFIX_FOR_VALIDATION)", ")"),),
        caught_by=("webhooks/generated-name-length",),
        side="webhooks",
    ),
    Mistake(
        "pod-name-length-non-indexed",
        "ValidateCreate checks the pod-name length for NonIndexed replicatedJobs too (upstream: Indexed only)",
        behaviours=("validation.pod-name-length",),
        edits=(Edit(VALIDATION, "_validate_replicated_job",
                    "if rjob.is_indexed and completions is not None:", "if completions is not None:"),),
        caught_by=("webhooks/length-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "group-name-too-long-message-not-replaced",
        "ValidateCreate reports a too-long groupName with the library's DNS-1035 length message instead of "
        "`.spec.replicatedJob[].groupName is too long, must be less than 63 characters`",
        behaviours=("validation.group-name",),
        edits=(Edit(VALIDATION, "_validate_replicated_job", "msg = c.GROUP_NAME_TOO_LONG_ERROR_MSG", "pass"),),
        caught_by=("webhooks/group-name",),
        side="webhooks",
    ),
    Mistake(
        "success-targets-unchecked",
        "ValidateCreate does not check that successPolicy.targetReplicatedJobs name existing replicatedJobs",
        behaviours=("validation.success-targets",),
        edits=(Edit(VALIDATION, "validate_create", "            if target not in known:", "            if False:"),),
        caught_by=("webhooks/success-policy-targets",),
        side="webhooks",
    ),
    Mistake(
        "restart-job-gate-ignored",
        "ValidateCreate admits RestartJob failure-policy actions with the RestartJob feature gate off",
        behaviours=("validation.failure-policy",),
        edits=(Edit(VALIDATION, "_validate_failure_policy",
                    "if not feature_enabled(feature_gates, c.FEATURE_RESTART_JOB):", "if False:"),),
        caught_by=("webhooks/failure-policy",),
        side="webhooks",
    ),
    Mistake(
        "rule-name-length-off-by-one",
        "ValidateCreate rejects a failure-policy rule name of exactly 128 characters (>= instead of >)",
        behaviours=("validation.failure-policy",),
        edits=(Edit(VALIDATION, "_validate_failure_policy",
                    "length > c.MAX_RULE_NAME_LENGTH", "length >= c.MAX_RULE_NAME_LENGTH"),),
        caught_by=("webhooks/length-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "duplicate-rule-names-allowed",
        "ValidateCreate does not check that failure-policy rule names are unique",
        behaviours=("validation.failure-policy", "validation.aggregated"),
        edits=(Edit(VALIDATION, "_validate_failure_policy", "if len(indices) > 1:", "if False:"),),
        caught_by=("webhooks/failure-policy",),
        side="webhooks",
    ),
    Mistake(
        "coordinator-pod-index-off-by-one",
        "ValidateCreate accepts a coordinator podIndex equal to completions (> instead of >=)",
        behaviours=("validation.coordinator",),
        edits=(Edit(VALIDATION, "_validate_coordinator",
                    "coord.pod_index >= completions", "coord.pod_index > completions"),),
        caught_by=("webhooks/coordinator-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "coordinator-label-unchecked",
        "ValidateCreate does not check that the coordinator endpoint is a valid label value (<= 63 characters)",
        behaviours=("validation.coordinator",),
        edits=(Edit(VALIDATION, "validate_create", "if label_errs:", "if False:"),),
        caught_by=("webhooks/coordinator-boundaries",),
        side="webhooks",
    ),
    Mistake(
        "volume-claim-duplicates-allowed",
        "ValidateCreate does not check that volume claim template names are unique",
        behaviours=("validation.volume-claims",),
        edits=(Edit(VALIDATION, "_validate_volume_claim_policies", "if tname in seen:", "if False:"),),
        caught_by=("webhooks/volume-claim-policies",),
        side="webhooks",
    ),
    Mistake(
        "volume-claim-existing-pvc-ignored",
        "ValidateCreate does not look for an existing PVC of the template's name (spec match, Retain required)",
        behaviours=("validation.volume-claims",),
        edits=(Edit(VALIDATION, "_validate_volume_claim_policies",
                    "existing, lookup_err = _lookup_pvc(pvc_lookup, js.namespace, pvc_name)",
                    "existing, lookup_err = None, None"),),
        caught_by=("webhooks/volume-claim-existing-pvc",),
        side="webhooks",
    ),
    Mistake(
        "first-error-only",
        "the validating webhook reports only the first error instead of all of them in one aggregated message",
        behaviours=("validation.aggregated",),
        edits=(Edit(WEBHOOKS, "JobSetValidator.validate",
                    "raise invalid_error(name, errors)", "raise invalid_error(name, errors[:1])"),),
        caught_by=("webhooks/failure-policy",),
        side="webhooks",
    ),
)

_UPDATE = (
    Mistake(
        "validator-create-only",
        "the validating JobSet webhook is registered for CREATE only, so nothing is immutable on UPDATE",
        behaviours=("validation.update-immutable", "validation.managed-by-immutable", "suspend.other-edits-rejected"),
        edits=(Edit(WEBHOOKS, "webhook_rules",
                    'c.VALIDATING_JOBSET_WEBHOOK_NAME: (JOBSET_RESOURCE, ("CREATE", "UPDATE"), False)',
                    'c.VALIDATING_JOBSET_WEBHOOK_NAME: (JOBSET_RESOURCE, ("CREATE",), False)'),),
        caught_by=("webhooks/update-immutability",),
        side="webhooks",
    ),
    Mistake(
        "update-runs-create-checks",
        "ValidateUpdate runs the create-time checks again, so an update is rejected for what is now true of "
        "the cluster (the JobSet's own PVC exists with retention Delete)",
        behaviours=("validation.update-immutable", "validation.volume-claims"),
        edits=(Edit(WEBHOOKS, "JobSetValidator.validate",
                    "errors = validate_update(request.old_obj, request.obj, feature_gates=self.feature_gates)",
                    "errors = validate_update(request.old_obj, request.obj, feature_gates=self.feature_gates) + "
                    "validate_create(request.obj, feature_gates=self.feature_gates, pvc_lookup=lambda ns, pvc: "
                    '_get_or_none(request, "persistentvolumeclaims", pvc, ns))'),),
        caught_by=("webhooks/volume-claim-existing-pvc",),
        side="webhooks",
    ),
    Mistake(
        "managed-by-settable-later",
        "ValidateUpdate lets managedBy be set on a JobSet created without it (only a change of a set value "
        "is refused)",
        behaviours=("validation.managed-by-immutable",),
        edits=(Edit(VALIDATION, "validate_update",
                    "if new_js.spec.managed_by != old_js.spec.managed_by:",
                    "if old_js.spec.managed_by is not None and new_js.spec.managed_by != old_js.spec.managed_by:"),),
        caught_by=("webhooks/managed-by-immutable",),
        side="webhooks",
    ),
    Mistake(
        "suspend-edit-needs-new-suspend",
        "ValidateUpdate relaxes the pod-template fields only when the new JobSet is suspended, so an update that "
        "resumes and edits them at once is rejected",
        behaviours=("suspend.kueue-template-edit",),
        edits=(Edit(VALIDATION, "validate_update",
                    "if new_js.spec.suspend or old_js.spec.suspend:", "if new_js.spec.suspend:"),),
        caught_by=("suspend/template-edit-admission",),
        side="webhooks",
    ),
    Mistake(
        "suspend-edit-needs-old-suspend",
        "ValidateUpdate relaxes the pod-template fields only when the stored JobSet is suspended, so an update "
        "that suspends and edits them at once is rejected",
        behaviours=("suspend.kueue-template-edit",),
        edits=(Edit(VALIDATION, "validate_update",
                    "if new_js.spec.suspend or old_js.spec.suspend:", "if old_js.spec.suspend:"),),
        caught_by=("suspend/template-edit-admission",),
        side="webhooks",
    ),
    Mistake(
        "suspend-edit-always",
        "ValidateUpdate relaxes the pod-template labels/annotations/nodeSelector/tolerations/schedulingGates "
        "whether or not the JobSet is suspended",
        behaviours=("suspend.other-edits-rejected", "validation.update-immutable"),
        edits=(Edit(VALIDATION, "validate_update",
                    "if new_js.spec.suspend or old_js.spec.suspend:", "if True:"),),
        caught_by=("webhooks/update-immutability",),
        side="webhooks",
    ),
    Mistake(
        "suspend-scheduling-gates-immutable",
        "ValidateUpdate leaves schedulingGates out of the pod-template fields a suspended JobSet may change",
        behaviours=("suspend.kueue-template-edit",),
        edits=(Edit(VALIDATION, "validate_update",
                    "for section, key in _SUSPEND_MUTABLE_POD_FIELDS:",
                    "for section, key in _SUSPEND_MUTABLE_POD_FIELDS[:4]:"),),
        caught_by=("suspend/template-edit-admission",),
        side="webhooks",
    ),
    Mistake(
        "suspend-affinity-mutable",
        "ValidateUpdate lets a suspended JobSet change the pod template's affinity as well",
        behaviours=("suspend.other-edits-rejected",),
        edits=(Edit(VALIDATION, "validate_update",
                    "for section, key in _SUSPEND_MUTABLE_POD_FIELDS:",
                    'for section, key in (*_SUSPEND_MUTABLE_POD_FIELDS, ("spec", "affinity")):'),),
        caught_by=("suspend/template-edit-admission",),
        side="webhooks",
    ),
    Mistake(
        "suspend-edit-job-template-level",
        "ValidateUpdate relaxes labels/annotations/nodeSelector/... of the Job template instead of the pod template",
        behaviours=("suspend.kueue-template-edit", "suspend.other-edits-rejected"),
        edits=(Edit(VALIDATION, "validate_update",
                    'pod_template = _ensure_path(munged[index], ("template", "spec", "template"))',
                    'pod_template = _ensure_path(munged[index], ("template",))'),),
        caught_by=("suspend/kueue-template-edit",),
        side="webhooks",
    ),
    Mistake(
        "suspended-template-fully-mutable",
        "ValidateUpdate skips the replicatedJobs immutability check while the JobSet is suspended",
        behaviours=("suspend.other-edits-rejected", "validation.update-immutable"),
        edits=(Edit(VALIDATION, "validate_update",
                    "if not semantic_equal(munged, old_list):",
                    "if not (new_js.spec.suspend or old_js.spec.suspend) and not semantic_equal(munged, old_list):"),),
        caught_by=("suspend/kueue-template-edit",),
        side="webhooks",
    ),
    Mistake(
        "update-quantities-only-strings",
        "ValidateUpdate decodes only string quantities, so a running JobSet's cpu: 2 (a JSON number) rewritten "
        "as \"2000m\" is refused as immutable",
        behaviours=("validation.update-immutable",),
        edits=(Edit(VALIDATION, "_normalize", "if key in _QUANTITY_PARENTS and _is_quantity_text(v):",
                    "if key in _QUANTITY_PARENTS and isinstance(v, str):"),),
        caught_by=("webhooks/update-quantity-integer",),
        side="webhooks",
    ),
)

MISTAKES = (*_DEFAULTING, *_CRD, *_CREATE, *_UPDATE)
