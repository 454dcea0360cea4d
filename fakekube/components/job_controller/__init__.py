"""The batch/v1 Job controller (``kube-controller-manager``'s ``job-controller``) on virtual time.

Mirrors ``kubernetes/kubernetes`` ``pkg/controller/job`` as of 1.33/1.34 with default feature
gates (JobManagedBy, JobPodReplacementPolicy, JobSuccessPolicy, JobBackoffLimitPerIndex,
PodIndexLabel on), function by function, one module per upstream concern:

- :mod:`.controller` (``job_controller.go``): ``addJob``/``updateJob``/``deleteJob``,
  ``addPod``/``updatePod``/``deletePod`` (batched syncs, ``syncJobBatchPeriod`` = 1 s),
  ``syncJob``, ``manageJob``, ``deleteActivePods``, ``deleteJobPods``, ``pastBackoffLimitOnFailure``,
  ``pastActiveDeadline``, ``activePodsForRemoval`` (with ``appendDuplicatedIndexPodsForRemoval``),
  ``syncOrphanPod``/``cleanupPodFinalizers``, ``finishedJobExpectations`` (1.33: a Job whose
  terminal condition this controller wrote is not synced until the cache shows it), and
  ``controller_utils.go``'s ``ControllerExpectations`` (5 min TTL),
  ``CreatePodsWithGenerateName`` (``GetPodFromTemplate``,
  with ``addIndexFailureCountAnnotation``) and slow-start batches;
- :mod:`.tracking` (pod accounting and the tracking finalizer): ``trackJobStatusAndRemoveFinalizers``,
  ``flushUncountedAndRemoveFinalizers``, ``cleanUncountedPodsWithoutFinalizers``,
  ``canRemoveFinalizer``, ``getNewFinishedPods``/``getValidPodsWithFilter``, ``syncJobCtx``;
- :mod:`.conditions`: ``newCondition``, ``ensureJobConditionStatus``, ``enactJobFinished``,
  ``recordJobFinished``;
- :mod:`.backoff` (``backoff_utils.go``): ``newBackoffRecord``, ``getRemainingTimeForFailuresCount``,
  ``getFinishedTime``;
- :mod:`.pod_failure_policy` (``pod_failure_policy.go``): ``matchPodFailurePolicy``,
  ``matchOnExitCodes``, ``matchOnPodConditions``, and ``getFailJobMessage``;
- :mod:`.indexed` (``indexed_job_utils.go``): ``calculateSucceededIndexes``,
  ``calculateFailedIndexes``, ``isIndexFailed``, ``firstPendingIndexes``,
  ``getPodsWithDelayedDeletionPerIndex``, ``getNewIndexFailureCounts``,
  ``getPodCreationInfoForIndependentIndexes`` (with ``getRemainingTimePerIndex``),
  ``podGenerateNameWithIndex``,
  ``addCompletionIndexEnvVariables``;
- :mod:`.success_policy` (``success_policy.go``): ``matchSuccessPolicy``;
- :mod:`.pods`: what the controller reads from Pods and Jobs (``controller_utils.go``'s
  ``FilterActivePods`` and ``ActivePods`` order, ``getCompletionIndex``, ``isPodFailed``,
  ``onlyReplaceFailedPods``).

The controller reads Jobs and Pods from the shared informers (pods indexed by the UID of their
controlling Job, so a sync is O(pods of that Job)) and writes only through the client, so every
create, patch, delete and status update appears in the trace. Failed syncs (API errors) are
retried with the Job controller's own backoff (1 s doubling to 1 min). A Job whose missing pods
would take the cluster past ``controller.MAX_SIMULATED_PODS`` (100,000) stops the simulation with a
``SimulationError`` naming it, before any of them is created (a deviation: Kubernetes has no such
budget).

Known upstream bug deliberately *not* reproduced: during the recreation-backoff early return,
``manageJob`` reports the real number of active pods (the fixed behaviour of
kubernetes/kubernetes#139457), not 0.
"""

from __future__ import annotations

from .controller import JobController

__all__ = ["JobController"]
