"""Mistakes in the success policy (controller spec §7)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

SUCCESS = "jobset_ref.controller.policies.success_policy"
CONDITIONS = "jobset_ref.controller.conditions"
RECONCILER = "jobset_ref.controller.reconciler"

MISTAKES = (
    Mistake(
        "success-targets-ignored",
        "a completed Job counts towards the success policy whichever replicatedJob it belongs to",
        behaviours=("success.all-targets", "success.any-targets"),
        edits=(Edit(SUCCESS, "jobs_matching_success_policy", "if not targets:", "if True:"),),
        caught_by=("success/any-targets",),
    ),
    Mistake(
        "success-any-needs-all",
        "operator Any waits for every Job as All does",
        behaviours=("success.any", "success.any-targets"),
        edits=(Edit(SUCCESS, "jobs_expected_to_succeed", "if policy.operator == Operator.ANY:", "if False:"),),
        caught_by=("success/any-targets",),
    ),
    Mistake(
        "success-all-counts-replicated-jobs",
        "operator All expects one completed Job per replicatedJob instead of one per replica",
        behaviours=("success.all", "success.all-targets"),
        edits=(Edit(SUCCESS, "jobs_expected_to_succeed",
                    "return sum(r.replicas for r in js.replicated_jobs if not targets or r.name in targets)",
                    "return sum(1 for r in js.replicated_jobs if not targets or r.name in targets)"),),
        caught_by=("success/all-default", "success/degenerate-targets"),
    ),
    Mistake(
        "active-jobs-kept-after-finish",
        "a finished JobSet leaves its still-active Jobs running",
        behaviours=("success.active-jobs-deleted", "failure.no-policy"),
        edits=(Edit(RECONCILER, "JobSetReconciler._reconcile_finished", "self.apply.delete_jobs(children.active)", "pass"),),
        caught_by=("failure/no-failure-policy", "examples/failure-policy-failjobset-action"),
    ),
    Mistake(
        "finished-jobs-deleted-after-finish",
        "a finished JobSet deletes its completed Jobs along with the active ones",
        behaviours=("success.active-jobs-deleted",),
        edits=(Edit(RECONCILER, "JobSetReconciler._reconcile_finished", "self.apply.delete_jobs(children.active)",
                    "self.apply.delete_jobs(children.active + children.successful)"),),
        caught_by=("examples/argo-workflow-workflow", "examples/depends-on-depends-on"),
    ),
    Mistake(
        "completed-reason-jobset-completed",
        "the Completed condition says reason JobSetCompleted instead of AllJobsCompleted",
        behaviours=("success.completed-condition",),
        edits=(Edit(CONDITIONS, "completed", "SetCondition(ConditionIntent(c.JOBSET_COMPLETED, TRUE, c.ALL_JOBS_COMPLETED_REASON,",
                    "SetCondition(ConditionIntent(c.JOBSET_COMPLETED, TRUE, c.RESTARTING_JOBSET_REASON_JOBSET_COMPLETED,"),),
        caught_by=("examples/failure-policy-restartjobsetandignoremaxrestarts-action", "examples/simple-paralleljobs"),
    ),
    Mistake(
        "completed-without-terminal-state",
        "completion sets the Completed condition but not status.terminalState",
        behaviours=("success.completed-condition", "kueue.finish-releases"),
        edits=(Edit(CONDITIONS, "completed", "        SetTerminalState(c.JOBSET_COMPLETED),\n", ""),),
        caught_by=("examples/argo-workflow-workflow", "examples/depends-on-depends-on"),
    ),
)
