"""batch/v1 Jobs: defaults, generated selector, validation and status rules (``pkg/registry/batch/job``)."""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.kinds.pods import default_pod_spec
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Context, Strategy
from fakekube.errors import FieldError

__all__ = ["JobStrategy", "install"]

CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
LEGACY_CONTROLLER_UID = "controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME = "job-name"


class JobStrategy(Strategy):
    default_gc_policy = "Orphan"

    def default(self, obj: dict[str, Any]) -> None:
        """``SetDefaults_Job``."""
        spec = obj.setdefault("spec", {})
        if not isinstance(spec, dict):
            return
        if spec.get("completions") is None and spec.get("parallelism") is None:
            spec["completions"] = 1
            spec["parallelism"] = 1
        spec.setdefault("parallelism", 1)
        spec.setdefault("backoffLimit", 2147483647 if spec.get("backoffLimitPerIndex") is not None else 6)
        spec.setdefault("completionMode", "NonIndexed")
        spec.setdefault("suspend", False)
        spec.setdefault("manualSelector", False)
        spec.setdefault("podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed")
        for rule in (spec.get("podFailurePolicy") or {}).get("rules") or []:
            for pattern in rule.get("onPodConditions") or []:
                pattern.setdefault("status", "True")
        template = spec.setdefault("template", {})
        if isinstance(template, dict):
            template_labels = (template.get("metadata") or {}).get("labels")
            if template_labels and not obj["metadata"].get("labels"):
                obj["metadata"]["labels"] = dict(template_labels)
            default_pod_spec(template.setdefault("spec", {}))

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        obj.pop("status", None)
        obj["status"] = {}
        spec, meta = obj["spec"], obj["metadata"]
        if not spec.get("manualSelector"):
            labels = spec["template"].setdefault("metadata", {}).setdefault("labels", {})
            for key, value in ((CONTROLLER_UID, meta["uid"]), (LEGACY_CONTROLLER_UID, meta["uid"]),
                               (JOB_NAME, meta.get("name") or ""), (LEGACY_JOB_NAME, meta.get("name") or "")):
                labels.setdefault(key, value)
            spec["selector"] = {"matchLabels": {CONTROLLER_UID: meta["uid"]}}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec") or {}
        errors: list[FieldError] = []
        policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
        if policy == "Always":
            errors.append(FieldError.required("spec.template.spec.restartPolicy",
                                              'valid values: "OnFailure", "Never"'))
        elif policy not in ("OnFailure", "Never"):
            errors.append(FieldError.not_supported("spec.template.spec.restartPolicy", policy,
                                                   ("OnFailure", "Never")))
        if spec.get("completionMode") == "Indexed" and spec.get("completions") is None:
            errors.append(FieldError.required("spec.completions", "when completion mode is Indexed"))
        return errors

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        new["status"] = old.get("status", {})


def install(server: ApiServer) -> None:
    server.registry.add(ResourceType("batch", "v1", "Job", "jobs", namespaced=True, strategy=JobStrategy(),
                                     subresources=frozenset({"status"}), categories=("all",)))
