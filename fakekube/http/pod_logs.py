"""``GET …/pods/{name}/log``: a simulated pod's log, cut by the ``PodLogOptions`` a client sends.

A simulated container writes nothing; its log is the pod's ``fakekube.io/log`` annotation, readable
once the container has started. ``container`` is checked as kube-apiserver checks it (required when
the pod has several), ``tailLines`` keeps the last lines and ``limitBytes`` the first bytes, as the
kubelet does. ``follow``, ``previous``, ``sinceSeconds`` and ``timestamps`` are accepted and ignored.
"""

from __future__ import annotations

from typing import Any

from fakekube.errors import BadRequest, FieldError, Invalid, ResourceName

__all__ = ["LOG_ANNOTATION", "read_log"]

LOG_ANNOTATION = "fakekube.io/log"
_POD_LOG_OPTIONS = ResourceName("pods", "", "PodLogOptions")


def read_log(pod: dict[str, Any], *, container: str = "", tail: int | None = None, limit: int | None = None) -> str:
    """The text of ``pod``'s log (``container``, ``tailLines``, ``limitBytes``), or the ApiError
    kube-apiserver answers."""
    name = pod["metadata"]["name"]
    errors = []
    if tail is not None and tail < 0:
        errors.append(FieldError.invalid("tailLines", tail, "must be greater than or equal to 0"))
    if limit is not None and limit < 1:
        errors.append(FieldError.invalid("limitBytes", limit, "must be greater than 0"))
    if errors:
        raise Invalid.for_object(_POD_LOG_OPTIONS, name, errors)
    container = _container(pod, container)
    if not (pod.get("spec") or {}).get("nodeName"):  # the API server's check, before the kubelet's
        raise BadRequest(f"pod {name} does not have a host assigned")
    statuses = [s for key in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")
                for s in (pod.get("status") or {}).get(key) or [] if s.get("name") == container]
    state = (statuses[0].get("state") or {}) if statuses else {}
    last = (statuses[0].get("lastState") or {}) if statuses else {}
    if "running" not in state and "terminated" not in state and "terminated" not in last:  # a restart keeps its log
        reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
        raise BadRequest(f'container "{container}" in pod "{name}" is waiting to start: {reason}')
    text: str = (pod["metadata"].get("annotations") or {}).get(LOG_ANNOTATION, "")
    if tail is not None:
        text = "".join(text.splitlines(keepends=True)[-tail:]) if tail else ""
    if limit is not None:
        text = text.encode()[:limit].decode(errors="ignore")
    return text


def _container(pod: dict[str, Any], container: str) -> str:
    """The container a log request names, or the pod's only one (``LogLocation``'s rules)."""
    name = pod["metadata"]["name"]
    spec = pod.get("spec") or {}
    names: list[str] = [c.get("name", "") for c in spec.get("containers") or []]
    init_names = [c.get("name", "") for c in spec.get("initContainers") or []]
    if container:
        if container not in names + init_names + [c.get("name", "") for c in spec.get("ephemeralContainers") or []]:
            raise BadRequest(f"container {container} is not valid for pod {name}")
        return container
    if len(names) == 1:
        return names[0]
    if not names:
        raise BadRequest(f"a container name must be specified for pod {name}")
    message = f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]"
    if init_names:
        message += f" or one of the init containers: [{' '.join(init_names)}]"
    raise BadRequest(message)

