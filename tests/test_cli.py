"""The jobset-ref CLI end to end, as a user runs it (subprocess), plus its small parsers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jobset_ref.cli import CliError, default_nodes, parse_duration, parse_fault, parse_gates

ROOT = Path(__file__).resolve().parents[1]
PYTORCH = ROOT / "examples" / "pytorch.yaml"


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jobset_ref.cli", *args], cwd=cwd, capture_output=True,
                          text=True, check=False, timeout=300)


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("90s", 90), ("10m", 600), ("1h30m", 5400),
                                               ("1.5m", 90)])
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "ten", "5x", "m"])
def test_parse_duration_rejects_nonsense(text: str) -> None:
    with pytest.raises(CliError, match="invalid duration"):
        parse_duration(text)


def test_parse_fault_and_gates() -> None:
    assert parse_fault("pytorch-workers-0-1@30s:3") == ("pytorch-workers-0-1", 30.0, 3)
    assert parse_fault("node/n1@1m") == ("node/n1", 60.0, 1)
    assert parse_gates("RestartJob=true,ElasticJobSet=false") == {"RestartJob": True, "ElasticJobSet": False}
    with pytest.raises(CliError, match="Name=true"):
        parse_gates("RestartJob")
    with pytest.raises(CliError, match="POD@TIME"):
        parse_fault("nope")


def test_default_nodes_make_one_pool_per_job_for_exclusive_placement() -> None:
    doc = {"kind": "JobSet", "metadata": {"annotations": {
        "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"}},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 3, "template": {"spec": {
            "parallelism": 2, "template": {"spec": {"nodeSelector": {"tpu": "v5"}, "containers": [
                {"name": "c", "resources": {"limits": {"google.com/tpu": "4"}}}]}}}}}]}}
    nodes = default_nodes([doc])
    assert len(nodes) == 6
    assert nodes[0] == {"name": "pool-0-node-0", "labels": {"tpu": "v5", "cloud.google.com/gke-nodepool": "pool-0"},
                        "capacity": {"google.com/tpu": "4"}}
    assert {n["labels"]["cloud.google.com/gke-nodepool"] for n in nodes} == {"pool-0", "pool-1", "pool-2"}


def test_missing_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = cli("simulate", str(tmp_path / "nope.yaml"))
    assert result.returncode == 2
    assert result.stderr == f"jobset-ref: {tmp_path / 'nope.yaml'}: no such file\n"
    assert result.stdout == ""


def test_malformed_yaml_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: [\n")
    result = cli("validate", str(bad))
    assert result.returncode == 2
    assert result.stderr.startswith(f"jobset-ref: {bad}: line 3 malformed YAML")
    assert result.stderr.count("\n") == 1


def test_bad_flag_exits_2_without_traceback() -> None:
    result = cli("simulate", str(PYTORCH), "--until", "forever")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr == "jobset-ref: invalid duration 'forever': use seconds (90), or units like 30s, 10m, 1h30m\n"


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_kind_that_is_not_served_is_kubectls_error_and_exit_1(tmp_path: Path, command: str) -> None:
    doc = tmp_path / "w.yaml"
    doc.write_text("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata:\n  name: w\n")
    result = cli(command, str(doc))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(
        f'error: resource mapping not found for name: "w" namespace: "" from "{doc}": no matches for kind '
        '"Workflow" in version "argoproj.io/v1alpha1"\nensure CRDs are installed first\n')
    assert "simulated" not in result.stdout


def test_validate_prints_the_upstream_rejection_and_exits_1(tmp_path: Path) -> None:
    doc = tmp_path / "js.yaml"
    doc.write_text("""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
spec:
  successPolicy:
    operator: All
    targetReplicatedJobs: [missing]
  replicatedJobs:
  - name: workers
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
""")
    result = cli("validate", str(doc))
    assert result.returncode == 1
    assert result.stdout.startswith('Error from server (Invalid): error when creating "js" (JobSet): '
                                    'admission webhook "vjobset.kb.io" denied the request: ')
    assert "missing" in result.stdout


def test_validate_accepts_a_good_manifest() -> None:
    result = cli("validate", str(PYTORCH))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "jobset.jobset.x-k8s.io/pytorch created (dry run)\n"


def test_simulate_prints_timeline_and_tables() -> None:
    result = cli("simulate", str(PYTORCH))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "JobSet  default/pytorch  created" in out
    assert "Job     default/pytorch-workers-0  created (restart-attempt 0)" in out
    assert "Service default/pytorch  created (headless)" in out
    assert "Completed=True (AllJobsCompleted" in out
    assert "$ kubectl get jobsets" in out and "$ kubectl get pods -o wide" in out


def test_simulate_json_with_a_failure_restarts_and_is_deterministic() -> None:
    """examples/pytorch.yaml has failurePolicy.maxRestarts 3: one failed worker restarts the JobSet."""
    args = ("simulate", str(PYTORCH), "--fail", "pytorch-workers-0-1@20s:1", "--output", "json")
    first, second = cli(*args), cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    status = data["jobsets"][0]["status"]
    assert (status["terminalState"], status["restarts"]) == ("Completed", 1)
    whats = [(e["kind"], e["what"]) for e in data["timeline"]]
    assert ("JobSet", "restarts=1") in whats
    assert ("Job", "created (restart-attempt 1)") in whats
    assert whats[-1] == ("JobSet", "Completed=True (AllJobsCompleted: jobset completed successfully)")
