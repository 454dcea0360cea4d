"""Table rows on a watch (``kubectl get -w``) are rendered at the virtual instant of their event.

kube-apiserver renders a row as it sends the event, which is as it happens. Served, the stream
thread may run long after the test moved virtual time on (or between two of its ``advance``
calls), so the age in a row would depend on thread timing; each event keeps its instant instead.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from fakekube import FakeCluster

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "sleeper"},
       "spec": {"template": {"metadata": {"annotations": {"fakekube.io/run-seconds": "120"}},
                             "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}


def test_watch_rows_age_at_the_instant_of_their_event() -> None:
    cluster = FakeCluster(seed=1)
    cluster.add_nodes(1)
    with cluster.serve() as server:
        conn = server.connect(timeout=10)
        conn.request("GET", f"/api/v1/namespaces/default/pods?watch=true&resourceVersion={cluster.api.store.rv}",
                     headers={"Accept": TABLE})
        resp = conn.getresponse()
        server.wait_for(lambda: cluster.api._watches.get("pods"))
        rows: list[tuple[str, str]] = []

        def read() -> None:
            while line := resp.readline():
                row = json.loads(line)["object"]["rows"][0]["cells"]
                rows.append((row[2], row[4]))  # STATUS, AGE
                if row[2] == "Completed":
                    return

        reader = threading.Thread(target=read)
        reader.start()
        cluster.create(JOB)
        for _ in range(10):  # ten steps: the reader may run between any two of them
            cluster.advance(30)
        reader.join(10)
        conn.close()
    pod: dict[str, Any] = cluster.list("Pod", "default")[0]
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"] == "2030-01-01T00:02:01Z"
    assert rows == [("Pending", "0s"), ("Pending", "0s"), ("ContainerCreating", "0s"), ("Running", "1s"),
                    ("Completed", "2m1s")]
