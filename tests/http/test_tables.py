"""Server-side printing: the cells kube-apiserver's printers compute, for each served kind."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import BadRequest, FakeCluster, UsageError
from fakekube._core.clock import SECOND, parse_time
from fakekube.apiserver.resources import ResourceType
from fakekube.http import printing, tables
from fakekube.http.jsonpath import compile_path
from fakekube.testing import make_job

T0 = "2030-01-01T00:00:00Z"
NOW = parse_time("2030-01-01T00:05:00Z")


def at(seconds: int) -> str:
    """The timestamp ``seconds`` after T0."""
    return f"2030-01-01T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z"


def meta(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "namespace": "default", "creationTimestamp": T0, "resourceVersion": "7", **extra}


def rt(cluster: FakeCluster, name: str) -> ResourceType:
    return cluster.api.registry.resolve(name)


def cells(cluster: FakeCluster, kind: str, obj: dict[str, Any], **kw: Any) -> list[Any]:
    doc = tables.table(rt(cluster, kind), [obj], now=NOW, **kw)
    row: list[Any] = doc["rows"][0]["cells"]
    return row


def columns(cluster: FakeCluster, kind: str, **kw: Any) -> list[tuple[str, str, int]]:
    doc = tables.table(rt(cluster, kind), [], now=NOW, **kw)
    return [(c["name"], c["type"], c["priority"]) for c in doc["columnDefinitions"]]


# --------------------------------------------------------------------------- HumanDuration

@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0s"), (-1, "0s"), (-2, "<invalid>"), (1.5, "1s"), (119, "119s"), (120, "2m"), (125, "2m5s"),
    (599, "9m59s"), (600, "10m"), (179 * 60 + 59, "179m"), (3 * 3600, "3h"), (3 * 3600 + 300, "3h5m"),
    (8 * 3600 + 59, "8h"), (47 * 3600, "47h"), (48 * 3600, "2d"), (50 * 3600, "2d2h"), (8 * 86400, "8d"),
    (729 * 86400, "729d"), (730 * 86400, "2y"), (731 * 86400, "2y1d"), (8 * 365 * 86400, "8y"),
])
def test_human_duration(seconds: float, text: str) -> None:
    assert printing.human_duration(round(seconds * SECOND)) == text


# --------------------------------------------------------------------------- pods

def pod(*, phase: str = "Running", statuses: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta("p1"),
        "spec": {"containers": [{"name": "main", "image": "busybox"}], "nodeName": "node-1"},
        "status": {"phase": phase, "podIPs": [{"ip": "10.244.0.5"}],
                   "conditions": [{"type": "Ready", "status": "True"}],
                   "containerStatuses": statuses if statuses is not None else [
                       {"name": "main", "ready": True, "restartCount": 0, "state": {"running": {"startedAt": T0}}}]},
    }
    for key, value in extra.items():
        body[key].update(value) if isinstance(value, dict) else body.__setitem__(key, value)
    return body


def test_pod_columns(cluster: FakeCluster) -> None:
    assert columns(cluster, "pods") == [
        ("Name", "string", 0), ("Ready", "string", 0), ("Status", "string", 0), ("Restarts", "string", 0),
        ("Age", "string", 0), ("IP", "string", 1), ("Node", "string", 1), ("Nominated Node", "string", 1),
        ("Readiness Gates", "string", 1)]
    doc = tables.table(rt(cluster, "pods"), [], now=NOW)
    name = doc["columnDefinitions"][0]
    assert name["format"] == "name" and name["description"].startswith("Name must be unique within a namespace")
    assert doc["columnDefinitions"][5]["description"].startswith("podIP address allocated to the pod")


def test_running_pod(cluster: FakeCluster) -> None:
    assert cells(cluster, "pods", pod()) == ["p1", "1/1", "Running", "0", "5m", "10.244.0.5", "node-1", "<none>",
                                             "<none>"]


def test_completed_pod_has_a_row_condition(cluster: FakeCluster) -> None:
    done = pod(phase="Succeeded", statuses=[{"name": "main", "ready": False, "restartCount": 0, "state": {
        "terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": at(60)}}}])
    row = tables.table(rt(cluster, "pods"), [done], now=NOW)["rows"][0]
    assert row["cells"][1:4] == ["0/1", "Completed", "0"]
    assert row["conditions"] == [{"type": "Completed", "status": "True", "reason": "Succeeded",
                                  "message": "The pod has completed successfully."}]


@pytest.mark.parametrize(("state", "status"), [
    ({"terminated": {"exitCode": 1, "reason": "Error"}}, "Error"),
    ({"terminated": {"exitCode": 137}}, "ExitCode:137"),
    ({"terminated": {"exitCode": 0, "signal": 9}}, "Signal:9"),
    ({"waiting": {"reason": "ContainerCreating"}}, "ContainerCreating"),
    ({"waiting": {"reason": "ImagePullBackOff", "message": "back-off"}}, "ImagePullBackOff"),
])
def test_container_state_decides_the_status(cluster: FakeCluster, state: dict[str, Any], status: str) -> None:
    p = pod(statuses=[{"name": "main", "ready": False, "restartCount": 0, "state": state}])
    assert cells(cluster, "pods", p)[1:3] == ["0/1", status]


def test_crash_looping_pod_shows_restarts_and_when(cluster: FakeCluster) -> None:
    p = pod(statuses=[{"name": "main", "ready": False, "restartCount": 3,
                       "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                       "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": at(180)}}}])
    assert cells(cluster, "pods", p)[1:4] == ["0/1", "CrashLoopBackOff", "3 (2m ago)"]


def test_terminating_pod(cluster: FakeCluster) -> None:
    p = pod(metadata={"deletionTimestamp": at(290)})
    assert cells(cluster, "pods", p)[2] == "Terminating"
    lost = pod(metadata={"deletionTimestamp": at(290)}, status={"reason": "NodeLost"})
    assert cells(cluster, "pods", lost)[2] == "Unknown"
    finished = pod(phase="Succeeded", metadata={"deletionTimestamp": at(290)}, statuses=[])
    assert cells(cluster, "pods", finished)[2] == "Succeeded"


def test_pending_unscheduled_and_gated_pods(cluster: FakeCluster) -> None:
    pending = pod(phase="Pending", statuses=[], spec={"nodeName": None}, status={"podIPs": [], "conditions": []})
    assert cells(cluster, "pods", pending) == ["p1", "0/1", "Pending", "0", "5m", "<none>", "<none>", "<none>",
                                               "<none>"]
    gated = pod(phase="Pending", statuses=[], status={"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]})
    assert cells(cluster, "pods", gated)[2] == "SchedulingGated"


@pytest.mark.parametrize(("init_state", "status"), [
    ({"waiting": {"reason": "PodInitializing"}}, "Init:0/1"),
    ({"running": {}}, "Init:0/1"),
    ({"waiting": {"reason": "ErrImagePull"}}, "Init:ErrImagePull"),
    ({"terminated": {"exitCode": 1}}, "Init:ExitCode:1"),
    ({"terminated": {"exitCode": 2, "reason": "Error"}}, "Init:Error"),
])
def test_initializing_pod(cluster: FakeCluster, init_state: dict[str, Any], status: str) -> None:
    p = pod(phase="Pending", spec={"initContainers": [{"name": "init", "image": "busybox"}]},
            status={"initContainerStatuses": [{"name": "init", "ready": False, "restartCount": 0,
                                               "state": init_state}],
                    "conditions": [{"type": "Initialized", "status": "False"}]},
            statuses=[{"name": "main", "ready": False, "restartCount": 0,
                       "state": {"waiting": {"reason": "PodInitializing"}}}])
    assert cells(cluster, "pods", p)[1:3] == ["0/1", status]


def test_sidecars_count_as_containers(cluster: FakeCluster) -> None:
    p = pod(spec={"initContainers": [{"name": "proxy", "image": "envoy", "restartPolicy": "Always"}]},
            status={"initContainerStatuses": [{"name": "proxy", "ready": True, "started": True, "restartCount": 1,
                                               "state": {"running": {}}}],
                    "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}]})
    assert cells(cluster, "pods", p)[1:4] == ["2/2", "Running", "1"]


def test_completed_container_next_to_a_running_one(cluster: FakeCluster) -> None:
    statuses = [{"name": "main", "ready": True, "restartCount": 0, "state": {"running": {}}},
                {"name": "job", "ready": False, "restartCount": 0,
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]
    p = pod(statuses=statuses, spec={"containers": [{"name": "main"}, {"name": "job"}]})
    assert cells(cluster, "pods", p)[1:3] == ["1/2", "Running"]
    p["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    assert cells(cluster, "pods", p)[1:3] == ["1/2", "NotReady"]


def test_readiness_gates(cluster: FakeCluster) -> None:
    p = pod(spec={"readinessGates": [{"conditionType": "a"}, {"conditionType": "b"}]},
            status={"conditions": [{"type": "a", "status": "True"}, {"type": "b", "status": "False"}]})
    assert cells(cluster, "pods", p)[-1] == "1/2"


# --------------------------------------------------------------------------- jobs

def job(**status: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("j1"),
            "spec": {"completions": 2, "parallelism": 2,
                     "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "abc"}},
                     "template": {"spec": {"containers": [{"name": "a", "image": "img:1"},
                                                          {"name": "b", "image": "img:2"}]}}},
            "status": status}


def test_job_columns(cluster: FakeCluster) -> None:
    assert columns(cluster, "jobs") == [
        ("Name", "string", 0), ("Status", "string", 0), ("Completions", "string", 0), ("Duration", "string", 0),
        ("Age", "string", 0), ("Containers", "string", 1), ("Images", "string", 1), ("Selector", "string", 1)]


def test_completed_job(cluster: FakeCluster) -> None:
    done = job(succeeded=2, startTime=at(10), completionTime=at(72),
               conditions=[{"type": "SuccessCriteriaMet", "status": "True"}, {"type": "Complete", "status": "True"}])
    assert cells(cluster, "jobs", done) == ["j1", "Complete", "2/2", "62s", "5m", "a,b", "img:1,img:2",
                                            "batch.kubernetes.io/controller-uid=abc"]


def test_running_and_other_job_states(cluster: FakeCluster) -> None:
    running = job(startTime=at(0), active=2)
    assert cells(cluster, "jobs", running)[1:4] == ["Running", "0/2", "5m"]
    no_completions = job(startTime=at(0))
    del no_completions["spec"]["completions"]
    no_completions["spec"]["parallelism"] = 3
    assert cells(cluster, "jobs", no_completions)[2] == "0/1 of 3"
    no_completions["spec"]["parallelism"] = 1
    assert cells(cluster, "jobs", no_completions)[2] == "0/1"
    assert cells(cluster, "jobs", job())[1:4] == ["Running", "0/2", ""]
    suspended = job(conditions=[{"type": "Suspended", "status": "True"}])
    assert cells(cluster, "jobs", suspended)[1] == "Suspended"
    failing = job(conditions=[{"type": "FailureTarget", "status": "True"}])
    assert cells(cluster, "jobs", failing)[1] == "FailureTarget"
    failed = job(conditions=[{"type": "FailureTarget", "status": "True"}, {"type": "Failed", "status": "True"}])
    assert cells(cluster, "jobs", failed)[1] == "Failed"
    deleting = job(conditions=[{"type": "Suspended", "status": "True"}])
    deleting["metadata"]["deletionTimestamp"] = at(200)
    assert cells(cluster, "jobs", deleting)[1] == "Terminating"
    deleting["status"]["conditions"].append({"type": "Complete", "status": "True"})
    assert cells(cluster, "jobs", deleting)[1] == "Complete"


# --------------------------------------------------------------------------- services, nodes, namespaces

def service(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta("web"), "spec": spec,
            "status": status or {"loadBalancer": {}}}


def test_services(cluster: FakeCluster) -> None:
    cluster_ip = service({"type": "ClusterIP", "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"],
                          "ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}],
                          "selector": {"app": "web", "tier": "fe"}})
    assert cells(cluster, "services", cluster_ip) == ["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "5m",
                                                      "app=web,tier=fe"]
    node_port = service({"type": "NodePort", "clusterIPs": ["10.96.0.11"], "externalIPs": ["1.2.3.4"],
                         "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"},
                                   {"port": 53, "protocol": "UDP"}]})
    assert cells(cluster, "services", node_port)[2:5] == ["10.96.0.11", "1.2.3.4", "80:30080/TCP,53/UDP"]
    pending = service({"type": "LoadBalancer", "clusterIPs": ["10.96.0.12"], "ports": []})
    assert cells(cluster, "services", pending)[3:5] == ["<pending>", "<none>"]
    lb = service({"type": "LoadBalancer", "clusterIPs": ["10.96.0.12"]},
                 {"loadBalancer": {"ingress": [{"ip": "5.6.7.8"}, {"hostname": "lb.example.com"}]}})
    assert cells(cluster, "services", lb)[3] == "5.6.7.8,lb.example.com"
    external = service({"type": "ExternalName", "externalName": "db.example.com"})
    assert cells(cluster, "services", external)[2:4] == ["<none>", "db.example.com"]
    assert cells(cluster, "services", cluster_ip | {"spec": {"type": "ClusterIP"}})[-1] == "<none>"


def test_nodes(cluster: FakeCluster) -> None:
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "creationTimestamp": T0,
                         "labels": {"node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "gpu"}},
            "spec": {"unschedulable": True},
            "status": {"conditions": [{"type": "Ready", "status": "True"}],
                       "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
                       "nodeInfo": {"kubeletVersion": "v1.32.4", "osImage": "Fake OS"}}}
    assert columns(cluster, "nodes")[:5] == [("Name", "string", 0), ("Status", "string", 0),
                                             ("Roles", "string", 0), ("Age", "string", 0), ("Version", "string", 0)]
    assert cells(cluster, "nodes", node) == ["n1", "Ready,SchedulingDisabled", "control-plane,gpu", "5m", "v1.32.4",
                                             "10.0.0.1", "<none>", "Fake OS", "<unknown>", "<unknown>"]
    node["status"]["conditions"] = [{"type": "Ready", "status": "Unknown"}]
    node["spec"] = {}
    node["metadata"]["labels"] = {}
    assert cells(cluster, "nodes", node)[1:3] == ["NotReady", "<none>"]
    node["status"]["conditions"] = []
    assert cells(cluster, "nodes", node)[1] == "Unknown"


def test_namespaces_configmaps_and_service_accounts(cluster: FakeCluster) -> None:
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": meta("team"), "status": {"phase": "Active"}}
    assert columns(cluster, "namespaces") == [("Name", "string", 0), ("Status", "string", 0), ("Age", "string", 0)]
    assert cells(cluster, "namespaces", ns) == ["team", "Active", "5m"]
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("cfg"), "data": {"a": "1", "b": "2"},
          "binaryData": {"c": "AA=="}}
    assert cells(cluster, "configmaps", cm) == ["cfg", 3, "5m"]
    assert columns(cluster, "configmaps")[1] == ("Data", "string", 0)
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta("default")}
    assert cells(cluster, "serviceaccounts", sa) == ["default", 0, "5m"]


def test_events(cluster: FakeCluster) -> None:
    event = {"apiVersion": "v1", "kind": "Event", "metadata": meta("p1.17a"),
             "involvedObject": {"kind": "Pod", "name": "p1", "namespace": "default", "fieldPath": "spec.containers{main}"},
             "reason": "Pulled", "message": "Successfully pulled image \"busybox\"\n", "type": "Normal",
             "source": {"component": "kubelet", "host": "node-1"},
             "firstTimestamp": at(60), "lastTimestamp": at(240), "count": 3}
    assert [c[0] for c in columns(cluster, "events")] == [
        "Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"]
    assert cells(cluster, "events", event) == [
        "60s", "Normal", "Pulled", "pod/p1", "spec.containers{main}", "kubelet, node-1",
        'Successfully pulled image "busybox"', "4m", 3, "p1.17a"]
    new_style = {"apiVersion": "v1", "kind": "Event", "metadata": meta("e2"), "involvedObject": {"kind": "Node"},
                 "reason": "Ready", "message": "m", "type": "Normal", "eventTime": "2030-01-01T00:04:00.000000Z",
                 "reportingComponent": "scheduler", "firstTimestamp": None, "lastTimestamp": None}
    assert cells(cluster, "events", new_style)[:9] == ["60s", "Normal", "Ready", "node", "", "scheduler", "m",
                                                       "60s", 1]


def test_endpoint_slices(cluster: FakeCluster) -> None:
    eps = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": meta("web-abc"),
           "addressType": "IPv4",
           "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
           "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2", "10.0.0.3"]},
                         {"addresses": ["10.0.0.4"]}]}
    assert cells(cluster, "endpointslices", eps) == ["web-abc", "IPv4", "80,443",
                                                     "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...", "5m"]
    empty = {**eps, "ports": [{"name": "named"}, {}], "endpoints": []}
    assert cells(cluster, "endpointslices", empty)[2:4] == ["named,*", "<unset>"]


def test_persistent_volume_claims(cluster: FakeCluster) -> None:
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta("data"),
           "spec": {"storageClassName": "standard", "volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}
    assert cells(cluster, "pvc", pvc) == ["data", "Pending", "", "", "", "standard", "<unset>", "5m", "Filesystem"]
    pvc["spec"]["volumeName"] = "pv-1"
    pvc["status"] = {"phase": "Bound", "accessModes": ["ReadWriteMany", "ReadWriteOnce"], "capacity": {"storage": "1Gi"}}
    assert cells(cluster, "pvc", pvc)[1:5] == ["Bound", "pv-1", "1Gi", "RWO,RWX"]


def test_kinds_without_a_printer_get_the_default_convertor(cluster: FakeCluster,
                                                           jobset_crd: dict[str, Any]) -> None:
    crd = {**jobset_crd, "metadata": {**jobset_crd["metadata"], "creationTimestamp": at(3)}}
    assert columns(cluster, "crd") == [("Name", "string", 0), ("Created At", "date", 0)]
    assert cells(cluster, "crd", crd) == ["jobsets.jobset.x-k8s.io", "2030-01-01T00:00:03Z"]


# --------------------------------------------------------------------------- custom resources

def jobset(status: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta("js"),
                            "spec": {"suspend": False, "replicatedJobs": []}}
    if status is not None:
        body["status"] = status
    return body


def test_jobset_printer_columns(jobset_cluster: FakeCluster, jobset_crd: dict[str, Any]) -> None:
    jobsets = rt(jobset_cluster, "jobsets")
    doc = tables.table(jobsets, [], now=NOW, crd=jobset_crd)
    assert [(c["name"], c["type"], c["priority"], c["description"]) for c in doc["columnDefinitions"]][1:] == [
        ("TerminalState", "string", 0, "Final state of JobSet"),
        ("Restarts", "string", 0, "Number of restarts"),
        ("Completed", "string", 0, 'Custom resource definition column (in JSONPath format): '
                                   '.status.conditions[?(@.type=="Completed")].status'),
        ("Suspended", "string", 0, "JobSet suspended"),
        ("Age", "date", 0, "Time this JobSet was created")]
    done = jobset({"restarts": 0, "terminalState": "Completed",
                   "conditions": [{"type": "StartupPolicyCompleted", "status": "True"},
                                  {"type": "Completed", "status": "True"}]})
    assert tables.table(jobsets, [done], now=NOW, crd=jobset_crd)["rows"][0]["cells"] == [
        "js", "Completed", "0", "True", "false", "5m"]
    assert tables.table(jobsets, [jobset()], now=NOW, crd=jobset_crd)["rows"][0]["cells"] == [
        "js", None, None, None, "false", "5m"]


def test_custom_resource_printer_needs_its_crd(jobset_cluster: FakeCluster) -> None:
    with pytest.raises(UsageError, match="needs its CustomResourceDefinition"):
        tables.table(rt(jobset_cluster, "jobsets"), [], now=NOW)


def test_custom_resource_cell_types(jobset_cluster: FakeCluster, jobset_crd: dict[str, Any]) -> None:
    crd = {**jobset_crd, "metadata": {**jobset_crd["metadata"], "uid": "u-types"}}
    crd["spec"] = {**crd["spec"], "versions": [{**crd["spec"]["versions"][0], "additionalPrinterColumns": [
        {"name": "N", "type": "integer", "jsonPath": ".spec.n"},
        {"name": "F", "type": "number", "jsonPath": ".spec.n"},
        {"name": "B", "type": "boolean", "jsonPath": ".spec.suspend"},
        {"name": "S", "type": "string", "jsonPath": ".spec.obj"},
        {"name": "X", "type": "string", "jsonPath": ".spec.x"},
        {"name": "D", "type": "date", "jsonPath": ".spec.when", "priority": 1},
        {"name": "First", "type": "string", "jsonPath": ".spec.list[*].name"},
    ]}]}
    obj = jobset()
    obj["spec"].update({"n": 3.9, "obj": {"b": [1, "<"], "a": True}, "x": 1.5e-7, "when": at(240),
                        "list": [{"name": "a"}, {"name": "b"}]})
    doc = tables.table(rt(jobset_cluster, "jobsets"), [obj], now=NOW, crd=crd)
    assert doc["rows"][0]["cells"] == ["js", 3, 3.9, False, '{"a":true,"b":[1,"\\u003c"]}', "1.5e-07", "60s", "a"]
    assert doc["columnDefinitions"][6]["priority"] == 1


def test_custom_resource_without_printer_columns_shows_age(jobset_cluster: FakeCluster,
                                                           jobset_crd: dict[str, Any]) -> None:
    crd = {**jobset_crd, "metadata": {**jobset_crd["metadata"], "uid": "u-age"}}
    crd["spec"] = {**crd["spec"], "versions": [
        {k: v for k, v in crd["spec"]["versions"][0].items() if k != "additionalPrinterColumns"}]}
    doc = tables.table(rt(jobset_cluster, "jobsets"), [jobset()], now=NOW, crd=crd)
    assert [c["name"] for c in doc["columnDefinitions"]] == ["Name", "Age"]
    assert doc["rows"][0]["cells"] == ["js", "5m"]


@pytest.mark.parametrize(("path", "expected"), [
    (".status.conditions[?(@.type==\"Completed\")].status", "True"),
    ("{.status.conditions[?(@.type=='Failed')].reason}", "BackoffLimit"),
    (".status.conditions[?(@.type!=\"Completed\")].type", "Failed"),
    (".status.conditions[?(@.count>2)].type", "Completed"),
    (".status.conditions[?(@.reason)].type", "Failed"),
    (".status.conditions[-1].type", "Completed"),
    (".status.conditions[0]['type']", "Failed"),
    (".status.conditions[*].status", "False"),
    ("..reason", "BackoffLimit"),
    (".status.missing.deeper", None),
    (".status.conditions[5].type", None),
    (".spec.replicas.x", None),
])
def test_jsonpath(path: str, expected: Any) -> None:
    obj = {"spec": {"replicas": 3}, "status": {"conditions": [
        {"type": "Failed", "status": "False", "reason": "BackoffLimit", "count": 1},
        {"type": "Completed", "status": "True", "count": 3}]}}
    assert compile_path(path).first(obj) == expected


@pytest.mark.parametrize("path", [".a[1:2]", ".a[?(@.x ~ 1)]", "a.b", ".a[?(@.x == bogus)]", ".a['x"])
def test_jsonpath_rejects_what_it_cannot_evaluate(path: str) -> None:
    with pytest.raises(UsageError, match="unrecognized column definition"):
        compile_path(path)


# --------------------------------------------------------------------------- the Table document

def test_table_rows_carry_partial_object_metadata_by_default(cluster: FakeCluster) -> None:
    doc = tables.table(rt(cluster, "pods"), [pod()], now=NOW)
    assert doc["kind"] == "Table" and doc["apiVersion"] == "meta.k8s.io/v1"
    assert doc["metadata"] == {"resourceVersion": "7"}
    assert doc["rows"][0]["object"] == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                        "metadata": pod()["metadata"]}
    assert "conditions" not in doc["rows"][0]


def test_table_options(cluster: FakeCluster) -> None:
    pods = rt(cluster, "pods")
    full = tables.table(pods, [pod()], now=NOW, include_object="Object")
    assert full["rows"][0]["object"] == pod()
    assert "object" not in tables.table(pods, [pod()], now=NOW, include_object="None")["rows"][0]
    first_event = tables.object_table(pods, pod(), now=NOW)
    assert first_event == tables.table(pods, [pod()], now=NOW) and first_event["metadata"] == {"resourceVersion": "7"}
    watch_event = tables.object_table(pods, pod(), now=NOW, headers=False, api_version="meta.k8s.io/v1beta1")
    assert watch_event["columnDefinitions"] is None and watch_event["apiVersion"] == "meta.k8s.io/v1beta1"
    assert watch_event["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1beta1"
    assert watch_event["rows"][0]["cells"] == first_event["rows"][0]["cells"]
    listed = tables.table(pods, [pod(), pod()], now=NOW, list_metadata={"resourceVersion": "42", "continue": "x"})
    assert listed["metadata"] == {"resourceVersion": "42", "continue": "x"} and len(listed["rows"]) == 2
    with pytest.raises(BadRequest) as err:
        tables.table(pods, [], now=NOW, include_object="Everything")
    assert err.value.status["message"] == ('includeObject: Unsupported value: "Everything": supported values: '
                                           '"Metadata", "None", "Object"')


@pytest.mark.parametrize(("accept", "expected"), [
    ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
     "application/json", "meta.k8s.io/v1"),
    ("application/json;as=Table;v=v1beta1;g=meta.k8s.io", "meta.k8s.io/v1beta1"),
    ("application/json", None),
    ("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json", None),
    (None, None),
])
def test_table_version_from_accept(accept: str | None, expected: str | None) -> None:
    assert tables.table_version(accept) == expected


def test_tables_of_a_simulated_job() -> None:
    """Objects as the simulated kubelet and Job controller write them print as kubectl shows them."""
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(1)
    body = make_job("pi", completions=2, parallelism=2)
    body["spec"]["template"]["metadata"] = {"annotations": {"fakekube.io/run-seconds": "60"}}
    cluster.create(body)
    cluster.run_until(lambda: bool(cluster.get("Job", "pi").get("status", {}).get("completionTime")), timeout=600)
    cluster.advance(30)
    now = cluster.loop.now
    job_cells = cells_of(cluster, "jobs", cluster.get("Job", "pi"), now)
    assert job_cells[1:3] == ["Complete", "2/2"]
    assert job_cells[3] == printing.human_duration(
        parse_time(cluster.get("Job", "pi")["status"]["completionTime"])
        - parse_time(cluster.get("Job", "pi")["status"]["startTime"]))
    for p in cluster.list("pods"):
        assert cells_of(cluster, "pods", p, now)[1:4] == ["0/1", "Completed", "0"]


def cells_of(cluster: FakeCluster, kind: str, obj: dict[str, Any], now: int) -> list[Any]:
    row: list[Any] = tables.table(rt(cluster, kind), [obj], now=now)["rows"][0]["cells"]
    return row
