"""kr8s (0.20, its synchronous API), unchanged, against a served cluster (``fake_apiserver``).

kr8s keeps one ``Api`` per set of arguments per thread, and ``kr8s.get(...)`` without ``api=``
reuses whichever it made first: the fixture forgets them before and after each test, so the
default client of every test is a fresh one on that test's ``$KUBECONFIG``. kr8s asks for its
documents with trailing slashes (``/version/``, ``/api/``, ``/apis/``) and lists in pages of 100.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kr8s
import pytest
import yaml
from kr8s._api import Api as AsyncApi
from kr8s.objects import ConfigMap, Job, Pod, new_class

from fakekube.http.server import ClusterServer
from jobset_ref.testing.assertions import condition

PYTORCH = yaml.safe_load((Path(__file__).resolve().parents[2] / "examples" / "pytorch.yaml").read_text())
JobSet = new_class("JobSet.jobset.x-k8s.io/v1alpha2", namespaced=True)
CM_LIST = "GET /api/v1/namespaces/default/configmaps?limit=100"


@pytest.fixture
def api(fake_apiserver: ClusterServer) -> Iterator[kr8s.Api]:
    """kr8s's default client, made fresh from $KUBECONFIG."""
    AsyncApi._instances.clear()  # kr8s's per-thread cache of clients (the sync Api shares it)
    try:
        client = kr8s.api()
        assert client.auth.server == fake_apiserver.url
        yield client
    finally:
        AsyncApi._instances.clear()


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data or {"k": "v"}}


# ---------------------------------------------------------------------- discovery
def test_trailing_slash_discovery_and_version(api: kr8s.Api, fake_apiserver: ClusterServer) -> None:
    assert api.version()["gitVersion"] == "v1.32.4+fakekube"
    resources = {(r["version"], r["name"]): r for r in api.api_resources()}
    assert resources[("jobset.x-k8s.io/v1alpha2", "jobsets")]["kind"] == "JobSet"
    assert resources[("batch/v1", "jobs")]["namespaced"] is True
    # kr8s names a kind by the singularName discovery gives
    assert api.lookup_kind("jobsets") == ("jobset.jobset.x-k8s.io/v1alpha2", "jobsets", True)
    requests = list(fake_apiserver.requests)
    for path in ("GET /version/", "GET /api/", "GET /apis/", "GET /api/v1", "GET /apis/jobset.x-k8s.io/v1alpha2"):
        assert path in requests, path


# ---------------------------------------------------------------------- paging
def test_a_list_of_250_is_read_in_pages_of_100_in_key_order(api: kr8s.Api, fake_apiserver: ClusterServer) -> None:
    names = [f"cm-{i}" for i in range(250)]
    for name in reversed(names):  # created in reverse: a list comes back in key (name) order anyway
        fake_apiserver.cluster.create(configmap(name))
    listed = list(kr8s.get("configmaps", namespace="default"))
    assert [o.name for o in listed] == sorted(names)
    assert all(isinstance(o, ConfigMap) for o in listed)
    pages = [r for r in fake_apiserver.requests if r.startswith(CM_LIST)]
    assert len(pages) == 3 and pages[0] == CM_LIST
    assert all(re.fullmatch(re.escape(CM_LIST) + r"&continue=[A-Za-z0-9_-]+", p) for p in pages[1:])
    assert pages[1] != pages[2]


# ---------------------------------------------------------------------- objects
def test_objects_create_get_patch_label_delete(api: kr8s.Api, fake_apiserver: ClusterServer) -> None:
    cm = ConfigMap(configmap("settings", a="1"))
    cm.create()
    assert cm.metadata.uid and cm.raw["data"] == {"a": "1"}
    got = ConfigMap.get("settings", namespace="default")
    assert got.metadata.resourceVersion == cm.metadata.resourceVersion
    got.patch({"data": {"b": "2"}})  # merge patch
    assert got.raw["data"] == {"a": "1", "b": "2"}
    got.patch([{"op": "remove", "path": "/data/a"}], type="json")
    assert fake_apiserver.cluster.get("ConfigMap", "settings")["data"] == {"b": "2"}
    got.label(team="a")
    assert [o.name for o in kr8s.get("configmaps", namespace="default", label_selector={"team": "a"})] == [
        "settings"]
    got.delete()
    assert not ConfigMap("settings", namespace="default").exists()
    assert not fake_apiserver.cluster.exists("ConfigMap", "settings")


def test_a_pod_becomes_ready_and_its_log_is_read(api: kr8s.Api, fake_apiserver: ClusterServer) -> None:
    pod = Pod({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default", "annotations": {
        "fakekube.io/log": "starting\nlistening on :80\n", "fakekube.io/run-seconds": "600"}},
               "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}})
    pod.create()
    assert not pod.ready()
    fake_apiserver.cluster.advance(2)
    assert pod.ready()
    assert list(pod.logs()) == ["starting", "listening on :80"]
    assert list(pod.logs(tail_lines=1)) == ["listening on :80"]
    assert "GET /api/v1/namespaces/default/pods/web/log?tailLines=1" in fake_apiserver.requests


def test_jobsets_through_a_class_of_their_own(api: kr8s.Api, fake_apiserver: ClusterServer) -> None:
    js = JobSet(PYTORCH)
    js.create()
    assert js.raw["spec"]["replicatedJobs"][0]["replicas"] == 1  # defaulted by the webhook
    pods = list(kr8s.get("pods", namespace="default", label_selector="jobset.sigs.k8s.io/jobset-name=pytorch"))
    assert len(pods) == 4 and all(isinstance(p, Pod) for p in pods)
    [fetched] = kr8s.get("jobsets", "pytorch", namespace="default")
    assert isinstance(fetched, JobSet) and fetched.name == "pytorch"
    fake_apiserver.cluster.advance(310)
    js.refresh()
    assert condition(js.raw, "Completed") == {
        "type": "Completed", "status": "True", "lastTransitionTime": "2030-01-01T00:05:02Z",
        "reason": "AllJobsCompleted", "message": "jobset completed successfully"}
    js.delete()
    assert list(kr8s.get("jobsets", namespace="default")) == []


# ---------------------------------------------------------------------- the quiescent clock
@pytest.mark.fakekube(clock="quiescent", quiet_ms=20)
def test_wait_for_a_job_while_the_quiescent_clock_skips_ahead(api: kr8s.Api, fake_apiserver: ClusterServer) -> None:
    job = Job({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "sleeper", "namespace": "default"},
               "spec": {"template": {"metadata": {"annotations": {"fakekube.io/run-seconds": "600"}},
                                     "spec": {"restartPolicy": "Never",
                                              "containers": [{"name": "c", "image": "busybox"}]}}}})
    job.create()
    assert job.metadata.creationTimestamp == "2030-01-01T00:00:00Z"  # nothing was due before: time stood still
    job.wait("condition=Complete", timeout=20)  # a watch; ten virtual minutes pass in a few quiet periods
    complete = next(c for c in job.raw["status"]["conditions"] if c["type"] == "Complete")
    # bound at 0.01, started at 1.01, done at 601.01, the Job controller's batched sync at 602.01
    assert (complete["status"], complete["lastTransitionTime"]) == ("True", "2030-01-01T00:10:02Z")
    # the clock may have made its last jump (a 1 s resync) before we look
    assert fake_apiserver.cluster.elapsed in (602.01, 603.01)
    assert fake_apiserver.clock.jumps >= 7  # type: ignore[attr-defined]  # 0.01 1 1.01 2.01 3.01 601.01 602.01
