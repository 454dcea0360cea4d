"""The conformance coverage matrix: every spec field and behaviour → the scenarios covering it.

    python -m jobset_ref.conformance.matrix            # rewrite docs/conformance-matrix.md
    python -m jobset_ref.conformance.matrix --check    # exit 1 if a row is uncovered or the file is stale

The catalogue below is the list of behaviours of ``shared/spec/jobset-controller.md`` and
``shared/spec/jobset-api.md`` (section in brackets) plus the upstream examples and the stories
of the JobSet docs. A scenario claims rows with ``covers: [<id>, ...]``; a scenario that reads
the packaged manifest of an upstream example (``manifest: <path>``, the project's own manifest
of the same shape) or the example itself (``upstream: <path>``) automatically covers
``example:<path>``. ``conformance/test_matrix.py`` (in the repository) fails when a row has no
scenario, when a scenario names an unknown row, or when the committed markdown is stale; the
markdown lives in a source checkout only.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jobset_ref.conformance.scenario import REPO_ROOT, SCENARIOS_DIR, Scenario, in_source_tree, load_scenarios

__all__ = ["AREAS", "CATALOGUE", "MATRIX_PATH", "UPSTREAM_JOBSET_EXAMPLES", "Row", "coverage", "main", "render"]

MATRIX_PATH = REPO_ROOT / "docs" / "conformance-matrix.md"


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    text: str
    ref: str


def _rows(*items: tuple[str, str, str]) -> tuple[Row, ...]:
    return tuple(Row(*item) for item in items)


C = "controller"
A = "api"

AREAS: dict[str, tuple[Row, ...]] = {
    "Naming, labels and annotations": _rows(
        ("naming.job-name", "Job name `<jobset>-<rjob>-<index>`, one Job per replica, in the JobSet namespace", f"{C} §4"),
        ("naming.owner-reference", "Job has one controller ownerReference to the JobSet (apiVersion, blockOwnerDeletion)",
         f"{C} §4"),
        ("naming.template-copied", "Job spec and template labels/annotations copied verbatim from the rjob template",
         f"{C} §4"),
        ("naming.pod-hostname", "Indexed pods get hostname `<job>-<podIndex>` and the JobSet subdomain", f"{C} §4, §5"),
        ("naming.suspend-explicit", "Job `spec.suspend` always set explicitly (false when the JobSet runs)", f"{C} §4"),
        ("naming.generate-name", "a generateName JobSet: Jobs, labels and Service use the generated name",
         f"{C} §5, {A} §6.0"),
        ("naming.replicas-zero", "`replicas: 0` creates no Job for that replicatedJob", f"{A} §3.3"),
        ("naming.foreign-jobs", "a Job named like the JobSet's but not owned by it (no controller owner, or a "
         "same-named predecessor's UID) is not adopted, counted or deleted; its create fails (`JobCreationFailed`) "
         "until it is gone", f"{C} §3.3, §3.6; upstream createJobs TODO(#18)"),
        ("labels.jobset-name", "label+annotation `jobset.sigs.k8s.io/jobset-name`", f"{C} §4.1"),
        ("labels.jobset-uid", "label+annotation `jobset.sigs.k8s.io/jobset-uid`", f"{C} §4.1"),
        ("labels.replicatedjob-name", "label+annotation `jobset.sigs.k8s.io/replicatedjob-name`", f"{C} §4.1"),
        ("labels.replicatedjob-replicas", "label+annotation `jobset.sigs.k8s.io/replicatedjob-replicas`", f"{C} §4.1"),
        ("labels.global-replicas", "label+annotation `jobset.sigs.k8s.io/global-replicas`", f"{C} §4.1"),
        ("labels.job-index", "label+annotation `jobset.sigs.k8s.io/job-index`", f"{C} §4.1"),
        ("labels.job-global-index", "label+annotation `jobset.sigs.k8s.io/job-global-index`", f"{C} §4.1"),
        ("labels.job-key", "label+annotation `jobset.sigs.k8s.io/job-key` = SHA-1 of `<ns>/<job>`", f"{C} §4.1"),
        ("labels.restart-attempt", "label+annotation `jobset.sigs.k8s.io/restart-attempt` = status.restarts",
         f"{C} §4.1"),
        ("labels.group", "group-name / group-replicas / job-group-index labels and annotations", f"{C} §4.1"),
        ("labels.job-restart-attempt", "`jobset.sigs.k8s.io/job-restart-attempt` only with gate RestartJob",
         f"{C} §4.1"),
        ("labels.pod-template", "the same labels and annotations on the pod template and the pods", f"{C} §4.1"),
        ("labels.exclusive-annotation-only", "exclusive-topology propagated as an annotation only", f"{C} §4.1"),
    ),
    "Network, Service, DNS and coordinator": _rows(
        ("network.headless-service", "one headless Service named after the JobSet: clusterIP None, selector "
         "jobset-name, no ports, owned by the JobSet", f"{C} §5"),
        ("network.subdomain", "`network.subdomain` names the Service and the pods' subdomain", f"{C} §5"),
        ("network.dns-disabled", "`enableDNSHostnames: false`: no Service, no subdomain set", f"{C} §5"),
        ("network.publish-not-ready", "`publishNotReadyAddresses` (default true) copied to the Service", f"{C} §5"),
        ("network.service-not-adopted", "an existing Service with that name is left untouched", f"{C} §5"),
        ("network.service-recreated", "a deleted headless Service is recreated", f"{C} §5"),
        ("network.dns-resolution", "`<jobset>-<rjob>-<job>-<pod>.<subdomain>` resolves to the pod", f"{C} §5"),
        ("coordinator.endpoint", "`jobset.sigs.k8s.io/coordinator` label+annotation on every Job and pod",
         f"{C} §5, {A} §3.10"),
        ("coordinator.subdomain", "coordinator endpoint uses the custom subdomain", f"{A} §3.10"),
        ("coordinator.dns-disabled", "coordinator endpoint set even with DNS hostnames disabled", f"{C} §5"),
        ("groups.default", "`groupName` defaults to `default`; one group spans all rjobs", f"{A} §3.3"),
        ("groups.multiple", "several groups: group-replicas and job-group-index per group", f"{C} §4.1"),
    ),
    "Success policy": _rows(
        ("success.all", "`All` (default): every Job of every rjob must complete", f"{C} §7"),
        ("success.all-targets", "`All` + targets: only the target rjobs' Jobs must complete", f"{C} §7"),
        ("success.any", "`Any`: the first completed Job completes the JobSet", f"{C} §7"),
        ("success.any-targets", "`Any` + targets: the first completed Job of a target rjob", f"{C} §7"),
        ("success.completed-condition", "Completed=True `AllJobsCompleted` `jobset completed successfully`, "
         "terminalState Completed, event", f"{C} §6"),
        ("success.active-jobs-deleted", "after completion still-active Jobs are deleted, finished Jobs kept",
         f"{C} §3.2-4"),
    ),
    "Failure policy": _rows(
        ("failure.no-policy", "no failurePolicy: first failed Job fails the JobSet, `FailedJobs`", f"{C} §8.1"),
        ("failure.first-failed-job", "message suffix `(first failed job: <job>)` names the earliest failure",
         f"{C} §8.1"),
        ("failure.default-restart", "failurePolicy without rules restarts the JobSet (`DefaultFailurePolicy`)",
         f"{C} §8.2"),
        ("failure.max-restarts", "`maxRestarts: N` allows N restarts; failure N+1 fails with `ReachedMaxRestarts`",
         f"{C} §8.3"),
        ("failure.max-restarts-zero", "`maxRestarts: 0`: the first failure is terminal", f"{C} §8.3"),
        ("failure.restart-attempt", "a restart recreates every Job and pod with restart-attempt N", f"{C} §8.4"),
        ("failure.restarting-condition", "RestartingJobSet=True during a restart, False `JobsReady` when all ready",
         f"{C} §6"),
        ("failure.restarting-terminal", "RestartingJobSet=False `JobSetFailed`/`JobSetCompleted` when finished",
         f"{C} §6"),
        ("failure.events", "condition event then action event, Warning, action Reconciling", f"{C} §6"),
        ("failure.action.fail-jobset", "rule action `FailJobSet`", f"{C} §8.3"),
        ("failure.action.restart-jobset", "rule action `RestartJobSet` (reason `FailurePolicy_<rule>`)", f"{C} §8.3"),
        ("failure.action.restart-jobset-ignore-max", "rule action `RestartJobSetAndIgnoreMaxRestarts`", f"{C} §8.3"),
        ("failure.action.restart-job", "rule action `RestartJob` (gate RestartJob): only the failed Job restarts",
         f"{C} §8.3"),
        ("failure.action.restart-job-ignore-max", "rule action `RestartJobAndIgnoreMaxRestarts`", f"{C} §8.3"),
        ("failure.match.reasons", "rule matches by `onJobFailureReasons`", f"{C} §8.2"),
        ("failure.match.message-patterns", "rule matches by `onJobFailureMessagePatterns` (unanchored regex)",
         f"{C} §8.2"),
        ("failure.match.targets", "rule matches by `targetReplicatedJobs`", f"{C} §8.2"),
        ("failure.match.first-rule-wins", "rules in order, the first matching rule wins", f"{C} §8.2"),
        ("failure.match.no-rule", "no matching rule: default `RestartJobSet`", f"{C} §8.2"),
        ("failure.restarts-count-towards-max", "`restartsCountTowardsMax` counts only RestartJobSet restarts",
         f"{C} §8.3"),
        ("failure.job-restarts-status", "`jobRestarts`/`jobRestartsCountTowardsMax` per Job index", f"{C} §8.3"),
        ("restart.recreate", "`Recreate`: each Job recreated as soon as its old Job is gone", f"{C} §8.5"),
        ("restart.blocking-recreate", "`BlockingRecreate`: no Job created while any old Job exists", f"{C} §8.5"),
        ("restart.node-failure", "a node failure fails pods, Jobs and restarts the JobSet", f"{C} §8.4"),
        ("events.job-creation-failed", "Job create error: Warning `JobCreationFailed` at once, retried",
         f"{C} §3.6"),
        ("events.service-creation-failed", "Service create error: Warning `HeadlessServiceCreationFailed`",
         f"{C} §5"),
        ("events.pvc-creation-failed", "PVC create error: Warning `PVCCreationFailed`", f"{C} §9.9"),
    ),
    "Startup order and dependencies": _rows(
        ("startup.in-order", "`InOrder`: each rjob created after the previous one is ready; "
         "StartupPolicyInProgress → StartupPolicyCompleted", f"{C} §9.1"),
        ("startup.in-order-restart", "after a restart InOrder startup begins again from the first rjob",
         f"{C} §9.1"),
        ("startup.any-order", "`AnyOrder`: all Jobs at once, no startup conditions", f"{C} §9.1"),
        ("depends-on.ready", "`dependsOn` status `Ready`", f"{C} §9.2"),
        ("depends-on.complete", "`dependsOn` status `Complete`", f"{C} §9.2"),
        ("depends-on.multiple", "several dependencies (AND)", f"{C} §9.2"),
    ),
    "Suspend and resume": _rows(
        ("suspend.create-suspended", "created suspended: Jobs suspended, no pods, Suspended=True `SuspendedJobs`",
         f"{C} §9.3"),
        ("suspend.suspend-running", "suspending a running JobSet suspends its Jobs (pods go away)", f"{C} §9.3"),
        ("suspend.resume", "resume: Jobs unsuspended, Suspended=False `ResumeJobs`", f"{C} §9.3"),
        ("suspend.kueue-template-edit", "while suspended, pod-template labels/annotations/nodeSelector/"
         "tolerations/schedulingGates may change and are merged into Jobs on resume", f"{C} §9.3, {A} §7"),
        ("suspend.other-edits-rejected", "other replicatedJobs changes are rejected (`field is immutable`)",
         f"{A} §7"),
        ("suspend.resume-merge", "resume of Jobs that ran: status.startTime cleared first; labels, annotations, "
         "nodeSelector merged one way (keys dropped from the template stay); tolerations, schedulingGates unioned",
         f"{C} §9.3; upstream resumeJob, collections.MergeMaps/MergeSlices"),
        ("suspend.restarting-false", "suspending sets RestartingJobSet=False `JobSetSuspended`", f"{C} §9.3"),
        ("suspend.depends-on", "a suspended JobSet creates only rjobs whose dependencies are reached",
         f"{C} §9.2"),
        ("suspend.in-order-resume", "resume with `InOrder` keeps Suspended=True until all rjobs started",
         f"{C} §9.3"),
    ),
    "Lifecycle: TTL, managedBy, deletion": _rows(
        ("ttl.after-finished", "`ttlSecondsAfterFinished`: JobSet deleted that long after finishing", f"{C} §9.4"),
        ("ttl.zero", "`ttlSecondsAfterFinished: 0`: deleted right after finishing", f"{C} §9.4"),
        ("managed-by.external", "`managedBy` another controller: no Jobs, no Service, no status", f"{C} §9.5b"),
        ("managed-by.jobset-controller", "`managedBy: jobset.sigs.k8s.io/jobset-controller` is reconciled",
         f"{C} §9.5b"),
        ("lifecycle.delete-cascades", "deleting the JobSet garbage-collects Jobs, pods and Service", f"{C} §9.6"),
        ("status.replicated-jobs-status", "`replicatedJobsStatus` counters ready/succeeded/failed/active/suspended",
         f"{C} §3.4"),
        ("status.no-conditions-running", "a running AnyOrder JobSet has no conditions", f"{C} §6"),
    ),
    "Volume claim policies": _rows(
        ("volumes.pvc-created", "PVC `<template>-<jobset>` created with the jobset-name label", f"{C} §9.9"),
        ("volumes.volume-injected", "pods mounting the template name get a PVC volume", f"{C} §9.9"),
        ("volumes.delete", "`whenDeleted: Delete` (default): PVC owned by the JobSet, deleted with it", f"{C} §9.9"),
        ("volumes.retain", "`whenDeleted: Retain`: PVC survives the JobSet", f"{C} §9.9"),
    ),
    "Exclusive placement": _rows(
        ("exclusive.one-job-per-domain", "each Job alone in one topology domain (node pool)", f"{C} §4.2"),
        ("exclusive.leader-affinity", "pod webhook adds affinity/anti-affinity to the leader pod", f"{A} §9.1"),
        ("exclusive.follower-node-selector", "followers get the leader's topology as nodeSelector", f"{A} §9.1"),
        ("exclusive.node-selector-strategy", "`node-selector` strategy: namespaced-job nodeSelector + toleration",
         f"{C} §4"),
        ("exclusive.rjob-level", "exclusive-topology annotation on one rjob's template only", f"{C} §4.1"),
        ("exclusive.priority-label", "pod webhook labels pods with `jobset.sigs.k8s.io/priority`", f"{A} §9.1"),
        ("exclusive.follower-unscheduled-leader", "a follower of an unscheduled leader is refused (transient): "
         "`follower pod node selector not set` / `leader pod not yet scheduled`", f"{A} §9.1-9.2"),
        ("exclusive.leader-lookup", "the leader lookup skips finished and terminating leader pods "
         "(else `expected 1 leader pod`)", f"{A} §9.3"),
        ("exclusive.leader-node", "leader's Node without the topology label: 403; Node gone: its 404 NotFound",
         f"{A} §9.1"),
        ("exclusive.repair-misplaced", "pod reconciler deletes followers outside the leader's domain "
         "(DisruptionTarget `ExclusivePlacementViolation`), not the leader", f"{C} §10"),
    ),
    "Admission: defaulting": _rows(
        ("defaulting.success-policy", "successPolicy defaults to `{operator: All}`", f"{A} §5.2"),
        ("defaulting.startup-policy", "startupPolicy defaults to `AnyOrder`", f"{A} §5.2"),
        ("defaulting.completion-mode", "completionMode defaults to `Indexed`", f"{A} §5.2"),
        ("defaulting.restart-policy", "pod restartPolicy defaults to `OnFailure`", f"{A} §5.2"),
        ("defaulting.network", "network.enableDNSHostnames and publishNotReadyAddresses default true", f"{A} §5.2"),
        ("defaulting.rule-names", "unnamed failure-policy rules become `failurePolicyRule<i>`", f"{A} §5.2"),
        ("defaulting.retention-policy", "volume claim retentionPolicy defaults to `Delete`", f"{A} §5.2"),
        ("defaulting.crd", "CRD defaults: groupName `default`, replicas 1, restartStrategy `Recreate`", f"{A} §5.1"),
        ("defaulting.create-only", "the mutating JobSet webhook runs on CREATE only (a field removed later "
         "stays removed)", f"{A} §2.1; upstream config/components/webhook/manifests.yaml"),
    ),
    "Admission: validation": _rows(
        ("validation.depends-on-first", "`DependsOn can't be set for the first ReplicatedJob`", f"{A} §6.1-2"),
        ("validation.depends-on-order", "`replicatedJob: <r> cannot depend on replicatedJob: <d>`", f"{A} §6.1-5e"),
        ("validation.subdomain", "subdomain DNS checks and `.spec.network.subdomain is too long`", f"{A} §6.1-3"),
        ("validation.managed-by", "managedBy domain-prefixed path and ≤ 63 bytes", f"{A} §6.1-4"),
        ("validation.job-name-length", "`job names generated for this JobSet will exceed 63 characters`",
         f"{A} §6.1-5c"),
        ("validation.pod-name-length", "`pod names generated for this JobSet will exceed 63 characters`",
         f"{A} §6.1-5d"),
        ("validation.group-name", "groupName DNS-1035 and length", f"{A} §6.1-5b"),
        ("validation.success-targets", "success-policy targets must exist", f"{A} §6.1-6"),
        ("validation.failure-policy", "rule names, unique names, targets, reasons, RestartJob gate", f"{A} §6.1-7"),
        ("validation.coordinator", "coordinator rjob, jobIndex, indexed+completions, podIndex", f"{A} §6.1-8"),
        ("validation.volume-claims", "volume claim template names, mounts, conflicts", f"{A} §6.1-9"),
        ("validation.in-place-gate", "`InPlaceRestart restart strategy cannot be set when ... disabled`",
         f"{A} §6.1-1"),
        ("validation.parallelism-overflow", "replicas x parallelism ≤ 2147483647", f"{A} §6.1-5a"),
        ("validation.int32-decoding", "an int32 out of range (`replicas: 3000000000`, a Job template's "
         "`completions`, a probe's port) is refused while decoding: 400 `json: cannot unmarshal number ...`, by "
         "`mjobset.kb.io` on CREATE", "upstream controller-runtime admission.Errored; sigs.k8s.io/json"),
        ("validation.aggregated", "several errors in one 422 message `[e1, e2]`", f"{A} §2.2"),
        ("validation.update-immutable", "replicatedJobs immutable on update (`field is immutable`)", f"{A} §7"),
        ("validation.managed-by-immutable", "managedBy immutable on update", f"{A} §7"),
        ("validation.cel-startup-depends-on", "`StartupPolicy and DependsOn APIs are mutually exclusive`", f"{A} §8"),
        ("validation.cel-immutable", "network/successPolicy/failurePolicy immutable (`Value is immutable`)",
         f"{A} §8"),
        ("validation.crd-schema", "CRD schema: enum, minimum, required", f"{A} §8"),
    ),
    "Feature gates": _rows(
        ("gates.elastic", "ElasticJobSet: parallelism/completions of Indexed rjobs mutable, Jobs patched",
         f"{C} §9.7"),
        ("gates.in-place-restart", "InPlaceRestart gate on: strategy accepted, Jobs run", f"{C} §9.8"),
        ("gates.in-place-attempts", "in-place restart: pods' attempt annotations set "
         "`current`/`previousInPlaceRestartAttempt`; above maxRestarts → `ReachedMaxRestarts`",
         f"{C} §9.8; upstream reconcileInPlaceRestart"),
    ),
    "Stories from the JobSet docs": _rows(
        ("story.pytorch", "PyTorch workers find the master at `pytorch-workers-0-0.pytorch`", "docs, examples/"),
        ("story.coordinator", "a coordinator endpoint on every Job and pod", "docs, examples/"),
        ("story.tpu-multislice", "4 TPU slices, exclusive node pools, maxRestarts 3: restarts then "
         "`ReachedMaxRestarts`", "docs, examples/"),
    ),
    "Under Kueue (v0.19.2)": _rows(
        ("kueue.suspended-at-creation", "a JobSet labelled `kueue.x-k8s.io/queue-name` is suspended at creation; its "
         "Jobs are created suspended while its Workload waits", "kueue jobs/jobset webhook"),
        ("kueue.workload-podsets", "its Workload `jobset-<name>-<hash>`: owned by the JobSet, one pod set per "
         "replicatedJob of replicas x parallelism pods", "kueue jobframework"),
        ("kueue.resume-node-selectors", "admitted: resumed with the flavor's nodeSelector, tolerations and Kueue's "
         "labels; the Jobs and pods carry them", "kueue jobs/jobset RunWithPodSetsInfo"),
        ("kueue.finish-releases", "a completed JobSet finishes its Workload (`Succeeded`)", "kueue jobframework"),
        ("kueue.evicted-restored", "evicted: suspended, templates restored, Jobs suspended, pods gone; re-admitted "
         "later", "kueue jobframework stopJob"),
        ("kueue.preempt-by-priority", "a higher WorkloadPriorityClass preempts within the ClusterQueue",
         "kueue preemption"),
        ("kueue.requeued", "the preempted JobSet runs again once quota frees, and completes", "kueue jobframework"),
        ("kueue.restart-while-admitted", "a failure-policy restart keeps the admission: new Jobs keep the node "
         "selector", "kueue + controller §7"),
        ("kueue.in-order-under-admission", "startupPolicy InOrder after Kueue resumes the JobSet", "kueue + "
         "controller §8"),
    ),
}

UPSTREAM_JOBSET_EXAMPLES: tuple[str, ...] = (
    "argo-workflow/workflow.yaml",
    "depends-on/depends-on.yaml",
    "depends-on/multiple-depends-on.yaml",
    "failure-policy/failjobset-action.yaml",
    "failure-policy/host-maintenance-event-model.yaml",
    "failure-policy/onjobfailurereasons-present-podfailurepolicy.yaml",
    "failure-policy/onjobfailurereasons-present.yaml",
    "failure-policy/restartjob-action.yaml",
    "failure-policy/restartjobandignoremaxrestarts-action.yaml",
    "failure-policy/restartjobset-action.yaml",
    "failure-policy/restartjobsetandignoremaxrestarts-action.yaml",
    "in-place-restart/jobset-main-container-mode.yaml",
    "in-place-restart/jobset-sidecar-container-mode.yaml",
    "pytorch/cnn-mnist/mnist.yaml",
    "pytorch/resnet-cifar10/resnet.yaml",
    "simple/coordinator.yaml",
    "simple/exclusive-placement.yaml",
    "simple/failure-policy.yaml",
    "simple/group.yaml",
    "simple/jobset-with-network.yaml",
    "simple/paralleljobs.yaml",
    "simple/success-policy.yaml",
    "simple/ttl-after-finished.yaml",
    "startup-policy/startup-driver-ready.yaml",
    "tensorflow/mnist.yaml",
    "tpu-multislice/v6e-jax-workload.yaml",
    "volume-claim-policy/single-pvc.yaml",
    "workload-aware-scheduling/dra/jobset.yaml",
    "workload-aware-scheduling/jobset.yaml",
    "workload-aware-scheduling/preemption/high-priority-jobset.yaml",
    "workload-aware-scheduling/preemption/low-priority-jobset.yaml",
    "workload-aware-scheduling/tas/jobset.yaml",
)

EXAMPLES_AREA = "Upstream examples (as the project's own manifests of the same shape, `jobset_ref/conformance/manifests/<path>`)"

CATALOGUE: dict[str, Row] = {row.id: row for rows in AREAS.values() for row in rows}
CATALOGUE.update({f"example:{p}": Row(f"example:{p}", f"`{p}` runs to its end or is rejected as upstream",
                                      "upstream examples") for p in UPSTREAM_JOBSET_EXAMPLES})


def load_all(root: Path = SCENARIOS_DIR) -> list[Scenario]:
    return load_scenarios([root])


def example_ids(sc: Scenario) -> list[str]:
    """The ``example:<path>`` rows a scenario covers by reading an upstream example or its packaged manifest."""
    paths = [*sc.upstream_refs(), *(p for p in sc.manifest_refs() if p in UPSTREAM_JOBSET_EXAMPLES)]
    return [f"example:{p}" for p in paths]


def coverage(scenarios: Sequence[Scenario]) -> dict[str, list[Scenario]]:
    """Catalogue id → scenarios covering it (unknown ids in ``covers`` are keys too)."""
    out: dict[str, list[Scenario]] = {row_id: [] for row_id in CATALOGUE}
    for sc in scenarios:
        ids = list(dict.fromkeys([*sc.covers, *example_ids(sc)]))
        for row_id in ids:
            out.setdefault(row_id, []).append(sc)
    return out


def unknown_ids(scenarios: Sequence[Scenario]) -> list[tuple[str, str]]:
    return [(sc.id, c) for sc in scenarios for c in sc.covers if c not in CATALOGUE]


def _cell(scs: list[Scenario]) -> str:
    if not scs:
        return "**UNCOVERED**"
    return ", ".join(f"`{sc.id}`" + (" (xfail)" if sc.xfail else "") for sc in sorted(scs, key=lambda s: s.id))


def guards() -> dict[str, list[str]]:
    """Matrix row id → one cell entry per mistake of the catalogue that breaks it: its name and
    the scenarios that catch it (or that it survives)."""
    from jobset_ref.mistakes import CATALOGUE as MISTAKES

    out: dict[str, list[str]] = {}
    for m in sorted(MISTAKES.values(), key=lambda m: m.name):
        caught = ", ".join(f"`{sid}`" for sid in m.caught_by) if m.caught_by else "survives"
        for row_id in m.behaviours:
            out.setdefault(row_id, []).append(f"`{m.name}` ({caught})")
    return out


def render(scenarios: Sequence[Scenario]) -> str:
    cov = coverage(scenarios)
    mistakes = guards()
    total = len(CATALOGUE)
    covered = sum(1 for row_id in CATALOGUE if cov[row_id])
    only_xfail = sorted(row_id for row_id in CATALOGUE if cov[row_id] and all(sc.xfail for sc in cov[row_id]))
    areas: dict[str, int] = {}
    for sc in scenarios:
        area = sc.id.split("/", 1)[0]
        areas[area] = areas.get(area, 0) + 1
    lines = [
        "# Conformance matrix",
        "",
        "<!-- Generated by `python -m jobset_ref.conformance.matrix`; do not edit by hand. -->",
        "",
        "Every behaviour of `shared/spec/jobset-controller.md` and `shared/spec/jobset-api.md`, every upstream",
        "JobSet example and every story of the JobSet docs, with the conformance scenarios "
        "(`jobset_ref/conformance/scenarios/<area>/<name>.yaml`) that exercise it. `(xfail)` marks a scenario that",
        "currently fails because of a known bug (strict xfail: it turns red once fixed).",
        "",
        "The last column names the mistakes of the catalogue (`jobset_ref/mistakes/`) that break the row's",
        "behaviour and, in brackets, the scenarios that catch each one: which scenario guards which mistake.",
        "`jobset-ref conformance --mutants` measures it (`docs/conformance.md`).",
        "",
        f"**{covered}/{total} rows covered** by {len(scenarios)} scenarios"
        + (f"; {len(only_xfail)} only by xfail scenarios" if only_xfail else "") + ".",
        "",
        "| Scenario area | Scenarios |",
        "|---|---|",
        *(f"| `{area}` | {n} |" for area, n in sorted(areas.items())),
        "",
    ]
    sections = [*AREAS.items(), (EXAMPLES_AREA, tuple(CATALOGUE[f"example:{p}"] for p in UPSTREAM_JOBSET_EXAMPLES))]
    for title, rows in sections:
        lines += [f"## {title}", "", "| Behaviour | Spec | Scenarios | Mistakes caught |", "|---|---|---|---|"]
        for row in rows:
            label = f"`{row.id.removeprefix('example:')}`" if row.id.startswith("example:") else \
                f"`{row.id}`: {row.text}"
            lines.append(f"| {label} | {row.ref} | {_cell(cov[row.id])} | {'; '.join(mistakes.get(row.id, ())) or '-'} |")
        lines.append("")
    return "\n".join(lines)


def problems(scenarios: Sequence[Scenario]) -> list[str]:
    cov = coverage(scenarios)
    out = [f"scenario {sid} covers unknown id {c!r} (add it to jobset_ref/conformance/matrix.py or fix the typo)"
           for sid, c in unknown_ids(scenarios)]
    out += [f"uncovered: {row_id} ({CATALOGUE[row_id].text})" for row_id in CATALOGUE if not cov[row_id]]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jobset_ref.conformance.matrix",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if stale or a row is uncovered; write nothing")
    args = parser.parse_args(argv)
    if not in_source_tree():
        print(f"{MATRIX_PATH.name} lives in a source checkout of jobset-ref; this package runs from "
              f"{REPO_ROOT} (an installed wheel)", file=sys.stderr)
        return 2
    scenarios = load_all()
    text = render(scenarios)
    issues = problems(scenarios)
    if args.check:
        if not MATRIX_PATH.exists() or MATRIX_PATH.read_text() != text:
            issues.append(f"{MATRIX_PATH.relative_to(REPO_ROOT)} is stale: run python -m jobset_ref.conformance.matrix")
        for issue in issues:
            print(issue, file=sys.stderr)
        return 1 if issues else 0
    MATRIX_PATH.write_text(text)
    print(f"wrote {MATRIX_PATH.relative_to(REPO_ROOT)}")
    for issue in issues:
        print(issue, file=sys.stderr)
    return 1 if issues else 0


if __name__ == "__main__":
    sys.exit(main())
