"""Mistakes in the failure policy, restarts and the restart strategies (controller spec §8)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

STATUS = "jobset_ref.controller.status"
FAILURE = "jobset_ref.controller.policies.failure_policy"
OBSERVE = "jobset_ref.controller.observe"
CONSTRUCT = "jobset_ref.controller.construct"
CONDITIONS = "jobset_ref.controller.conditions"
RECONCILER = "jobset_ref.controller.reconciler"
APPLY = "jobset_ref.controller.apply"

MISTAKES = (
    Mistake(
        "restart-attempt",
        "a JobSet restart never increments status.restarts, so Jobs are recreated with the same restart-attempt",
        behaviours=("failure.restart-attempt", "labels.restart-attempt"),
        edits=(Edit(STATUS, "StatusDraft._apply_one",
                    'self.wire["restarts"] = int(self.wire.get("restarts") or 0) + 1',
                    'self.wire["restarts"] = int(self.wire.get("restarts") or 0)'),),
        caught_by=("failure/rule-matching",),
    ),
    Mistake(
        "first-failed-job-is-last",
        "without a failure policy, the Failed message names the Job that failed last instead of first",
        behaviours=("failure.first-failed-job", "failure.no-policy"),
        edits=(Edit(FAILURE, "find_first_failed_job", "if first is None or when < first_time:",
                    "if first is None or when > first_time:"),),
        caught_by=("failure/first-failed-job-status-retry",),
    ),
    Mistake(
        "rule-acts-on-last-failed-job",
        "a matching failure-policy rule acts on (and names) the Job that failed last instead of first",
        behaviours=("failure.first-failed-job", "failure.match.first-rule-wins"),
        edits=(Edit(FAILURE, "find_first_failed_policy_rule_and_job", "earlier = matched is None or when < matched_time",
                    "earlier = matched is None or when > matched_time"),),
        caught_by=("failure/first-failed-job-status-retry",),
    ),
    Mistake(
        "max-restarts-off-by-one",
        "the restart limit is checked with > instead of >=, so maxRestarts: N allows N+1 restarts",
        behaviours=("failure.max-restarts", "failure.max-restarts-zero", "story.tpu-multislice"),
        edits=(Edit(FAILURE, "restart_jobset", "or ctx.status.restarts_count_towards_max >= max_restarts",
                    "or ctx.status.restarts_count_towards_max > max_restarts"),),
        caught_by=("failure/max-restarts-zero", "examples/failure-policy-host-maintenance-event-model"),
    ),
    Mistake(
        "ignore-max-restarts-counted",
        "RestartJobSetAndIgnoreMaxRestarts counts its restarts towards maxRestarts",
        behaviours=("failure.action.restart-jobset-ignore-max", "failure.restarts-count-towards-max"),
        edits=(Edit(FAILURE, "restart_jobset_and_ignore_max_restarts", "counted=False", "counted=True"),),
        caught_by=("examples/failure-policy-host-maintenance-event-model", "examples/failure-policy-onjobfailurereasons-present"),
    ),
    Mistake(
        "restarting-reason-ignores-rule",
        "a restart by a named rule says reason DefaultFailurePolicy instead of FailurePolicy_<rule>",
        behaviours=("failure.action.restart-jobset",),
        edits=(Edit(FAILURE, "_restarting_reason", "if rule is None:", "if True:"),),
        caught_by=("failure/rule-matching", "examples/failure-policy-host-maintenance-event-model"),
    ),
    Mistake(
        "message-patterns-anchored",
        "onJobFailureMessagePatterns must match the whole message (fullmatch) instead of anywhere in it",
        behaviours=("failure.match.message-patterns",),
        edits=(Edit(FAILURE, "_any_match_found", "if re.search(pattern, message):", "if re.fullmatch(pattern, message):"),),
        caught_by=("failure/rule-matching",),
    ),
    Mistake(
        "rule-targets-ignored",
        "a rule's targetReplicatedJobs is ignored: it matches failures of every replicatedJob",
        behaviours=("failure.match.targets",),
        edits=(Edit(FAILURE, "rule_is_applicable",
                    "return not rule.target_replicated_jobs or parent in rule.target_replicated_jobs", "return True"),),
        caught_by=("failure/no-rule-matches", "examples/failure-policy-restartjob-action"),
    ),
    Mistake(
        "rule-reasons-ignored",
        "a rule's onJobFailureReasons is ignored: it matches whatever the Job failed with",
        behaviours=("failure.match.reasons", "restart.node-failure"),
        edits=(Edit(FAILURE, "rule_is_applicable",
                    "if rule.on_job_failure_reasons and reason not in rule.on_job_failure_reasons:", "if False:"),),
        caught_by=("examples/failure-policy-host-maintenance-event-model",),
    ),
    Mistake(
        "last-matching-rule-wins",
        "failure-policy rules are tried from last to first, so a later matching rule wins",
        behaviours=("failure.match.first-rule-wins",),
        edits=(Edit(FAILURE, "find_first_failed_policy_rule_and_job", "for rule in rules:", "for rule in reversed(rules):"),),
        caught_by=("failure/rule-matching", "examples/failure-policy-host-maintenance-event-model"),
    ),
    Mistake(
        "no-matching-rule-fails",
        "when no rule matches, the JobSet fails instead of applying the default RestartJobSet",
        behaviours=("failure.match.no-rule", "failure.default-restart"),
        edits=(Edit(FAILURE, "evaluate_failure_policy", "action = DEFAULT_FAILURE_POLICY_RULE_ACTION",
                    "action = FailurePolicyAction.FAIL_JOBSET"),),
        caught_by=("failure/max-restarts-zero", "failure/no-rule-matches"),
    ),
    Mistake(
        "fail-jobset-action-reason",
        "the FailJobSet action fails the JobSet with reason FailedJobs instead of FailJobSetFailurePolicyAction",
        behaviours=("failure.action.fail-jobset",),
        edits=(Edit(FAILURE, "fail_jobset", "conditions.failed(c.FAIL_JOBSET_ACTION_REASON, message)",
                    "conditions.failed(c.FAILED_JOBS_REASON, message)"),),
        caught_by=("failure/first-failed-job-status-retry", "failure/no-rule-matches"),
    ),
    Mistake(
        "restart-job-restarts-jobset",
        "the RestartJob action recreates every Job (a JobSet restart) instead of only the failed one",
        behaviours=("failure.action.restart-job", "failure.job-restarts-status"),
        edits=(Edit(FAILURE, "restart_job", "return _recreate_job(ctx, counted=True,", "return _recreate_all(ctx, counted=True,"),),
        caught_by=("examples/failure-policy-restartjob-action",),
    ),
    Mistake(
        "restart-job-ignore-max-counted",
        "RestartJobAndIgnoreMaxRestarts counts its restarts in jobRestartsCountTowardsMax",
        behaviours=("failure.action.restart-job-ignore-max", "failure.job-restarts-status"),
        edits=(Edit(FAILURE, "restart_job_and_ignore_max_restarts", "counted=False", "counted=True"),),
        caught_by=("examples/failure-policy-restartjobandignoremaxrestarts-action",),
    ),
    Mistake(
        "job-restarts-not-carried",
        "replicatedJobsStatus is recomputed without the jobRestarts arrays of the previous status",
        behaviours=("failure.job-restarts-status", "failure.action.restart-job"),
        edits=(Edit(STATUS, "calculate_replicated_job_statuses", "if restart_job_gate and name in existing:", "if False:"),),
        caught_by=("examples/failure-policy-restartjob-action", "examples/failure-policy-restartjobandignoremaxrestarts-action"),
    ),
    Mistake(
        "restarting-never-cleared",
        "RestartingJobSet stays True after the restarted Jobs are all ready (no False/JobsReady)",
        behaviours=("failure.restarting-condition",),
        edits=(Edit(RECONCILER, "JobSetReconciler._reconcile",
                    "if not suspend.jobset_suspended(js) and _all_jobs_ready(js, statuses):", "if False:"),),
        caught_by=("failure/no-rule-matches", "failure/repeat-restart-same-job"),
    ),
    Mistake(
        "failed-keeps-restarting-true",
        "failing the JobSet does not flip RestartingJobSet to False/JobSetFailed",
        behaviours=("failure.restarting-terminal",),
        edits=(Edit(CONDITIONS, "failed",
                    "        restarting_false(c.RESTARTING_JOBSET_REASON_JOBSET_FAILED, "
                    "c.RESTARTING_JOBSET_MESSAGE_JOBSET_FAILED),\n", ""),),
        caught_by=("failure/rule-matching", "examples/failure-policy-restartjobset-action"),
    ),
    Mistake(
        "restart-event-normal",
        "the failure-policy action event of a restart is Normal instead of Warning",
        behaviours=("failure.events",),
        edits=(Edit(FAILURE, "_recreate_all", "QueueEvent(EventIntent(WARNING, event_reason, message)),",
                    'QueueEvent(EventIntent("Normal", event_reason, message)),'),),
        caught_by=("failure/no-rule-matches", "failure/repeat-restart-same-job"),
    ),
    Mistake(
        "previous-attempt-jobs-kept",
        "Jobs of a previous restart attempt are not deleted (the new attempt's Jobs are never created by name)",
        behaviours=("restart.recreate", "failure.restart-attempt", "kueue.restart-while-admitted"),
        edits=(Edit(RECONCILER, "JobSetReconciler._reconcile", "self.apply.delete_jobs(children.previous)", "pass"),),
        caught_by=("failure/no-rule-matches", "failure/repeat-restart-same-job"),
    ),
    Mistake(
        "blocking-recreate-not-blocking",
        "BlockingRecreate creates each new Job as soon as its old one is gone, as Recreate does",
        behaviours=("restart.blocking-recreate",),
        edits=(Edit(CONSTRUCT, "construct_jobs_from_template", "if blocking and children.previous:", "if False:"),),
        caught_by=("failure/restart-strategy-blockingrecreate",),
    ),
    Mistake(
        "jobs-deleted-in-background",
        "old Jobs are deleted with propagationPolicy Background, so a Job is gone while its pods still run",
        behaviours=("restart.blocking-recreate", "restart.recreate", "success.active-jobs-deleted"),
        edits=(Edit(APPLY, "Applier.delete_jobs", 'propagation_policy="Foreground")', 'propagation_policy="Background")'),),
        caught_by=("failure/restart-strategy-blockingrecreate", "failure/restart-strategy-recreate"),
    ),
    Mistake(
        "job-creation-failed-no-event",
        "a failed Job create is retried but emits no JobCreationFailed event",
        behaviours=("events.job-creation-failed",),
        edits=(Edit(APPLY, "Applier.create_jobs",
                    "self.event(jobset, WARNING, c.JOB_CREATION_FAILED_REASON, message)", "pass"),),
        caught_by=("failure/creation-errors", "lifecycle/foreign-jobs"),
    ),
    Mistake(
        "max-restarts-counts-every-restart",
        "the restart limit compares status.restarts (every restart) instead of restartsCountTowardsMax",
        behaviours=("failure.restarts-count-towards-max", "failure.action.restart-jobset-ignore-max"),
        edits=(Edit(FAILURE, "restart_jobset", "or ctx.status.restarts_count_towards_max >= max_restarts",
                    "or ctx.status.restarts >= max_restarts"),),
        caught_by=("failure/restarts-count-towards-max",),
    ),
    Mistake(
        "events-before-status-write",
        "the pass's events are emitted before its status write, so a write that fails repeats them on every retry",
        behaviours=("failure.events", "failure.no-policy"),
        edits=(Edit(RECONCILER, "JobSetReconciler.reconcile",
                    "updated = self.apply.write_status(obj, draft)  # a Conflict propagates: events dropped\n"
                    "            self.apply.emit(updated, draft.events)",
                    "self.apply.emit(obj, draft.events)\n            self.apply.write_status(obj, draft)"),),
        caught_by=("failure/first-failed-job-status-retry",),
    ),
)
