"""Mutating and validating webhook configurations (``admissionregistration.k8s.io/v1``).

Stored with upstream's defaults and the structural part of ``ValidateMutatingWebhookConfiguration``
/ ``ValidateValidatingWebhookConfiguration``; the API server calls the webhooks they register
over HTTP (:mod:`fakekube.apiserver.admission_webhooks`).

Defaults (``SetDefaults_*Webhook``, ``SetDefaults_Rule``): ``failurePolicy: Fail``,
``matchPolicy: Equivalent``, empty ``namespaceSelector`` and ``objectSelector``,
``timeoutSeconds: 10``, ``reinvocationPolicy: Never`` (mutating), ``scope: "*"`` in each rule.
"""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.admission_webhooks import compile_configurations
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Strategy
from fakekube.errors import FieldError

__all__ = ["MUTATING", "VALIDATING", "install"]

GROUP = "admissionregistration.k8s.io"
MUTATING = f"mutatingwebhookconfigurations.{GROUP}"
VALIDATING = f"validatingwebhookconfigurations.{GROUP}"

_FAILURE_POLICIES = ["Fail", "Ignore"]
_SIDE_EFFECTS = ["None", "NoneOnDryRun"]
_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]


def _webhooks(obj: dict[str, Any]) -> list[Any]:
    hooks = obj.get("webhooks")
    return hooks if isinstance(hooks, list) else []


class WebhookConfigurationStrategy(Strategy):
    """``mutatingWebhookConfigurationStrategy`` / ``validatingWebhookConfigurationStrategy``."""

    def __init__(self, *, mutating: bool) -> None:
        self.mutating = mutating

    def default(self, obj: dict[str, Any]) -> None:
        for hook in _webhooks(obj):
            if not isinstance(hook, dict):
                continue
            hook.setdefault("failurePolicy", "Fail")
            hook.setdefault("matchPolicy", "Equivalent")
            hook.setdefault("namespaceSelector", {})
            hook.setdefault("objectSelector", {})
            hook.setdefault("timeoutSeconds", 10)
            if self.mutating:
                hook.setdefault("reinvocationPolicy", "Never")
            for rule in hook.get("rules") or ():
                if isinstance(rule, dict):
                    rule.setdefault("scope", "*")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        seen: set[str] = set()
        for i, hook in enumerate(_webhooks(obj)):
            path = f"webhooks[{i}]"
            if not isinstance(hook, dict):
                errors.append(FieldError.invalid(path, hook, "must be an object"))
                continue
            name = hook.get("name")
            if not name:
                errors.append(FieldError.required(f"{path}.name"))
            elif name in seen:
                errors.append(FieldError.duplicate(f"{path}.name", name))
            else:
                seen.add(str(name))
            config = hook.get("clientConfig")
            if not isinstance(config, dict):
                config = {}
            if bool(config.get("url")) == bool(config.get("service")):
                errors.append(FieldError.required(f"{path}.clientConfig", "exactly one of url or service is required"))
            versions = hook.get("admissionReviewVersions")
            if not versions:
                errors.append(FieldError.required(f"{path}.admissionReviewVersions",
                                                  "must specify one of v1, v1beta1"))
            elif "v1" not in versions and "v1beta1" not in versions:
                errors.append(FieldError.invalid(f"{path}.admissionReviewVersions", versions,
                                                 "must include at least one of v1, v1beta1"))
            if hook.get("sideEffects") not in _SIDE_EFFECTS:
                errors.append(FieldError.not_supported(f"{path}.sideEffects", hook.get("sideEffects"), _SIDE_EFFECTS))
            if hook.get("failurePolicy") not in _FAILURE_POLICIES:
                errors.append(FieldError.not_supported(f"{path}.failurePolicy", hook.get("failurePolicy"),
                                                       _FAILURE_POLICIES))
            timeout = hook.get("timeoutSeconds")
            if not isinstance(timeout, int) or not 1 <= timeout <= 30:
                errors.append(FieldError.invalid(f"{path}.timeoutSeconds", timeout,
                                                 "the timeout value must be between 1 and 30 seconds"))
            for j, rule in enumerate(hook.get("rules") or ()):
                for op in (rule.get("operations") or []) if isinstance(rule, dict) else ():
                    if op not in _OPERATIONS:
                        errors.append(FieldError.not_supported(f"{path}.rules[{j}].operations", op, _OPERATIONS))
        return errors


def install(server: ApiServer) -> None:
    calls = iter(range(1, 1 << 62))

    def uid() -> str:  # deterministic AdmissionReview UIDs (kube-apiserver draws random ones)
        return f"00000000-0000-4000-8000-{next(calls):012d}"

    def reload(_event: Any = None) -> None:
        store = server.store
        server.admission.set_remote_webhooks(
            mutating=tuple(compile_configurations(store.list(MUTATING), mutating=True, uid=uid)),
            validating=tuple(compile_configurations(store.list(VALIDATING), mutating=False, uid=uid)))

    server.store.subscribe(reload, resource=MUTATING)
    server.store.subscribe(reload, resource=VALIDATING)
    add = server.registry.add
    add(ResourceType(GROUP, "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations",
                     namespaced=False, strategy=WebhookConfigurationStrategy(mutating=True),
                     categories=("api-extensions",)))
    add(ResourceType(GROUP, "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations",
                     namespaced=False, strategy=WebhookConfigurationStrategy(mutating=False),
                     categories=("api-extensions",)))
