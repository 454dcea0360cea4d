"""The real ``kubectl`` against a served cluster (``fake_apiserver``), with exact expectations.

Every test gets its own server, kubeconfig and discovery cache (``KUBECACHEDIR``), so the module is
xdist-safe. The clock is manual unless a test says otherwise: kubectl's requests are settled at the
current virtual instant, and AGE columns (computed by the server from its virtual clock) are exact.

Known limitation: ``kubectl describe`` and ``kubectl events`` compute the ages of Events on the
client, from the wall clock (``kubectl get`` has the server compute AGE). Virtual timestamps start
at 2030-01-01, in the wall clock's future, so those ages print as ``<invalid>``; the tests ignore
that one column.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap
import threading
from typing import Any

import pytest

from fakekube import FakeCluster
from fakekube.http.server import ClusterServer

KUBECTL = shutil.which("kubectl")
if KUBECTL is None:
    pytest.skip("kubectl is not on PATH: these tests run the real kubectl binary", allow_module_level=True)

pytestmark = pytest.mark.fakekube(seed=7)

TIMEOUT = 30.0  # wall seconds any one kubectl invocation may take


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


class Kubectl:
    """Runs kubectl against one served cluster: its own kubeconfig and discovery cache."""

    def __init__(self, server: ClusterServer) -> None:
        assert KUBECTL is not None
        self.server = server
        env = {k: v for k, v in os.environ.items() if not k.startswith("KUBECTL_")}
        env["KUBECONFIG"] = server.kubeconfig
        env["KUBECACHEDIR"] = os.environ["KUBECACHEDIR"]  # per test, set by the fixture
        self.env = env

    def run(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None
        return subprocess.run([KUBECTL, *args], input=input, capture_output=True, text=True, env=self.env,
                              timeout=TIMEOUT, check=False)

    def __call__(self, *args: str, input: str | None = None) -> str:
        """stdout of a command that must succeed without a word on stderr."""
        done = self.run(*args, input=input)
        assert (done.returncode, done.stderr) == (0, ""), f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout

    def fails(self, *args: str, input: str | None = None, code: int = 1) -> str:
        """stderr of a command that must fail with ``code`` (and print nothing on stdout)."""
        done = self.run(*args, input=input)
        assert (done.returncode, done.stdout) == (code, ""), f"kubectl {' '.join(args)}: {done}"
        return done.stderr

    def popen(self, *args: str) -> subprocess.Popen[str]:
        assert KUBECTL is not None
        return subprocess.Popen([KUBECTL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env)


@pytest.fixture
def kubectl(fake_apiserver: ClusterServer) -> Kubectl:
    return Kubectl(fake_apiserver)


@pytest.fixture
def cluster(fake_apiserver: ClusterServer) -> FakeCluster:
    return fake_apiserver.cluster


def lines_of(proc: subprocess.Popen[str]) -> list[str]:
    """``proc``'s stdout lines, collected by a thread as they come."""
    lines: list[str] = []
    stdout = proc.stdout
    assert stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(iter(stdout.readline, "")), daemon=True)
    reader.start()
    return lines


def wait_lines(server: ClusterServer, lines: list[str], count: int) -> None:
    server.wait_for(lambda: len(lines) >= count, timeout=TIMEOUT)


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(TIMEOUT)


def wait_for_request(server: ClusterServer, fragment: str) -> None:
    """Until kubectl (in another process) has sent a request whose path contains ``fragment``."""
    def seen() -> bool:
        try:
            return any(fragment in request for request in list(server.requests))
        except RuntimeError:  # appended to while copied: look again
            return False

    server.wait_for(seen, timeout=TIMEOUT)


# A JobSet written with every default its webhook would add: re-applying it with client-side apply
# sends no replicatedJobs (its merge patch replaces lists, and the live list equals this one).
DEMO = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: demo
  labels:
    app: demo
spec:
  replicatedJobs:
  - name: workers
    groupName: default
    replicas: 2
    template:
      spec:
        completionMode: Indexed
        parallelism: 1
        completions: 1
        template:
          metadata:
            annotations:
              fakekube.io/run-seconds: "60"
          spec:
            restartPolicy: OnFailure
            containers:
            - name: main
              image: busybox
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
"""


def names(cluster: FakeCluster, kind: str, namespace: str | None = "default") -> list[str]:
    return sorted(o["metadata"]["name"] for o in cluster.list(kind, namespace))


def rv(cluster: FakeCluster, kind: str, name: str) -> str:
    return str(cluster.get(kind, name)["metadata"]["resourceVersion"])


# ---------------------------------------------------------------------- apply (client-side)
def test_apply_rejects_an_unknown_field_then_creates_then_patches(kubectl: Kubectl, cluster: FakeCluster) -> None:
    typo = DEMO.replace("    replicas: 2\n", "    replicaz: 2\n")
    assert kubectl.fails("apply", "-f", "-", input=typo) == (
        'Error from server (BadRequest): error when creating "STDIN": JobSet in version "v1alpha2" cannot be '
        'handled as a JobSet: strict decoding error: unknown field "spec.replicatedJobs[0].replicaz"\n')
    assert not cluster.exists("JobSet", "demo")

    assert kubectl("apply", "-f", "-", input=DEMO) == "jobset.jobset.x-k8s.io/demo created\n"
    first = rv(cluster, "JobSet", "demo")
    assert kubectl("apply", "-f", "-", input=DEMO) == "jobset.jobset.x-k8s.io/demo unchanged\n"
    assert rv(cluster, "JobSet", "demo") == first
    assert kubectl("apply", "-f", "-", input=DEMO.replace("app: demo", "app: changed")) == (
        "jobset.jobset.x-k8s.io/demo configured\n")
    meta = cluster.get("JobSet", "demo")["metadata"]
    assert meta["labels"] == {"app": "changed"} and meta["generation"] == 1
    assert '"app":"changed"' in meta["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]


def test_an_int32_out_of_range_is_refused_by_the_webhooks_decoder_without_a_reason(kubectl: Kubectl,
                                                                                   cluster: FakeCluster) -> None:
    """The CRD admits it (a 1.34 API server does not range-check format int32); upstream's mutating webhook
    cannot decode it and answers 400 with no reason, which kubectl prints without brackets."""
    assert "    replicas: 2\n" in DEMO
    assert kubectl.fails("apply", "-f", "-", input=DEMO.replace("    replicas: 2\n", "    replicas: 3000000000\n")) == (
        'Error from server: error when creating "STDIN": admission webhook "mjobset.kb.io" denied the request: '
        "json: cannot unmarshal number 3000000000 into Go struct field ReplicatedJob.spec.replicatedJobs.replicas "
        "of type int32\n")
    assert not cluster.exists("JobSet", "demo")


def test_apply_of_a_built_in_kind_patches_with_a_strategic_merge(kubectl: Kubectl, cluster: FakeCluster) -> None:
    assert kubectl("apply", "-f", "-", input=CONFIGMAP) == "configmap/settings created\n"
    cluster.patch("ConfigMap", "settings", {"data": {"added": "by-someone-else"}})
    changed = CONFIGMAP.replace("mode: fast", "mode: slow")
    assert kubectl("apply", "-f", "-", input=changed) == "configmap/settings configured\n"
    # a three-way merge: the other writer's key survives, the applied key changes
    assert cluster.get("ConfigMap", "settings")["data"] == {"mode": "slow", "added": "by-someone-else"}
    removed = changed.replace("  mode: slow\n", "  other: x\n")
    kubectl("apply", "-f", "-", input=removed)
    assert cluster.get("ConfigMap", "settings")["data"] == {"other": "x", "added": "by-someone-else"}


def test_replace_puts_the_manifest_and_keeps_the_identity(kubectl: Kubectl, cluster: FakeCluster) -> None:
    kubectl("apply", "-f", "-", input=DEMO)
    uid = cluster.get("JobSet", "demo")["metadata"]["uid"]
    # kubectl replace reads the resourceVersion, then PUTs the manifest (custom resources need one)
    assert kubectl("replace", "-f", "-", input=DEMO.replace("app: demo", "app: replaced")) == (
        "jobset.jobset.x-k8s.io/demo replaced\n")
    meta = cluster.get("JobSet", "demo")["metadata"]
    assert (meta["uid"], meta["creationTimestamp"], meta["labels"]) == (uid, "2030-01-01T00:00:00Z", {"app": "replaced"})
    assert "annotations" not in meta  # the manifest has none: the last-applied configuration is gone too
    assert kubectl.fails("replace", "-f", "-", input=CONFIGMAP) == (
        'Error from server (NotFound): error when replacing "STDIN": configmaps "settings" not found\n')


# ---------------------------------------------------------------------- apply --server-side
CONFLICT_HELP = """\
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
"""


def managers(cluster: FakeCluster, kind: str, name: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m["manager"], m["operation"], m["fieldsV1"]) for m in cluster.get(kind, name)["metadata"]["managedFields"]]


def test_server_side_apply_creates_keeps_and_reports_conflicts(kubectl: Kubectl, cluster: FakeCluster) -> None:
    assert kubectl("apply", "--server-side", "-f", "-", input=CONFIGMAP) == "configmap/settings serverside-applied\n"
    first = rv(cluster, "ConfigMap", "settings")
    assert managers(cluster, "ConfigMap", "settings") == [("kubectl", "Apply", {"f:data": {"f:mode": {}}})]
    assert kubectl("apply", "--server-side", "-f", "-", input=CONFIGMAP) == "configmap/settings serverside-applied\n"
    assert rv(cluster, "ConfigMap", "settings") == first  # a no-op apply writes nothing

    slow = CONFIGMAP.replace("mode: fast", "mode: slow")
    assert kubectl.fails("apply", "--server-side", "--field-manager=tuner", "-f", "-", input=slow) == (
        'error: Apply failed with 1 conflict: conflict with "kubectl": .data.mode\n' + CONFLICT_HELP)
    assert cluster.get("ConfigMap", "settings")["data"] == {"mode": "fast"}

    assert kubectl("apply", "--server-side", "--field-manager=tuner", "--force-conflicts", "-f", "-",
                   input=slow) == "configmap/settings serverside-applied\n"
    assert cluster.get("ConfigMap", "settings")["data"] == {"mode": "slow"}
    assert managers(cluster, "ConfigMap", "settings") == [("tuner", "Apply", {"f:data": {"f:mode": {}}})]


def test_server_side_apply_takes_over_from_client_side_apply(kubectl: Kubectl, cluster: FakeCluster) -> None:
    kubectl("apply", "-f", "-", input=CONFIGMAP)
    # same values: kubectl applies, then moves the client-side manager's fields to its own (a JSON patch of
    # managedFields) and keeps the last-applied annotation under a manager of its own
    assert kubectl("apply", "--server-side", "-f", "-", input=CONFIGMAP) == "configmap/settings serverside-applied\n"
    assert managers(cluster, "ConfigMap", "settings") == [
        ("kubectl", "Apply", {"f:data": {"f:mode": {}}}),
        ("kubectl-last-applied", "Apply",
         {"f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}}})]
    # a changed value owned by a client-side apply manager is a conflict (an Update manager names its version)
    kubectl("apply", "-f", "-", input=CONFIGMAP.replace("settings", "other"))
    assert kubectl.fails("apply", "--server-side", "-f", "-",
                         input=CONFIGMAP.replace("settings", "other").replace("fast", "slow")) == (
        'error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.mode\n'
        + CONFLICT_HELP)


def test_server_side_apply_of_a_jobset(kubectl: Kubectl, cluster: FakeCluster) -> None:
    assert kubectl("apply", "--server-side", "-f", "-", input=DEMO) == "jobset.jobset.x-k8s.io/demo serverside-applied\n"
    first = rv(cluster, "JobSet", "demo")
    assert kubectl("apply", "--server-side", "-f", "-", input=DEMO) == "jobset.jobset.x-k8s.io/demo serverside-applied\n"
    assert rv(cluster, "JobSet", "demo") == first
    typo = DEMO.replace("    replicas: 2\n", "    replicaz: 2\n")
    assert kubectl.fails("apply", "--server-side", "-f", "-", input=typo) == (
        "Error from server: failed to create typed patch object (default/demo; jobset.x-k8s.io/v1alpha2, Kind=JobSet): "
        '.spec.replicatedJobs[name="workers"].replicaz: field not declared in schema\n')


def test_a_jobset_without_its_defaults_reapplies_server_side_only(kubectl: Kubectl, cluster: FakeCluster) -> None:
    """The webhook defaults on CREATE only. A client-side re-apply merge-patches replicatedJobs wholesale (a
    custom resource gets no strategic merge), dropping the webhook's defaults: an immutable-field change.
    Server-side apply merges by field and owns only what the manifest sets."""
    bare = DEMO.replace("    groupName: default\n", "").replace("        completionMode: Indexed\n", "").replace(
        "            restartPolicy: OnFailure\n", "")
    assert kubectl("apply", "--server-side", "-f", "-", input=bare) == "jobset.jobset.x-k8s.io/demo serverside-applied\n"
    first = rv(cluster, "JobSet", "demo")
    assert kubectl("apply", "--server-side", "-f", "-", input=bare) == "jobset.jobset.x-k8s.io/demo serverside-applied\n"
    assert rv(cluster, "JobSet", "demo") == first

    kubectl("delete", "jobset", "demo")
    assert kubectl("apply", "-f", "-", input=bare) == "jobset.jobset.x-k8s.io/demo created\n"
    stderr = kubectl.fails("apply", "-f", "-", input=bare)
    assert stderr.startswith('The JobSet "demo" is invalid: spec.replicatedJobs: Invalid value: ')
    assert stderr.endswith(": field is immutable\n")


# ---------------------------------------------------------------------- diff
def hunks(diff: str) -> str:
    """A unified diff without its header lines (they name temporary files and wall-clock times)."""
    return "".join(line for line in diff.splitlines(keepends=True)
                   if not line.startswith(("diff ", "--- ", "+++ ")))


@pytest.mark.parametrize("side", [[], ["--server-side"]], ids=["client-side", "server-side"])
def test_diff_shows_a_change_and_writes_nothing(kubectl: Kubectl, cluster: FakeCluster, side: list[str]) -> None:
    kubectl("apply", *side, "-f", "-", input=DEMO)
    before = rv(cluster, "JobSet", "demo")
    assert kubectl("diff", *side, "-f", "-", input=DEMO) == ""  # unchanged: exit code 0
    changed = kubectl.run("diff", *side, "-f", "-", input=DEMO.replace("app: demo", "app: changed"))
    assert (changed.returncode, changed.stderr) == (1, "")
    line = 4 if side else 7  # client-side apply adds the last-applied-configuration annotation (3 lines)
    assert hunks(changed.stdout) == dedent(f"""
        @@ -{line},7 +{line},7 @@
           creationTimestamp: "2030-01-01T00:00:00Z"
           generation: 1
           labels:
        -    app: demo
        +    app: changed
           name: demo
           namespace: default
           resourceVersion: "{before}"
        """)
    assert rv(cluster, "JobSet", "demo") == before
    assert cluster.get("JobSet", "demo")["metadata"]["labels"] == {"app": "demo"}


# ---------------------------------------------------------------------- patch, label, annotate
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: nginx:1.26
  - name: sidecar
    image: busybox
"""


def images(cluster: FakeCluster, name: str) -> list[tuple[str, str]]:
    return [(c["name"], c["image"]) for c in cluster.get("Pod", name)["spec"]["containers"]]


def test_patch_strategic_merge_json_and_status(kubectl: Kubectl, cluster: FakeCluster) -> None:
    kubectl("apply", "-f", "-", input=POD)
    # strategic (the default on a built-in kind): containers merge by name, the sidecar stays
    assert kubectl("patch", "pod", "web", "-p", '{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}'
                   ) == "pod/web patched\n"
    assert images(cluster, "web") == [("app", "nginx:1.27"), ("sidecar", "busybox")]
    assert kubectl("patch", "pod", "web", "-p", '{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}'
                   ) == "pod/web patched (no change)\n"
    # a merge patch replaces the list: dropping the sidecar is a forbidden pod update
    stderr = kubectl.fails("patch", "pod", "web", "--type=merge",
                           "-p", '{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}')
    assert stderr.startswith('The Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other '
                             "than `spec.containers[*].image`,")
    assert kubectl("patch", "pod", "web", "--type=json",
                   "-p", '[{"op":"replace","path":"/spec/containers/1/image","value":"busybox:1.37"}]'
                   ) == "pod/web patched\n"
    assert images(cluster, "web") == [("app", "nginx:1.27"), ("sidecar", "busybox:1.37")]
    assert kubectl.fails("patch", "pod", "web", "--type=json",
                         "-p", '[{"op":"test","path":"/spec/containers/1/image","value":"busybox"}]') == (
        "The request is invalid: the server rejected our request due to an error in our request\n")

    kubectl("apply", "-f", "-", input=DEMO)
    assert kubectl.fails("patch", "jobset", "demo", "-p", '{"metadata":{"labels":{"tier":"gold"}}}') == (
        "error: application/strategic-merge-patch+json is not supported by jobset.x-k8s.io/v1alpha2, Kind=JobSet: "
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n")
    assert kubectl("patch", "jobset", "demo", "--type=merge", "-p", '{"metadata":{"labels":{"tier":"gold"}}}'
                   ) == "jobset.jobset.x-k8s.io/demo patched\n"
    assert cluster.get("JobSet", "demo")["metadata"]["labels"] == {"app": "demo", "tier": "gold"}
    # the status subresource takes status and ignores the spec
    assert kubectl("patch", "jobset", "demo", "--subresource=status", "--type=merge",
                   "-p", '{"spec":{"suspend":true},"status":{"restarts":3}}') == "jobset.jobset.x-k8s.io/demo patched\n"
    jobset = cluster.get("JobSet", "demo")
    assert jobset["status"]["restarts"] == 3 and "suspend" not in jobset["spec"]


def test_label_and_annotate(kubectl: Kubectl, cluster: FakeCluster) -> None:
    kubectl("apply", "-f", "-", input=DEMO)
    assert kubectl("label", "jobset", "demo", "tier=gold") == "jobset.jobset.x-k8s.io/demo labeled\n"
    assert kubectl.fails("label", "jobset", "demo", "tier=silver") == (
        "error: 'tier' already has a value (gold), and --overwrite is false\n")
    assert kubectl("label", "jobset", "demo", "tier=silver", "--overwrite") == "jobset.jobset.x-k8s.io/demo labeled\n"
    assert cluster.get("JobSet", "demo")["metadata"]["labels"] == {"app": "demo", "tier": "silver"}
    assert kubectl("label", "jobset", "demo", "app-") == "jobset.jobset.x-k8s.io/demo unlabeled\n"
    assert cluster.get("JobSet", "demo")["metadata"]["labels"] == {"tier": "silver"}

    kubectl("apply", "-f", "-", input=CONFIGMAP)
    assert kubectl("annotate", "configmap", "settings", "owner=team-a") == "configmap/settings annotated\n"
    meta = cluster.get("ConfigMap", "settings")["metadata"]
    assert meta["annotations"]["owner"] == "team-a"
    # same operation and second: sorted by manager, as kube-apiserver sorts them
    assert [m["manager"] for m in meta["managedFields"]] == ["kubectl-annotate", "kubectl-client-side-apply"]
    assert kubectl("annotate", "configmap", "settings", "owner-") == "configmap/settings annotated\n"
    meta = cluster.get("ConfigMap", "settings")["metadata"]
    assert "owner" not in meta["annotations"]
    assert [m["manager"] for m in meta["managedFields"]] == ["kubectl-client-side-apply"]  # it owns nothing now


# ---------------------------------------------------------------------- get
@pytest.fixture
def demo(kubectl: Kubectl, cluster: FakeCluster) -> list[str]:
    """DEMO applied and run for 30 virtual seconds; its two pods' names (one per Job), sorted."""
    kubectl("apply", "-f", "-", input=DEMO)
    cluster.advance(30)
    pods = names(cluster, "Pod")
    assert [p[:-5] for p in pods] == ["demo-workers-0-0-", "demo-workers-1-0-"]  # 5 random characters each
    return pods


def test_get_tables(kubectl: Kubectl, cluster: FakeCluster, demo: list[str]) -> None:
    p0, p1 = demo
    assert kubectl("get", "pods") == dedent(f"""
        NAME                     READY   STATUS    RESTARTS   AGE
        {p0}   1/1     Running   0          30s
        {p1}   1/1     Running   0          30s
        """)
    assert kubectl("get", "jobs") == dedent("""
        NAME             STATUS    COMPLETIONS   DURATION   AGE
        demo-workers-0   Running   0/1           30s        30s
        demo-workers-1   Running   0/1           30s        30s
        """)
    assert kubectl("get", "jobsets") == dedent("""
        NAME   TERMINALSTATE   RESTARTS   COMPLETED   SUSPENDED   AGE
        demo                   0                                  30s
        """)
    assert kubectl("get", "nodes") == "NAME     STATUS   ROLES    AGE   VERSION\n" + "".join(
        f"node-{i}   Ready    <none>   30s   v1.32.4+fakekube\n" for i in range(4))
    assert kubectl("get", "events") == dedent(f"""
        LAST SEEN   TYPE     REASON             OBJECT                       MESSAGE
        30s         Normal   Scheduled          pod/{p0}   Successfully assigned default/{p0} to node-0
        30s         Normal   SuccessfulCreate   job/demo-workers-0           Created pod: {p0}
        30s         Normal   Scheduled          pod/{p1}   Successfully assigned default/{p1} to node-1
        30s         Normal   SuccessfulCreate   job/demo-workers-1           Created pod: {p1}
        """)
    assert kubectl("get", "all") == dedent(f"""
        NAME                         READY   STATUS    RESTARTS   AGE
        pod/{p0}   1/1     Running   0          30s
        pod/{p1}   1/1     Running   0          30s

        NAME           TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE
        service/demo   ClusterIP   None         <none>        <none>    30s

        NAME                       STATUS    COMPLETIONS   DURATION   AGE
        job.batch/demo-workers-0   Running   0/1           30s        30s
        job.batch/demo-workers-1   Running   0/1           30s        30s
        """)
    cluster.advance(45)  # the pods ran their 60 seconds: everything completed
    assert kubectl("get", "jobsets,jobs,pods") == dedent(f"""
        NAME                          TERMINALSTATE   RESTARTS   COMPLETED   SUSPENDED   AGE
        jobset.jobset.x-k8s.io/demo   Completed       0          True                    75s

        NAME                       STATUS     COMPLETIONS   DURATION   AGE
        job.batch/demo-workers-0   Complete   1/1           62s        75s
        job.batch/demo-workers-1   Complete   1/1           62s        75s

        NAME                         READY   STATUS      RESTARTS   AGE
        pod/{p0}   0/1     Completed   0          75s
        pod/{p1}   0/1     Completed   0          75s
        """)


def test_get_wide_labels_selectors_and_all_namespaces(kubectl: Kubectl, cluster: FakeCluster,
                                                      demo: list[str]) -> None:
    p0, p1 = demo
    assert kubectl("get", "pods", "-o", "wide") == dedent(f"""
        NAME                     READY   STATUS    RESTARTS   AGE   IP           NODE     NOMINATED NODE   READINESS GATES
        {p0}   1/1     Running   0          30s   10.244.0.1   node-0   <none>           <none>
        {p1}   1/1     Running   0          30s   10.244.0.2   node-1   <none>           <none>
        """)
    uids = [cluster.get("Job", f"demo-workers-{i}")["metadata"]["uid"] for i in (0, 1)]
    assert kubectl("get", "jobs", "-o", "wide") == dedent(f"""
        NAME             STATUS    COMPLETIONS   DURATION   AGE   CONTAINERS   IMAGES    SELECTOR
        demo-workers-0   Running   0/1           30s        30s   main         busybox   batch.kubernetes.io/controller-uid={uids[0]}
        demo-workers-1   Running   0/1           30s        30s   main         busybox   batch.kubernetes.io/controller-uid={uids[1]}
        """)
    assert kubectl("get", "nodes", "-o", "wide", "node-0") == dedent("""
        NAME     STATUS   ROLES    AGE   VERSION            INTERNAL-IP   EXTERNAL-IP   OS-IMAGE                  KERNEL-VERSION   CONTAINER-RUNTIME
        node-0   Ready    <none>   30s   v1.32.4+fakekube   10.0.0.2      <none>        fakekube simulated node   fakekube         fakekube://1.0.0
        """)
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    kubectl("apply", "-n", "other", "-f", "-", input=DEMO.replace("app: demo", "app: other"))
    assert kubectl("get", "jobsets", "-A", "--show-labels") == dedent("""
        NAMESPACE   NAME   TERMINALSTATE   RESTARTS   COMPLETED   SUSPENDED   AGE   LABELS
        default     demo                   0                                  30s   app=demo
        other       demo                   0                                  0s    app=other
        """)
    assert kubectl("get", "jobsets", "-A", "-l", "app=other", "-o", "name") == "jobset.jobset.x-k8s.io/demo\n"
    assert kubectl("get", "pods", "-l", "jobset.sigs.k8s.io/job-index=1") == dedent(f"""
        NAME                     READY   STATUS    RESTARTS   AGE
        {p1}   1/1     Running   0          30s
        """)
    nothing = kubectl.run("get", "pods", "-l", "app=nothing")
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (0, "", "No resources found in default namespace.\n")


def test_get_json_and_jsonpath(kubectl: Kubectl, cluster: FakeCluster, demo: list[str]) -> None:
    listed = json.loads(kubectl("get", "pods", "-o", "json"))
    assert (listed["kind"], listed["apiVersion"]) == ("List", "v1")
    assert [(o["kind"], o["metadata"]["name"]) for o in listed["items"]] == [("Pod", name) for name in demo]
    one = json.loads(kubectl("get", "jobset", "demo", "-o", "json"))
    stored = cluster.get("JobSet", "demo")
    del stored["metadata"]["managedFields"]  # kubectl leaves them out (--show-managed-fields=false)
    assert one == stored
    assert kubectl("get", "jobset", "demo", "-o", "jsonpath={.status.replicatedJobsStatus[0]}") == (
        '{"active":2,"failed":0,"name":"workers","ready":2,"succeeded":0,"suspended":0}')
    assert kubectl("get", "pods", "-o", "jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{'\\n'}{end}"
                   ) == f"{demo[0]} node-0\n{demo[1]} node-1\n"


# ---------------------------------------------------------------------- get -w
def test_get_watch_prints_a_row_per_event(kubectl: Kubectl, cluster: FakeCluster, fake_apiserver: ClusterServer,
                                          demo: list[str]) -> None:
    p0, p1 = demo
    proc = kubectl.popen("get", "pods", "-w")
    try:
        lines = lines_of(proc)
        wait_lines(fake_apiserver, lines, 3)
        cluster.patch("Pod", p0, {"metadata": {"labels": {"watched": "yes"}}})
        wait_lines(fake_apiserver, lines, 4)
        cluster.advance(45)  # both pods complete (kubelet), then lose their Job tracking finalizer
        wait_lines(fake_apiserver, lines, 8)
    finally:
        stop(proc)
    assert "".join(lines) == dedent(f"""
        NAME                     READY   STATUS    RESTARTS   AGE
        {p0}   1/1     Running   0          30s
        {p1}   1/1     Running   0          30s
        {p0}   1/1     Running   0          30s
        {p0}   0/1     Completed   0          61s
        {p1}   0/1     Completed   0          61s
        {p0}   0/1     Completed   0          62s
        {p1}   0/1     Completed   0          62s
        """)


def test_get_watch_output_watch_events(kubectl: Kubectl, cluster: FakeCluster, fake_apiserver: ClusterServer) -> None:
    proc = kubectl.popen("get", "jobsets", "-w", "--output-watch-events")
    try:
        lines = lines_of(proc)
        wait_for_request(fake_apiserver, "/jobsets?resourceVersion=")
        kubectl("apply", "-f", "-", input=DEMO)  # settled at t=0: created, then two status writes
        wait_lines(fake_apiserver, lines, 4)
        cluster.advance(75)
        wait_lines(fake_apiserver, lines, 6)
        kubectl("delete", "jobset", "demo")
        wait_lines(fake_apiserver, lines, 7)
    finally:
        stop(proc)
    assert "".join(lines) == dedent("""
        EVENT      NAME   TERMINALSTATE   RESTARTS   COMPLETED   SUSPENDED   AGE
        ADDED      demo                                                      0s
        MODIFIED   demo                   0                                  0s
        MODIFIED   demo                   0                                  0s
        MODIFIED   demo                   0                                  2s
        MODIFIED   demo   Completed       0          True                    62s
        DELETED    demo   Completed       0          True                    75s
        """)


# ---------------------------------------------------------------------- describe
def events_of(description: str) -> list[list[str]]:
    """The Events table of a ``kubectl describe``, rows as cells without the Age column (see the module doc)."""
    block = description.split("\nEvents:\n", 1)[1].splitlines()
    header = re.split(r"\s{2,}", block[0].strip())
    assert header == ["Type", "Reason", "Age", "From", "Message"]
    rows = [re.split(r"\s{2,}", line.strip(), maxsplit=4) for line in block[2:]]
    return [row[:2] + row[3:] for row in rows]


def test_describe_pod_and_jobset_show_their_events(kubectl: Kubectl, cluster: FakeCluster, demo: list[str]) -> None:
    p0 = demo[0]
    described = kubectl("describe", "pod", p0)
    assert described.startswith(dedent(f"""
        Name:         {p0}
        Namespace:    default
        Priority:     0
        Node:         node-0/10.0.0.2
        Start Time:   Tue, 01 Jan 2030 00:00:00 +0000
        """))
    assert dedent("""
        Status:       Running
        IP:           10.244.0.1
        IPs:
          IP:           10.244.0.1
        Controlled By:  Job/demo-workers-0
        Containers:
          main:
        """) in described
    assert "      Started:      Tue, 01 Jan 2030 00:00:01 +0000\n" in described
    assert events_of(described) == [["Normal", "Scheduled", "default-scheduler",
                                     f"Successfully assigned default/{p0} to node-0"]]

    cluster.advance(45)
    described = kubectl("describe", "jobset", "demo")
    assert described.startswith(dedent("""
        Name:         demo
        Namespace:    default
        Labels:       app=demo
        Annotations:  <none>
        API Version:  jobset.x-k8s.io/v1alpha2
        Kind:         JobSet
        """))
    assert dedent("""
        Status:
          Conditions:
            Last Transition Time:  2030-01-01T00:01:02Z
            Message:               jobset completed successfully
            Reason:                AllJobsCompleted
            Status:                True
            Type:                  Completed
        """) in described
    assert events_of(described) == [["Normal", "AllJobsCompleted", "jobset-controller",
                                     "jobset completed successfully"]]
    events = kubectl("events", "--for", f"pod/{p0}").splitlines()
    assert re.split(r"\s{2,}", events[0]) == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert [re.split(r"\s{2,}", row)[1:] for row in events[1:]] == [
        ["Normal", "Scheduled", f"Pod/{p0}", f"Successfully assigned default/{p0} to node-0"]]
    assert events_of(kubectl("describe", "job", "demo-workers-0")) == [
        ["Normal", "SuccessfulCreate", "job-controller", f"Created pod: {p0}"],
        ["Normal", "Completed", "job-controller", "Job completed"]]


# ---------------------------------------------------------------------- wait, delete
def test_wait_for_a_condition_while_the_test_moves_time(kubectl: Kubectl, cluster: FakeCluster,
                                                        fake_apiserver: ClusterServer) -> None:
    kubectl("apply", "-f", "-", input=DEMO)
    proc = kubectl.popen("wait", "--for=condition=Completed", "jobset/demo", f"--timeout={TIMEOUT:g}s")
    try:
        wait_for_request(fake_apiserver, "/jobsets?allowWatchBookmarks=true")  # kubectl watches
        assert proc.poll() is None
        cluster.advance(75)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        stop(proc)
    assert (proc.returncode, out, err) == (0, "jobset.jobset.x-k8s.io/demo condition met\n", "")
    # met already: answered from the first read
    assert kubectl("wait", "--for=jsonpath={.status.terminalState}=Completed", "jobset/demo") == (
        "jobset.jobset.x-k8s.io/demo condition met\n")
    assert kubectl.fails("wait", "--for=condition=Failed", "jobset/demo", "--timeout=0") == (
        "error: condition not met for jobsets/demo\n")


@pytest.mark.fakekube(seed=7, clock="realtime", speed=200)
def test_wait_with_a_realtime_clock(kubectl: Kubectl) -> None:
    kubectl("apply", "-f", "-", input=DEMO)
    assert kubectl("wait", "--for=condition=Completed", "jobset/demo", f"--timeout={TIMEOUT:g}s") == (
        "jobset.jobset.x-k8s.io/demo condition met\n")


def test_wait_for_delete_and_delete_waits_until_gone(kubectl: Kubectl, cluster: FakeCluster,
                                                     fake_apiserver: ClusterServer, demo: list[str]) -> None:
    p0 = demo[0]
    proc = kubectl.popen("wait", "--for=delete", f"pod/{p0}", f"--timeout={TIMEOUT:g}s")
    try:
        wait_for_request(fake_apiserver, "/pods?allowWatchBookmarks=true")
        # background deletion: the JobSet goes at once, its Jobs and pods after the garbage collector
        assert kubectl("delete", "jobset", "demo") == 'jobset.jobset.x-k8s.io "demo" deleted\n'
        assert not cluster.exists("JobSet", "demo")
        cluster.advance(40)  # the pods stop, the Job controller drops its tracking finalizer
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        stop(proc)
    assert (proc.returncode, out, err) == (0, f"pod/{p0} condition met\n", "")
    assert names(cluster, "Pod") == [] and names(cluster, "Job") == []

    held = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
    cluster.create(held)
    proc = kubectl.popen("delete", "configmap", "held")  # waits until the object is gone (404)
    try:
        wait_for_request(fake_apiserver, "DELETE /api/v1/namespaces/default/configmaps/held")
        wait_for_request(fake_apiserver, "GET /api/v1/namespaces/default/configmaps?fieldSelector=metadata.name")
        assert proc.poll() is None and cluster.get("ConfigMap", "held")["metadata"]["deletionTimestamp"]
        cluster.patch("ConfigMap", "held", {"metadata": {"finalizers": None}})
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        stop(proc)
    assert (proc.returncode, out, err) == (0, 'configmap "held" deleted\n', "")
    assert kubectl.fails("delete", "configmap", "held") == (
        'Error from server (NotFound): configmaps "held" not found\n')


# ---------------------------------------------------------------------- explain, api-resources, version
def test_explain_reads_the_served_openapi_schemas(kubectl: Kubectl) -> None:
    # the JobSet CRD's descriptions are this project's own (tests/http/test_explain.py checks their text)
    fields = ["coordinator\t<Object>", "failurePolicy\t<Object>", "managedBy\t<string>", "network\t<Object>",
              "replicatedJobs\t<[]Object>", "startupPolicy\t<Object>", "successPolicy\t<Object>",
              "suspend\t<boolean>", "ttlSecondsAfterFinished\t<integer>", "volumeClaimPolicies\t<[]Object>"]
    spec = kubectl("explain", "jobset.spec")
    assert spec.startswith(dedent("""
        GROUP:      jobset.x-k8s.io
        KIND:       JobSet
        VERSION:    v1alpha2

        FIELD: spec <Object>


        DESCRIPTION:
            The desired state: which Jobs to run and the policies that govern them.
        """))
    listed = [line.strip() for line in spec.splitlines() if line.startswith("  ") and "\t" in line]
    assert listed == fields and "<no description>" not in spec
    containers = kubectl("explain", "pod.spec.containers")
    assert containers.startswith(
        "KIND:       Pod\nVERSION:    v1\n\nFIELD: containers <[]Container>\n\n\nDESCRIPTION:\n"
        "    List of containers belonging to the pod. Containers cannot currently be\n"
        "    added or removed. There must be at least one container in a Pod. Cannot be\n"
        "    updated.\n"
        "    A single application container that you want to run within a pod.\n"
        "    \n"
        "FIELDS:\n"
        "  args\t<[]string>\n")
    listed = [line.strip() for line in containers.splitlines() if line.startswith("  ") and "\t" in line]
    assert listed[:10] == ["args\t<[]string>", "command\t<[]string>", "env\t<[]EnvVar>", "envFrom\t<[]EnvFromSource>",
                           "image\t<string>", "imagePullPolicy\t<string>", "lifecycle\t<Lifecycle>",
                           "livenessProbe\t<Probe>", "name\t<string> -required-", "ports\t<[]ContainerPort>"]
    nope = kubectl.run("explain", "jobset.spec.nope")
    assert (nope.returncode, nope.stderr) == (1, 'error: field "nope" does not exist\n')


def test_api_resources_and_version(kubectl: Kubectl) -> None:
    assert kubectl("api-resources") == dedent("""
        NAME                                SHORTNAMES   APIVERSION                        NAMESPACED   KIND
        configmaps                          cm           v1                                true         ConfigMap
        events                              ev           v1                                true         Event
        namespaces                          ns           v1                                false        Namespace
        nodes                               no           v1                                false        Node
        persistentvolumeclaims              pvc          v1                                true         PersistentVolumeClaim
        pods                                po           v1                                true         Pod
        secrets                                          v1                                true         Secret
        serviceaccounts                     sa           v1                                true         ServiceAccount
        services                            svc          v1                                true         Service
        mutatingwebhookconfigurations                    admissionregistration.k8s.io/v1   false        MutatingWebhookConfiguration
        validatingadmissionpolicies                      admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicy
        validatingadmissionpolicybindings                admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicyBinding
        validatingwebhookconfigurations                  admissionregistration.k8s.io/v1   false        ValidatingWebhookConfiguration
        customresourcedefinitions           crd,crds     apiextensions.k8s.io/v1           false        CustomResourceDefinition
        jobs                                             batch/v1                          true         Job
        endpointslices                                   discovery.k8s.io/v1               true         EndpointSlice
        events                              ev           events.k8s.io/v1                  true         Event
        jobsets                                          jobset.x-k8s.io/v1alpha2          true         JobSet
        clusterrolebindings                              rbac.authorization.k8s.io/v1      false        ClusterRoleBinding
        clusterroles                                     rbac.authorization.k8s.io/v1      false        ClusterRole
        rolebindings                                     rbac.authorization.k8s.io/v1      true         RoleBinding
        roles                                            rbac.authorization.k8s.io/v1      true         Role
        priorityclasses                     pc           scheduling.k8s.io/v1              false        PriorityClass
        """)
    assert kubectl("api-resources", "--api-group=jobset.x-k8s.io", "-o", "wide") == (
        "NAME      SHORTNAMES   APIVERSION                 NAMESPACED   KIND     VERBS"
        "                                                        CATEGORIES\n"
        "jobsets                jobset.x-k8s.io/v1alpha2   true         JobSet   "
        "delete,deletecollection,get,list,patch,create,update,watch   \n")  # no categories: the row ends in padding
    version = kubectl("version")
    assert version.splitlines()[-1] == "Server Version: v1.32.4+fakekube"
    assert json.loads(kubectl("version", "-o", "json"))["serverVersion"] == {
        "major": "1", "minor": "32", "gitVersion": "v1.32.4+fakekube",
        "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
        "buildDate": "2030-01-01T00:00:00Z", "goVersion": "go1.23.8", "compiler": "gc", "platform": "linux/amd64"}


# ---------------------------------------------------------------------- logs, create, scale
def test_logs_come_from_the_log_annotation_once_the_container_started(kubectl: Kubectl, cluster: FakeCluster) -> None:
    manifest = POD.replace("  name: web\n", '  name: web\n  annotations:\n    fakekube.io/log: "ready\\nserving\\n"\n')
    kubectl("apply", "-f", "-", input=manifest)
    assert kubectl.fails("logs", "web", "-c", "app") == (
        "Error from server (BadRequest): pod web does not have a host assigned\n")
    cluster.run_until(lambda: bool(cluster.get("Pod", "web")["spec"].get("nodeName")), timeout=10)
    assert kubectl.fails("logs", "web", "-c", "app") == (
        'Error from server (BadRequest): container "app" in pod "web" is waiting to start: ContainerCreating\n')
    cluster.advance(10)
    assert kubectl("logs", "web", "-c", "app") == "ready\nserving\n"
    # no container named: kubectl picks the first and says so
    first = kubectl.run("logs", "web")
    assert (first.returncode, first.stdout, first.stderr) == (
        0, "ready\nserving\n", 'Defaulted container "app" out of: app, sidecar\n')
    assert kubectl.fails("logs", "web", "-c", "nope") == "error: container nope is not valid for pod web\n"


def test_imperative_create_sends_protobuf_and_the_workaround_works(kubectl: Kubectl, cluster: FakeCluster) -> None:
    assert kubectl.fails("create", "namespace", "team-a") == (
        "Error from server (UnsupportedMediaType): the body of the request was in an unknown format - accepted "
        "media types include: application/json, application/yaml (this fake API server does not decode protobuf: "
        "imperative `kubectl create <kind>` sends protobuf; use `kubectl create ... --dry-run=client -o yaml | "
        "kubectl apply -f -` instead)\n")
    assert not cluster.exists("Namespace", "team-a")
    manifest = kubectl("create", "namespace", "team-a", "--dry-run=client", "-o", "yaml")
    assert kubectl("apply", "-f", "-", input=manifest) == "namespace/team-a created\n"
    assert cluster.get("Namespace", "team-a")["status"] == {"phase": "Active"}
    manifest = kubectl("create", "configmap", "cfg", "-n", "team-a", "--from-literal=k=v", "--dry-run=client",
                       "-o", "yaml")
    assert kubectl("apply", "-f", "-", input=manifest) == "configmap/cfg created\n"
    assert cluster.get("ConfigMap", "cfg", "team-a")["data"] == {"k": "v"}
    # create -f sends JSON
    assert kubectl("create", "-f", "-", input=CONFIGMAP) == "configmap/settings created\n"
    assert kubectl.fails("create", "-f", "-", input=CONFIGMAP) == (
        'Error from server (AlreadyExists): error when creating "STDIN": configmaps "settings" already exists\n')


def test_jobs_have_no_scale_subresource(kubectl: Kubectl, demo: list[str]) -> None:
    assert kubectl.fails("scale", "job", "demo-workers-0", "--replicas=2") == (
        "Error from server (NotFound): the server could not find the requested resource\n")
    assert kubectl.fails("scale", "jobset", "demo", "--replicas=2") == (
        "Error from server (NotFound): the server could not find the requested resource\n")

