"""``kubectl get``-style tables of JobSets, Jobs, Pods and Services (columns as kubectl 1.32 prints)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from fakekube import FakeCluster
from fakekube.clock import parse_time

__all__ = ["TABLE_KINDS", "human_duration", "print_server_table", "render_table", "render_tables", "table"]


def human_duration(seconds: float) -> str:
    """``k8s.io/apimachinery/pkg/util/duration.HumanDuration``."""
    s = int(seconds)
    if s < 0:
        return "<invalid>"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        return f"{minutes}m{s % 60}s" if s % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    return f"{hours // 24}d"


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["   ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["   ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def _age(cluster: FakeCluster, obj: dict[str, Any]) -> str:
    created = obj["metadata"].get("creationTimestamp")
    return human_duration((cluster.loop.now - parse_time(created)) / 1e9) if created else "<unknown>"


def _condition(obj: dict[str, Any], ctype: str) -> str:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return str(c.get("status", ""))
    return ""


def _jobsets(cluster: FakeCluster) -> str:
    rows = [[js["metadata"]["name"], str((js.get("status") or {}).get("terminalState", "")),
             str((js.get("status") or {}).get("restarts", 0)), _condition(js, "Completed"),
             _condition(js, "Suspended"), _age(cluster, js)] for js in cluster.list("jobsets.jobset.x-k8s.io")]
    return table(["NAME", "TERMINALSTATE", "RESTARTS", "COMPLETED", "SUSPENDED", "AGE"], rows)


def _job_status(job: dict[str, Any]) -> str:
    for ctype, label in (("Complete", "Complete"), ("Failed", "Failed"), ("Suspended", "Suspended"),
                         ("FailureTarget", "FailureTarget"), ("SuccessCriteriaMet", "SuccessCriteriaMet")):
        if _condition(job, ctype) == "True":
            return label
    return "Terminating" if job["metadata"].get("deletionTimestamp") else "Running"


def _labels(obj: dict[str, Any]) -> str:
    """``kubectl get --show-labels``: k=v,... sorted, or <none>."""
    labels = obj["metadata"].get("labels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "<none>"


def _jobs(cluster: FakeCluster, wide: bool = False) -> str:
    rows = []
    for job in cluster.list("jobs"):
        spec, status = job.get("spec") or {}, job.get("status") or {}
        completions = spec.get("completions")
        done = f"{status.get('succeeded', 0)}/{completions if completions is not None else 1}"
        start, end = status.get("startTime"), status.get("completionTime")
        duration = ""
        if start:
            stop = parse_time(end) if end else cluster.loop.now
            duration = human_duration((stop - parse_time(start)) / 1e9)
        row = [job["metadata"]["name"], _job_status(job), done, duration, _age(cluster, job)]
        if wide:
            containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
            selector = (spec.get("selector") or {}).get("matchLabels") or {}
            row += [",".join(c.get("name", "") for c in containers), ",".join(c.get("image", "") for c in containers),
                    ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>", _labels(job)]
        rows.append(row)
    headers = ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    return table(headers + (["CONTAINERS", "IMAGES", "SELECTOR", "LABELS"] if wide else []), rows)


def _pod_status(pod: dict[str, Any]) -> str:
    status = pod.get("status") or {}
    if pod["metadata"].get("deletionTimestamp"):
        return "Terminating"
    for c in status.get("containerStatuses") or []:
        state = c.get("state") or {}
        if "waiting" in state and state["waiting"].get("reason"):
            return str(state["waiting"]["reason"])
        if "terminated" in state and status.get("phase") not in ("Succeeded",):
            return str(state["terminated"].get("reason") or "Error")
    if status.get("phase") == "Succeeded":
        return "Completed"
    return str(status.get("reason") or status.get("phase") or "Pending")


def _pods(cluster: FakeCluster, limit: int, wide: bool = False) -> str:
    pods = cluster.list("pods")
    rows = []
    for pod in pods[:limit]:
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        total = len((pod.get("spec") or {}).get("containers") or [])
        ready = sum(1 for c in statuses if c.get("ready"))
        restarts = sum(int(c.get("restartCount", 0)) for c in statuses)
        spec = pod.get("spec") or {}
        row = [pod["metadata"]["name"], f"{ready}/{total}", _pod_status(pod), str(restarts), _age(cluster, pod),
               spec.get("nodeName", "<none>")]
        if wide:
            hostname = spec.get("hostname", "")
            fqdn = f"{hostname}.{spec['subdomain']}" if hostname and spec.get("subdomain") else hostname or "<none>"
            selector = ",".join(f"{k}={v}" for k, v in sorted((spec.get("nodeSelector") or {}).items())) or "<none>"
            row += [fqdn, selector, _labels(pod)]
        rows.append(row)
    headers = ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "NODE"]
    text = table(headers + (["HOSTNAME", "NODE-SELECTOR", "LABELS"] if wide else []), rows)
    if len(pods) > limit:
        text += f"\n... and {len(pods) - limit} more pods"
    return text


def _services(cluster: FakeCluster) -> str:
    rows = []
    for svc in cluster.list("services"):
        spec = svc.get("spec") or {}
        ports = ",".join(f"{p.get('port')}/{p.get('protocol', 'TCP')}" for p in spec.get("ports") or []) or "<none>"
        rows.append([svc["metadata"]["name"], spec.get("type", "ClusterIP"), spec.get("clusterIP", "<none>"),
                     "<none>", ports, _age(cluster, svc)])
    return table(["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"], rows)


def _go_float(value: float) -> str:
    """Go's ``%v`` of a float64: the shortest digits, an exponent below 1e-4 or from 1e21 on."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    digits = Decimal(repr(value))
    exponent = digits.adjusted()
    if -4 <= exponent < 21:
        text = format(digits, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa = format(digits.scaleb(-exponent), "f")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    return f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _cell_text(value: Any) -> str:
    """A ``Table`` cell as kubectl prints it (``fmt.Fprint``; a string up to its first line break, then ``...``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    text = str(value)
    cut = re.search(r"[\f\n\r]", text)
    return text[:cut.start()] + "..." if cut else text


def print_server_table(doc: dict[str, Any], *, wide: bool = False, namespaces: bool = False) -> str:
    """A server-side ``meta.k8s.io/v1`` ``Table`` (``FakeCluster.table``) as ``kubectl get`` prints it:
    the priority-0 columns (``wide``: all of them, and kubectl's ``--show-labels`` LABELS), headers
    upper-cased, a NAMESPACE column first with ``namespaces`` (``-A``)."""
    columns = doc.get("columnDefinitions") or []
    shown = [i for i, c in enumerate(columns) if wide or not c.get("priority")]
    headers = [str(columns[i].get("name", "")).upper() for i in shown]
    rows = []
    for row in doc.get("rows") or []:
        cells = row.get("cells") or []
        meta = (row.get("object") or {}).get("metadata") or {}
        out = [_cell_text(cells[i]) if i < len(cells) else "" for i in shown]
        if namespaces:
            out.insert(0, str(meta.get("namespace", "")))
        if wide:
            out.append(_labels({"metadata": meta}))
        rows.append(out)
    return table((["NAMESPACE"] if namespaces else []) + headers + (["LABELS"] if wide else []), rows)


TABLE_KINDS = ("jobsets", "jobs", "pods", "services")


def render_table(cluster: FakeCluster, kind: str, *, wide: bool = False, pod_limit: int = 40) -> str:
    """One of ``TABLE_KINDS`` under its ``$ kubectl get …`` header (``wide``: more columns and labels)."""
    if kind == "jobsets":
        return f"$ kubectl get jobsets\n{_jobsets(cluster)}"
    if kind == "jobs":
        return f"$ kubectl get jobs{' -o wide --show-labels' if wide else ''}\n{_jobs(cluster, wide)}"
    if kind == "pods":
        return f"$ kubectl get pods -o wide{' --show-labels' if wide else ''}\n{_pods(cluster, pod_limit, wide)}"
    if kind == "services":
        return f"$ kubectl get services\n{_services(cluster)}"
    raise ValueError(f"no table for {kind!r}; tables: {', '.join(TABLE_KINDS)}")


def render_tables(cluster: FakeCluster, *, pod_limit: int = 40) -> str:
    """The four tables, each under a ``$ kubectl get …`` header."""
    return "\n\n".join(render_table(cluster, kind, pod_limit=pod_limit) for kind in TABLE_KINDS)
