"""The names the job framework shares with Kueue's API (``apis/kueue/v1beta2``, ``pkg/constants``,
``pkg/controller/constants``, ``pkg/controller/jobframework/events.go``, ``stop_reason.go``) at v0.19.2."""

from __future__ import annotations

GROUP = "kueue.x-k8s.io"
API_VERSION = f"{GROUP}/v1beta2"
WORKLOAD_KIND = "Workload"

# Labels and annotations on jobs (pkg/controller/constants).
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
DEFAULT_LOCAL_QUEUE_NAME = "default"
PREBUILT_WORKLOAD_LABEL = "kueue.x-k8s.io/prebuilt-workload-name"
PREBUILT_WORKLOAD_ANNOTATION = "kueue.x-k8s.io/prebuilt-workload-name"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
WORKLOAD_PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
MAX_EXEC_TIME_SECONDS_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
PROV_REQ_ANNOTATION_PREFIX = "provreq.kueue.x-k8s.io/"
ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"

# Pod template metadata Kueue injects (pkg/constants, apis/kueue/v1beta2).
PODSET_LABEL = "kueue.x-k8s.io/podset"
CLUSTER_QUEUE_LABEL = "kueue.x-k8s.io/cluster-queue-name"
LOCAL_QUEUE_LABEL = "kueue.x-k8s.io/local-queue-name"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
TOPOLOGY_SCHEDULING_GATE = "kueue.x-k8s.io/topology"
PODSET_REQUIRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"
PODSET_PREFERRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology"
PODSET_UNCONSTRAINED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-unconstrained-topology"
PODSET_SLICE_REQUIRED_TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-slice-required-topology"
PODSET_SLICE_SIZE_ANNOTATION = "kueue.x-k8s.io/podset-slice-size"
PODSET_GROUP_NAME_ANNOTATION = "kueue.x-k8s.io/podset-group-name"

RESOURCE_IN_USE_FINALIZER = "kueue.x-k8s.io/resource-in-use"
DEFAULT_PODSET_NAME = "main"
MAX_PODSETS = 18

# Workload condition types and reasons (apis/kueue/v1beta2/workload_types.go).
QUOTA_RESERVED = "QuotaReserved"
ADMITTED = "Admitted"
EVICTED = "Evicted"
PREEMPTED = "Preempted"
REQUEUED = "Requeued"
FINISHED = "Finished"
PODS_READY = "PodsReady"
WAIT_FOR_START = "WaitForStart"
WAIT_FOR_RECOVERY = "WaitForRecovery"
STARTED = "Started"
RECOVERED = "Recovered"
PENDING = "Pending"
EVICTED_BY_PREEMPTION = "Preempted"
EVICTED_DUE_TO_NODE_FAILURES = "NodeFailures"
FINISHED_SUCCEEDED = "Succeeded"
FINISHED_FAILED = "Failed"
FINISHED_OWNER_NOT_FOUND = "OwnerNotFound"
FAILED_TO_START = "FailedToStart"

# Event reasons of the job reconciler (jobframework/events.go).
REASON_STARTED = "Started"
REASON_SUSPENDED = "Suspended"
REASON_STOPPED = "Stopped"
REASON_CREATED_WORKLOAD = "CreatedWorkload"
REASON_DELETED_WORKLOAD = "DeletedWorkload"
REASON_UPDATED_WORKLOAD = "UpdatedWorkload"
REASON_FINISHED_WORKLOAD = "FinishedWorkload"
REASON_UPDATED_ADMISSION_CHECK = "UpdatedAdmissionCheck"

# Why a job is stopped (jobframework/stop_reason.go).
STOP_WORKLOAD_DELETED = "WorkloadDeleted"
STOP_WORKLOAD_EVICTED = "WorkloadEvicted"
STOP_NO_MATCHING_WORKLOAD = "NoMatchingWorkload"
STOP_NOT_ADMITTED = "NotAdmitted"

# Field managers (pkg/constants).
KUEUE_NAME = "kueue"
JOB_CONTROLLER_NAME = "kueue-job-controller"
ADMISSION_NAME = "kueue-admission"
RECLAIMABLE_PODS_MGR = "kueue-reclaimable-pods"

# Priority class references (apis/kueue/v1beta2/workload_types.go).
POD_PRIORITY_CLASS_GROUP = "scheduling.k8s.io"
POD_PRIORITY_CLASS_KIND = "PriorityClass"
WORKLOAD_PRIORITY_CLASS_GROUP = GROUP
WORKLOAD_PRIORITY_CLASS_KIND = "WorkloadPriorityClass"
DEFAULT_PRIORITY = 0

# Condition messages are truncated to this length (pkg/util/api).
MAX_CONDITION_MESSAGE_LENGTH = 32 * 1024
MAX_EVENT_MESSAGE_LENGTH = 1024
