"""The simulated cluster's nodes: sized from the manifests, given as a count, or read from a file."""

from __future__ import annotations

from typing import Any, Final

from jobset_ref.cli.common import CliError, parse_documents, read_text

__all__ = ["EXCLUSIVE_TOPOLOGY", "MAX_PLANNED_PODS", "NodePlan", "default_nodes", "load_nodes_file", "plan_nodes"]

EXCLUSIVE_TOPOLOGY = "alpha.jobset.sigs.k8s.io/exclusive-topology"

#: A plan sizes the cluster for no more pods than the simulation holds (fakekube's simulated Job
#: controller stops past ``MAX_SIMULATED_PODS``, 100,000): a manifest asking for more (replicas
#: 2000000000 is a valid int32) ends at that budget, or at admission, whatever the nodes.
MAX_PLANNED_PODS: Final = 100_000


class NodePlan:
    """What the manifests ask of nodes: labels for nodeSelectors, extended resources, and the
    exclusive-placement topology (key, number of domains wanted, pods per domain)."""

    def __init__(self, docs: list[dict[str, Any]]) -> None:
        self.labels: dict[str, str] = {}
        self.extended: dict[str, int] = {}
        self.total_pods = 0
        self.pools = 0
        self.pool_key: str | None = None
        self.pool_size = 1
        for doc in docs:
            if doc.get("kind") != "JobSet":
                continue
            annotations = (doc.get("metadata") or {}).get("annotations") or {}
            key = annotations.get(EXCLUSIVE_TOPOLOGY)
            for jobs, pods, pod_spec in _pods_per_template(doc):
                self.total_pods += jobs * pods
                for k, v in (pod_spec.get("nodeSelector") or {}).items():
                    self.labels.setdefault(k, v)
                for c in pod_spec.get("containers") or []:
                    for name, value in ((c.get("resources") or {}).get("limits") or {}).items():
                        if "/" in name:
                            try:
                                amount = int(str(value))
                            except ValueError:
                                continue
                            self.extended[name] = max(self.extended.get(name, 0), amount)
                if key:
                    self.pools += jobs
                    self.pool_key = key
                    self.pool_size = max(self.pool_size, pods)

    @property
    def capacity(self) -> dict[str, str]:
        return {name: str(value) for name, value in self.extended.items()}

    def pooled(self, count: int, size: int) -> list[dict[str, Any]]:
        """``count`` nodes in topology domains of ``size`` nodes each (the last may be smaller)."""
        assert self.pool_key is not None
        return [{"name": f"pool-{i // size}-node-{i % size}",
                 "labels": {**self.labels, self.pool_key: f"pool-{i // size}"}, "capacity": self.capacity}
                for i in range(count)]


def _pods_per_template(doc: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    """(jobs, pods per job, pod spec) for each replicatedJob of a JobSet manifest."""
    out = []
    for rjob in (doc.get("spec") or {}).get("replicatedJobs") or []:
        job_spec = ((rjob.get("template") or {}).get("spec") or {})
        try:
            pods = int(job_spec.get("parallelism") or job_spec.get("completions") or 1)
            replicas = int(rjob.get("replicas", 1))
        except (TypeError, ValueError):
            continue
        out.append((replicas, pods, ((job_spec.get("template") or {}).get("spec") or {})))
    return out


def default_nodes(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A cluster sized for the manifests: one node pool per Job when exclusive placement asks for a
    topology, node labels that satisfy the pods' nodeSelectors, and capacity for extended resources."""
    plan = NodePlan(docs)
    if plan.pool_key:
        return plan.pooled(min(plan.pools * plan.pool_size, MAX_PLANNED_PODS), plan.pool_size)
    per_node = 1 if plan.extended else 8
    count = max(1, -(-min(plan.total_pods, MAX_PLANNED_PODS) // per_node))
    return [{"name": f"node-{i}", "labels": dict(plan.labels), "capacity": plan.capacity} for i in range(count)]


def plan_nodes(docs: list[dict[str, Any]], count: int) -> tuple[list[dict[str, Any]], str | None]:
    """``--nodes N``: N nodes labelled for the manifests. With exclusive placement they form
    distinct topology domains of one Job's pod count each; the note explains what N allows
    (fewer domains than Jobs means Jobs wait for a free domain)."""
    if not 1 <= count <= MAX_PLANNED_PODS:
        raise CliError(f"--nodes {count} must be between 1 and {MAX_PLANNED_PODS} (one node per pod the simulation "
                       "holds)")
    plan = NodePlan(docs)
    if not plan.pool_key:
        return [{"name": f"node-{i}", "labels": dict(plan.labels), "capacity": plan.capacity}
                for i in range(count)], None
    domains = -(-count // plan.pool_size)
    note = (f"--nodes {count}: {domains} topology domain(s) {plan.pool_key}=pool-0..{domains - 1} of up to "
            f"{plan.pool_size} node(s) each, for {plan.pools} Job(s) placed exclusively")
    if domains < plan.pools:
        note += f"; only {domains} Job(s) can run at a time, the others stay Pending until a domain frees up"
    if count % plan.pool_size:
        note += f"; pool-{domains - 1} has {count % plan.pool_size} node(s), too few for one Job's " \
                f"{plan.pool_size} pods"
    return plan.pooled(count, plan.pool_size), note


def load_nodes_file(path: str) -> list[dict[str, Any]]:
    docs = parse_documents(path, read_text(path))
    data = docs[0] if len(docs) == 1 else docs
    nodes = data.get("nodes") if isinstance(data, dict) else data
    if not isinstance(nodes, list) or not all(isinstance(n, dict) and n.get("name") for n in nodes):
        raise CliError(f"{path}: expected a list of nodes, each with a name (and optional labels, capacity, taints)")
    return nodes
