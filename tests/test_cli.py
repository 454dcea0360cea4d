"""The jobset-ref CLI end to end, as a user runs it (subprocess), plus its small parsers."""

from __future__ import annotations

import json
import re
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
    assert result.stdout.startswith(f'Error from server (Invalid): error when creating "{doc}": '
                                    'admission webhook "vjobset.kb.io" denied the request: ')
    assert "missing" in result.stdout


def test_validate_prints_a_rejection_without_a_reason_as_kubectl_does(tmp_path: Path) -> None:
    """A webhook's decoding error has no reason: kubectl prints ``Error from server:`` without brackets."""
    doc = tmp_path / "js.yaml"
    doc.write_text(PYTORCH.read_text().replace("maxRestarts: 3\n", "maxRestarts: 3000000000\n"))
    result = cli("validate", str(doc))
    assert result.returncode == 1
    assert result.stdout == (f'Error from server: error when creating "{doc}": admission webhook "mjobset.kb.io" '
                             "denied the request: json: cannot unmarshal number 3000000000 into Go struct field "
                             "FailurePolicy.spec.failurePolicy.maxRestarts of type int32\n")


def test_validate_accepts_a_good_manifest() -> None:
    result = cli("validate", str(PYTORCH))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "jobset.jobset.x-k8s.io/pytorch created (server dry run)\n"


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


# ---------------------------------------------------------------------------- the explorer (in process)

from jobset_ref.cli import EXIT_EXPECTATION, EXIT_WHAT_IF, main  # noqa: E402
from jobset_ref.cli.nodes import plan_nodes  # noqa: E402

TPU = ROOT / "examples" / "tpu-multislice.yaml"
SMALL = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
spec:
  failurePolicy:
    maxRestarts: 0
  replicatedJobs:
  - name: w
    replicas: 1
    template:
      spec:
        parallelism: 2
        completions: 2
        backoffLimit: 0
        template:
          spec:
            containers: [{name: c, image: busybox}]
"""


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "js.yaml"
    path.write_text(SMALL)
    return path


def test_a_misspelled_field_is_rejected_by_default_as_kubectl_does(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    typo = tmp_path / "typo.yaml"
    typo.write_text(SMALL.replace("maxRestarts", "maxRestart"))
    message = (f'Error from server (BadRequest): error when creating "{typo}": JobSet in version "v1alpha2" '
               'cannot be handled as a JobSet: strict decoding error: unknown field "spec.failurePolicy.maxRestart"\n')
    assert run_cli(capsys, "validate", str(typo)) == (1, message, "")
    code, out, err = run_cli(capsys, "simulate", str(typo))
    assert (code, out) == (1, "")
    assert err == message + "jobset-ref: 1 object(s) rejected: nothing simulated\n"
    code, out, err = run_cli(capsys, "validate", str(typo), "--validate", "warn")
    assert (code, out, err) == (0, "jobset.jobset.x-k8s.io/js created (server dry run)\n",
                                'Warning: unknown field "spec.failurePolicy.maxRestart"\n')
    assert run_cli(capsys, "validate", str(typo), "--validate=false")[0] == 0


def test_validate_output_yaml_is_the_object_after_defaulting(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    code, out, _ = run_cli(capsys, "validate", str(small), "-o", "yaml")
    assert code == 0
    obj = yaml.safe_load(out)
    assert obj["spec"]["failurePolicy"]["restartStrategy"] == "Recreate"  # a default the webhook filled in
    assert obj["spec"]["network"]["enableDNSHostnames"] is True
    assert obj["metadata"]["uid"]


def test_manifests_from_stdin(small: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(small.read_text()))
    assert run_cli(capsys, "validate", "-") == (0, "jobset.jobset.x-k8s.io/js created (server dry run)\n", "")


def test_a_disabled_feature_gate_says_how_to_enable_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "gate.yaml"
    doc.write_text(SMALL.replace("    maxRestarts: 0\n", "    maxRestarts: 0\n    rules:\n    - action: RestartJob\n"))
    code, out, _ = run_cli(capsys, "validate", str(doc))
    assert code == 1
    assert "RestartJob feature gate is disabled" in out
    assert out.endswith("hint: enable the RestartJob feature gate with --feature-gates RestartJob=true\n")
    assert run_cli(capsys, "validate", str(doc), "--feature-gates", "RestartJob=true")[0] == 0


def test_a_fail_after_the_finish_is_not_played_and_does_not_stretch_the_run(
        small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "simulate", str(small), "--fail", "js-w-0-0@2h")
    assert code == EXIT_WHAT_IF
    assert out.startswith("# 1 object(s), 1 node(s), seed 0; simulated 62.01s of virtual time\n")
    assert "Completed=True" in out  # what happened before is still shown
    assert ("00:01:02.010  What-if --fail js-w-0-0@2h  not played: every JobSet had already finished (the last at "
            "t=62s): pick an earlier time, or add --run-after-finish\n") in out
    assert err == ("jobset-ref: --fail js-w-0-0@2h: not played: every JobSet had already finished (the last at "
                   "t=62s): pick an earlier time, or add --run-after-finish\n")
    code, out, err = run_cli(capsys, "simulate", str(small), "--fail", "js-w-0-0@2m", "--run-after-finish",
                             "--until", "3m")
    assert code == EXIT_WHAT_IF
    assert "failPod: no running pod matches {'name': 'js-w-0-0'}" in err
    assert "every JobSet had already finished (the last at t=62s): pick an earlier time" in err


def test_what_ifs_that_change_nothing_are_not_played_and_exit_3(small: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "simulate", str(small), "--at", "10s", "resume: js", "--show", "jobsets")
    assert code == EXIT_WHAT_IF
    line = "not played: JobSet default/js is not suspended: there is nothing to resume"
    assert f"00:00:10.000  What-if --at 10s 'resume: js'  {line}\n" in out
    assert "# JobSet js: Completed" in out and "simulated 62.01s" in out
    assert err == f"jobset-ref: --at 10s 'resume: js': {line}\n"
    # a suspend after the finish neither plays nor stretches the run to its time
    code, out, err = run_cli(capsys, "simulate", str(small), "--at", "20m", "suspend: js", "--show", "jobsets")
    assert code == EXIT_WHAT_IF and "simulated 62.01s" in out
    assert "00:01:02.010  What-if --at 20m 'suspend: js'  not played: every JobSet had already finished" in out
    assert "Suspended" not in out
    # --run-after-finish goes on to the what-if: a finished JobSet is not suspended
    code, out, err = run_cli(capsys, "simulate", str(small), "--at", "20m", "suspend: js", "--run-after-finish",
                             "--until", "20m", "--show", "jobsets")
    assert code == EXIT_WHAT_IF and "simulated 1200s" in out
    assert ("00:20:00.000  What-if --at 20m 'suspend: js'  not played: JobSet default/js had already completed "
            "(at t=62s): a finished JobSet is not suspended\n") in out
    code, out, err = run_cli(capsys, "simulate", str(small), "--at", "10s", "suspend: js", "--at", "20s",
                             "suspend: js", "--show", "jobsets", "--until", "30s")
    assert code == EXIT_WHAT_IF
    assert "00:00:20.000  What-if --at 20s 'suspend: js'  not played: JobSet default/js is already suspended\n" in out


def test_manifests_without_a_jobset_say_so_and_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = tmp_path / "job.yaml"
    job.write_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n"
                   "      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n")
    code, out, err = run_cli(capsys, "simulate", str(job), "--show", "jobs")
    assert code == EXIT_WHAT_IF
    assert out.startswith("# 1 object(s), 1 node(s), seed 0; simulated 62.01s of virtual time\n")  # not an hour
    assert ("00:00:00.000  JobSet  (none)  no JobSet among the 1 object(s): the JobSet controller has nothing "
            "to do\n") in out
    assert "00:01:02.010  Job     default/j  Complete=True" in out
    assert err == "jobset-ref: no JobSet among the manifests: nothing for the JobSet controller to do\n"


def test_a_mistyped_fail_target_lists_the_running_pods_and_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "simulate", str(PYTORCH), "--fail", "pytorch-worker-0-1@20s:1", "--show", "jobsets")
    assert code == EXIT_WHAT_IF
    head, details = err.split("\n")[:2]
    assert head == ("jobset-ref: failPod: no running pod matches {'name': 'pytorch-worker-0-1'}; "
                    "did you mean 'pytorch-workers-0-1'?")
    assert re.fullmatch(r"  no pod has that name or hostname; running pods: "
                        + ", ".join(rf"pytorch-workers-0-{i}-\w{{5}} \(hostname pytorch-workers-0-{i}\)"
                                    for i in range(4)), details)


def test_expect_judges_the_terminal_state(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "simulate", str(small), "--fail", "js-w-0-1@10s", "--expect", "Completed")
    assert code == EXIT_EXPECTATION
    assert "# JobSet js: Failed (ReachedMaxRestarts: " in out
    assert err.endswith("jobset-ref: --expect Completed: JobSet js is Failed at t=12s\n")
    assert run_cli(capsys, "simulate", str(small), "--fail", "js-w-0-1@10s", "--expect", "Failed")[0] == 0


def test_at_plays_any_timeline_step(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "simulate", str(small), "--show", "jobsets",
                           "--at", "10s", "suspend: js", "--at", "2m", "resume: js")
    assert code == 0
    assert "00:00:10.000  JobSet  default/js  Suspended=True (SuspendedJobs: jobset is suspended)" in out
    assert "00:02:00.000  JobSet  default/js  Suspended=False (ResumeJobs: jobset is resumed)" in out
    assert "$ kubectl get jobs\n" not in out
    code, _, err = run_cli(capsys, "simulate", str(small), "--at", "10s", "explode: js")
    assert code == 2 and "unknown key(s) 'explode'" in err


def test_run_after_finish_shows_the_ttl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "ttl.yaml"
    doc.write_text(SMALL.replace("spec:\n  failurePolicy", "spec:\n  ttlSecondsAfterFinished: 30\n  failurePolicy", 1))
    code, out, _ = run_cli(capsys, "simulate", str(doc), "--until", "5m", "--run-after-finish")
    assert code == 0
    assert "00:01:32.000  JobSet  default/js  deleted" in out
    assert "simulated 300s" in out


def test_json_holds_every_shown_object_and_the_history(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "simulate", str(small), "-o", "json", "--follow", "pod/js-w-0-1")
    assert code == 0
    data = json.loads(out)
    assert sorted(data["objects"]) == ["events", "jobs", "jobsets", "nodes", "pods", "services"]
    pod = data["objects"]["pods"][0]
    assert pod["spec"]["hostname"] == "js-w-0-0" and pod["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"] == "js"
    assert "managedFields" not in pod["metadata"]
    history = data["history"]["pod/js-w-0-1"]
    assert history[0]["type"] == "ADDED" and "  spec.hostname: 'js-w-0-1'" in history[0]["changes"]
    assert all(line.startswith("  ") for line in history[0]["changes"])  # a creation lists fields, removes none
    assert any("~ status.phase: 'Running' -> 'Succeeded'" in h["changes"] for h in history)


def test_follow_and_wide_show_labels_hostnames_and_selectors(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "simulate", str(small), "-o", "wide", "--follow", "job/js-w-0")
    assert code == 0
    assert "# history of job/js-w-0 (1 object(s)" in out
    assert "  metadata.labels.jobset.sigs.k8s.io/replicatedjob-name: 'w'" in out
    assert "$ kubectl get pods -o wide --show-labels" in out
    assert "HOSTNAME" in out and "js-w-0-0.js" in out


def test_a_follow_target_that_never_existed_is_exit_3(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "simulate", str(small), "--follow", "pod/no-such-pod")
    assert code == 3
    assert "  (no pod matched 'no-such-pod')" in out
    assert "jobset-ref: --follow pod/no-such-pod: no pod named 'no-such-pod' existed during the run" in err


def test_a_scenario_file_is_simulated_with_its_own_timeline(capsys: pytest.CaptureFixture[str]) -> None:
    from jobset_ref.conformance.scenario import SCENARIOS_DIR

    scenario = SCENARIOS_DIR / "examples" / "failure-policy-restartjob-action.yaml"
    code, out, _ = run_cli(capsys, "simulate", str(scenario), "--show", "jobsets")
    assert code == 0
    assert "Job     default/js-rj-worker-0  created (restart-attempt 0, job-restart-attempt 1)" in out
    assert "JobSet  default/js  replicatedJob rj-worker jobRestarts=1 (counting towards maxRestarts: 1)" in out
    assert "Failed=True (ReachedMaxRestarts" in out
    assert "), restarts 0, single-Job restarts 2\n" in out


def test_nodes_n_with_exclusive_placement_makes_distinct_domains(capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    doc = yaml.safe_load(TPU.read_text())
    nodes, note = plan_nodes([doc], 8)
    assert [n["labels"]["cloud.google.com/gke-nodepool"] for n in nodes] == [f"pool-{i // 2}" for i in range(8)]
    assert note is not None and "4 topology domain(s)" in note
    nodes, note = plan_nodes([doc], 4)
    assert note is not None and "only 2 Job(s) can run at a time" in note
    code, out, err = run_cli(capsys, "simulate", str(TPU), "--nodes", "8", "--show", "jobsets")
    assert code == 0 and "--nodes 8: 4 topology domain(s)" in err
    assert "00:10:02.010  JobSet  default/tpu-multislice  Completed=True" in out  # the slices ran side by side


def test_a_manifest_past_the_simulations_budget_sizes_no_cluster_past_it(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """replicas 2000000000 is a valid int32: the nodes are planned for at most the pods the simulation
    holds (else a plan of 250 million nodes exhausts memory), and the Jobs budget then stops the run."""
    from fakekube.components.job_controller.controller import MAX_SIMULATED_PODS
    from jobset_ref.cli.nodes import MAX_PLANNED_PODS

    assert MAX_PLANNED_PODS == MAX_SIMULATED_PODS
    doc = {"kind": "JobSet", "spec": {"replicatedJobs": [{"name": "w", "replicas": 2_000_000_000, "template": {
        "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}}]}}
    assert len(default_nodes([doc])) == MAX_PLANNED_PODS // 8
    doc["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] = 1_000_000_000  # type: ignore[index]
    doc["spec"]["replicatedJobs"][0]["replicas"] = 2  # type: ignore[index]
    doc["metadata"] = {"annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "pool"}}
    assert len(default_nodes([doc])) == MAX_PLANNED_PODS
    (tmp_path / "huge.yaml").write_text(TOO_LARGE.replace("replicas: 20000", "replicas: 2000000000"))
    code, out, err = run_cli(capsys, "simulate", str(tmp_path / "huge.yaml"))
    assert code == 2 and out == ""
    assert err.startswith("jobset-ref: the JobSet default/big asks for 2000000000 Jobs; the simulation's budget")


@pytest.mark.parametrize(("command", "nodes", "bounds"), [("simulate", "0", "1 and 100000"),
                                                          ("simulate", "100001", "1 and 100000"),
                                                          ("serve", "-1", "0 and 100000"),
                                                          ("serve", "100001", "0 and 100000")])
def test_nodes_out_of_bounds_is_one_line_and_exit_2(command: str, nodes: str, bounds: str, small: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, command, str(small), "--nodes", nodes)
    assert (code, out) == (2, "")
    assert err == (f"jobset-ref: --nodes {nodes} must be between {bounds} (one node per pod the simulation "
                   "holds)\n")


def test_gantt_is_written(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chart = tmp_path / "run.svg"
    code, _, err = run_cli(capsys, "simulate", str(small), "--gantt", str(chart))
    assert code == 0 and f"wrote {chart}" in err
    assert chart.read_text().startswith("<svg ")
    code, _, err = run_cli(capsys, "simulate", str(small), "--gantt", str(tmp_path / "run.png"))
    assert code == 2 and ".html or .svg" in err


def test_version_bare_command_and_python_m_jobset_ref(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and re.fullmatch(r"jobset-ref \S+\n", out)
    code, out, _ = run_cli(capsys)
    assert code == 2 and out.startswith("usage: jobset-ref") and "simulate" in out
    result = subprocess.run([sys.executable, "-m", "jobset_ref", "--version"], cwd=ROOT, capture_output=True,
                            text=True, check=False, timeout=60)
    assert (result.returncode, result.stdout) == (0, out.split("\n")[0] and result.stdout)
    assert result.stdout.startswith("jobset-ref ")


def test_every_option_has_help_text() -> None:
    import argparse

    from jobset_ref.cli import _build_parser

    parser = _build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {'/'.join(action.option_strings) or action.dest}"
               for name, command in sub.choices.items() for action in command._actions
               if not action.help and not isinstance(action, argparse._HelpAction)]
    assert missing == []


def test_every_command_describes_itself_in_its_help() -> None:
    import argparse

    from jobset_ref.cli import _build_parser

    parser = _build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    undescribed = [name for name, command in sub.choices.items() if name != "conformance"
                   and len(command.description or "") < 80]
    assert undescribed == []
    result = cli("controller", "--help")
    assert result.returncode == 0
    assert "Run the reference JobSet reconciler and its pod controller" in result.stdout
    assert "reconciles until SIGINT or SIGTERM" in " ".join(result.stdout.split())


def test_the_timeline_says_why_a_node_loss_leaves_a_pod_pending(capsys: pytest.CaptureFixture[str]) -> None:
    """Exclusive placement after a node loss: the restarted slice that lands on the broken pool
    cannot place its second pod; the timeline names the node and the scheduler's reason."""
    code, out, _ = run_cli(capsys, "simulate", str(TPU), "--fail", "node/pool-1-node-0@2m", "--until", "5m",
                           "--show", "jobsets", "--expect", "Completed")
    assert code == EXIT_EXPECTATION
    assert ("00:02:00.000  Node    pool-1-node-0  Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting node "
            "status.)") in out
    assert re.search(r"pod tpu-multislice-slice-3-1-\w+ Pending \(Unschedulable: 0/8 nodes are available: .*"
                     r"node\(s\) had untolerated taint \{node.kubernetes.io/unreachable: \}", out)
    assert "# JobSet tpu-multislice: not finished (restarts 1)" in out


def test_a_webhook_denied_pod_create_names_the_webhook(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "simulate", str(TPU), "--show", "jobsets")
    assert code == 0
    assert ('00:00:00.000  Job     default/tpu-multislice-slice-0  pod create denied by admission webhook '
            '"vpod.kb.io": follower pod node selector for topology domain not found. missing selector: '
            'cloud.google.com/gke-nodepool (event FailedCreate; the Job controller retries)\n') in out


def test_an_unknown_feature_gate_is_a_usage_error(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "simulate", str(small), "--feature-gates", "Foo=true")
    assert code == 2
    assert err.startswith("jobset-ref: --feature-gates: unknown JobSet feature gate 'Foo'; known gates: ")


def test_scaling_an_elastic_jobset_at_a_chosen_time(capsys: pytest.CaptureFixture[str]) -> None:
    scale = ("patch: {kind: JobSet, name: trainer, type: json, patch: ["
             "{op: replace, path: /spec/replicatedJobs/0/template/spec/parallelism, value: 3}, "
             "{op: replace, path: /spec/replicatedJobs/0/template/spec/completions, value: 3}]}")
    trainer = str(ROOT / "examples" / "trainer.yaml")
    code, out, _ = run_cli(capsys, "simulate", trainer, "--feature-gates", "ElasticJobSet=true", "--at", "30s", scale)
    assert code == 0
    assert "00:00:30.000  Job     default/trainer-workers-0  scaled: parallelism 2→3, completions 2→3" in out
    assert "trainer-workers-0   Complete   3/3" in out
    code, out, err = run_cli(capsys, "simulate", trainer, "--at", "30s", scale)  # the gate is off by default
    assert code == 1
    assert 'jobset-ref: patch JobSet trainer was rejected\n  HTTP 422 Invalid: admission webhook "vjobset.kb.io"' in err


def test_an_in_place_restart_and_a_deleted_pod_are_not_failures(capsys: pytest.CaptureFixture[str]) -> None:
    """tpu-multislice pods are OnFailure with backoffLimit 0: the container restarts in place, which
    fails the Job; the JobSet restart then deletes every pod (killed: exit 137/143)."""
    code, out, _ = run_cli(capsys, "simulate", str(TPU), "--fail", "tpu-multislice-slice-1-0@2m:1", "--show", "jobsets")
    assert code == 0
    assert re.search(r"00:02:00.000  Pods    default/tpu-multislice-slice-1  pod tpu-multislice-slice-1-0-\w+ "
                     r"container jax-tpu exited 1 \(Error\), restarted in place \(restartCount 1\); counts against "
                     r"the Job's backoffLimit 0 \(restartPolicy OnFailure, which the JobSet webhook defaulted\)\n", out)
    assert re.search(r"pod tpu-multislice-slice-1-0-\w+ Stopped after deletion \(exit 137\)\n", out)
    assert "Failed (exit" not in out
    assert "# JobSet tpu-multislice: Completed (AllJobsCompleted: jobset completed successfully), restarts 1" in out
    assert "00:02:02.000  Pods    default/tpu-multislice-slice-0  2 pods Terminating (their Job is being deleted)\n" in out


def test_the_timeline_says_why_pods_terminate_in_the_readme_example(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The README's ``--fail pytorch-workers-0-1@20s:1``: the in-place restart (restartPolicy OnFailure,
    which the webhook defaulted) counts against backoffLimit 0, so the Job controller fails the Job and
    deletes its pods a second later, before it writes Failed; each step says so."""
    code, out, _ = run_cli(capsys, "simulate", str(PYTORCH), "--fail", "pytorch-workers-0-1@20s:1", "--show", "jobsets")
    assert code == 0
    policy = "restartPolicy OnFailure, which the JobSet webhook defaulted"
    assert re.search(r"00:00:20.000  Pods    default/pytorch-workers-0  pod pytorch-workers-0-1-\w{5} container pytorch "
                     rf"exited 1 \(Error\), restarted in place \(restartCount 1\); counts against the Job's "
                     rf"backoffLimit 0 \({policy}\)\n", out)
    assert ("00:00:21.000  Pods    default/pytorch-workers-0  4 pods Terminating (deleted by the Job controller: the "
            "Job is failing, BackoffLimitExceeded)\n") in out
    assert ("00:00:21.000  Job     default/pytorch-workers-0  FailureTarget=True (BackoffLimitExceeded: Job has "
            "reached the specified backoff limit): 1 in-place container restart of its pods counted against "
            f"backoffLimit 0 ({policy})\n") in out
    assert "Terminating\n" not in out  # every termination here has a known cause
    given = tmp_path / "given.yaml"  # written by the user: no word of the webhook
    given.write_text(PYTORCH.read_text().replace("          spec:\n            containers:",
                                                 "          spec:\n            restartPolicy: OnFailure\n"
                                                 "            containers:"))
    code, out, _ = run_cli(capsys, "simulate", str(given), "--fail", "pytorch-workers-0-1@20s:1", "--show", "jobsets")
    assert code == 0
    assert "counts against the Job's backoffLimit 0 (restartPolicy OnFailure)\n" in out


def test_the_timeline_names_evictions_and_suspensions_as_causes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "simulate", str(PYTORCH), "--at", "30s", "evictPod: {hostname: pytorch-workers-0-1}",
                           "--show", "jobsets")
    assert code == 0
    assert re.search(r"00:00:30.000  Pods    default/pytorch-workers-0  pod pytorch-workers-0-1-\w{5} Terminating "
                     r"\(EvictionByEvictionAPI: Eviction API: evicting\)\n", out)
    code, out, _ = run_cli(capsys, "simulate", str(PYTORCH), "--at", "30s", "suspend: pytorch", "--until", "40s",
                           "--show", "jobsets")
    assert code == 0
    assert ("00:00:30.000  Pods    default/pytorch-workers-0  4 pods Terminating (deleted by the Job controller: the "
            "Job is suspended)\n") in out


TOO_LARGE = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: big}
spec:
  replicatedJobs:
  - name: w
    replicas: 20000
    template: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}
"""

TYPO = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: t}
spec:
  replicatedJob: []
  replicatedJobs:
  - name: w
    template: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}
"""


def test_a_jobset_too_large_to_simulate_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "big.yaml").write_text(TOO_LARGE)
    result = cli("simulate", str(tmp_path / "big.yaml"))
    assert result.returncode == 2
    assert result.stderr.startswith("jobset-ref: the JobSet default/big asks for 20000 Jobs; the simulation's budget")
    assert len(result.stderr.splitlines()) == 1


def test_serve_checks_fields_as_kubectl_apply_does(tmp_path: Path) -> None:
    """Strict by default (the rejection as kubectl prints it, exit 1, nothing served); --validate warn
    prints kubectl's warning line and serves."""
    (tmp_path / "typo.yaml").write_text(TYPO)
    result = cli("serve", str(tmp_path / "typo.yaml"), "--kubeconfig", str(tmp_path / "kc"))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f'Error from server (BadRequest): error when creating "{tmp_path / "typo.yaml"}": JobSet in version '
        '"v1alpha2" cannot be handled as a JobSet: strict decoding error: unknown field "spec.replicatedJob"',
        "jobset-ref: a manifest was rejected: nothing served"]
    proc = subprocess.Popen([sys.executable, "-m", "jobset_ref.cli", "serve", str(tmp_path / "typo.yaml"),
                             "--validate", "warn", "--kubeconfig", str(tmp_path / "kc")], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().startswith("https://127.0.0.1:")
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert err.splitlines()[0] == 'Warning: unknown field "spec.replicatedJob"'
