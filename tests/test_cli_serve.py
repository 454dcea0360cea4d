"""``jobset-ref serve`` as people run it, in a subprocess, with the real kubectl: TLS by default
(``--no-tls`` for plain HTTP), virtual time starting at the wall clock's now (``--epoch`` pins it)
so kubectl's client-side ages read naturally, and an out-of-process ``jobset-ref controller``
that follows a clock whose epoch is not its own."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")

SHORT = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: short}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        parallelism: 2
        completions: 2
        backoffLimit: 0
        template:
          metadata: {annotations: {fakekube.io/run-seconds: "20"}}
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox}]
"""


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "KUBECACHEDIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT),
            "KUBECONFIG": str(tmp_path / "kubeconfig")}


@contextmanager
def serving(tmp_path: Path, *args: str) -> Iterator[str]:
    """``jobset-ref serve ARGS`` in a subprocess; yields the URL it printed."""
    proc = subprocess.Popen([sys.executable, "-m", "jobset_ref.cli", "serve", "--kubeconfig",
                             str(tmp_path / "kubeconfig"), *args], cwd=tmp_path, env=_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url, proc.stderr.read() if proc.stderr else ""
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0


def kubectl(tmp_path: Path, *args: str) -> str:
    assert KUBECTL is not None
    done = subprocess.run([KUBECTL, *args], env=_env(tmp_path), capture_output=True, text=True, timeout=60,
                          check=False)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


def test_help_gives_the_defaults_of_speed_quiet_ms_epoch_and_tls() -> None:
    done = subprocess.run([sys.executable, "-m", "jobset_ref.cli", "serve", "--help"], capture_output=True,
                          text=True, timeout=30, check=True, env={**os.environ, "COLUMNS": "200"})
    assert re.search(r"--speed SPEED +virtual seconds per wall second under the realtime clock \(default 1\)",
                     done.stdout), done.stdout
    assert "(default 50)" in done.stdout
    assert re.search(r"--epoch now\|TIME +the instant virtual time starts at: now \(default", done.stdout)
    assert re.search(r"--no-tls +serve plain HTTP \(default: HTTPS", done.stdout)


def test_a_bad_epoch_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "jobset_ref.cli", "serve", "--epoch", "yesterday"],
                          cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().endswith("--epoch 'yesterday' is neither 'now' nor an RFC 3339 time with a zone "
                                        "(2030-01-01T00:00:00Z)"), done.stderr


@needs_kubectl
def test_virtual_time_starts_now_so_kubectl_describe_ages_read_naturally(tmp_path: Path) -> None:
    (tmp_path / "short.yaml").write_text(SHORT)
    before = datetime.now(UTC).replace(microsecond=0)  # the wall clock: what the server's epoch is compared with
    with serving(tmp_path, "short.yaml", "--speed", "1") as url:
        assert url.startswith("https://127.0.0.1:")
        created = json.loads(kubectl(tmp_path, "get", "jobset", "short", "-o", "json"))["metadata"]
        stamp = datetime.fromisoformat(created["creationTimestamp"].replace("Z", "+00:00"))
        assert 0 <= (stamp - before).total_seconds() < 60, created["creationTimestamp"]
        described = kubectl(tmp_path, "describe", "pods")
        assert "Events:" in described and "Scheduled" in described
        assert "<invalid>" not in described
        ages = re.findall(r"^  Normal +\w+ +(\S+) ", described, re.M)
        assert ages and all(re.fullmatch(r"\d+s", age) for age in ages), described


@needs_kubectl
def test_epoch_pins_the_start_of_virtual_time_and_no_tls_serves_plain_http(tmp_path: Path) -> None:
    (tmp_path / "short.yaml").write_text(SHORT)
    with serving(tmp_path, "short.yaml", "--clock", "manual", "--epoch", "2030-01-01T00:00:00Z", "--no-tls") as url:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url)
        assert "certificate-authority-data" not in (tmp_path / "kubeconfig").read_text()
        created = json.loads(kubectl(tmp_path, "get", "jobset", "short", "-o", "json"))["metadata"]
        assert created["creationTimestamp"] == "2030-01-01T00:00:00Z"


@needs_kubectl
def test_an_out_of_process_controller_follows_a_clock_that_starts_now(tmp_path: Path) -> None:
    """``jobset-ref controller`` keeps its own epoch (2030) and follows the server's: its writes carry
    the server's times, and its timers fall due on the server's clock."""
    (tmp_path / "short.yaml").write_text(SHORT)
    with serving(tmp_path, "--no-controller", "--clock", "realtime", "--speed", "20"):
        controller = subprocess.Popen([sys.executable, "-m", "jobset_ref.cli", "controller", "--kubeconfig",
                                       str(tmp_path / "kubeconfig")], env=_env(tmp_path),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            kubectl(tmp_path, "apply", "-f", str(tmp_path / "short.yaml"))
            kubectl(tmp_path, "wait", "--for=condition=Completed", "jobset/short", "--timeout=30s")
            status = json.loads(kubectl(tmp_path, "get", "jobset", "short", "-o", "json"))
        finally:
            controller.send_signal(signal.SIGTERM)
            controller.wait(timeout=10)
    created = status["metadata"]["creationTimestamp"]
    [completed] = [c for c in status["status"]["conditions"] if c["type"] == "Completed"]
    elapsed = (datetime.fromisoformat(completed["lastTransitionTime"].replace("Z", "+00:00"))
               - datetime.fromisoformat(created.replace("Z", "+00:00"))).total_seconds()
    assert 20 <= elapsed < 600, (created, completed)  # the controller's write carries the server's time


@needs_kubectl
def test_a_budget_the_served_clock_runs_into_is_one_line_and_the_cluster_goes_on(tmp_path: Path) -> None:
    """replicas 20000 is admitted (as upstream) and past the simulation's budget of Jobs: kubectl's create
    gets the 500 naming it; when the clock's own step runs into it again, serve prints it once, in one
    line, and time goes on: a JobSet created after the big one is deleted runs."""
    assert KUBECTL is not None
    big = SHORT.replace("name: short", "name: big").replace("  - name: w\n", "  - name: w\n    replicas: 20000\n")
    proc = subprocess.Popen([sys.executable, "-m", "jobset_ref.cli", "serve", "--kubeconfig", str(tmp_path / "kubeconfig")],
                            cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().startswith("https://")
        created = subprocess.run([KUBECTL, "create", "-f", "-"], input=big, env=_env(tmp_path), capture_output=True,
                                 text=True, timeout=60, check=False)
        assert created.returncode == 1
        assert created.stderr.startswith('Error from server (InternalError): error when creating "STDIN": Internal '
                                         "error occurred: the JobSet default/big asks for 20000 Jobs; ")
        kubectl(tmp_path, "delete", "jobset", "big")
        (tmp_path / "short.yaml").write_text(SHORT)
        kubectl(tmp_path, "apply", "-f", str(tmp_path / "short.yaml"))
        kubectl(tmp_path, "wait", "--for=jsonpath={.status.phase}=Running", "pod",
                "-l", "jobset.sigs.k8s.io/jobset-name=short", "--timeout=30s")  # scheduled and started: time moved
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    lines = err.splitlines()
    assert "Traceback (most recent call last):" not in lines
    assert [line for line in lines if line.startswith("jobset-ref:")] == [
        "jobset-ref: the JobSet default/big asks for 20000 Jobs; the simulation's budget is 10000 Jobs per JobSet "
        "(jobset_ref.controller.budget.MAX_SIMULATED_JOBS), so it stops here, before creating them. Kubernetes "
        "admits such a JobSet; make it smaller to simulate it, or delete it to go on"]
