"""queue_operator: a tiny Kueue-style admission controller for JobSets, written with kopf and the
``kubernetes`` client, so it runs unchanged against a real cluster or a served fake one.

    kopf run -A --standalone queue_operator/run.py            # against $KUBECONFIG

JobSets created with ``spec.suspend: true`` and the label ``queue.example.com/name: <queue>``
wait in that queue. The queue is a ConfigMap named ``<queue>`` (in the JobSets' namespace) whose
``quota`` key holds a YAML mapping of resource → integer (``pods``, ``google.com/tpu``,
``nvidia.com/gpu``, …) and whose optional ``nodeSelector`` key holds labels to inject into the
pod templates on admission. JobSets are admitted strictly in creation order while the quota
allows; a finished (Completed or Failed) or deleted JobSet gives its quota back.
"""

from __future__ import annotations

from queue_operator.operator import (
    ADMITTED_ANNOTATION,
    QUEUE_LABEL,
    admission_patch,
    demand_of,
    parse_queue,
    reconcile_queue,
    register,
)

__all__ = ["ADMITTED_ANNOTATION", "QUEUE_LABEL", "admission_patch", "demand_of", "parse_queue",
           "reconcile_queue", "register"]
