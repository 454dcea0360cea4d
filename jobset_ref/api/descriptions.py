"""What each field of ``jobset.x-k8s.io/v1alpha2`` means: the ``description`` of every node of the
generated CRD's schema, which ``kubectl explain jobset.spec...`` prints.

Written for this project from the API's documented behaviour (the semantics the reference
controller and webhooks implement); not upstream's text. Keys are ``(model, wire field)``; a
model's own entry (field ``""``) describes the object where no field description applies (the
root JobSet).
"""

from __future__ import annotations

from typing import Final

__all__ = ["DESCRIPTIONS", "description"]

_REPLICATED_JOB_NAMES = ("Names of ReplicatedJobs (entries of spec.replicatedJobs) this applies to. Empty or "
                         "absent means every ReplicatedJob. Each name must exist in the JobSet.")

DESCRIPTIONS: Final[dict[tuple[str, str], str]] = {
    # ------------------------------------------------------------------ JobSet
    ("JobSet", ""): (
        "A JobSet runs a group of Kubernetes Jobs as one workload: one or more ReplicatedJobs, each a Job "
        "template stamped out a number of times, with shared networking (a headless Service giving every pod a "
        "stable hostname), shared success and failure policies, optional start ordering and shared volumes. "
        "Typical uses are distributed training and HPC jobs whose workers must find each other and fail or "
        "restart together."),
    ("JobSet", "apiVersion"): (
        "The versioned schema of this object: jobset.x-k8s.io/v1alpha2. Clients send it; the API server "
        "converts what it recognises."),
    ("JobSet", "kind"): "The kind of this object: JobSet. It cannot be changed.",
    ("JobSet", "metadata"): (
        "Standard object metadata: name, namespace, labels, annotations. The name is part of the name of every "
        "Job and pod the JobSet creates, so it must leave room for them (63 characters in all)."),
    ("JobSet", "spec"): "The desired state: which Jobs to run and the policies that govern them.",
    ("JobSet", "status"): "The observed state, written by the JobSet controller. Users do not set it.",
    # ------------------------------------------------------------------ spec
    ("JobSetSpec", "replicatedJobs"): (
        "The groups of identical Jobs this JobSet runs. Each entry has a unique name and a Job template; "
        "it creates `replicas` Jobs named <jobset>-<name>-<index>."),
    ("JobSetSpec", "network"): (
        "Networking shared by the pods: DNS hostnames through a headless Service. Cannot be changed after "
        "creation."),
    ("JobSetSpec", "successPolicy"): (
        "When the JobSet counts as successfully completed. Defaults to all Jobs of all ReplicatedJobs "
        "succeeding. Cannot be changed after creation."),
    ("JobSetSpec", "failurePolicy"): (
        "What happens when a child Job fails: fail the JobSet, or restart it (or just the failed Job) up to a "
        "limit. Without a failure policy, the first failed Job fails the JobSet. Cannot be changed after "
        "creation."),
    ("JobSetSpec", "startupPolicy"): (
        "Deprecated in favour of dependsOn: the order in which ReplicatedJobs are started. Cannot be changed "
        "after creation, and cannot be InOrder when any ReplicatedJob has dependsOn."),
    ("JobSetSpec", "suspend"): (
        "When true, the JobSet's Jobs are suspended (their pods are removed and not recreated); setting it back "
        "to false resumes them. Can be changed at any time."),
    ("JobSetSpec", "coordinator"): (
        "Names one pod as the coordinator of the workload (for example a rank-0 worker). Its stable DNS "
        "endpoint is written into the jobset.sigs.k8s.io/coordinator label and annotation of every Job and pod."),
    ("JobSetSpec", "managedBy"): (
        "The controller responsible for this JobSet. Absent, or jobset.sigs.k8s.io/jobset-controller, means the "
        "built-in JobSet controller; any other value (a domain-prefixed path of at most 63 characters) makes "
        "the built-in controller leave the JobSet alone, for example to a multi-cluster dispatcher. Cannot be "
        "changed after creation."),
    ("JobSetSpec", "ttlSecondsAfterFinished"): (
        "Seconds after the JobSet finishes (completed or failed) before it is deleted, with its Jobs and pods. "
        "0 deletes it as soon as it finishes; absent keeps it."),
    ("JobSetSpec", "volumeClaimPolicies"): (
        "PersistentVolumeClaims the JobSet creates once and shares between its pods. Each template must be "
        "mounted by some container of a ReplicatedJob. At most 50. Cannot be changed after creation."),
    # ------------------------------------------------------------------ replicated jobs
    ("ReplicatedJob", "name"): (
        "The name of this group of Jobs, unique within the JobSet. It is part of every Job name "
        "(<jobset>-<name>-<jobIndex>) and pod hostname."),
    ("ReplicatedJob", "groupName"): (
        "A group these Jobs belong to, written into the labels and annotations of their Jobs and pods. Defaults "
        "to \"default\"; must be a DNS label."),
    ("ReplicatedJob", "template"): (
        "The batch/v1 Job template every Job of this group is made from. The JobSet adds its own labels, "
        "annotations and hostname settings to it."),
    ("ReplicatedJob", "replicas"): "How many Jobs to create from the template. Defaults to 1; 0 creates none.",
    ("ReplicatedJob", "dependsOn"): (
        "ReplicatedJobs that must reach a status before this one's Jobs are created. Only earlier entries of "
        "spec.replicatedJobs may be named, so the first ReplicatedJob has none. At most 5. Cannot be changed "
        "after creation."),
    ("DependsOn", "name"): "The name of an earlier ReplicatedJob this one waits for.",
    ("DependsOn", "status"): (
        "What to wait for. Ready: every Job of that ReplicatedJob is ready (or already finished). Complete: "
        "every Job of it has succeeded."),
    # ------------------------------------------------------------------ network
    ("Network", "enableDNSHostnames"): (
        "Give every pod a stable DNS name <jobset>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain> through a "
        "headless Service the controller creates. Defaults to true."),
    ("Network", "subdomain"): (
        "The subdomain of the pods' hostnames and the name of the headless Service. Defaults to the JobSet's "
        "name."),
    ("Network", "publishNotReadyAddresses"): (
        "Publish pods' DNS records before they are ready, so workers can find each other while starting. "
        "Defaults to true."),
    # ------------------------------------------------------------------ success policy
    ("SuccessPolicy", "operator"): (
        "All: the JobSet succeeds once every Job of the target ReplicatedJobs has succeeded. Any: once any "
        "single one has."),
    ("SuccessPolicy", "targetReplicatedJobs"): _REPLICATED_JOB_NAMES,
    # ------------------------------------------------------------------ failure policy
    ("FailurePolicy", "maxRestarts"): (
        "How many restarts that count towards the limit are allowed before a failure fails the JobSet. "
        "Defaults to 0."),
    ("FailurePolicy", "restartStrategy"): (
        "How a restart replaces the Jobs. Recreate (default): each Job is recreated as soon as its old "
        "iteration is gone. BlockingRecreate: every old Job and pod is deleted before any new one is created. "
        "InPlaceRestart: healthy pods restart in place and failed ones are recreated."),
    ("FailurePolicy", "rules"): (
        "Rules tried in order when a Job fails; the first that matches decides the action. When none matches, "
        "the JobSet restarts (RestartJobSet)."),
    ("FailurePolicyRule", "name"): (
        "The rule's name, unique among the rules; it appears in the reason of the restart or failure it causes "
        "(FailurePolicy_<name>). Defaults to failurePolicyRule<index>."),
    ("FailurePolicyRule", "action"): (
        "What to do when the rule matches. FailJobSet: fail the JobSet now. RestartJobSet: recreate all Jobs, "
        "counting towards maxRestarts (fail once it is reached). RestartJobSetAndIgnoreMaxRestarts: recreate "
        "all Jobs without counting. RestartJob and RestartJobAndIgnoreMaxRestarts: recreate only the failed "
        "Job, counting or not."),
    ("FailurePolicyRule", "onJobFailureReasons"): (
        "Job failure reasons the rule matches (BackoffLimitExceeded, DeadlineExceeded, FailedIndexes, "
        "MaxFailedIndexesExceeded, PodFailurePolicy). Empty matches any reason."),
    ("FailurePolicyRule", "onJobFailureMessagePatterns"): (
        "Regular expressions matched against the failed Job's failure message. Empty matches any message. The "
        "rule matches only when both the reason and the message match."),
    ("FailurePolicyRule", "targetReplicatedJobs"): _REPLICATED_JOB_NAMES,
    # ------------------------------------------------------------------ startup policy
    ("StartupPolicy", "startupPolicyOrder"): (
        "AnyOrder: create every ReplicatedJob at once. InOrder: create them in list order, each once all Jobs "
        "of the previous one are ready."),
    # ------------------------------------------------------------------ coordinator
    ("Coordinator", "replicatedJob"): "The ReplicatedJob that runs the coordinator pod.",
    ("Coordinator", "jobIndex"): "The index of the coordinator's Job within that ReplicatedJob. Defaults to 0.",
    ("Coordinator", "podIndex"): "The completion index of the coordinator pod within that Job. Defaults to 0.",
    # ------------------------------------------------------------------ volume claim policies
    ("VolumeClaimPolicy", "templates"): (
        "PersistentVolumeClaim templates. Each becomes one claim named <template name>-<jobset>, created "
        "before the Jobs and mounted into every container that has a volumeMount of that name. Templates may "
        "not set a namespace. At most 50."),
    ("VolumeClaimPolicy", "retentionPolicy"): (
        "What happens to the claims when the JobSet is deleted. Defaults to deleting them."),
    ("VolumeRetentionPolicy", "whenDeleted"): (
        "Delete (default): the claims are deleted with the JobSet. Retain: they are kept."),
    # ------------------------------------------------------------------ status
    ("JobSetStatus", "conditions"): (
        "The JobSet's conditions, one per type: Completed, Failed, Suspended, Restarting, "
        "StartupPolicyInProgress and StartupPolicyCompleted."),
    ("JobSetStatus", "restarts"): "How many times the whole JobSet has been restarted.",
    ("JobSetStatus", "restartsCountTowardsMax"): (
        "The JobSet restarts that count towards spec.failurePolicy.maxRestarts."),
    ("JobSetStatus", "terminalState"): "Completed or Failed once the JobSet has finished; empty while it runs.",
    ("JobSetStatus", "replicatedJobsStatus"): "Counts of the Jobs of each ReplicatedJob by state.",
    ("JobSetStatus", "previousInPlaceRestartAttempt"): (
        "The in-place restart attempt the pods last completed (InPlaceRestart strategy only)."),
    ("JobSetStatus", "currentInPlaceRestartAttempt"): (
        "The in-place restart attempt under way (InPlaceRestart strategy only)."),
    ("Condition", "type"): "The condition's type, unique in the list (Completed, Failed, Suspended...).",
    ("Condition", "status"): "True, False or Unknown.",
    ("Condition", "observedGeneration"): "The metadata.generation the condition was set for.",
    ("Condition", "lastTransitionTime"): "When the status last changed.",
    ("Condition", "reason"): "A machine-readable CamelCase word saying why the condition is in this status.",
    ("Condition", "message"): "A human-readable explanation of the condition.",
    ("ReplicatedJobStatus", "name"): "The ReplicatedJob these counts are for.",
    ("ReplicatedJobStatus", "ready"): "Its Jobs whose pods are all ready (or that have finished).",
    ("ReplicatedJobStatus", "succeeded"): "Its Jobs that have succeeded.",
    ("ReplicatedJobStatus", "failed"): "Its Jobs that have failed.",
    ("ReplicatedJobStatus", "active"): "Its Jobs with at least one running or pending pod.",
    ("ReplicatedJobStatus", "suspended"): "Its Jobs that are suspended.",
    ("ReplicatedJobStatus", "jobRestarts"): (
        "For each Job index, how many times that single Job has been restarted (RestartJob actions)."),
    ("ReplicatedJobStatus", "jobRestartsCountTowardsMax"): (
        "For each Job index, the restarts of that Job that count towards spec.failurePolicy.maxRestarts."),
}


def description(model: str, field: str = "") -> str | None:
    """The description of ``field`` of ``model`` (``""``: of the model itself), if written."""
    return DESCRIPTIONS.get((model, field))
