"""Pydantic v2 models of ``jobset.x-k8s.io/v1alpha2``.

Mirrors upstream ``api/jobset/v1alpha2/jobset_types.go`` (kubernetes-sigs/jobset @ 08dfbdf).

Conventions:

* Python attribute names are snake_case, wire names are the exact Go JSON names (camelCase
  aliases, ``populate_by_name=True``); unknown fields are rejected (``extra="forbid"``).
* Enumerations are ``StrEnum`` whose values are the exact wire strings.
* The embedded ``batch/v1`` JobTemplateSpec, the PVC templates, ``metadata`` and conditions'
  free-form parts stay wire-form dicts; typed read-only accessors expose what the webhooks need.
* Python defaults are the **Go zero values** (``replicas`` 0, ``groupName`` ""). CRD schema
  defaults (``replicas: 1``, ``groupName: default`` …) are a separate layer
  (:func:`jobset_ref.api.defaulting.apply_schema_defaults`); they are recorded per field under
  ``json_schema_extra["crd"]`` so the CRD generator can emit them.
* ``to_wire`` emits only fields that were set (the JSON a client sent, or what Python code
  assigned) and never ``None``. Fields whose Go JSON tag has no ``omitempty`` are always
  emitted (``apiVersion``, ``kind``, ``status.restarts``, replicated-job status counters),
  as Go's encoder would.
* CRD-level constraints (``minimum``, ``maxItems``, CEL rules) are *not* enforced when
  decoding: they belong to the API server's schema validation (layer C). Only Go's type
  constraints are (int32 range, enum membership, required keys).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from jobset_ref.api import constants as c
from jobset_ref.api.enums import (
    ConditionStatus,
    DependsOnStatus,
    FailurePolicyAction,
    JobSetConditionType,
    JobSetRestartStrategy,
    Operator,
    RetentionPolicyType,
    StartupPolicyOptions,
)

__all__ = [
    "Condition",
    "ConditionStatus",
    "Coordinator",
    "DependsOn",
    "DependsOnStatus",
    "FailurePolicy",
    "FailurePolicyAction",
    "FailurePolicyRule",
    "Int32",
    "JobSet",
    "JobSetConditionType",
    "JobSetRestartStrategy",
    "JobSetSpec",
    "JobSetStatus",
    "Network",
    "Operator",
    "ReplicatedJob",
    "ReplicatedJobStatus",
    "RetentionPolicyType",
    "StartupPolicy",
    "StartupPolicyOptions",
    "SuccessPolicy",
    "VolumeClaimPolicy",
    "VolumeRetentionPolicy",
    "WireModel",
]


class Int32Format:
    """Annotation marker: the field is a Go ``int32`` (OpenAPI ``format: int32``)."""

    def __repr__(self) -> str:
        return "Int32Format()"


INT32_FORMAT = Int32Format()

#: A Go ``int32``: range-checked when decoding, ``format: int32`` in the CRD.
Int32 = Annotated[int, Field(ge=c.MIN_INT32, le=c.MAX_INT32), INT32_FORMAT]


_IMMUTABLE: dict[str, str] = {"rule": "self == oldSelf", "message": "Value is immutable"}


def crd(**facts: Any) -> dict[str, Any]:
    """``json_schema_extra`` carrying CRD-only facts (default, minimum, maxItems, listType, CEL …)."""
    return {"crd": facts}


# --------------------------------------------------------------------------- base


class WireModel(BaseModel):
    """Base of every JobSet API model: camelCase aliases, strict keys, Go-like JSON output."""

    model_config = ConfigDict(
        populate_by_name=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_assignment=True,
    )

    #: Python names of fields whose Go JSON tag has no ``omitempty`` and that Go therefore always emits.
    ALWAYS_EMIT: ClassVar[tuple[str, ...]] = ()
    #: Object-level CEL rules (``+kubebuilder:validation:XValidation`` on the Go type).
    CRD_VALIDATIONS: ClassVar[tuple[dict[str, str], ...]] = ()

    @model_validator(mode="after")
    def _mark_always_emitted(self) -> Self:
        for name in self.ALWAYS_EMIT:
            self.__pydantic_fields_set__.add(name)
        return self

    def to_wire(self) -> dict[str, Any]:
        """JSON-compatible dict: set fields only, ``None`` dropped, wire names, enum strings."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=True)

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> Self:
        """Decode a wire-form dict (raises ``pydantic.ValidationError`` on unknown/mistyped fields)."""
        return cls.model_validate(obj)


# --------------------------------------------------------------------------- spec


class DependsOn(WireModel):
    """``DependsOn``: a replicated job that must be Ready or Complete before this one starts."""

    name: str
    status: DependsOnStatus

    ALWAYS_EMIT = ("name", "status")


class ReplicatedJob(WireModel):
    """``ReplicatedJob``: ``replicas`` identical Jobs built from one Job template."""

    name: str
    group_name: str = Field(default="", json_schema_extra=crd(default="default"))
    #: batch/v1 JobTemplateSpec, wire form.
    template: dict[str, Any] = Field(json_schema_extra=crd(embedded="JobTemplateSpec"))
    replicas: Int32 = Field(default=0, json_schema_extra=crd(default=1, minimum=0))
    depends_on: list[DependsOn] | None = Field(
        default=None,
        json_schema_extra=crd(
            maxItems=5, listType="map", listMapKeys=["name"],
            validations=[_IMMUTABLE],
        ),
    )

    ALWAYS_EMIT = ("name", "template")

    # ---- typed accessors into the embedded Job template (Go zero values when absent)

    @property
    def job_spec(self) -> dict[str, Any]:
        """``template.spec`` (empty dict when absent)."""
        spec = self.template.get("spec")
        return spec if isinstance(spec, dict) else {}

    @property
    def completion_mode(self) -> str | None:
        return _opt_str(self.job_spec.get("completionMode"))

    @property
    def completions(self) -> int | None:
        return _opt_int(self.job_spec.get("completions"))

    @property
    def parallelism(self) -> int | None:
        return _opt_int(self.job_spec.get("parallelism"))

    @property
    def backoff_limit(self) -> int | None:
        return _opt_int(self.job_spec.get("backoffLimit"))

    @property
    def pod_replacement_policy(self) -> str | None:
        return _opt_str(self.job_spec.get("podReplacementPolicy"))

    @property
    def is_indexed(self) -> bool:
        """``completionMode`` is set and equals ``Indexed`` (nil counts as not Indexed)."""
        return self.completion_mode == c.INDEXED_COMPLETION

    @property
    def pod_template(self) -> dict[str, Any]:
        """``template.spec.template`` (empty dict when absent)."""
        tpl = self.job_spec.get("template")
        return tpl if isinstance(tpl, dict) else {}

    @property
    def pod_spec(self) -> dict[str, Any]:
        """``template.spec.template.spec`` (empty dict when absent)."""
        spec = self.pod_template.get("spec")
        return spec if isinstance(spec, dict) else {}

    @property
    def restart_policy(self) -> str:
        return self.pod_spec.get("restartPolicy") or ""

    def containers(self, kind: str = "containers") -> list[dict[str, Any]]:
        """Pod-spec container list: ``containers``, ``initContainers`` or ``ephemeralContainers``."""
        items = self.pod_spec.get(kind)
        return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []

    def volumes(self) -> list[dict[str, Any]]:
        items = self.pod_spec.get("volumes")
        return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


class Network(WireModel):
    """``Network``: pod DNS hostnames through a headless Service (``subdomain``)."""

    enable_dns_hostnames: bool | None = Field(default=None, alias="enableDNSHostnames")
    subdomain: str = ""
    publish_not_ready_addresses: bool | None = None


class SuccessPolicy(WireModel):
    """``SuccessPolicy``: the JobSet completes when All or Any targeted Jobs succeed."""

    operator: Operator
    target_replicated_jobs: list[str] | None = Field(default=None, json_schema_extra=crd(listType="atomic"))

    ALWAYS_EMIT = ("operator",)


class FailurePolicyRule(WireModel):
    """``FailurePolicyRule``: the ``action`` for a failed Job that matches the rule."""

    #: Required by the CRD, but the defaulting webhook (which runs before schema validation)
    #: fills an empty or absent name, so decoding accepts its absence (Go zero value "").
    name: str = Field(default="", json_schema_extra=crd(required=True))
    action: FailurePolicyAction
    on_job_failure_reasons: list[str] | None = None
    on_job_failure_message_patterns: list[str] | None = None
    target_replicated_jobs: list[str] | None = Field(default=None, json_schema_extra=crd(listType="atomic"))

    ALWAYS_EMIT = ("action",)


class FailurePolicy(WireModel):
    """``FailurePolicy``: how often and how the JobSet restarts when a Job fails."""

    max_restarts: Int32 = 0
    restart_strategy: JobSetRestartStrategy | None = Field(default=None, json_schema_extra=crd(default="Recreate"))
    rules: list[FailurePolicyRule] | None = None


class StartupPolicy(WireModel):
    """``StartupPolicy``: replicated jobs start in any order, or each Ready before the next."""

    startup_policy_order: StartupPolicyOptions

    ALWAYS_EMIT = ("startup_policy_order",)


class Coordinator(WireModel):
    """``Coordinator``: the pod whose stable DNS name every Job and pod of the JobSet gets."""

    replicated_job: str
    #: Go ``int`` (no ``format`` in the CRD).
    job_index: int = 0
    pod_index: int = 0

    ALWAYS_EMIT = ("replicated_job",)


class VolumeRetentionPolicy(WireModel):
    """``VolumeRetentionPolicy``: whether the JobSet's claims go when it is deleted."""

    when_deleted: RetentionPolicyType | None = Field(default=None, json_schema_extra=crd(default="Delete"))


class VolumeClaimPolicy(WireModel):
    """``VolumeClaimPolicy``: PersistentVolumeClaim templates and their retention."""

    #: core/v1 PersistentVolumeClaim objects, wire form.
    templates: list[dict[str, Any]] | None = Field(
        default=None, json_schema_extra=crd(maxItems=50, listType="atomic", items_embedded="PersistentVolumeClaim"))
    retention_policy: VolumeRetentionPolicy | None = None

    CRD_VALIDATIONS = ({
        "rule": "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)",
        "message": "namespace cannot be set for VolumeClaimPolicies templates",
    },)

    def template_name(self, index: int) -> str:
        """``templates[index].metadata.name`` ("" when absent)."""
        meta = (self.templates or [])[index].get("metadata")
        return str(meta.get("name") or "") if isinstance(meta, dict) else ""


class JobSetSpec(WireModel):
    """``JobSetSpec``: the desired state of a JobSet."""

    replicated_jobs: list[ReplicatedJob] | None = Field(
        default=None, json_schema_extra=crd(listType="map", listMapKeys=["name"])
    )
    network: Network | None = Field(default=None, json_schema_extra=crd(validations=[_IMMUTABLE]))
    success_policy: SuccessPolicy | None = Field(default=None, json_schema_extra=crd(validations=[_IMMUTABLE]))
    failure_policy: FailurePolicy | None = Field(default=None, json_schema_extra=crd(validations=[_IMMUTABLE]))
    startup_policy: StartupPolicy | None = Field(default=None, json_schema_extra=crd(validations=[_IMMUTABLE]))
    suspend: bool | None = None
    coordinator: Coordinator | None = None
    managed_by: str | None = None
    ttl_seconds_after_finished: Int32 | None = Field(default=None, json_schema_extra=crd(minimum=0))
    volume_claim_policies: list[VolumeClaimPolicy] | None = Field(
        default=None, json_schema_extra=crd(maxItems=50, listType="atomic", validations=[_IMMUTABLE])
    )

    CRD_VALIDATIONS = ({
        "rule": "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
                "self.replicatedJobs.exists(x, has(x.dependsOn)))",
        "message": "StartupPolicy and DependsOn APIs are mutually exclusive",
    },)

    @property
    def replicated_jobs_list(self) -> list[ReplicatedJob]:
        """``replicatedJobs`` with nil read as empty."""
        return list(self.replicated_jobs or [])


# --------------------------------------------------------------------------- status


_CONDITION_TYPE_PATTERN = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
)
_CONDITION_REASON_PATTERN = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"


class Condition(WireModel):
    """``metav1.Condition``."""

    type: str = Field(json_schema_extra=crd(maxLength=316, pattern=_CONDITION_TYPE_PATTERN))
    status: ConditionStatus
    observed_generation: int | None = Field(default=None, json_schema_extra=crd(minimum=0, format="int64"))
    last_transition_time: str = Field(json_schema_extra=crd(format="date-time"))
    reason: str = Field(json_schema_extra=crd(maxLength=1024, minLength=1, pattern=_CONDITION_REASON_PATTERN))
    message: str = Field(json_schema_extra=crd(maxLength=32768))

    ALWAYS_EMIT = ("type", "status", "last_transition_time", "reason", "message")


class ReplicatedJobStatus(WireModel):
    """``ReplicatedJobStatus``: a replicated job's Jobs counted by state, and restarts."""

    name: str
    ready: Int32
    succeeded: Int32
    failed: Int32
    active: Int32
    suspended: Int32
    job_restarts: list[Int32] | None = Field(default=None, json_schema_extra=crd(maxItems=1024, listType="atomic"))
    job_restarts_count_towards_max: list[Int32] | None = Field(
        default=None, json_schema_extra=crd(maxItems=1024, listType="atomic")
    )

    ALWAYS_EMIT = ("name", "ready", "succeeded", "failed", "active", "suspended")


class JobSetStatus(WireModel):
    """``JobSetStatus``: conditions, restarts, terminal state and replicated-job counts."""

    conditions: list[Condition] | None = Field(default=None, json_schema_extra=crd(listType="map", listMapKeys=["type"]))
    restarts: Int32 = 0
    restarts_count_towards_max: Int32 = 0
    terminal_state: str = ""
    replicated_jobs_status: list[ReplicatedJobStatus] | None = Field(
        default=None, json_schema_extra=crd(listType="map", listMapKeys=["name"])
    )
    previous_in_place_restart_attempt: Int32 | None = Field(default=None, json_schema_extra=crd(minimum=0))
    current_in_place_restart_attempt: Int32 | None = Field(default=None, json_schema_extra=crd(minimum=0))

    ALWAYS_EMIT = ("restarts",)

    def condition(self, type_: str) -> Condition | None:
        """The condition of the given type, if present."""
        return next((x for x in self.conditions or [] if x.type == type_), None)

    def is_condition_true(self, type_: str) -> bool:
        """``meta.IsStatusConditionTrue``."""
        cond = self.condition(type_)
        return cond is not None and cond.status == ConditionStatus.TRUE


# --------------------------------------------------------------------------- top level


class JobSet(WireModel):
    """``JobSet``: the ``jobset.x-k8s.io/v1alpha2`` object."""

    api_version: str = c.API_VERSION
    kind: str = c.KIND
    #: ObjectMeta, wire form.
    metadata: dict[str, Any] = Field(default_factory=dict, json_schema_extra=crd(schema={"type": "object"}))
    spec: JobSetSpec = Field(default_factory=JobSetSpec)
    status: JobSetStatus | None = None

    ALWAYS_EMIT = ("api_version", "kind")

    @property
    def name(self) -> str:
        return str(self.metadata.get("name") or "")

    @property
    def namespace(self) -> str:
        return str(self.metadata.get("namespace") or "")

    @property
    def generate_name(self) -> str:
        return str(self.metadata.get("generateName") or "")

    @property
    def annotations(self) -> dict[str, str]:
        ann = self.metadata.get("annotations")
        return dict(ann) if isinstance(ann, dict) else {}

    @property
    def labels(self) -> dict[str, str]:
        lab = self.metadata.get("labels")
        return dict(lab) if isinstance(lab, dict) else {}

    @property
    def replicated_jobs(self) -> list[ReplicatedJob]:
        return self.spec.replicated_jobs_list


# --------------------------------------------------------------------------- helpers


def _opt_int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
