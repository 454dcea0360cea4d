"""The ways users reach Kueue: ``jobset_ref.install(cluster, kueue=...)``, ``fakekube.kueue.install``
and the pytest marker ``@pytest.mark.fakekube(kueue=...)``."""

from __future__ import annotations

from typing import Any

import pytest

import fakekube.kueue
import jobset_ref
from fakekube import FakeCluster, UsageError
from tests.kueue.helpers import condition, workload_name


def _completed(cluster: FakeCluster, name: str) -> bool:
    found = condition(cluster.get("JobSet", name), "Completed")
    return found is not None and found["status"] == "True"


@pytest.mark.fakekube(kueue=True)
def test_jobset_cluster_marker_installs_kueue_and_jobsets_queue(jobset_cluster: FakeCluster) -> None:
    jobset_cluster.apply("examples/kueue/setup.yaml")
    jobset_cluster.apply("examples/kueue/queued-jobsets.yaml")
    jobset_cluster.run_until_idle()
    # both are suspended at creation; the first fits the 8 CPUs, the second waits
    assert jobset_cluster.get("JobSet", "first")["spec"]["suspend"] is False
    assert jobset_cluster.get("JobSet", "second")["spec"]["suspend"] is True
    pending = jobset_cluster.get("Workload", workload_name(jobset_cluster, "JobSet", "second"))
    assert condition(pending, "QuotaReserved")["status"] == "False"
    at = jobset_cluster.run_until(lambda: not jobset_cluster.get("JobSet", "second")["spec"]["suspend"], timeout=600)
    assert _completed(jobset_cluster, "first")
    assert at > 60
    first = jobset_cluster.get("Workload", workload_name(jobset_cluster, "JobSet", "first"))
    assert condition(first, "Finished")["reason"] == "Succeeded"


@pytest.mark.fakekube(kueue={"manageJobsWithoutQueueName": True})
def test_marker_takes_a_configuration(jobset_cluster: FakeCluster) -> None:
    jobset_cluster.apply("examples/trainer.yaml")
    jobset_cluster.run_until_idle()
    assert jobset_cluster.get("JobSet", "trainer")["spec"]["suspend"] is True
    assert len(jobset_cluster.list("Workload")) == 1


@pytest.mark.fakekube(kueue=True)
def test_fake_cluster_marker_installs_kueue_for_batch_jobs(fake_cluster: FakeCluster) -> None:
    fake_cluster.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": "j", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}}, "spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}}}})
    fake_cluster.run_until_idle()
    assert fake_cluster.get("Job", "j")["spec"]["suspend"] is True
    assert [w["metadata"]["name"] for w in fake_cluster.list("Workload")] == [workload_name(fake_cluster, "Job", "j")]


@pytest.mark.parametrize("bad", ["yes", 1, ["waitForPodsReady"]])
def test_install_rejects_a_kueue_value_that_is_not_true_or_a_mapping(bad: Any) -> None:
    with pytest.raises(UsageError, match="kueue="):
        jobset_ref.install(FakeCluster(), kueue=bad)


def test_kueue_installs_once() -> None:
    cluster = FakeCluster()
    fakekube.kueue.install(cluster)
    with pytest.raises(UsageError, match="already installed"):
        fakekube.kueue.install(cluster)


@pytest.mark.fakekube(kueue=True)
def test_fake_apiserver_marker_serves_kueue_to_kubectl(fake_apiserver: Any) -> None:
    import os
    import shutil
    import subprocess

    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not on PATH")
    env = {**os.environ, "KUBECONFIG": fake_apiserver.kubeconfig}

    def run(*args: str) -> str:
        done = subprocess.run([kubectl, *args], capture_output=True, text=True, env=env, timeout=30, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("apply", "-f", "examples/kueue/setup.yaml")
    run("apply", "-f", "examples/kueue/queued-jobsets.yaml")
    fake_apiserver.cluster.run_until_idle()
    out = run("get", "workloads", "-o", "custom-columns=NAME:.metadata.name,OWNER:.metadata.ownerReferences[0].name")
    rows = [line.split() for line in out.strip().split("\n")[1:]]
    assert [(name.startswith(f"jobset-{owner}-"), owner) for name, owner in rows] == [(True, "first"), (True, "second")]
    assert run("get", "jobset", "second", "-o", "jsonpath={.spec.suspend}") == "true"


def test_simulate_installs_kueue_when_the_manifests_hold_kueue_objects(capsys: pytest.CaptureFixture[str]) -> None:
    from jobset_ref.cli import main

    code = main(["simulate", "examples/kueue/setup.yaml", "examples/kueue/queued-jobsets.yaml",
                 "--show", "workloads", "--expect", "Completed"])
    out = capsys.readouterr().out
    assert code == 0
    # the second JobSet waits for the first's quota: it resumes when the first completes
    assert "00:01:02.010  JobSet  default/second  suspend=false" in out
    assert "$ kubectl get workloads" in out and "jobset-second-" in out


@pytest.mark.fakekube(kueue=True)
def test_kubectl_get_prints_kueues_columns_as_simulate_show_does(fake_apiserver: Any) -> None:
    import os
    import shutil
    import subprocess

    from jobset_ref.cli.show import render

    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not on PATH")
    cluster = fake_apiserver.cluster
    cluster.apply("examples/kueue/setup.yaml")
    cluster.apply("examples/kueue/queued-jobsets.yaml")
    cluster.advance(30)
    env = {**os.environ, "KUBECONFIG": fake_apiserver.kubeconfig}
    done = subprocess.run([kubectl, "get", "workloads,clusterqueues,localqueues"], capture_output=True, text=True,
                          env=env, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    blocks = [block.splitlines() for block in done.stdout.strip().split("\n\n")]
    assert [block[0].split("  ")[0] for block in blocks] == ["NAME", "NAME", "NAME"]
    assert blocks[0][0].split() == ["NAME", "QUEUE", "RESERVED", "IN", "ADMITTED", "FINISHED", "AGE"]
    assert blocks[1][0].split() == ["NAME", "COHORT", "PENDING", "WORKLOADS"]
    assert blocks[2][0].split() == ["NAME", "CLUSTERQUEUE", "PENDING", "WORKLOADS", "ADMITTED", "WORKLOADS"]
    # simulate --show prints the same rows (kubectl prefixes multi-kind output with the resource)
    shown = [table.splitlines()[1:] for table in render(cluster, ["workloads", "clusterqueues", "localqueues"])
             .split("\n\n")]
    for ours, theirs in zip(shown, blocks, strict=True):
        assert [row.split() for row in ours] == [
            [cell.split("/", 1)[-1] for cell in row.split()] for row in theirs]
