"""Same seed ⇒ byte-identical trace, in separate processes with different PYTHONHASHSEED."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = r"""
from fakekube import FakeCluster
c = FakeCluster(seed=42)
c.add_nodes(3, labels={"pool": "a"})
for i in range(3):
    c.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "cm-", "labels": {"i": str(i)}}})
c.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
         "spec": {"completions": 3, "parallelism": 3, "completionMode": "Indexed",
                  "template": {"metadata": {"annotations": {"fakekube.io/run-seconds": "5"}},
                               "spec": {"restartPolicy": "Never",
                                        "containers": [{"name": "m", "image": "busybox"}]}}}})
c.advance(30)
c.delete("jobs", "j", propagation_policy="Foreground")
c.advance(60)
import sys
sys.stdout.write(c.trace.text())
"""


def run(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", SCENARIO], cwd=ROOT, env=env, capture_output=True,
                            text=True, check=True)
    return result.stdout


def test_trace_is_byte_identical_across_processes_and_hash_seeds() -> None:
    first, second = run("1"), run("12345")
    assert first == second
    assert "create v1 ConfigMap default/cm-" in first
    assert first.count("\n") > 20
