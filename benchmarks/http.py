"""The HTTP front end: start time, requests per second on one keep-alive connection, watch latency
and fan-out to many watchers, with the in-process call beside each."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

from fakekube import FakeCluster

CM = "/api/v1/namespaces/default/configmaps"

START_SCRIPT = """
import time
t0 = time.perf_counter()
from fakekube import FakeCluster
import fakekube.http.server
t1 = time.perf_counter()
cluster = FakeCluster(seed=0)
t2 = time.perf_counter()
server = cluster.serve()
import http.client
conn = server.connect(timeout=None)
conn.request("GET", "/api/v1/namespaces/default/configmaps")
conn.getresponse().read()
t3 = time.perf_counter()
server.close()
print((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000)
"""


def _configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def start_times(runs: int) -> tuple[float, float, float]:
    """Median ms: importing fakekube (with the HTTP server), a FakeCluster, serve() to a first answer."""
    import compileall
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for package in ("fakekube", "jobset_ref"):  # measured with bytecode cached, as an installed package is
        compileall.compile_dir(root / package, quiet=1)
    subprocess.run([sys.executable, "-c", START_SCRIPT], capture_output=True, check=True)  # warm-up
    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", START_SCRIPT], capture_output=True, text=True, check=True)
        samples.append([float(x) for x in out.stdout.split()])
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))  # type: ignore[return-value]


def _rate(n: int, fn: Any) -> float:
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - start)


def request_rates(n: int) -> dict[str, float]:
    cluster = FakeCluster(seed=0, simulate=False)
    out: dict[str, float] = {}
    with cluster.serve() as server:
        conn = server.connect(timeout=None)

        def http_create(i: int) -> None:
            conn.request("POST", CM, body=json.dumps(_configmap(f"h{i}")), headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 201

        def http_get(i: int) -> None:
            conn.request("GET", f"{CM}/h{i % n}")
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200

        out["create over HTTP"] = _rate(n, http_create)
        out["create in process"] = _rate(n, lambda i: cluster.create(_configmap(f"p{i}")))
        out["GET over HTTP"] = _rate(n, http_get)
        out["GET in process"] = _rate(n, lambda i: cluster.get("ConfigMap", f"p{i % n}"))
    return out


def _reader(server: Any, path: str, count: int, arrived: list[float],
            signal: threading.Condition | None = None) -> threading.Thread:
    conn = server.connect(timeout=60)
    conn.request("GET", path)
    resp = conn.getresponse()

    def run() -> None:
        for _ in range(count):
            if not resp.readline():
                break
            arrived.append(time.perf_counter())
            if signal is not None:
                with signal:
                    signal.notify()
        conn.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def watch_latency(writes: int) -> float:
    """Median ms from sending a create to its watch event arriving on another connection."""
    cluster = FakeCluster(seed=0, simulate=False)
    with cluster.serve() as server:
        arrived: list[float] = []
        signal = threading.Condition()
        reader = _reader(server, f"{CM}?watch=true&resourceVersion={cluster.api.store.rv}", writes, arrived, signal)
        conn = server.connect(timeout=None)
        sent = []
        for i in range(writes):
            seen = len(arrived)
            sent.append(time.perf_counter())
            conn.request("POST", CM, body=json.dumps(_configmap(f"w{i}")), headers={"Content-Type": "application/json"})
            conn.getresponse().read()
            with signal:
                signal.wait_for(lambda seen=seen: len(arrived) > seen, timeout=10)
        reader.join(10)
    return statistics.median((a - s) * 1000 for a, s in zip(arrived, sent, strict=True))


def watch_fan_out(watchers: int, writes: int) -> float:
    """Wall seconds until every one of ``watchers`` streams has every one of ``writes`` events."""
    cluster = FakeCluster(seed=0, simulate=False)
    with cluster.serve() as server:
        rv = cluster.api.store.rv
        arrivals: list[list[float]] = [[] for _ in range(watchers)]
        threads = [_reader(server, f"{CM}?watch=true&resourceVersion={rv}", writes, arrivals[i])
                   for i in range(watchers)]
        conn = server.connect(timeout=None)
        start = time.perf_counter()
        for i in range(writes):
            conn.request("POST", CM, body=json.dumps(_configmap(f"f{i}")), headers={"Content-Type": "application/json"})
            conn.getresponse().read()
        for t in threads:
            t.join(60)
        assert all(len(a) == writes for a in arrivals), "a watcher missed events"
        return max(a[-1] for a in arrivals) - start


def run(quick: bool) -> list[str]:
    n = 200 if quick else 3000
    rates = request_rates(n)
    imp, make, first = start_times(3 if quick else 9)
    lines = ["## HTTP front end", "", "| what | value |", "|---|---:|",
             f"| import fakekube + HTTP server | {imp:.0f} ms |",
             f"| FakeCluster(seed=0) | {make:.0f} ms |",
             f"| serve() to the first answered request | {first:.1f} ms |"]
    for name, value in rates.items():
        how = f"one keep-alive connection, {n} requests" if "HTTP" in name else f"{n} calls"
        lines.append(f"| {name} ({how}) | {value:,.0f} /s |")
    lines.append(f"| watch latency, create → event on another connection (median) | "
                 f"{watch_latency(50 if quick else 500):.2f} ms |")
    watchers, writes = (10, 20) if quick else (50, 200)
    lines.append(f"| {watchers} concurrent watches x {writes} writes, all delivered | "
                 f"{watch_fan_out(watchers, writes) * 1000:.0f} ms |")
    return lines
