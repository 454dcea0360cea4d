"""Mistakes in names, labels, annotations, owner references and template copying (controller spec §4, §4.1)."""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

CONSTRUCT = "jobset_ref.controller.construct"
RECONCILER = "jobset_ref.controller.reconciler"
OBSERVE = "jobset_ref.controller.observe"
NETWORK = "jobset_ref.controller.policies.network"

MISTAKES = (
    Mistake(
        "job-suspend-only-when-true",
        "a Job's spec.suspend is written only when the JobSet is suspended, so a running JobSet's Jobs leave "
        "it unset instead of false",
        behaviours=("naming.suspend-explicit",),
        edits=(Edit(CONSTRUCT, "construct_job", 'spec["suspend"] = bool(js.spec.suspend)',
                    'if js.spec.suspend:\n        spec["suspend"] = True'),),
        survives="equivalent through the API: batch/v1 defaults a Job's spec.suspend to false, so the stored Job "
                 "is the same either way (the row pins the stored value, which a client sees)",
    ),
    Mistake(
        "job-name-index-before-rjob",
        "Jobs are named <jobset>-<index>-<rjob> instead of <jobset>-<rjob>-<index>",
        behaviours=("naming.job-name", "naming.pod-hostname"),
        edits=(Edit(CONSTRUCT, "gen_job_name", 'f"{jobset_name}-{rjob_name}-{job_index}"',
                    'f"{jobset_name}-{job_index}-{rjob_name}"'),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "owner-reference-without-block-owner-deletion",
        "the Job's (and Service's) controller ownerReference leaves out blockOwnerDeletion: true",
        behaviours=("naming.owner-reference",),
        edits=(Edit(CONSTRUCT, "owner_reference", ', "blockOwnerDeletion": True}', "}"),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "owner-reference-not-controller",
        "the Job's ownerReference is not marked controller: true, so the JobSet never finds its own Jobs again",
        behaviours=("naming.owner-reference", "lifecycle.delete-cascades"),
        edits=(Edit(CONSTRUCT, "owner_reference", '"controller": True', '"controller": False'),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "template-labels-not-copied",
        "the Job's metadata.labels start empty instead of from the replicatedJob template's metadata.labels",
        behaviours=("naming.template-copied",),
        edits=(Edit(CONSTRUCT, "construct_job", 'if template_meta.get("labels"):', "if False:"),),
        caught_by=("naming/labels-and-annotations",),
    ),
    Mistake(
        "template-annotations-not-copied",
        "the Job's metadata.annotations start empty instead of from the replicatedJob template's metadata.annotations",
        behaviours=("naming.template-copied",),
        edits=(Edit(CONSTRUCT, "construct_job", 'if template_meta.get("annotations"):', "if False:"),),
        caught_by=("naming/labels-and-annotations",),
    ),
    Mistake(
        "replicas-zero-creates-one-job",
        "a replicatedJob with replicas: 0 still gets one Job (the loop runs at least once)",
        behaviours=("naming.replicas-zero",),
        edits=(Edit(CONSTRUCT, "construct_jobs_from_template", "for index in range(rjob.replicas):",
                    "for index in range(max(rjob.replicas, 1)):"),),
        caught_by=("naming/job-spec-and-owner",),
    ),
    Mistake(
        "generate-name-prefix-as-subdomain",
        "a JobSet created with generateName gets its Service and pod subdomain from the generateName prefix",
        behaviours=("naming.generate-name", "network.subdomain"),
        edits=(Edit(NETWORK, "get_subdomain", "return js.name",
                    'return js.metadata.get("generateName") or js.name'),),
        caught_by=("naming/generate-name",),
    ),
    Mistake(
        "jobset-uid-label-missing",
        "the jobset-uid label and annotation are not put on Jobs and pods",
        behaviours=("labels.jobset-uid",),
        edits=(Edit(CONSTRUCT, "jobset_labels", 'c.JOBSET_UID_KEY: str(js.metadata.get("uid") or ""),', ""),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "jobset-name-label-is-subdomain",
        "the jobset-name label carries the network subdomain instead of the JobSet name",
        behaviours=("labels.jobset-name", "network.subdomain", "network.dns-resolution"),
        edits=(Edit(CONSTRUCT, "jobset_labels", "c.JOBSET_NAME_KEY: js.name,",
                    "c.JOBSET_NAME_KEY: network.get_subdomain(js),"),),
        caught_by=("network/service-lifecycle", "examples/simple-jobset-with-network"),
    ),
    Mistake(
        "replicatedjob-name-label-missing",
        "the replicatedjob-name label and annotation are left out",
        behaviours=("labels.replicatedjob-name", "status.replicated-jobs-status"),
        edits=(Edit(CONSTRUCT, "jobset_labels", "c.REPLICATED_JOB_NAME_KEY: rjob.name,", ""),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "replicatedjob-replicas-is-global",
        "the replicatedjob-replicas label carries the JobSet's total replicas instead of the replicatedJob's",
        behaviours=("labels.replicatedjob-replicas",),
        edits=(Edit(CONSTRUCT, "jobset_labels", "c.REPLICATED_JOB_REPLICAS: str(rjob.replicas),",
                    "c.REPLICATED_JOB_REPLICAS: global_replicas(js),"),),
        caught_by=("exclusive/replicated-job-level", "failure/first-failed-job-status-retry"),
    ),
    Mistake(
        "job-index-label-is-global",
        "the job-index label carries the global index across replicatedJobs instead of the index within its own",
        behaviours=("labels.job-index",),
        edits=(Edit(CONSTRUCT, "jobset_labels", "c.JOB_INDEX_KEY: str(job_index),",
                    "c.JOB_INDEX_KEY: global_job_index(js, rjob.name, job_index),"),),
        caught_by=("exclusive/replicated-job-level", "failure/first-failed-job-status-retry"),
    ),
    Mistake(
        "global-replicas-counts-replicated-jobs",
        "the global-replicas label counts replicatedJobs instead of summing their replicas",
        behaviours=("labels.global-replicas",),
        edits=(Edit(CONSTRUCT, "global_replicas", "sum(r.replicas for r in js.replicated_jobs)",
                    "len(js.replicated_jobs)"),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "job-global-index-not-offset",
        "the job-global-index label is the index within the replicatedJob (earlier replicatedJobs not added)",
        behaviours=("labels.job-global-index",),
        edits=(Edit(CONSTRUCT, "global_job_index", "return str(total + job_index)", "return str(job_index)"),),
        caught_by=("exclusive/replicated-job-level", "failure/first-failed-job-status-retry"),
    ),
    Mistake(
        "job-key-sha256",
        "the job-key label is the SHA-256 of <namespace>/<job> (as the API comment says) instead of its SHA-1",
        behaviours=("labels.job-key",),
        edits=(Edit(CONSTRUCT, "job_hash_key", "hashlib.sha1(", "hashlib.sha256("),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "job-key-without-namespace",
        "the job-key label hashes the Job name alone instead of <namespace>/<job>",
        behaviours=("labels.job-key",),
        edits=(Edit(CONSTRUCT, "job_hash_key", 'f"{namespace}/{job_name}"', "job_name"),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "group-replicas-whole-jobset",
        "the group-replicas label sums the replicas of every replicatedJob, not only those of its group",
        behaviours=("labels.group", "groups.multiple"),
        edits=(Edit(CONSTRUCT, "group_replicas", " if r.group_name == group_name", ""),),
        caught_by=("examples/simple-group",),
    ),
    Mistake(
        "job-group-index-ignores-group",
        "the job-group-index label counts the replicas of earlier replicatedJobs of every group",
        behaviours=("labels.group", "groups.multiple", "groups.default"),
        edits=(Edit(CONSTRUCT, "group_job_index", "if rjob.group_name == group_name:", "if True:"),),
        caught_by=("examples/simple-group",),
    ),
    Mistake(
        "jobset-labels-only-on-job",
        "the JobSet labels and annotations go on the Job but not on its pod template (so not on the pods)",
        behaviours=("labels.pod-template",),
        edits=(Edit(CONSTRUCT, "construct_job", "_label_and_annotate(pod_meta, values, exclusive)",
                    "_label_and_annotate(pod_meta, {}, exclusive)"),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "jobset-keys-not-annotated",
        "the JobSet keys are set as labels only, not also as annotations",
        behaviours=("labels.jobset-name", "labels.job-index", "labels.job-key", "labels.restart-attempt"),
        edits=(Edit(CONSTRUCT, "_label_and_annotate",
                    'annotations = {**(meta.get("annotations") or {}), **values, **exclusive}',
                    'annotations = {**(meta.get("annotations") or {}), **exclusive}'),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "template-labels-win-over-jobset-labels",
        "a template label with a JobSet key overrides the controller's value instead of being overwritten",
        behaviours=("labels.job-index", "naming.template-copied"),
        edits=(Edit(CONSTRUCT, "_label_and_annotate", 'labels = {**(meta.get("labels") or {}), **values}',
                    'labels = {**values, **(meta.get("labels") or {})}'),),
        caught_by=("naming/labels-and-annotations",),
    ),
    Mistake(
        "index-owned-jobs-by-owner-name",
        "Jobs are indexed by their JobSet owner's name, not its UID, so a same-named predecessor's Jobs count as the JobSet's own",
        behaviours=("naming.foreign-jobs", "naming.owner-reference", "lifecycle.delete-cascades"),
        edits=(Edit(OBSERVE, "jobset_controller_uid", 'return [str(ref.get("uid", ""))]',
                    'return [str(ref.get("name", ""))]'),
               Edit(RECONCILER, "JobSetReconciler._owned_jobs", 'uid = str(js.metadata.get("uid") or "")',
                    "uid = js.name")),
        caught_by=("lifecycle/foreign-jobs",),
    ),
    Mistake(
        "adopt-jobs-by-label",
        "the JobSet's Jobs are the Jobs labelled with its jobset-name, owned by it or not (a hand-made or a "
        "predecessor's Job is counted, restarted and deleted as its own)",
        behaviours=("naming.foreign-jobs", "naming.owner-reference", "status.replicated-jobs-status"),
        edits=(Edit(RECONCILER, "JobSetReconciler._owned_jobs",
                    "return [j for j in self.jobs.by_index(c.JOBS_INDEX_BY_JOBSET_KEY, uid)",
                    "return [j for j in self.jobs.list(js.namespace) if uid and "
                    "(j['metadata'].get('labels') or {}).get(c.JOBSET_NAME_KEY) == js.name"),),
        caught_by=("lifecycle/foreign-jobs",),
    ),
    Mistake(
        "job-restart-attempt-without-gate",
        "the job-restart-attempt label and annotation are set even when the RestartJob gate is off",
        behaviours=("labels.job-restart-attempt",),
        edits=(Edit(CONSTRUCT, "construct_jobs_from_template",
                    "job_restarts = get_job_restarts(js, status, rjob.name) if restart_job_gate else None",
                    "job_restarts = get_job_restarts(js, status, rjob.name)"),),
        caught_by=("exclusive/node-selector-strategy", "exclusive/replicated-job-level"),
    ),
    Mistake(
        "job-restart-attempt-label-missing",
        "with the RestartJob gate, Jobs do not get the job-restart-attempt label, so a restarted Job's old "
        "attempt is never recognised as previous",
        behaviours=("labels.job-restart-attempt", "failure.action.restart-job"),
        edits=(Edit(CONSTRUCT, "jobset_labels", "if job_restart_attempt is not None:", "if False:"),),
        caught_by=("examples/failure-policy-restartjob-action", "examples/failure-policy-restartjobandignoremaxrestarts-action"),
    ),
)
