"""Names Kueue v0.19.2 uses on the wire: the API group, kinds, condition types, reasons, labels.

From ``apis/kueue/v1beta2`` (``*_types.go``, ``constants.go``) and ``pkg/constants`` at the tag.
"""

from __future__ import annotations

GROUP = "kueue.x-k8s.io"
VERSION = "v1beta2"
API_VERSION = f"{GROUP}/{VERSION}"

# Resource keys (plural.group), as the API server's registry names them.
RESOURCE_FLAVORS = f"resourceflavors.{GROUP}"
CLUSTER_QUEUES = f"clusterqueues.{GROUP}"
LOCAL_QUEUES = f"localqueues.{GROUP}"
WORKLOADS = f"workloads.{GROUP}"
WORKLOAD_PRIORITY_CLASSES = f"workloadpriorityclasses.{GROUP}"
COHORTS = f"cohorts.{GROUP}"

# Labels and annotations (pkg/constants).
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
RESOURCE_IN_USE_FINALIZER = "kueue.x-k8s.io/resource-in-use"
DEFAULT_LOCAL_QUEUE_NAME = "default"

# Workload condition types.
WORKLOAD_ADMITTED = "Admitted"
WORKLOAD_QUOTA_RESERVED = "QuotaReserved"
WORKLOAD_FINISHED = "Finished"
WORKLOAD_PODS_READY = "PodsReady"
WORKLOAD_EVICTED = "Evicted"
WORKLOAD_PREEMPTED = "Preempted"
WORKLOAD_REQUEUED = "Requeued"
WORKLOAD_DEACTIVATION_TARGET = "DeactivationTarget"
WORKLOAD_BLOCKED_ON_PREEMPTION_GATES = "BlockedOnPreemptionGates"

# QuotaReserved=False reasons (granular ones are behind UnadmittedWorkloadsObservability, off).
REASON_PENDING = "Pending"
REASON_INADMISSIBLE = "Inadmissible"
REASON_QUOTA_RESERVED = "QuotaReserved"
REASON_NO_MATCHING_FLAVOR = "NoMatchingFlavor"
REASON_WAITING_FOR_QUOTA = "WaitingForQuota"
REASON_EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
REASON_WAITING_FOR_PREEMPTED_WORKLOADS = "WaitingForPreemptedWorkloads"
REASON_MISCONFIGURED = "Misconfigured"
REASON_SUSPENDED = "Suspended"
REASON_PENDING_EVALUATION = "PendingEvaluation"
REASON_WAITING_FOR_PODS_READY = "WaitingForPodsReady"
REASON_WAITING = "Waiting"
REASON_NO_RESERVATION = "NoReservation"

# Eviction reasons.
EVICTED_BY_PREEMPTION = "Preempted"
EVICTED_BY_PODS_READY_TIMEOUT = "PodsReadyTimeout"
EVICTED_BY_ADMISSION_CHECK = "AdmissionCheck"
EVICTED_BY_CLUSTER_QUEUE_STOPPED = "ClusterQueueStopped"
EVICTED_BY_LOCAL_QUEUE_STOPPED = "LocalQueueStopped"
WORKLOAD_DEACTIVATED = "Deactivated"
WORKLOAD_REACTIVATED = "Reactivated"
WORKLOAD_BACKOFF_FINISHED = "BackoffFinished"
WORKLOAD_CLUSTER_QUEUE_RESTARTED = "ClusterQueueRestarted"
WORKLOAD_LOCAL_QUEUE_RESTARTED = "LocalQueueRestarted"
WORKLOAD_REQUEUING_LIMIT_EXCEEDED = "RequeuingLimitExceeded"
WORKLOAD_WAIT_FOR_START = "WaitForStart"
WORKLOAD_WAIT_FOR_RECOVERY = "WaitForRecovery"
WORKLOAD_STARTED = "Started"

# Preemption reasons (the Preempted condition).
IN_CLUSTER_QUEUE_REASON = "InClusterQueue"
IN_COHORT_RECLAMATION_REASON = "InCohortReclamation"
IN_COHORT_FAIR_SHARING_REASON = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING_REASON = "InCohortReclaimWhileBorrowing"
HUMAN_READABLE_PREEMPTION_REASONS = {
    IN_CLUSTER_QUEUE_REASON: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION_REASON: "reclamation within the cohort",
    IN_COHORT_FAIR_SHARING_REASON: "Fair Sharing within the cohort",
    IN_COHORT_RECLAIM_WHILE_BORROWING_REASON: "reclamation within the cohort while borrowing",
    "": "UNKNOWN",
}

# ClusterQueue / LocalQueue Active condition.
QUEUE_ACTIVE = "Active"
CQ_REASON_READY = "Ready"
CQ_REASON_STOPPED = "Stopped"
CQ_REASON_FLAVOR_NOT_FOUND = "FlavorNotFound"
CQ_REASON_TERMINATING = "Terminating"

# Spec enums.
STRICT_FIFO = "StrictFIFO"
BEST_EFFORT_FIFO = "BestEffortFIFO"
STOP_NONE = "None"
STOP_HOLD = "Hold"
STOP_HOLD_AND_DRAIN = "HoldAndDrain"
PREEMPTION_NEVER = "Never"
PREEMPTION_ANY = "Any"
PREEMPTION_LOWER_PRIORITY = "LowerPriority"
PREEMPTION_LOWER_OR_NEWER_EQUAL_PRIORITY = "LowerOrNewerEqualPriority"
MAY_STOP_SEARCH = "MayStopSearch"
TRY_NEXT_FLAVOR = "TryNextFlavor"
BORROWING_OVER_PREEMPTION = "BorrowingOverPreemption"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"

# priorityClassRef groups and kinds.
WORKLOAD_PRIORITY_CLASS_GROUP = GROUP
WORKLOAD_PRIORITY_CLASS_KIND = "WorkloadPriorityClass"
POD_PRIORITY_CLASS_GROUP = "scheduling.k8s.io"
POD_PRIORITY_CLASS_KIND = "PriorityClass"

# Component names (the user agents of the writes, the event sources).
MANAGER = "kueue-controller-manager"
SCHEDULER = "kueue-admission"
WORKLOAD_CONTROLLER = "kueue-workload-controller"
QUEUE_STATUS_CONTROLLER = "kueue-queue-controller"
WEBHOOKS = "kueue-webhooks"
