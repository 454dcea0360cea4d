"""Resource amounts as Kueue counts them (``pkg/resources``): int64 per resource, cpu in millicores.

``pod_requests`` is ``resourcehelpers.PodRequests`` with limits standing in for missing requests
(``workload.AdjustResources``'s ``UseLimitsAsMissingRequestsInPod``); ``format_amount`` is the
``ResourceFormatter`` (cpu as milli DecimalSI, memory and ephemeral-storage canonical BinarySI,
the rest DecimalSI), which renders status quantities and flavor-assigner messages.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

from fakekube.machinery.quantity import canonicalize_quantity, format_quantity, milli_value, value_of

__all__ = ["FlavorResource", "format_amount", "pod_requests", "resource_value"]

FlavorResource = tuple[str, str]
"""(flavor, resource)."""

_BINARY = frozenset({"memory", "ephemeral-storage"})


_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)


@functools.lru_cache(maxsize=4096)
def _value(name: str, text: str) -> int:
    """An int64, as ``Quantity.MilliValue``/``Value`` return it: saturated at the int64 bounds."""
    try:
        value = milli_value(text) if name == "cpu" else value_of(text)
    except (ValueError, ArithmeticError):
        return 0
    return max(_INT64_MIN, min(_INT64_MAX, value))


def resource_value(name: str, quantity: Any) -> int:
    """``resources.ResourceValue``: millicores for cpu, the (rounded up) value otherwise."""
    return _value(name, str(quantity))


def _container_requests(container: dict[str, Any]) -> dict[str, int]:
    res = container.get("resources") or {}
    merged = dict(res.get("limits") or {})
    merged.update(res.get("requests") or {})
    return {name: resource_value(name, q) for name, q in merged.items()}


def pod_requests(spec: dict[str, Any]) -> dict[str, int]:
    """The effective requests of one pod of ``spec`` (containers, init and sidecar containers,
    overhead), zero entries dropped."""
    total: dict[str, int] = {}
    for container in spec.get("containers") or []:
        for name, v in _container_requests(container).items():
            total[name] = total.get(name, 0) + v
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for container in spec.get("initContainers") or []:
        req = _container_requests(container)
        if container.get("restartPolicy") == "Always":
            for name, v in req.items():
                sidecars[name] = sidecars.get(name, 0) + v
            current = sidecars
        else:
            current = {name: sidecars.get(name, 0) + req.get(name, 0) for name in sorted(set(sidecars) | set(req))}
        for name, v in current.items():
            init_max[name] = max(init_max.get(name, 0), v)
    for name, v in sidecars.items():
        total[name] = total.get(name, 0) + v
    for name, v in init_max.items():
        total[name] = max(total.get(name, 0), v)
    for name, q in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, 0) + resource_value(name, q)
    return {name: max(v, 0) for name, v in total.items()}


@functools.lru_cache(maxsize=4096)
def format_amount(name: str, value: int) -> str:
    """The quantity text of ``value`` of resource ``name`` (``ResourceFormatter.ResourceQuantityString``)."""
    if name == "cpu":
        return format_quantity(Fraction(value, 1000), "DecimalSI")
    if name in _BINARY or name.startswith("hugepages-"):
        return canonicalize_quantity(format_quantity(value, "BinarySI"))
    return format_quantity(value, "DecimalSI")
