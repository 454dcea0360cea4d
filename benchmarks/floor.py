"""The floor under the multislice run: what the same work costs without the simulation around it.

- **loop floor**: the same number of loop events, each with an empty handler, scheduled the
  way the run schedules them (a few instants, many events each);
- **write floor**: the same API writes, recorded at the API server's verbs during a real run
  and replayed in order on a cluster with no controllers (JobSet CRD and webhooks installed,
  so admission runs as in the run; the webhooks' pod informer is the one watch left, and the
  loop delivers to it after each write); trusted writes stay trusted.

``python -m benchmarks --only floor`` prints both next to the full run.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from benchmarks.multislice import PODS_PER_SLICE, RUN_SECONDS, manifest

VERBS = ("create", "update", "patch", "delete", "create_subresource")


def loop_floor(events: int) -> float:
    """CPU seconds for ``events`` empty loop events (same-instant batches, as watch deliveries)."""
    from fakekube._core.loop import EventLoop, Priority
    from fakekube._core.trace import Trace

    loop = EventLoop(Trace(lambda: 0, enabled=False))
    noop = lambda: None  # noqa: E731
    gc.disable()  # as in a run, where events are scheduled by handlers inside it
    try:
        cpu = time.process_time()
        for i in range(events):
            loop.call_later(i // 1000, noop, label="watch pods", priority=Priority.URGENT)
        loop.run_to(events)
        return time.process_time() - cpu
    finally:
        gc.enable()


Writes = list[tuple[str, tuple[Any, ...], dict[str, Any]]]


def record_writes(slices: int) -> tuple[Writes, int, float]:
    """Run the multislice scenario and return every top-level write with copied arguments, how
    many of them the server refused, and the run's CPU seconds (apply → Completed, recording
    included)."""
    import jobset_ref
    from fakekube import FakeCluster
    from fakekube._core.jsonutil import deep_copy
    from fakekube.errors import ApiError

    cluster = FakeCluster(seed=0, trace=False)
    jobset_ref.install(cluster)
    api = cluster.api
    writes: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
    failed_in_run: set[int] = set()
    depth = [0]

    def wrap(verb: str) -> None:
        original = getattr(api, verb)

        def recorded(*args: Any, **kwargs: Any) -> Any:
            top = depth[0] == 0
            if top:  # copied before the call: the server keeps (and edits) a trusted writer's body
                at = len(writes)
                writes.append((verb, deep_copy(list(args)), {k: deep_copy(v) if isinstance(v, dict | list) else v
                                                              for k, v in kwargs.items()}))
            depth[0] += 1
            try:
                return original(*args, **kwargs)
            except ApiError:
                if top:  # replayed too (a denied create still draws a generated name), counted apart
                    failed_in_run.add(at)
                raise
            finally:
                depth[0] -= 1

        setattr(api, verb, recorded)

    for verb in VERBS:
        wrap(verb)
    _nodes(cluster, slices)
    cluster.script_pods("jobset.sigs.k8s.io/jobset-name=multislice", duration=RUN_SECONDS, exit_code=0)
    cluster.run_until_idle()
    cpu = time.process_time()
    cluster.apply(manifest(slices))
    cluster.advance(RUN_SECONDS / 2)
    victim = cluster.list("pods", label_selector="jobset.sigs.k8s.io/job-index=0")[0]
    cluster.fail_pod(victim["metadata"]["name"], exit_code=1)
    cluster.run_until(lambda: (api.get("jobsets.jobset.x-k8s.io", "multislice", "default", copy=False)
                               .get("status") or {}).get("terminalState") == "Completed",
                      timeout=4 * RUN_SECONDS)
    return writes, len(failed_in_run), time.process_time() - cpu


def _nodes(cluster: Any, slices: int) -> None:
    from benchmarks.multislice import POOL_LABEL

    for pool in range(slices):
        cluster.add_nodes(PODS_PER_SLICE, name_prefix=f"pool-{pool}", labels={POOL_LABEL: f"pool-{pool}"},
                          capacity={"google.com/tpu": "4"})


def write_floor(writes: Writes) -> tuple[float, int]:
    """CPU seconds to replay ``writes`` on a cluster with no controllers; and how many failed."""
    import jobset_ref
    from fakekube import FakeCluster
    from fakekube.errors import ApiError

    cluster = FakeCluster(seed=0, trace=False, simulate=False)
    jobset_ref.install(cluster, controller=False)
    api = cluster.api
    failed = 0
    cpu = time.process_time()
    run = cluster.loop.run_until_idle
    gc.disable()  # as during a loop run (fakekube._core.loop)
    try:
        for verb, args, kwargs in writes:
            try:
                getattr(api, verb)(*args, **kwargs)
            except ApiError:
                failed += 1
            run()  # the JobSet pod webhooks read leader pods from an informer
    finally:
        gc.enable()
    return time.process_time() - cpu, failed


def run(slices: int) -> list[str]:
    from benchmarks.multislice import run_one

    full = run_one(slices)
    writes, refused, _ = record_writes(slices)
    floor_writes, failed = write_floor(writes)
    floor_loop = loop_floor(full["events"])
    cpu = full["cpu_s"]
    return [f"## floor at {slices} slices (CPU, apply → Completed)", "",
            "| what | CPU | share of the full run |", "|---|---:|---:|",
            f"| full run | {cpu:.2f} s | 100 % |",
            f"| the same {len(writes):,} writes replayed, no controllers ({failed} refused, as {refused} in "
            f"the run) | {floor_writes:.2f} s | {100 * floor_writes / cpu:.0f} % |",
            f"| the same {full['events']:,} loop events, empty handlers | {floor_loop:.2f} s | "
            f"{100 * floor_loop / cpu:.0f} % |"]
