"""How a pod's containers are scripted: what they do when they run, on the kubelet's virtual time.

Two ways (the third, immediate actions such as ``fail_pod``, is the kubelet's own API), resolved
each time containers (re)start, so a script applies to pods created after it and to pods that
have not started yet; per field, a pod annotation beats the latest matching script:

- pod annotations: ``fakekube.io/run-seconds: "60"`` (how long containers run; absent = forever),
  ``fakekube.io/exit-code: "1"`` (default 0), ``fakekube.io/fail-reason: "OOMKilled"``
  (``terminated.reason``; default ``Completed``/``Error``),
  ``fakekube.io/ready-after-seconds: "5"`` (readiness delay after start),
  ``fakekube.io/start-seconds: "3"`` (overrides ``START_DELAY`` for this pod, e.g. a slow
  image pull) and ``fakekube.io/termination-seconds: "10"`` (time to exit after SIGTERM);
- ``script_pods(label_selector, duration=, exit_code=, ready_after=, reason=)``: the latest
  script whose selector matches the pod's labels wins.

Init containers take ``fakekube.io/init-run-seconds`` and ``fakekube.io/init-exit-code``
(``.<container>`` for one); probes ``fakekube.io/readiness``, ``fakekube.io/liveness`` and
``fakekube.io/startup`` (:mod:`fakekube.components.kubelet_probes`). A malformed annotation is
reported through ``malformed`` and ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakekube._core.clock import SimTime, seconds
from fakekube.components.kubelet_probes import Outcome, parse_outcome
from fakekube.machinery import selectors as sel

__all__ = [
    "ANNOTATION_EXIT_CODE",
    "ANNOTATION_FAIL_REASON",
    "ANNOTATION_INIT_EXIT_CODE",
    "ANNOTATION_INIT_RUN_SECONDS",
    "ANNOTATION_PROBE_PREFIX",
    "ANNOTATION_READY_AFTER",
    "ANNOTATION_RUN_SECONDS",
    "ANNOTATION_START_SECONDS",
    "ANNOTATION_TERMINATION_SECONDS",
    "NO_SCRIPT",
    "Malformed",
    "Script",
    "init_script",
    "pod_script",
    "probe_outcome",
    "seconds_annotation",
]

ANNOTATION_RUN_SECONDS = "fakekube.io/run-seconds"
ANNOTATION_EXIT_CODE = "fakekube.io/exit-code"
ANNOTATION_FAIL_REASON = "fakekube.io/fail-reason"
ANNOTATION_READY_AFTER = "fakekube.io/ready-after-seconds"
ANNOTATION_START_SECONDS = "fakekube.io/start-seconds"
ANNOTATION_TERMINATION_SECONDS = "fakekube.io/termination-seconds"
ANNOTATION_PROBE_PREFIX = "fakekube.io/"  # + readiness / liveness / startup [+ .<container>]
ANNOTATION_INIT_RUN_SECONDS = "fakekube.io/init-run-seconds"  # [+ .<init container>]
ANNOTATION_INIT_EXIT_CODE = "fakekube.io/init-exit-code"  # [+ .<init container>]

#: Told about a malformed annotation of a pod (which it then ignores).
Malformed = Callable[[dict[str, Any], ValueError], None]


@dataclass(frozen=True, slots=True)
class Script:
    """A scripted container outcome: run ``duration`` s (None: forever), then exit ``exit_code``."""

    duration: float | None = None
    exit_code: int = 0
    ready_after: float | None = None
    reason: str | None = None


NO_SCRIPT = Script()


def pod_script(scripts: list[tuple[sel.LabelSelector, Script]], pod: dict[str, Any],
               malformed: Malformed) -> Script:
    labels = pod["metadata"].get("labels") or {}
    script = NO_SCRIPT
    for selector, candidate in reversed(scripts):
        if selector.matches(labels):
            script = candidate
            break
    ann = pod["metadata"].get("annotations") or {}
    if not (ANNOTATION_RUN_SECONDS in ann or ANNOTATION_EXIT_CODE in ann or ANNOTATION_READY_AFTER in ann
            or ANNOTATION_FAIL_REASON in ann):
        return script  # (frozen: the matching script itself, or the default)
    duration, exit_code, ready_after, reason = script.duration, script.exit_code, script.ready_after, script.reason
    try:
        if ANNOTATION_RUN_SECONDS in ann:
            duration = float(ann[ANNOTATION_RUN_SECONDS])
        if ANNOTATION_EXIT_CODE in ann:
            exit_code = int(ann[ANNOTATION_EXIT_CODE])
        if ANNOTATION_READY_AFTER in ann:
            ready_after = float(ann[ANNOTATION_READY_AFTER])
    except ValueError as err:
        malformed(pod, err)
    reason = ann.get(ANNOTATION_FAIL_REASON, reason)
    return Script(duration, exit_code, ready_after, reason)


def seconds_annotation(pod: dict[str, Any], key: str, default: SimTime) -> SimTime:
    raw = (pod["metadata"].get("annotations") or {}).get(key)
    if raw is None:
        return default
    try:
        return max(0, seconds(float(raw)))
    except ValueError:
        return default


def init_script(pod: dict[str, Any], name: str, malformed: Malformed) -> tuple[float, int]:
    """(run seconds, exit code) of a regular init container: ``fakekube.io/init-run-seconds`` and
    ``fakekube.io/init-exit-code`` (``.<container>`` for one); default (0, 0)."""
    ann = pod["metadata"].get("annotations") or {}
    duration, code = 0.0, 0
    try:
        raw = ann.get(f"{ANNOTATION_INIT_RUN_SECONDS}.{name}", ann.get(ANNOTATION_INIT_RUN_SECONDS))
        if raw is not None:
            duration = max(0.0, float(raw))
        raw = ann.get(f"{ANNOTATION_INIT_EXIT_CODE}.{name}", ann.get(ANNOTATION_INIT_EXIT_CODE))
        if raw is not None:
            code = int(raw)
    except ValueError as err:
        malformed(pod, err)
    return duration, code


def probe_outcome(pod: dict[str, Any], kind: str, name: str, malformed: Malformed) -> Outcome:
    """The scripted result of a container's probe: ``fakekube.io/<kind>.<container>``, else
    ``fakekube.io/<kind>``, else always succeeding."""
    ann = pod["metadata"].get("annotations") or {}
    raw = ann.get(f"{ANNOTATION_PROBE_PREFIX}{kind}.{name}", ann.get(f"{ANNOTATION_PROBE_PREFIX}{kind}"))
    if raw is None:
        return Outcome()
    try:
        return parse_outcome(str(raw))
    except ValueError as err:
        malformed(pod, err)
        return Outcome()
