"""Container probes on virtual time: spec defaults, scripted outcomes, and when a probe's result changes.

Pure functions used by :mod:`fakekube.components.kubelet` (``pkg/kubelet/prober``).

A probe's settings come from the container spec with upstream's defaults: ``initialDelaySeconds``
0, ``periodSeconds`` 10, ``failureThreshold`` 3, ``successThreshold`` 1. The result a probe
*would* return is scripted with an annotation holding a comma-separated list of:

- ``succeed-after=<duration>``: the probe fails until that long after the container started;
- ``fail-after=<duration>``: the probe fails from that long after the container started;
- ``succeed`` (the default) or ``fail`` (always).

``<duration>`` is seconds, optionally with a unit: ``30``, ``30s``, ``1.5m``, ``2h``. Both
bounds may be given (``succeed-after=5s,fail-after=60s``: failing, then passing, then failing).

Like the prober's worker, a result only counts after ``successThreshold`` consecutive successes
or ``failureThreshold`` consecutive failures. Probes run at ``initialDelaySeconds`` after the
container started and every ``periodSeconds`` after that (liveness and readiness probes of a
container with a startup probe only from the moment the startup probe succeeded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["PROBE_KINDS", "Outcome", "Probe", "parse_outcome", "probe_of", "timeline"]

PROBE_KINDS = ("startup", "readiness", "liveness")

_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True, slots=True)
class Probe:
    """A probe's timing, with upstream's defaults filled in."""

    initial_delay: int = 0
    period: int = 10
    failure_threshold: int = 3
    success_threshold: int = 1


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the probe returns ``t`` seconds after the container started."""

    succeed_after: float | None = None
    fail_after: float | None = None

    def passes(self, t: float) -> bool:
        return (self.succeed_after is None or t >= self.succeed_after) and (
            self.fail_after is None or t < self.fail_after)


def _positive(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def probe_of(container: dict[str, Any], kind: str) -> Probe | None:
    """The container's ``<kind>Probe`` (``startup``/``readiness``/``liveness``), or None."""
    spec = container.get(f"{kind}Probe")
    if not isinstance(spec, dict):
        return None
    delay = spec.get("initialDelaySeconds")
    return Probe(initial_delay=delay if isinstance(delay, int) and not isinstance(delay, bool) and delay > 0 else 0,
                 period=_positive(spec.get("periodSeconds"), 10),
                 failure_threshold=_positive(spec.get("failureThreshold"), 3),
                 success_threshold=_positive(spec.get("successThreshold"), 1))


def _duration(text: str) -> float:
    text = text.strip()
    scale = _UNITS.get(text[-1:], None)
    number = text[:-1] if scale is not None else text
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{text!r} is not a duration such as 30s, 1.5m or 45")
    return value * (scale or 1.0)


def parse_outcome(text: str) -> Outcome:
    """Parse a probe annotation (see the module docstring); ValueError says what is wrong."""
    succeed_after: float | None = None
    fail_after: float | None = None
    for raw in text.split(","):
        item = raw.strip()
        key, sep, value = item.partition("=")
        if not sep and key == "succeed":
            succeed_after, fail_after = None, None
        elif not sep and key == "fail":
            fail_after = 0.0
        elif sep and key == "succeed-after":
            succeed_after = _duration(value)
        elif sep and key == "fail-after":
            fail_after = _duration(value)
        else:
            raise ValueError(f"{item!r} is not one of succeed, fail, succeed-after=<duration>, "
                             f"fail-after=<duration>")
    return Outcome(succeed_after, fail_after)


def timeline(probe: Probe, outcome: Outcome, *, initial: bool | None, after: float = 0.0) -> list[tuple[float, bool]]:
    """Each change of the probe's counted result: ``(seconds after the container started, result)``.

    Probes run at ``max(after, initialDelaySeconds)`` and every ``periodSeconds`` after that; the
    result starts as ``initial`` (readiness: False, liveness: True, startup: None) and changes once
    a run of results reaches its threshold. The list ends once the scripted result stays constant.
    """
    first = max(after, float(probe.initial_delay))
    bounds = [b for b in (outcome.succeed_after, outcome.fail_after) if b is not None]
    settle = max([first, *bounds])
    limit = math.ceil((settle - first) / probe.period) + max(probe.failure_threshold, probe.success_threshold) + 1
    changes: list[tuple[float, bool]] = []
    state, last, run = initial, None, 0
    for k in range(limit + 1):
        t = first + k * probe.period
        result = outcome.passes(t)
        run = run + 1 if result == last else 1
        last = result
        if result and run >= probe.success_threshold and state is not True:
            state = True
            changes.append((t, True))
        elif not result and run >= probe.failure_threshold and state is not False:
            state = False
            changes.append((t, False))
    return changes
