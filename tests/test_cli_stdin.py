"""Every ``jobset-ref`` command that takes ``-`` reads stdin, through a real pipe as a shell gives it
(``cat examples/pytorch.yaml | jobset-ref simulate -``)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTORCH = (ROOT / "examples" / "pytorch.yaml").read_text()


def piped(*args: str, stdin: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobset_ref.cli", *args], input=stdin, cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=300)


def test_simulate_reads_manifests_from_stdin() -> None:
    result = piped("simulate", "-", "--show", "jobsets", stdin=PYTORCH)
    assert result.returncode == 0, result.stderr
    assert "# 1 object(s), " in result.stdout
    assert "JobSet  default/pytorch  Completed=True (AllJobsCompleted" in result.stdout
    assert result.stderr == ""


def test_simulate_reads_stdin_once_even_when_given_twice() -> None:
    """``-`` twice is the same text twice, applied twice (as ``kubectl apply -f - -f -`` would)."""
    result = piped("simulate", "-", "-", "--show", "jobsets", stdin=PYTORCH)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# 2 object(s), ")


def test_a_scenario_on_stdin_is_refused_with_a_reason() -> None:
    scenario = (ROOT / "jobset_ref" / "conformance" / "scenarios" / "examples" /
                "failure-policy-restartjob-action.yaml").read_text()
    result = piped("simulate", "-", stdin=scenario)
    assert (result.returncode, result.stderr) == (
        2, "jobset-ref: a scenario file is simulated on its own (one path, not stdin)\n")


def test_simulate_reads_a_nodes_file_from_stdin(tmp_path: Path) -> None:
    manifest = tmp_path / "pytorch.yaml"
    manifest.write_text(PYTORCH)
    nodes = "nodes:\n- name: big-0\n  labels: {pool: a}\n- name: big-1\n  labels: {pool: a}\n"
    result = piped("simulate", str(manifest), "--nodes-file", "-", "--show", "pods", "-o", "wide", stdin=nodes)
    assert result.returncode == 0, result.stderr
    assert "# 1 object(s), 2 node(s)" in result.stdout
    assert re.search(r"pytorch-workers-0-0-\w{5} .* big-[01]", result.stdout)


def test_validate_reads_manifests_from_stdin() -> None:
    result = piped("validate", "-", stdin=PYTORCH)
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "jobset.jobset.x-k8s.io/pytorch created (server dry run)\n", "")
    rejected = piped("validate", "-", stdin=PYTORCH.replace("maxRestarts", "maxRestart"))
    assert rejected.returncode == 1
    assert rejected.stdout.startswith('Error from server (BadRequest): error when creating "STDIN": ')


def test_serve_reads_manifests_from_stdin(tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not on PATH")
    kubeconfig = tmp_path / "kubeconfig"
    env = {**os.environ, "KUBECACHEDIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "jobset_ref.cli", "serve", "-", "--clock", "manual",
                               "--kubeconfig", str(kubeconfig)], cwd=tmp_path, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(PYTORCH)
        server.stdin.close()
        url = server.stdout.readline().strip()
        assert re.fullmatch(r"https?://127\.0\.0\.1:\d+", url), url
        out = subprocess.run([kubectl, "--kubeconfig", str(kubeconfig), "get", "jobsets", "-o", "name"],
                             env=env, capture_output=True, text=True, timeout=60, check=False)
        assert (out.returncode, out.stdout) == (0, "jobset.jobset.x-k8s.io/pytorch\n"), out.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
