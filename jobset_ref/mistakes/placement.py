"""Mistakes in exclusive placement (controller spec §4, §10; api spec §9).

The pod webhook (``jobset_ref.api.pod_webhook``: the leader's affinities, the followers'
nodeSelector, the priority label, the follower validation and the leader lookup they share),
the pod reconciler that repairs misplaced followers (``jobset_ref.controller.pod_controller``)
and the exclusive-placement parts of the Jobs the JobSet controller builds
(``jobset_ref.controller.construct``: annotations, the node-selector strategy).
"""

from __future__ import annotations

from jobset_ref.mistakes.catalogue import Mistake
from jobset_ref.mistakes.edits import Edit

__all__ = ["MISTAKES"]

POD_WEBHOOK = "jobset_ref.api.pod_webhook"
POD_CONTROLLER = "jobset_ref.controller.pod_controller"
CONSTRUCT = "jobset_ref.controller.construct"
APPLY = "jobset_ref.controller.apply"

_WEBHOOK = (
    Mistake(
        "leader-anti-affinity-missing",
        "the pod webhook gives the leader its podAffinity term but no podAntiAffinity term",
        behaviours=("exclusive.leader-affinity", "exclusive.one-job-per-domain"),
        edits=(Edit(POD_WEBHOOK, "_set_exclusive_affinities",
                    'affinity["podAntiAffinity"] = anti_affinity', "pass"),),
        caught_by=("examples/simple-exclusive-placement",),
        side="webhooks",
    ),
    Mistake(
        "leader-affinity-replaces-user-terms",
        "the pod webhook replaces the leader's required anti-affinity terms instead of appending its own",
        behaviours=("exclusive.leader-affinity",),
        edits=(Edit(POD_WEBHOOK, "_set_exclusive_affinities",
                    "anti_affinity[required] = [*(anti_affinity.get(required) or []), _affinity_term(",
                    "anti_affinity[required] = [_affinity_term("),),
        caught_by=("exclusive/leader-keeps-user-affinity",),
        side="webhooks",
    ),
    Mistake(
        "anti-affinity-ignores-priority",
        "the leader's anti-affinity term leaves out the `jobset.sigs.k8s.io/priority In [<priority>]` expression",
        behaviours=("exclusive.leader-affinity", "exclusive.priority-label"),
        edits=(Edit(POD_WEBHOOK, "_set_exclusive_affinities",
                    '{"key": c.JOB_KEY, "operator": "NotIn", "values": [job_key]},\n'
                    '         {"key": c.PRIORITY_KEY, "operator": "In", "values": [priority]}]',
                    '{"key": c.JOB_KEY, "operator": "NotIn", "values": [job_key]}]'),),
        caught_by=("exclusive/replicated-job-level",),
        side="webhooks",
    ),
    Mistake(
        "priority-label-exclusive-only",
        "the pod webhook adds the priority label only to exclusive-placement pods",
        behaviours=("exclusive.priority-label",),
        edits=(Edit(POD_WEBHOOK, "default_pod",
                    "    if priority is not None:", "    if priority is not None and c.EXCLUSIVE_KEY in annotations:"),),
        caught_by=("exclusive/replicated-job-level",),
        side="webhooks",
    ),
    Mistake(
        "priority-label-skips-zero",
        "the pod webhook adds the priority label only for a non-zero priority (a truthiness test), so pods of "
        "priority 0 get none",
        behaviours=("exclusive.priority-label",),
        edits=(Edit(POD_WEBHOOK, "default_pod", "    if priority is not None:", "    if priority:"),),
        caught_by=("exclusive/replicated-job-level",),
        side="webhooks",
    ),
    Mistake(
        "pod-defaulting-ignores-node-selector-strategy",
        "the mutating pod webhook handles node-selector-strategy pods too (priority label, affinities, "
        "nodeSelector)",
        behaviours=("exclusive.node-selector-strategy", "exclusive.priority-label"),
        edits=(Edit(POD_WEBHOOK, "default_pod",
                    "if c.JOBSET_NAME_KEY not in annotations or c.NODE_SELECTOR_STRATEGY_KEY in annotations:",
                    "if c.JOBSET_NAME_KEY not in annotations:"),),
        caught_by=("exclusive/node-selector-strategy",),
        side="webhooks",
    ),
    Mistake(
        "pod-validation-ignores-node-selector-strategy",
        "the validating pod webhook checks node-selector-strategy followers for a topology nodeSelector too",
        behaviours=("exclusive.node-selector-strategy",),
        edits=(Edit(POD_WEBHOOK, "validate_pod_create",
                    "if c.JOBSET_NAME_KEY not in annotations or c.NODE_SELECTOR_STRATEGY_KEY in annotations:",
                    "if c.JOBSET_NAME_KEY not in annotations:"),),
        caught_by=("exclusive/node-selector-strategy",),
        side="webhooks",
    ),
    Mistake(
        "follower-selector-node-name",
        "the pod webhook pins a follower with nodeSelector <topologyKey>: <leader's node name> instead of the "
        "node's topology label value",
        behaviours=("exclusive.follower-node-selector",),
        edits=(Edit(POD_WEBHOOK, "default_pod",
                    "spec[\"nodeSelector\"][topology_key] = node_labels[topology_key]",
                    "spec[\"nodeSelector\"][topology_key] = node_name"),),
        caught_by=("examples/simple-exclusive-placement",),
        side="webhooks",
    ),
    Mistake(
        "follower-pinned-without-scheduled-leader",
        "the pod webhook looks up the leader's node even when the leader is not scheduled yet (the follower "
        "is denied with `nodes \"\" not found` instead of being left to the validating webhook)",
        behaviours=("exclusive.follower-unscheduled-leader",),
        edits=(Edit(POD_WEBHOOK, "default_pod", "    if not node_name:\n        return out\n", ""),),
        caught_by=("exclusive/follower-before-leader-scheduled",),
        side="webhooks",
    ),
    Mistake(
        "follower-validation-skips-leader-scheduled",
        "the validating pod webhook admits a follower whose template already names the topology while its "
        "leader is not scheduled",
        behaviours=("exclusive.follower-unscheduled-leader",),
        edits=(Edit(POD_WEBHOOK, "validate_pod_create",
                    'if not (leader.get("spec") or {}).get("nodeName"):', "if False:"),),
        caught_by=("exclusive/follower-before-leader-scheduled",),
        side="webhooks",
    ),
    Mistake(
        "leader-lookup-counts-terminating",
        "the leader lookup counts leader pods that are being deleted, so a follower created while an old "
        "leader terminates is denied (expected 1 leader pod, got 2)",
        behaviours=("exclusive.leader-lookup",),
        edits=(Edit(POD_WEBHOOK, "_live_leader_candidate",
                    'and not meta.get("deletionTimestamp")', ""),),
        caught_by=("exclusive/leader-replaced",),
        side="webhooks",
    ),
    Mistake(
        "leader-lookup-counts-finished",
        "the leader lookup counts Failed and Succeeded leader pods, so after a leader failed (restartPolicy "
        "Never) a new follower finds two leaders and is denied",
        behaviours=("exclusive.leader-lookup",),
        edits=(Edit(POD_WEBHOOK, "_live_leader_candidate",
                    "and (p.get(\"status\") or {}).get(\"phase\") not in _FINISHED_PHASES", ""),),
        caught_by=("exclusive/leader-replaced",),
        side="webhooks",
    ),
    Mistake(
        "follower-owner-unchecked",
        "the leader lookup takes the one live pod named like the leader without checking that the follower's "
        "Job owns it",
        behaviours=("exclusive.leader-lookup",),
        edits=(Edit(POD_WEBHOOK, "find_leader_pod", "    _owned_by_same_job(leader, pod)\n", ""),),
        caught_by=("exclusive/stray-leader-pod",),
        side="webhooks",
    ),
    Mistake(
        "node-lookup-error-admits-follower",
        "the pod webhook admits a follower unpinned when reading the leader's node fails, instead of denying "
        "it with the API error",
        behaviours=("exclusive.leader-node",),
        edits=(Edit(POD_WEBHOOK, "default_pod",
                    "    except ApiError:\n        raise\n", "    except ApiError:\n        return out\n"),),
        caught_by=("exclusive/leader-node-unlabelled",),
        side="webhooks",
    ),
    Mistake(
        "node-topology-label-unchecked",
        "the pod webhook pins a follower to an empty topology value when the leader's node lacks the topology "
        "label, instead of denying it (`node does not have topology label: <key>`)",
        behaviours=("exclusive.leader-node",),
        edits=(Edit(POD_WEBHOOK, "default_pod",
                    'raise Forbidden(f"node does not have topology label: {topology_key}")',
                    'node_labels = {**node_labels, topology_key: ""}'),),
        caught_by=("exclusive/leader-node-unlabelled",),
        side="webhooks",
    ),
)

_CONTROLLER = (
    Mistake(
        "misplaced-followers-kept",
        "the pod reconciler finds every follower placement valid, so followers pinned to a leader's old "
        "domain are never deleted",
        behaviours=("exclusive.repair-misplaced", "exclusive.one-job-per-domain"),
        edits=(Edit(POD_CONTROLLER, "PodReconciler._placements_valid", "                return False",
                    "                return True"),),
        caught_by=("exclusive/misplaced-follower-repaired",),
    ),
    Mistake(
        "repair-reconciles-on-create-only",
        "the pod reconciler reacts to a leader's creation only, when it is not scheduled yet, so it never "
        "checks the followers",
        behaviours=("exclusive.repair-misplaced",),
        edits=(Edit(POD_CONTROLLER, "PodReconciler._on_pod",
                    'if _event != "DELETED" and _should_reconcile(obj):',
                    'if _event == "ADDED" and _should_reconcile(obj):'),),
        caught_by=("exclusive/misplaced-follower-repaired",),
    ),
    Mistake(
        "repair-deletes-leader-too",
        "the pod reconciler deletes the leader along with the misplaced followers",
        behaviours=("exclusive.repair-misplaced",),
        edits=(Edit(POD_CONTROLLER, "PodReconciler._reconcile",
                    "self.apply.evict_follower_pods([p for p in pods if not is_leader_pod(p)], condition)",
                    "self.apply.evict_follower_pods(list(pods), condition)"),),
        caught_by=("exclusive/misplaced-follower-repaired",),
    ),
    Mistake(
        "repair-wrong-reason",
        "the pod reconciler marks deleted followers DisruptionTarget with reason EvictionByEvictionAPI instead of "
        "ExclusivePlacementViolation",
        behaviours=("exclusive.repair-misplaced",),
        edits=(Edit(POD_CONTROLLER, "PodReconciler._reconcile",
                    '"reason": c.EXCLUSIVE_PLACEMENT_VIOLATION_REASON,', '"reason": "EvictionByEvictionAPI",'),),
        caught_by=("exclusive/misplaced-follower-repaired",),
    ),
    Mistake(
        "repair-without-disruption-condition",
        "the pod reconciler deletes misplaced followers without first adding the DisruptionTarget condition",
        behaviours=("exclusive.repair-misplaced",),
        edits=(Edit(APPLY, "Applier.evict_follower_pods", "if changed:", "if False:"),),
        caught_by=("exclusive/misplaced-follower-repaired",),
    ),
    Mistake(
        "repair-ignores-pod-owner",
        "the pod reconciler checks every pod carrying the leader's job-key label, not only the pods the "
        "leader's own Job controls, so another controller's pod with a copied label gets followers evicted",
        behaviours=("exclusive.repair-misplaced",),
        edits=(Edit(POD_CONTROLLER, "PodReconciler._reconcile",
                    ' and _controller_uid(p) == owner_uid]', "]"),),
        caught_by=("exclusive/foreign-pod-same-job-key",),
    ),
    Mistake(
        "exclusive-topology-as-label",
        "the JobSet controller copies the exclusive-placement annotations onto Jobs and pods as labels too",
        behaviours=("labels.exclusive-annotation-only",),
        edits=(Edit(CONSTRUCT, "_label_and_annotate",
                    'labels = {**(meta.get("labels") or {}), **values}',
                    'labels = {**(meta.get("labels") or {}), **values, **exclusive}'),),
        caught_by=("exclusive/node-selector-strategy",),
    ),
    Mistake(
        "rjob-level-exclusive-ignored",
        "the JobSet controller reads the exclusive-topology annotation from the JobSet only, not from a "
        "replicatedJob's Job template",
        behaviours=("exclusive.rjob-level",),
        edits=(Edit(CONSTRUCT, "_exclusive_annotations", "if c.EXCLUSIVE_KEY in rjob_ann:", "if False:"),),
        caught_by=("exclusive/replicated-job-level",),
    ),
    Mistake(
        "node-selector-strategy-no-toleration",
        "with the node-selector strategy the Jobs get the namespaced-job nodeSelector but not the no-schedule "
        "toleration",
        behaviours=("exclusive.node-selector-strategy",),
        edits=(Edit(CONSTRUCT, "construct_job",
                    '{"key": c.NO_SCHEDULE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]', "]"),),
        caught_by=("exclusive/node-selector-strategy",),
    ),
    Mistake(
        "node-selector-strategy-job-name-only",
        "with the node-selector strategy the nodeSelector value is the Job name instead of <namespace>_<job>",
        behaviours=("exclusive.node-selector-strategy",),
        edits=(Edit(CONSTRUCT, "construct_job", "namespaced_job_name(js.namespace, name)", "name"),),
        caught_by=("exclusive/node-selector-strategy",),
    ),
)

MISTAKES = (*_WEBHOOK, *_CONTROLLER)
