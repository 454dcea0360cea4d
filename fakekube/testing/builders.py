"""Wire-form builders for the core objects tests create most (plain dicts, never API calls).

    cluster.create(make_job("pi", completions=3, parallelism=3, completionMode="Indexed"))
    cluster.create(make_pod("p", labels={"app": "x"}))
"""

from __future__ import annotations

from typing import Any

__all__ = ["make_configmap", "make_job", "make_pod"]

IMAGE = "busybox:1.36"


def _meta(name: str, labels: dict[str, str] | None, annotations: dict[str, str] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def make_pod(name: str = "p", *, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
             **spec: Any) -> dict[str, Any]:
    """A Pod with one ``main`` container; keyword arguments are merged into ``spec``."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(name, labels, annotations),
            "spec": {"containers": [{"name": "main", "image": IMAGE}], **spec}}


def make_job(name: str = "pi", *, labels: dict[str, str] | None = None, restart_policy: str = "Never",
             **spec: Any) -> dict[str, Any]:
    """A batch/v1 Job whose pod template has one container ``c``; keyword arguments go into ``spec``."""
    body: dict[str, Any] = {"template": {"spec": {"restartPolicy": restart_policy,
                                                  "containers": [{"name": "c", "image": "busybox"}]}}}
    body.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta(name, labels, None), "spec": body}


def make_configmap(name: str = "c", **data: str) -> dict[str, Any]:
    """A ConfigMap with ``data``."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": dict(data)}
