"""The Kueue queue benchmark: N JobSets queued on one ClusterQueue whose quota fits one of them,
admitted one after another as quota frees.

Each JobSet is 2 Jobs x 2 pods of 1 CPU running 60 s, labelled ``kueue.x-k8s.io/queue-name``;
the ClusterQueue has 4 CPUs, so Kueue admits the next JobSet (in the queue's order) when the
running one finishes and its Workload releases the quota. All N are applied at t=0; the run
ends when the last completes. The CPU time covers the applies and the whole run: N Workloads
created, N admissions, N resumes, 4N pods. Linear in N is the target (no scan of the queue per
admission). Each size runs in its own process.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from benchmarks.multislice import _in_subprocess

QUOTA_CPUS = 4
RUN_SECONDS = 60
WORKLOADS = "workloads.kueue.x-k8s.io"
JOBSETS = "jobsets.jobset.x-k8s.io"


def setup_manifests() -> list[dict[str, Any]]:
    """A flavor, a ClusterQueue of one JobSet's CPUs and its LocalQueue."""
    group = "kueue.x-k8s.io/v1beta2"
    return [
        {"apiVersion": group, "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}},
        {"apiVersion": group, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{
             "coveredResources": ["cpu"],
             "flavors": [{"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": QUOTA_CPUS}]}]}]}},
        {"apiVersion": group, "kind": "LocalQueue", "metadata": {"name": "user-queue", "namespace": "default"},
         "spec": {"clusterQueue": "cluster-queue"}},
    ]


def jobset(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": f"queued-{i:04d}", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
        "spec": {"replicatedJobs": [{
            "name": "workers", "replicas": 2,
            "template": {"spec": {"parallelism": 2, "completions": 2, "template": {
                "metadata": {"annotations": {"fakekube.io/run-seconds": str(RUN_SECONDS)}},
                "spec": {"restartPolicy": "Never", "containers": [{
                    "name": "worker", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}},
        }]},
    }


def run_one(count: int) -> dict[str, Any]:
    """Simulate ``count`` queued JobSets in this process; check they ran one after another."""
    import jobset_ref
    from fakekube import FakeCluster
    from fakekube.clock import parse_time, to_seconds

    cluster = FakeCluster(seed=0)
    jobset_ref.install(cluster, kueue=True)
    cluster.add_nodes(2, capacity={"cpu": "4"})
    for doc in setup_manifests():
        cluster.apply(doc)
    cluster.run_until_idle()
    writes0, steps0 = cluster.api.writes, cluster.loop.steps
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(count):
        cluster.apply(jobset(i))
    store = cluster.api.store
    done = [0]

    def all_completed() -> bool:  # checked after every loop event: count terminal JobSets incrementally
        while done[0] < count:
            js = store.get(JOBSETS, "default", f"queued-{done[0]:04d}")
            if js is None or not (js.get("status") or {}).get("terminalState"):
                return False
            done[0] += 1
        return True

    cluster.run_until(all_completed, timeout=(RUN_SECONDS + 10) * (count + 1))
    cluster.run_until_idle()  # the last Workload's Finished condition, written at the same instant
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    jobsets = cluster.list(JOBSETS)
    assert [js["status"]["terminalState"] for js in jobsets] == ["Completed"] * count
    # one after another: each reservation comes after the previous workload finished
    spans = []
    for wl in cluster.list(WORKLOADS):
        conds = {c["type"]: c for c in wl["status"]["conditions"]}
        spans.append((to_seconds(parse_time(conds["QuotaReserved"]["lastTransitionTime"])),
                      to_seconds(parse_time(conds["Finished"]["lastTransitionTime"]))))
    spans.sort()
    assert all(nxt[0] >= prev[1] for prev, nxt in itertools.pairwise(spans)), spans
    return {
        "jobsets": count, "pods": 4 * count, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "events": cluster.loop.steps - steps0, "api_writes": cluster.api.writes - writes0,
        "virtual_s": cluster.elapsed,
    }


def run(quick: bool, repeat: int = 1) -> list[str]:
    """One row per size (the least CPU of ``repeat`` runs), each in a fresh process."""
    sizes = [2, 4] if quick else [25, 50, 100]
    rows = [min((_in_subprocess(f"import json; from benchmarks.kueue_queue import run_one; "
                                f"print(json.dumps(run_one({n})))") for _ in range(repeat)),
                key=lambda r: r["cpu_s"]) for n in sizes]
    lines = [f"## Kueue: JobSets queued on one ClusterQueue, admitted one after another (best CPU of {repeat})",
             "", "| JobSets | pods | virtual time | wall | CPU | CPU per JobSet | x/doubling (CPU) | events | API writes |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    prev = None
    for r in rows:
        ratio = f"{r['cpu_s'] / prev:.2f}" if prev else "-"
        lines.append(f"| {r['jobsets']} | {r['pods']} | {r['virtual_s']:g} s | {r['wall_s']:.2f} s | "
                     f"{r['cpu_s']:.2f} s | {r['cpu_s'] / r['jobsets'] * 1000:.1f} ms | {ratio} | {r['events']} | "
                     f"{r['api_writes']} |")
        prev = r["cpu_s"]
    return lines
