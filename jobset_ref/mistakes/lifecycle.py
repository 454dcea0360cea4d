"""Mistakes in the lifecycle: startup order, dependsOn, suspend and resume (what resume carries into
the Jobs), TTL, managedBy, deletion, replicatedJobsStatus, volume claim policies, elastic scaling and
in-place restart (controller spec §3.4, §9)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

RECONCILER = "jobset_ref.controller.reconciler"
CONSTRUCT = "jobset_ref.controller.construct"
STATUS = "jobset_ref.controller.status"
CONDITIONS = "jobset_ref.controller.conditions"
APPLY = "jobset_ref.controller.apply"
ELIGIBILITY = "jobset_ref.controller.policies.eligibility"
STARTUP = "jobset_ref.controller.policies.startup_policy"
DEPENDS_ON = "jobset_ref.controller.policies.depends_on"
SUSPEND = "jobset_ref.controller.policies.suspend"
TTL = "jobset_ref.controller.policies.ttl_after_finished"
MANAGED_BY = "jobset_ref.controller.policies.managed_by"
VOLUMES = "jobset_ref.controller.policies.volume_claim_policies"
ELASTIC = "jobset_ref.controller.policies.elastic"
IN_PLACE = "jobset_ref.controller.policies.in_place_restart"

MISTAKES = (
    # ------------------------------------------------------------------ startup order, dependsOn
    Mistake(
        "in-order-starts-all-at-once",
        "InOrder does not stop at the first replicatedJob that has not started: every Job is created at once",
        behaviours=("startup.in-order",),
        edits=(Edit(ELIGIBILITY, "eligible_replicated_jobs", "        if in_order:\n            break\n", ""),),
        caught_by=("startup/in-order-after-restart", "startup/in-order-not-ready-again"),
    ),
    Mistake(
        "in-order-started-means-active",
        "InOrder counts a replicatedJob as started when its Jobs are active, not when they are ready",
        behaviours=("startup.in-order", "startup.in-order-restart"),
        edits=(Edit(STARTUP, "all_replicas_started", 'int(status.get("ready") or 0)', 'int(status.get("active") or 0)'),),
        caught_by=("startup/in-order-after-restart", "startup/in-order-not-ready-again"),
    ),
    Mistake(
        "any-order-gets-startup-condition",
        "AnyOrder JobSets also get the StartupPolicyCompleted condition",
        behaviours=("startup.any-order", "status.no-conditions-running"),
        edits=(Edit(CONSTRUCT, "plan_creation", "if not eligible.in_order:", "if False:"),),
        caught_by=("failure/first-failed-job-status-retry", "failure/max-restarts-zero"),
    ),
    Mistake(
        "depends-on-complete-after-one",
        "dependsOn Complete is reached when one Job of the dependency succeeded instead of all",
        behaviours=("depends-on.complete",),
        edits=(Edit(DEPENDS_ON, "dependency_reached_status", "if dep.status == DependsOnStatus.COMPLETE and replicas != succeeded:",
                    "if dep.status == DependsOnStatus.COMPLETE and succeeded == 0:"),),
        caught_by=("startup/depends-on-complete-all",),
    ),
    Mistake(
        "depends-on-ready-means-active",
        "dependsOn Ready is reached when the dependency's Jobs are active instead of ready",
        behaviours=("depends-on.ready",),
        edits=(Edit(DEPENDS_ON, "dependency_reached_status", 'int(actual.get("failed") or 0) + int(actual.get("ready") or 0) + succeeded',
                    'int(actual.get("failed") or 0) + int(actual.get("active") or 0) + succeeded'),),
        caught_by=("suspend/suspend-while-restarting", "examples/depends-on-depends-on"),
    ),
    Mistake(
        "depends-on-first-entry-only",
        "only the first dependsOn entry is checked (several dependencies are not ANDed)",
        behaviours=("depends-on.multiple",),
        edits=(Edit(DEPENDS_ON, "dependency_reached_status", "for dep in rjob.depends_on or ():",
                    "for dep in (rjob.depends_on or [])[:1]:"),),
        caught_by=("examples/depends-on-multiple-depends-on",),
    ),
    Mistake(
        "suspended-ignores-depends-on",
        "a suspended JobSet creates every replicatedJob's Jobs, dependencies reached or not",
        behaviours=("suspend.depends-on",),
        edits=(Edit(ELIGIBILITY, "eligible_replicated_jobs",
                    "if not depends_on.dependency_reached_status(rjob, seen, statuses):",
                    "if not suspend.jobset_suspended(js) and not depends_on.dependency_reached_status(rjob, seen, statuses):"),),
        caught_by=("suspend/suspend-while-restarting",),
    ),
    # ------------------------------------------------------------------ suspend and resume
    Mistake(
        "running-jobs-not-suspended",
        "suspending a running JobSet sets the Suspended condition but leaves its active Jobs running",
        behaviours=("suspend.suspend-running", "kueue.evicted-restored", "kueue.preempt-by-priority", "kueue.requeued"),
        edits=(Edit(SUSPEND, "plan_suspend", "if not job_suspended(job):", "if False:"),),
        caught_by=("suspend/suspend-running", "suspend/suspend-while-restarting"),
    ),
    Mistake(
        "created-jobs-not-suspended",
        "Jobs of a suspended JobSet are created running (then suspended on the next pass)",
        behaviours=("suspend.create-suspended",),
        edits=(Edit(CONSTRUCT, "construct_job", 'spec["suspend"] = bool(js.spec.suspend)', 'spec["suspend"] = False'),),
        caught_by=("suspend/in-order-resume",),
    ),
    Mistake(
        "suspend-keeps-restarting-condition",
        "suspending does not flip RestartingJobSet to False/JobSetSuspended",
        behaviours=("suspend.restarting-false",),
        edits=(Edit(CONDITIONS, "suspended",
                    "        restarting_false(c.RESTARTING_JOBSET_REASON_JOBSET_SUSPENDED, c.JOBSET_SUSPENDED_MESSAGE),\n",
                    ""),),
        caught_by=("suspend/suspend-while-restarting",),
    ),
    Mistake(
        "suspended-condition-wrong-reason",
        "the Suspended condition says reason JobSetSuspended instead of SuspendedJobs",
        behaviours=("suspend.create-suspended", "suspend.suspend-running"),
        edits=(Edit(CONDITIONS, "suspended", "c.JOBSET_SUSPENDED_REASON,", "c.RESTARTING_JOBSET_REASON_JOBSET_SUSPENDED,"),),
        caught_by=("suspend/create-suspended-then-resume", "suspend/suspend-while-restarting"),
    ),
    Mistake(
        "resume-condition-not-set",
        "resuming unsuspends the Jobs but does not set Suspended=False/ResumeJobs",
        behaviours=("suspend.resume",),
        edits=(Edit(SUSPEND, "plan_resume", "return ResumePlan(to_resume, (conditions.resumed(),))",
                    "return ResumePlan(to_resume, ())"),),
        caught_by=("suspend/create-suspended-then-resume", "suspend/in-order-resume"),
    ),
    Mistake(
        "in-order-resume-all-at-once",
        "resuming an InOrder JobSet sets Suspended=False at once instead of after the last replicatedJob started",
        behaviours=("suspend.in-order-resume",),
        edits=(Edit(SUSPEND, "plan_resume", "if eligible.in_order_in_progress:", "if False:"),),
        caught_by=("suspend/in-order-resume",),
    ),
    Mistake(
        "resume-ignores-startup-order",
        "resume unsuspends the Jobs of every replicatedJob, not only those dependsOn/InOrder allow",
        behaviours=("suspend.in-order-resume", "suspend.depends-on", "kueue.in-order-under-admission"),
        edits=(Edit(SUSPEND, "plan_resume", "for name in eligible.replicated_jobs for job in by_rjob.get(name, ())",
                    "for name in templates for job in by_rjob.get(name, ())"),),
        caught_by=("suspend/in-order-resume",),
    ),
    Mistake(
        "resume-node-selector-not-carried",
        "resume does not merge the template's nodeSelector into the Jobs",
        behaviours=("suspend.resume-merge", "suspend.resume", "suspend.kueue-template-edit", "kueue.resume-node-selectors", "kueue.evicted-restored"),
        edits=(Edit(SUSPEND, "resumed_pod_template",
                    'merge_maps(spec.get("nodeSelector"), rjob_spec.get("nodeSelector"))',
                    'merge_maps(spec.get("nodeSelector"), None)'),),
        caught_by=("suspend/kueue-template-edit",),
    ),
    Mistake(
        "resume-node-selector-replaced",
        "resume replaces the Jobs' nodeSelector with the template's instead of merging (keys the template dropped are lost)",
        behaviours=("suspend.resume-merge", "suspend.resume", "suspend.kueue-template-edit"),
        edits=(Edit(SUSPEND, "resumed_pod_template",
                    'merge_maps(spec.get("nodeSelector"), rjob_spec.get("nodeSelector"))',
                    'merge_maps(None, rjob_spec.get("nodeSelector"))'),),
        caught_by=("suspend/resume-carries-template",),
    ),
    Mistake(
        "resume-labels-replaced",
        "resume replaces the pod template's labels and annotations with the template's, dropping the JobSet keys",
        behaviours=("suspend.resume-merge", "suspend.resume", "labels.pod-template"),
        edits=(Edit(SUSPEND, "resumed_pod_template", "merged = merge_maps(old, new)", "merged = merge_maps(None, new)"),),
        caught_by=("suspend/create-suspended-then-resume", "suspend/in-order-resume"),
    ),
    Mistake(
        "resume-tolerations-replaced",
        "resume replaces the Jobs' tolerations and schedulingGates with the template's instead of their union",
        behaviours=("suspend.resume-merge", "suspend.resume",),
        edits=(Edit(SUSPEND, "resumed_pod_template", "merged_list = merge_slices(spec.get(key), rjob_spec.get(key))",
                    "merged_list = merge_slices(None, rjob_spec.get(key))"),),
        caught_by=("suspend/resume-carries-template",),
    ),
    Mistake(
        "resume-tolerations-not-carried",
        "resume carries labels, annotations and nodeSelector but not tolerations and schedulingGates",
        behaviours=("suspend.resume-merge", "suspend.resume", "suspend.kueue-template-edit", "kueue.resume-node-selectors"),
        edits=(Edit(SUSPEND, "resumed_pod_template", 'for key in ("tolerations", "schedulingGates"):',
                    "for key in ():"),),
        caught_by=("suspend/kueue-template-edit",),
    ),
    Mistake(
        "resume-keeps-start-time",
        "resume updates the Job's pod template without clearing status.startTime first",
        behaviours=("suspend.resume-merge", "suspend.resume",),
        edits=(Edit(SUSPEND, "resumed_job", 'clear_start_time = status.get("startTime") is not None',
                    "clear_start_time = False"),),
        caught_by=("suspend/resume-carries-template",),
    ),
    # ------------------------------------------------------------------ TTL, managedBy, deletion
    Mistake(
        "ttl-zero-means-unset",
        "ttlSecondsAfterFinished: 0 is treated as unset (the JobSet is never deleted)",
        behaviours=("ttl.zero",),
        edits=(Edit(TTL, "evaluate_ttl", "if ttl is None:", "if not ttl:"),),
        caught_by=("lifecycle/ttl-zero",),
    ),
    Mistake(
        "ttl-from-creation",
        "the TTL counts from the JobSet's creation instead of from when it finished",
        behaviours=("ttl.after-finished",),
        edits=(Edit(TTL, "evaluate_ttl", "finish = jobset_finish_time(js, status)",
                    'jobset_finish_time(js, status)\n        finish = datetime.fromisoformat('
                    'str(js.metadata["creationTimestamp"]).replace("Z", "+00:00"))'),),
        caught_by=("examples/simple-ttl-after-finished",),
    ),
    Mistake(
        "ttl-not-requeued",
        "a finished JobSet whose TTL has not expired yet is not requeued, so it is only deleted if something else wakes it",
        behaviours=("ttl.after-finished",),
        edits=(Edit(RECONCILER, "JobSetReconciler._reconcile_finished", "return max(0, _to_ns(decision.requeue_after))",
                    "return 0"),),
        caught_by=("examples/simple-ttl-after-finished",),
    ),
    Mistake(
        "ttl-deletes-orphaning",
        "the TTL deletes the JobSet with propagationPolicy Orphan, leaving its Jobs, pods and Service behind",
        behaviours=("ttl.zero", "ttl.after-finished", "lifecycle.delete-cascades"),
        edits=(Edit(APPLY, "Applier.delete_jobset", 'propagation_policy="Foreground"', 'propagation_policy="Orphan"'),),
        caught_by=("lifecycle/ttl-zero", "examples/simple-ttl-after-finished"),
    ),
    Mistake(
        "managed-by-ignored",
        "spec.managedBy is ignored: a JobSet managed by another controller is reconciled",
        behaviours=("managed-by.external",),
        edits=(Edit(MANAGED_BY, "managed_by_external_controller",
                    "if manager is not None and manager != c.JOBSET_CONTROLLER_NAME:", "if False:"),),
        caught_by=("lifecycle/managed-by-external",),
    ),
    Mistake(
        "managed-by-own-name-skipped",
        "any spec.managedBy value, the JobSet controller's own included, makes the controller skip the JobSet",
        behaviours=("managed-by.jobset-controller",),
        edits=(Edit(MANAGED_BY, "managed_by_external_controller",
                    "if manager is not None and manager != c.JOBSET_CONTROLLER_NAME:", "if manager is not None:"),),
        caught_by=("lifecycle/managed-by-jobset-controller",),
    ),
    # ------------------------------------------------------------------ replicatedJobsStatus
    Mistake(
        "rjob-status-ready-means-active",
        "replicatedJobsStatus counts a Job ready when its pods are active instead of ready",
        behaviours=("status.replicated-jobs-status", "failure.restarting-condition"),
        edits=(Edit(STATUS, "calculate_replicated_job_statuses",
                    'if int(job_status.get("succeeded") or 0) + int(job_status.get("ready") or 0) >= _pods_count(job):',
                    'if int(job_status.get("succeeded") or 0) + int(job_status.get("active") or 0) >= _pods_count(job):'),),
        caught_by=("failure/no-rule-matches", "failure/repeat-restart-same-job"),
    ),
    Mistake(
        "rjob-status-suspended-not-counted",
        "replicatedJobsStatus never counts suspended Jobs",
        behaviours=("status.replicated-jobs-status", "suspend.create-suspended", "kueue.suspended-at-creation"),
        edits=(Edit(STATUS, "calculate_replicated_job_statuses", 'bucket["suspended"] += 1', "pass"),),
        caught_by=("suspend/create-suspended-then-resume", "suspend/suspend-running"),
    ),
    Mistake(
        "rjob-status-sorted-ascending",
        "replicatedJobsStatus is stored sorted by name ascending instead of descending",
        behaviours=("status.replicated-jobs-status",),
        edits=(Edit(STATUS, "_sorted_desc", "reverse=True", "reverse=False"),),
        caught_by=("naming/job-spec-and-owner", "success/all-default"),
    ),
    # ------------------------------------------------------------------ volume claim policies
    Mistake(
        "pvc-name-jobset-first",
        "PVCs are named <jobset>-<template> instead of <template>-<jobset>",
        behaviours=("volumes.pvc-created", "volumes.volume-injected"),
        edits=(Edit(VOLUMES, "pvc_name", 'f"{template_name}-{jobset_name}"', 'f"{jobset_name}-{template_name}"'),),
        caught_by=("volumes/pvc-creation-failed", "examples/volume-claim-policy-single-pvc"),
    ),
    Mistake(
        "pvc-missing-jobset-label",
        "PVCs do not get the jobset-name label",
        behaviours=("volumes.pvc-created",),
        edits=(Edit(VOLUMES, "construct_pvcs", "labels[c.JOBSET_NAME_KEY] = js.name", "pass"),),
        caught_by=("volumes/pvc-creation-failed", "examples/volume-claim-policy-single-pvc"),
    ),
    Mistake(
        "pvc-retention-inverted",
        "the PVC is owned by the JobSet for whenDeleted: Retain and left unowned for Delete",
        behaviours=("volumes.delete", "volumes.retain"),
        edits=(Edit(VOLUMES, "owned_by_jobset", "return retention.when_deleted in (None, RetentionPolicyType.DELETE)",
                    "return retention.when_deleted == RetentionPolicyType.RETAIN"),),
        caught_by=("examples/volume-claim-policy-single-pvc",),
    ),
    Mistake(
        "volume-not-injected-for-init-containers",
        "only containers' volumeMounts are looked at: an initContainer mounting the template gets no volume",
        behaviours=("volumes.volume-injected",),
        edits=(Edit(VOLUMES, "_has_volume_mount", 'for kind in ("containers", "initContainers"):',
                    'for kind in ("containers",):'),),
        caught_by=("volumes/retention-and-mounts",),
    ),
    Mistake(
        "pvc-creation-failed-no-event",
        "a failed PVC create is retried but emits no PVCCreationFailed event",
        behaviours=("events.pvc-creation-failed",),
        edits=(Edit(APPLY, "Applier.create_pvcs",
                    "self.event(jobset, WARNING, c.PVC_CREATION_FAILED_REASON, err.message)", "pass"),),
        caught_by=("volumes/pvc-creation-failed",),
    ),
    # ------------------------------------------------------------------ feature gates
    Mistake(
        "elastic-jobs-not-patched",
        "with ElasticJobSet, a changed parallelism/completions is accepted but the active Jobs are never patched",
        behaviours=("gates.elastic",),
        edits=(Edit(ELASTIC, "plan_scaling", "if job_scaling_needs_patch(job, parallelism, completions):", "if False:"),),
        caught_by=("gates/elastic-jobset",),
    ),
    Mistake(
        "in-place-previous-attempt-off-by-one",
        "in-place restart sets previousInPlaceRestartAttempt to the highest attempt instead of one below it",
        behaviours=("gates.in-place-restart", "gates.in-place-attempts"),
        edits=(Edit(IN_PLACE, "evaluate_in_place_restart", "previous = highest - 1", "previous = highest"),),
        caught_by=("gates/in-place-restart-attempts",),
    ),
    Mistake(
        "in-place-sidecar-restarts-ignored",
        "in-place restart compares only the regular containers' restart counts with maxRestarts, not those of "
        "init containers (sidecars)",
        behaviours=("gates.in-place-attempts",),
        edits=(Edit(IN_PLACE, "_max_container_restart_count",
                    'for key in ("initContainerStatuses", "containerStatuses"):', 'for key in ("containerStatuses",):'),),
        caught_by=("gates/in-place-restart-sidecar-restarts",),
    ),
    Mistake(
        "in-place-attempts-less-every-restart",
        "in-place restart subtracts every JobSet restart from the pods' attempts before comparing them with "
        "maxRestarts, not only the restarts that do not count towards it",
        behaviours=("gates.in-place-attempts",),
        edits=(Edit(IN_PLACE, "evaluate_in_place_restart",
                    "highest - (status.restarts - status.restarts_count_towards_max)", "highest - status.restarts"),),
        caught_by=("gates/in-place-restart-after-counted-restart",),
    ),
    Mistake(
        "rjob-status-change-not-written",
        "a pass that only changes replicatedJobsStatus does not write the status",
        behaviours=("status.replicated-jobs-status",),
        edits=(Edit(STATUS, "StatusDraft.set_replicated_jobs_status",
                    "        self.should_update = True\n        self._changed()", "        self._changed()"),),
        caught_by=("failure/no-failure-policy", "naming/job-spec-and-owner"),
    ),
)
