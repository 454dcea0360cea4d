"""``jobframework/defaults.go``, ``validation.go`` and ``base_webhook.go``: the defaulting and
validating webhooks every integration gets.

Defaulting (CREATE): the namespace's ``default`` LocalQueue for a job without a queue name, then
``suspend: true`` for a job Kueue will manage (it has a queue name, or manageJobsWithoutQueueName
and a managed namespace) unless an ancestor job is the one Kueue manages; then the integration's
own defaulting. Validation (CREATE, UPDATE): the queue-name label, max-exec-time, the
priority-class label's changes, then the integration's own checks. A denial reads as through the
API server: ``admission webhook "vjob.kb.io" denied the request: <errors>`` (403 Forbidden, as
controller-runtime answers a validator's error).
"""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.admission import AdmissionRequest
from fakekube.errors import ApiError, FieldError, Forbidden, NotFound, UsageError, aggregate_message
from fakekube.machinery.validation import is_dns1123_subdomain

from . import constants as k
from .interface import GenericJob, Integration, queue_name
from .reconciler import Framework, SkipReconcile

LABELS = "metadata.labels"
QUEUE_NAME_PATH = f"{LABELS}[{k.QUEUE_LABEL}]"
MAX_EXEC_PATH = f"{LABELS}[{k.MAX_EXEC_TIME_SECONDS_LABEL}]"
PRIORITY_CLASS_PATH = f"{LABELS}[{k.WORKLOAD_PRIORITY_CLASS_LABEL}]"
PREBUILT_PATH = f"metadata.annotations[{k.PREBUILT_WORKLOAD_ANNOTATION}]"
ELASTIC_PATH = f"metadata.annotations[{k.ELASTIC_JOB_ANNOTATION}]"
FIELD_IMMUTABLE = "field is immutable"


def webhook_names(integration: Integration) -> tuple[str, str]:
    """The kubebuilder marker names: ``m<kind>.kb.io`` and ``v<kind>.kb.io``."""
    kind = integration.kind.lower()
    return f"m{kind}.kb.io", f"v{kind}.kb.io"


class JobWebhook:
    """One integration's mutating and validating webhook (controller-runtime's Defaulter and
    Validator on the same type)."""

    def __init__(self, framework: Framework, integration: Integration) -> None:
        self.framework = framework
        self.integration = integration
        self.mutating_name, self.validating_name = webhook_names(integration)
        self.name = self.mutating_name

    # ------------------------------------------------------------------ defaulting
    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE":
            return
        job = self.integration.new_job(request.obj)
        self._apply_default_local_queue(request, job)
        self._apply_default_for_suspend(job)
        if self.integration.default is not None:
            self.integration.default(job)

    def _default_local_queue_exists(self, request: AdmissionRequest, namespace: str) -> bool:
        """``DefaultLocalQueueExist``: a LocalQueue named ``default`` in the namespace."""
        try:
            request.server.get("localqueues.kueue.x-k8s.io", k.DEFAULT_LOCAL_QUEUE_NAME, namespace)
        except (NotFound, UsageError):
            return False
        return True

    def _apply_default_local_queue(self, request: AdmissionRequest, job: GenericJob) -> None:
        """``ApplyDefaultLocalQueueWithManagedJobsNamespaceSelector``."""
        if not self._default_local_queue_exists(request, job.namespace or request.namespace):
            return
        if queue_name(job.obj) or self.framework.is_owner_managed_by_kueue(job.obj):
            return
        if not self.framework.namespace_managed(job.namespace or request.namespace):
            return
        job.meta.setdefault("labels", {})[k.QUEUE_LABEL] = k.DEFAULT_LOCAL_QUEUE_NAME

    def _apply_default_for_suspend(self, job: GenericJob) -> None:
        """``ApplyDefaultForSuspend`` / ``WorkloadShouldBeSuspended``."""
        if job.meta.get("deletionTimestamp"):
            return
        try:
            if self.framework.find_ancestor(job.obj) is not None:
                return
        except SkipReconcile as err:
            raise Forbidden(f'admission webhook "{self.mutating_name}" denied the request: {err}') from None
        if queue_name(job.obj):
            suspend = True
        elif self.framework.options.manage_jobs_without_queue_name:
            suspend = self.framework.namespace_managed(job.namespace)
        else:
            suspend = False
        if suspend and not job.is_suspended():
            job.suspend()

    # ------------------------------------------------------------------ validation
    def validate(self, request: AdmissionRequest) -> None:
        if request.operation == "CREATE":
            job = self.integration.new_job(request.obj)
            errors = validate_job_on_create(job)
            if self.integration.validate_create is not None:
                errors += self.integration.validate_create(job)
        elif request.operation == "UPDATE" and request.old_obj is not None:
            old, new = self.integration.new_job(request.old_obj), self.integration.new_job(request.obj)
            errors = self._validate_update(request, old, new)
            if self.integration.validate_update is not None:
                errors += self.integration.validate_update(old, new)
        else:
            return
        if errors:
            raise Forbidden(f'admission webhook "{self.validating_name}" denied the request: '
                            f"{aggregate_message(errors)}")

    def _validate_update(self, request: AdmissionRequest, old: GenericJob, new: GenericJob) -> list[FieldError]:
        """``ValidateJobOnUpdate`` then the create checks on the new object."""
        errors: list[FieldError] = []
        if not new.is_suspended() and queue_name(new.obj) != queue_name(old.obj):
            errors.append(FieldError.invalid(QUEUE_NAME_PATH, queue_name(new.obj), FIELD_IMMUTABLE))
        if not queue_name(new.obj) and queue_name(old.obj) and \
                self._default_local_queue_exists(request, old.namespace):
            errors.append(FieldError.invalid(QUEUE_NAME_PATH, "", "queue-name must not be empty in namespace "
                                                                  "with default queue"))
        if not new.is_suspended() or not old.is_suspended():
            new_max = new.labels.get(k.MAX_EXEC_TIME_SECONDS_LABEL, "")
            if new_max != old.labels.get(k.MAX_EXEC_TIME_SECONDS_LABEL, ""):
                errors.append(FieldError.invalid(MAX_EXEC_PATH, new_max, FIELD_IMMUTABLE))
        old_class = old.labels.get(k.WORKLOAD_PRIORITY_CLASS_LABEL, "")
        new_class = new.labels.get(k.WORKLOAD_PRIORITY_CLASS_LABEL, "")
        if not new.is_suspended() and not old_class and new_class:
            errors.append(FieldError.invalid(PRIORITY_CLASS_PATH, new_class,
                                             "WorkloadPriorityClass cannot be added to a non-suspended workload"))
        elif not new_class and old_class:
            errors.append(FieldError.invalid(PRIORITY_CLASS_PATH, new_class,
                                             "WorkloadPriorityClass cannot be removed from a workload"))
        return validate_job_on_create(new) + errors


def validate_job_on_create(job: GenericJob) -> list[FieldError]:
    """``ValidateJobOnCreate``: the queue name is a DNS subdomain, max-exec-time a positive int."""
    errors: list[FieldError] = []
    value = job.labels.get(k.QUEUE_LABEL)
    if value is not None:
        problems = is_dns1123_subdomain(value)
        if problems:
            errors.append(FieldError.invalid(QUEUE_NAME_PATH, value, ",".join(problems)))
    prebuilt = job.annotations.get(k.PREBUILT_WORKLOAD_ANNOTATION)
    if prebuilt is not None:
        problems = is_dns1123_subdomain(prebuilt)
        if problems:
            errors.append(FieldError.invalid(PREBUILT_PATH, prebuilt, ",".join(problems)))
    text = job.labels.get(k.MAX_EXEC_TIME_SECONDS_LABEL)
    if text is not None:
        try:
            seconds = int(text, 10)
        except ValueError:
            errors.append(FieldError.invalid(MAX_EXEC_PATH, text, f'strconv.Atoi: parsing "{text}": invalid syntax'))
        else:
            if seconds <= 0:
                errors.append(FieldError.invalid(MAX_EXEC_PATH, seconds, "should be greater than 0"))
    if job.annotations.get(k.ELASTIC_JOB_ANNOTATION) == "true" and job.kind != "Job":
        gvk = f"{job.api_version}, Kind={job.kind}"
        errors.append(FieldError.forbidden(ELASTIC_PATH, f'elastic job is not supported for "{gvk}"'))
    return errors


def register_job_webhook(admission: Any, webhook: JobWebhook) -> None:
    """Add the webhook's two halves to the API server's admission chain."""
    resource = webhook.framework.rt.server.resource(webhook.integration.resource).key
    admission.register(webhook, resources=[resource], operations=["CREATE"], mutating=True)
    admission.register(_Validating(webhook), resources=[resource], operations=["CREATE", "UPDATE"],
                       validating=True)


class _Validating:
    """The validating half, registered under its own name."""

    def __init__(self, webhook: JobWebhook) -> None:
        self.webhook = webhook
        self.name = webhook.validating_name

    def admit(self, request: AdmissionRequest) -> None:  # pragma: no cover - validating only
        return

    def validate(self, request: AdmissionRequest) -> None:
        self.webhook.validate(request)


__all__ = ["ApiError", "JobWebhook", "register_job_webhook", "validate_job_on_create", "webhook_names"]
