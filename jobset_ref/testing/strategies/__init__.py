"""Hypothesis strategies for JobSets, clusters, pod outcomes and fault timelines.

Follows Hypothesis's API style guide (``ANCHORS.md`` §2.6, §3.8):

* plural names (:func:`jobsets`, :func:`invalid_jobsets`, :func:`cluster_shapes`,
  :func:`pod_scripts`, :func:`fault_timelines`, :func:`failure_policy_rules` …);
* every option is keyword-only; sizes are ``min_size``/``max_size``-style bounds
  (``min_replicas``/``max_replicas`` …);
* leaf distributions are passed as strategies (``names=``, ``suspend=``, ``managed_by=`` …),
  never "a value or a strategy"; structural features take a :data:`Feature` flag:
  ``None`` = sometimes (drawn), ``True`` = always, ``False`` = never;
* impossible combinations raise :class:`fakekube.UsageError` with a fix-it message (eagerly when
  the arguments alone are impossible, otherwise when a value is drawn);
* valid by construction: every :func:`jobsets` value is admitted by the JobSet webhooks
  (:func:`jobset_ref.api.validate_create` after CRD and webhook defaulting) for the feature
  gates it was drawn for; :func:`invalid_jobsets` pairs a rejected JobSet with the error it
  must produce;
* :func:`from_manifest` varies a given manifest (upstream examples, conformance inputs) and keeps
  it admissible.

Everything drawn is wire form (plain JSON-compatible dicts) or a frozen dataclass whose
``repr`` is valid Python, so a failing example prints as a program you can paste. Cluster-side
helpers (:class:`ClusterShape`, :class:`PodScripts`, :class:`FaultTimeline`) apply themselves
to a :class:`fakekube.FakeCluster` with an ``apply``/``run`` method; they touch the cluster only
through its public API.

The fault timelines speak the one fault vocabulary of :mod:`fakekube.faults` (the one conformance
scenarios' timelines use): a drawn :class:`FailPod`, :class:`CompletePod`, :class:`FailNode`,
:class:`InjectConflict`, :class:`DelayWatch`, :class:`BreakWatch` or :class:`DelayDelivery` is a
timed, JobSet-relative description that applies the ``fakekube.faults`` value it stands for
(``failPod``, ``completePod``, ``failNode``, ``inject`` with a 409 error or ``delaySeconds``,
``breakWatch``, ``delayDelivery``).

This is a package: one module per kind of thing drawn (:mod:`.jobset_parts` names, Job templates
and policies; :mod:`.jobset_specs` whole JobSets and :func:`from_manifest`;
:mod:`.invalid_jobset_specs` rejected JobSets; :mod:`.clusters` cluster shapes;
:mod:`.pod_outcomes` pod scripts; :mod:`.timelines` faults and fault timelines;
:mod:`.simulations` scenarios; :mod:`._arguments` what they share). It stays a package rather
than becoming a facade module next to its parts so that the parts live under the one public
name: ``from jobset_ref.testing.strategies import jobsets`` (or ``... import strategies as s``)
imports every public name from here, as it always did, and no part imports this ``__init__``.
"""

from __future__ import annotations

from jobset_ref.testing.strategies._arguments import DEFAULT_TOPOLOGY_KEYS, Feature
from jobset_ref.testing.strategies.clusters import ClusterShape, NodeShape, cluster_shapes
from jobset_ref.testing.strategies.invalid_jobset_specs import INVALID_RULES, InvalidJobSet, invalid_jobsets
from jobset_ref.testing.strategies.jobset_parts import MESSAGE_PATTERNS as MESSAGE_PATTERNS
from jobset_ref.testing.strategies.jobset_parts import (
    dns_labels,
    failure_policies,
    failure_policy_rules,
    job_templates,
    success_policies,
)
from jobset_ref.testing.strategies.jobset_specs import EXTERNAL_MANAGER as EXTERNAL_MANAGER
from jobset_ref.testing.strategies.jobset_specs import admitted, from_manifest, jobsets
from jobset_ref.testing.strategies.pod_outcomes import PodScript, PodScripts, pod_scripts
from jobset_ref.testing.strategies.simulations import Scenario, scenarios
from jobset_ref.testing.strategies.timelines import (
    FAULT_KINDS,
    BreakWatch,
    CompletePod,
    DelayDelivery,
    DelayWatch,
    DeleteJobSet,
    FailNode,
    FailPod,
    Fault,
    FaultTimeline,
    InjectConflict,
    RestartControllers,
    Resume,
    Suspend,
    fault_timelines,
)
from jobset_ref.testing.strategies.timelines import FaultContext as FaultContext

__all__ = [
    "DEFAULT_TOPOLOGY_KEYS",
    "FAULT_KINDS",
    "INVALID_RULES",
    "BreakWatch",
    "ClusterShape",
    "CompletePod",
    "DelayDelivery",
    "DelayWatch",
    "DeleteJobSet",
    "FailNode",
    "FailPod",
    "Fault",
    "FaultTimeline",
    "Feature",
    "InjectConflict",
    "InvalidJobSet",
    "NodeShape",
    "PodScript",
    "PodScripts",
    "RestartControllers",
    "Resume",
    "Scenario",
    "Suspend",
    "admitted",
    "cluster_shapes",
    "dns_labels",
    "failure_policies",
    "failure_policy_rules",
    "fault_timelines",
    "from_manifest",
    "invalid_jobsets",
    "job_templates",
    "jobsets",
    "pod_scripts",
    "scenarios",
    "success_policies",
]
