"""The multislice benchmark: N node pools x 64 nodes, one JobSet of N replicas x 64 pods with
exclusive placement per pool, failurePolicy.maxRestarts 3, DNS hostnames on. One pod fails
mid-run, the JobSet restarts globally, then everything completes.

Each size runs in its own process so that peak RSS is that size's own.
"""

from __future__ import annotations

import compileall
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
POOL_LABEL = "cloud.google.com/gke-nodepool"
PODS_PER_SLICE = 64
RUN_SECONDS = 600


def manifest(slices: int) -> dict[str, Any]:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "multislice", "annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": POOL_LABEL}},
        "spec": {
            "failurePolicy": {"maxRestarts": 3},
            "network": {"enableDNSHostnames": True},
            "replicatedJobs": [{
                "name": "slice", "replicas": slices,
                "template": {"spec": {
                    "parallelism": PODS_PER_SLICE, "completions": PODS_PER_SLICE, "backoffLimit": 0,
                    "template": {"spec": {"containers": [{
                        "name": "trainer", "image": "jax-trainer:latest",
                        "resources": {"limits": {"google.com/tpu": "4"}}}]}}}},
            }],
        },
    }


def run_one(slices: int, *, digest: bool = False, strict: bool = False) -> dict[str, Any]:
    """Simulate one size in this process and return the measurements. ``digest=True`` also
    records the trace and returns SHA-256 digests of it and of every stored object at the end
    (what must stay byte-identical across speed-ups); ``strict=True`` runs ``FakeCluster(strict=True)``."""
    import resource

    t0 = time.perf_counter()
    import jobset_ref
    from fakekube import FakeCluster

    cluster = FakeCluster(seed=0, trace=digest, **({"strict": True} if strict else {}))
    jobset_ref.install(cluster)
    for pool in range(slices):
        cluster.add_nodes(PODS_PER_SLICE, name_prefix=f"pool-{pool}", labels={POOL_LABEL: f"pool-{pool}"},
                          capacity={"google.com/tpu": "4"})
    cluster.script_pods("jobset.sigs.k8s.io/jobset-name=multislice", duration=RUN_SECONDS, exit_code=0)
    cluster.run_until_idle()
    setup = time.perf_counter() - t0
    writes0, steps0 = cluster.api.writes, cluster.loop.steps
    start, cpu_start = time.perf_counter(), time.process_time()
    cluster.apply(manifest(slices))
    cluster.advance(RUN_SECONDS / 2)
    victim = cluster.list("pods", label_selector="jobset.sigs.k8s.io/job-index=0")[0]
    cluster.fail_pod(victim["metadata"]["name"], exit_code=1)

    store = cluster.api.store

    def completed() -> bool:  # checked after every loop event: read the store, not through a verb
        js = store.get("jobsets.jobset.x-k8s.io", "default", "multislice")
        return js is not None and (js.get("status") or {}).get("terminalState") == "Completed"

    cluster.run_until(completed, timeout=4 * RUN_SECONDS)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    js = cluster.get("jobsets.jobset.x-k8s.io", "multislice")
    assert js["status"]["restarts"] == 1, js["status"]
    assert len(cluster.list("jobs")) == slices
    result: dict[str, Any] = {}
    if digest:
        result["trace_sha256"] = hashlib.sha256(cluster.trace.text().encode()).hexdigest()
        result["store_sha256"] = store_digest(cluster)
    return {
        **result,
        "slices": slices, "pods": slices * PODS_PER_SLICE, "nodes": slices * PODS_PER_SLICE,
        "setup_s": round(setup, 3), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "events": cluster.loop.steps - steps0, "events_per_s": round((cluster.loop.steps - steps0) / wall),
        "api_writes": cluster.api.writes - writes0, "virtual_s": cluster.elapsed,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "restarts": js["status"]["restarts"],
    }


def store_digest(cluster: Any) -> str:
    """SHA-256 of every stored object (canonical JSON, in resource then key order)."""
    h = hashlib.sha256()
    store = cluster.api.store
    for resource in sorted(store._tables):
        for obj in store.list(resource):
            h.update(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode())
    return h.hexdigest()


def _in_subprocess(code: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-4000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine_reference(rounds: int = 3) -> float:
    """CPU milliseconds (best of ``rounds``) of a fixed pure-Python workload shaped like the
    simulation's (small dicts built, read and copied): the same code in every session, so a
    table measured on a slower or busier machine says so before anyone compares it."""
    from fakekube._core.jsonutil import deep_copy

    best = float("inf")
    for _ in range(rounds):
        cpu = time.process_time()
        store: dict[tuple[str, str], dict[str, Any]] = {}
        for i in range(20_000):
            obj = {"metadata": {"name": f"p{i}", "namespace": "default", "labels": {"app": "a", "i": str(i)}},
                   "spec": {"nodeName": f"n{i % 64}", "containers": [{"name": "c", "image": "i"}]},
                   "status": {"phase": "Running"}}
            store[("default", obj["metadata"]["name"])] = obj
            copied = deep_copy(obj)
            if copied["metadata"].get("labels", {}).get("app") == "a" and copied["spec"].get("nodeName"):
                copied["status"] = {**copied["status"], "phase": "Succeeded"}
        best = min(best, time.process_time() - cpu)
    return round(best * 1000, 1)


def run_scaling(quick: bool, repeat: int = 1) -> list[str]:
    """One row per size; with ``repeat`` > 1 the run with the least CPU time (a shared machine's
    noise only ever adds time). The machine reference comes first."""
    sizes = [2, 4] if quick else [25, 50, 100, 200]
    rows = [min((_in_subprocess(f"import json; from benchmarks.multislice import run_one; "
                                f"print(json.dumps(run_one({n})))") for _ in range(repeat)),
                key=lambda r: r["cpu_s"]) for n in sizes]
    lines = [f"machine reference: {machine_reference()} ms CPU (a fixed pure-Python workload; "
             "compare it before comparing tables from different days)", "",
             f"## multislice (apply → Completed, with one global restart; best CPU of {repeat})", "",
             "| slices | pods | wall | CPU | x/doubling (CPU) | events | events/s | API writes | peak RSS |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    prev = None
    for r in rows:
        ratio = f"{r['cpu_s'] / prev:.2f}" if prev else "-"
        lines.append(f"| {r['slices']} | {r['pods']} | {r['wall_s']:.2f} s | {r['cpu_s']:.2f} s | {ratio} | "
                     f"{r['events']} | {r['events_per_s']} | {r['api_writes']} | {r['peak_rss_mb']} MB |")
        prev = r["cpu_s"]
    return lines


def run_cold_start() -> list[str]:
    code = ("import time; t=time.perf_counter(); from fakekube import FakeCluster; import jobset_ref; "
            "c=FakeCluster(seed=0); jobset_ref.install(c); import json; "
            "print(json.dumps({'cold_ms': round((time.perf_counter()-t)*1000, 1)}))")
    # Cold start means "bytecode cached" (as after any first run); write it even where the
    # environment sets PYTHONDONTWRITEBYTECODE, then discard one warm-up process.
    for package in ("fakekube", "jobset_ref"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    _in_subprocess(code)
    samples = sorted(_in_subprocess(code)["cold_ms"] for _ in range(5))
    return ["## cold start (import + FakeCluster + install, median of 5 processes, bytecode cached)", "",
            f"{samples[2]} ms (min {samples[0]} ms, max {samples[-1]} ms)"]
