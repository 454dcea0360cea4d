"""Constants of the JobSet API, controller and webhooks.

Mirrors upstream kubernetes-sigs/jobset @ 08dfbdf:

* ``api/jobset/v1alpha2/jobset_types.go`` (label/annotation keys, condition types),
* ``api/jobset/v1alpha2/groupversion_info.go`` (group/version),
* ``pkg/constants/constants.go`` (reasons, messages, internal keys),
* ``pkg/features/features.go`` (feature gates),
* ``pkg/webhooks/jobset_webhook.go`` and ``pod_webhook.go`` (webhook-internal constants).

Names are UPPER_SNAKE versions of the upstream Go identifiers.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

# --------------------------------------------------------------------------- group / version / kind

GROUP: Final = "jobset.x-k8s.io"
VERSION: Final = "v1alpha2"
API_VERSION: Final = f"{GROUP}/{VERSION}"
KIND: Final = "JobSet"
LIST_KIND: Final = "JobSetList"
PLURAL: Final = "jobsets"
SINGULAR: Final = "jobset"

# --------------------------------------------------------------------------- labels / annotations (API package)

JOBSET_NAME_KEY: Final = "jobset.sigs.k8s.io/jobset-name"
JOBSET_UID_KEY: Final = "jobset.sigs.k8s.io/jobset-uid"
REPLICATED_JOB_REPLICAS: Final = "jobset.sigs.k8s.io/replicatedjob-replicas"
GLOBAL_REPLICAS_KEY: Final = "jobset.sigs.k8s.io/global-replicas"
REPLICATED_JOB_NAME_KEY: Final = "jobset.sigs.k8s.io/replicatedjob-name"
JOB_INDEX_KEY: Final = "jobset.sigs.k8s.io/job-index"
JOB_GLOBAL_INDEX_KEY: Final = "jobset.sigs.k8s.io/job-global-index"
JOB_KEY: Final = "jobset.sigs.k8s.io/job-key"
EXCLUSIVE_KEY: Final = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_SELECTOR_STRATEGY_KEY: Final = "alpha.jobset.sigs.k8s.io/node-selector"
NAMESPACED_JOB_KEY: Final = "alpha.jobset.sigs.k8s.io/namespaced-job"
NO_SCHEDULE_TAINT_KEY: Final = "alpha.jobset.sigs.k8s.io/no-schedule"
JOBSET_CONTROLLER_NAME: Final = "jobset.sigs.k8s.io/jobset-controller"
COORDINATOR_KEY: Final = "jobset.sigs.k8s.io/coordinator"
GROUP_NAME_KEY: Final = "jobset.sigs.k8s.io/group-name"
GROUP_REPLICAS_KEY: Final = "jobset.sigs.k8s.io/group-replicas"
JOB_GROUP_INDEX_KEY: Final = "jobset.sigs.k8s.io/job-group-index"
IN_PLACE_RESTART_ATTEMPT_KEY: Final = "jobset.sigs.k8s.io/in-place-restart-attempt"
DISABLE_IN_PLACE_RESTART_KEY: Final = "jobset.sigs.k8s.io/disable-in-place-restart"

# --------------------------------------------------------------------------- keys in pkg/constants

RESTARTS_KEY: Final = "jobset.sigs.k8s.io/restart-attempt"
JOB_RESTART_ATTEMPT_KEY: Final = "jobset.sigs.k8s.io/job-restart-attempt"
PRIORITY_KEY: Final = "jobset.sigs.k8s.io/priority"

JOBSET_SUBSYSTEM_NAME: Final = "jobset"
JOBS_INDEX_BY_JOBSET_KEY: Final = ".metadata.controller"
PODS_INDEX_BY_JOBSET_KEY: Final = "podsIndexByJobSet"
POD_NAME_KEY: Final = "podName"
MAX_PARALLELISM: Final = 50

# --------------------------------------------------------------------------- batch/v1 constants referenced

JOB_COMPLETION_INDEX_ANNOTATION: Final = "batch.kubernetes.io/job-completion-index"
INDEXED_COMPLETION: Final = "Indexed"
NON_INDEXED_COMPLETION: Final = "NonIndexed"
POD_REPLACEMENT_POLICY_FAILED: Final = "Failed"
POD_REPLACEMENT_POLICY_TERMINATING_OR_FAILED: Final = "TerminatingOrFailed"
RESTART_POLICY_ON_FAILURE: Final = "OnFailure"
JOB_REASON_BACKOFF_LIMIT_EXCEEDED: Final = "BackoffLimitExceeded"
JOB_REASON_DEADLINE_EXCEEDED: Final = "DeadlineExceeded"
JOB_REASON_FAILED_INDEXES: Final = "FailedIndexes"
JOB_REASON_MAX_FAILED_INDEXES_EXCEEDED: Final = "MaxFailedIndexesExceeded"
JOB_REASON_POD_FAILURE_POLICY: Final = "PodFailurePolicy"
POD_PHASE_FAILED: Final = "Failed"
POD_PHASE_SUCCEEDED: Final = "Succeeded"

# --------------------------------------------------------------------------- condition types

JOBSET_COMPLETED: Final = "Completed"
JOBSET_FAILED: Final = "Failed"
JOBSET_SUSPENDED: Final = "Suspended"
JOBSET_RESTARTING: Final = "RestartingJobSet"
JOBSET_STARTUP_POLICY_IN_PROGRESS: Final = "StartupPolicyInProgress"
JOBSET_STARTUP_POLICY_COMPLETED: Final = "StartupPolicyCompleted"

# --------------------------------------------------------------------------- reasons and messages

REACHED_MAX_RESTARTS_REASON: Final = "ReachedMaxRestarts"
REACHED_MAX_RESTARTS_MESSAGE: Final = "jobset failed due to reaching max number of restarts"
FAILED_JOBS_REASON: Final = "FailedJobs"
FAILED_JOBS_MESSAGE: Final = "jobset failed due to one or more job failures"
ALL_JOBS_COMPLETED_REASON: Final = "AllJobsCompleted"
ALL_JOBS_COMPLETED_MESSAGE: Final = "jobset completed successfully"
JOB_CREATION_FAILED_REASON: Final = "JobCreationFailed"
HEADLESS_SERVICE_CREATION_FAILED_REASON: Final = "HeadlessServiceCreationFailed"
PVC_CREATION_FAILED_REASON: Final = "PVCCreationFailed"
EXCLUSIVE_PLACEMENT_VIOLATION_REASON: Final = "ExclusivePlacementViolation"
EXCLUSIVE_PLACEMENT_VIOLATION_MESSAGE: Final = "Pod violated JobSet exclusive placement policy"
IN_ORDER_STARTUP_POLICY_IN_PROGRESS_REASON: Final = "InOrderStartupPolicyInProgress"
IN_ORDER_STARTUP_POLICY_IN_PROGRESS_MESSAGE: Final = "in order startup policy is in progress"
IN_ORDER_STARTUP_POLICY_COMPLETED_REASON: Final = "InOrderStartupPolicyCompleted"
IN_ORDER_STARTUP_POLICY_COMPLETED_MESSAGE: Final = "in order startup policy has completed"
JOBSET_RESTART_REASON: Final = "Restarting"
RESTARTING_JOBSET_REASON_DEFAULT_FAILURE_POLICY: Final = "DefaultFailurePolicy"
RESTARTING_JOBSET_REASON_FAILURE_POLICY_FORMAT: Final = "FailurePolicy_%s"
RESTARTING_JOBSET_REASON_JOBS_READY: Final = "JobsReady"
RESTARTING_JOBSET_MESSAGE_JOBS_READY: Final = "all jobs are ready"
RESTARTING_JOBSET_REASON_JOBSET_FAILED: Final = "JobSetFailed"
RESTARTING_JOBSET_MESSAGE_JOBSET_FAILED: Final = "jobset failed"
RESTARTING_JOBSET_REASON_JOBSET_COMPLETED: Final = "JobSetCompleted"
RESTARTING_JOBSET_REASON_JOBSET_SUSPENDED: Final = "JobSetSuspended"
JOBSET_SUSPENDED_REASON: Final = "SuspendedJobs"
JOBSET_SUSPENDED_MESSAGE: Final = "jobset is suspended"
JOBSET_RESUMED_REASON: Final = "ResumeJobs"
JOBSET_RESUMED_MESSAGE: Final = "jobset is resumed"
FAIL_JOBSET_ACTION_REASON: Final = "FailJobSetFailurePolicyAction"
FAIL_JOBSET_ACTION_MESSAGE: Final = "applying FailJobSet failure policy action"
RESTART_JOBSET_ACTION_REASON: Final = "RestartJobSetFailurePolicyAction"
RESTART_JOBSET_ACTION_MESSAGE: Final = "applying RestartJobSet failure policy action"
RESTART_JOBSET_AND_IGNORE_MAX_RESTARTS_ACTION_REASON: Final = "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction"
RESTART_JOBSET_AND_IGNORE_MAX_RESTARTS_ACTION_MESSAGE: Final = (
    "applying RestartJobSetAndIgnoreMaxRestarts failure policy action"
)
RESTART_JOB_ACTION_REASON: Final = "RestartJobFailurePolicyAction"
RESTART_JOB_ACTION_MESSAGE: Final = "applying RestartJob failure policy action"
RESTART_JOB_AND_IGNORE_MAX_RESTARTS_ACTION_REASON: Final = "RestartJobAndIgnoreMaxRestartsFailurePolicyAction"
RESTART_JOB_AND_IGNORE_MAX_RESTARTS_ACTION_MESSAGE: Final = (
    "applying RestartJobAndIgnoreMaxRestarts failure policy action"
)

# --------------------------------------------------------------------------- feature gates

FEATURE_IN_PLACE_RESTART: Final = "InPlaceRestart"
FEATURE_TLS_OPTIONS: Final = "TLSOptions"
FEATURE_RESTART_JOB: Final = "RestartJob"
FEATURE_ELASTIC_JOBSET: Final = "ElasticJobSet"

#: Upstream defaults (``pkg/features/features.go``); ``TLSOptions`` is GA and locked on.
DEFAULT_FEATURE_GATES: Final = MappingProxyType({
    FEATURE_IN_PLACE_RESTART: False,
    FEATURE_TLS_OPTIONS: True,
    FEATURE_RESTART_JOB: False,
    FEATURE_ELASTIC_JOBSET: False,
})

# --------------------------------------------------------------------------- webhook registration

MUTATING_JOBSET_WEBHOOK_NAME: Final = "mjobset.kb.io"
VALIDATING_JOBSET_WEBHOOK_NAME: Final = "vjobset.kb.io"
MUTATING_POD_WEBHOOK_NAME: Final = "mpod.kb.io"
VALIDATING_POD_WEBHOOK_NAME: Final = "vpod.kb.io"
MUTATING_JOBSET_WEBHOOK_PATH: Final = "/mutate-jobset-x-k8s-io-v1alpha2-jobset"
VALIDATING_JOBSET_WEBHOOK_PATH: Final = "/validate-jobset-x-k8s-io-v1alpha2-jobset"
MUTATING_POD_WEBHOOK_PATH: Final = "/mutate--v1-pod"
VALIDATING_POD_WEBHOOK_PATH: Final = "/validate--v1-pod"

# --------------------------------------------------------------------------- webhook-internal constants

MAX_MANAGED_BY_LENGTH: Final = 63
MAX_VOLUME_CLAIM_LENGTH: Final = 63
DNS1035_MAX_LENGTH_EXCEEDED_ERROR_MSG: Final = "must be no more than 63 characters"
GROUP_NAME_TOO_LONG_ERROR_MSG: Final = (
    ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"
)
JOB_NAME_TOO_LONG_ERROR_MSG: Final = (
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
)
POD_NAME_TOO_LONG_ERROR_MSG: Final = (
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
)
SUBDOMAIN_TOO_LONG_ERR_MSG: Final = ".spec.network.subdomain is too long, must be less than 63 characters"
MAX_REPLICAS_PER_REPLICATED_JOB: Final = 1024
DEFAULT_RULE_NAME_FMT: Final = "failurePolicyRule%d"
MIN_RULE_NAME_LENGTH: Final = 1
MAX_RULE_NAME_LENGTH: Final = 128
RULE_NAME_FMT: Final = "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
VALID_ON_JOB_FAILURE_REASONS: Final = (
    JOB_REASON_BACKOFF_LIMIT_EXCEEDED,
    JOB_REASON_DEADLINE_EXCEEDED,
    JOB_REASON_FAILED_INDEXES,
    JOB_REASON_MAX_FAILED_INDEXES_EXCEEDED,
    JOB_REASON_POD_FAILURE_POLICY,
)
#: Suffix appended to the deterministic pod-name prefix when checking pod-name length.
POD_NAME_SUFFIX_FOR_VALIDATION: Final = "-abcde"
#: ``names.SimpleNameGenerator``: generateName is truncated to 58 chars, then 5 random chars follow.
GENERATE_NAME_MAX_PREFIX_LENGTH: Final = 58
GENERATE_NAME_RANDOM_LENGTH: Final = 5
GENERATE_NAME_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
MAX_INT32: Final = 2147483647
MIN_INT32: Final = -2147483648
