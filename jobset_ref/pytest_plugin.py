"""The pytest plugin (registered through the ``pytest11`` entry point).

Fixtures
    ``fake_cluster``     a fully simulated ``FakeCluster`` (GC, Job controller, scheduler, kubelet, DNS)
    ``jobset_cluster``   the same with the reference JobSet controller installed and 4 nodes
Marker
    ``@pytest.mark.fakekube(nodes=4, seed=7, feature_gates={...}, simulate=True)``
Options
    ``--fakekube-seed=N``                       one seed for every test (default: derived from the test id)
    ``--fakekube-trace=off|tail|full``          what a failing test's report shows (default: tail)

A failing test that used a cluster gets a report section with its seed (and how to re-run with
it), the trace tail and a table of JobSets, Jobs and Pods. Nothing heavy is imported until a
fixture is used, so projects that never touch the fixtures pay nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fakekube import FakeCluster

__all__ = ["seed_for"]

_CLUSTERS = pytest.StashKey[list[Any]]()
DEFAULT_NODES = 4
TRACE_TAIL = 40


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fakekube", "fakekube / jobset-ref simulated clusters")
    group.addoption("--fakekube-seed", type=int, default=None,
                    help="seed for every fakekube cluster (default: derived from each test's id)")
    group.addoption("--fakekube-trace", choices=("off", "tail", "full"), default="tail",
                    help="how much of the cluster trace a failing test reports (default: tail)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fakekube(nodes=None, seed=None, feature_gates=None, simulate=True): configure the fake_cluster and "
        "jobset_cluster fixtures for this test")


def seed_for(nodeid: str) -> int:
    """A stable seed from a test id: reordering or adding tests never changes another test's seed."""
    return int.from_bytes(hashlib.blake2b(nodeid.encode(), digest_size=4).digest(), "big")


def _options(request: pytest.FixtureRequest) -> dict[str, Any]:
    marker = request.node.get_closest_marker("fakekube")
    options: dict[str, Any] = dict(marker.kwargs) if marker else {}
    unknown = sorted(set(options) - {"nodes", "seed", "feature_gates", "simulate"})
    if unknown or (marker and marker.args):
        from fakekube import UsageError

        raise UsageError(f"@pytest.mark.fakekube takes only the keywords nodes=, seed=, feature_gates=, "
                         f"simulate=; got {', '.join(unknown) or 'positional arguments'}")
    cli_seed = request.config.getoption("--fakekube-seed")
    if options.get("seed") is None:
        options["seed"] = cli_seed if cli_seed is not None else seed_for(request.node.nodeid)
    return options


def _make_cluster(request: pytest.FixtureRequest, *, with_jobset: bool) -> FakeCluster:
    from fakekube import FakeCluster

    options = _options(request)
    cluster = FakeCluster(seed=options["seed"], simulate=options.get("simulate", True))
    if with_jobset:
        import jobset_ref

        jobset_ref.install(cluster, feature_gates=options.get("feature_gates"))
    nodes = options.get("nodes", DEFAULT_NODES if with_jobset else None)
    if isinstance(nodes, int) and nodes > 0:
        cluster.add_nodes(nodes)
        cluster.run_until_idle()
    request.node.stash.setdefault(_CLUSTERS, []).append(cluster)
    return cluster


@pytest.fixture
def fake_cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    """A fully simulated fake cluster, seeded from the test id (or ``--fakekube-seed``)."""
    yield _make_cluster(request, with_jobset=False)


@pytest.fixture
def jobset_cluster(request: pytest.FixtureRequest) -> Iterator[FakeCluster]:
    """A simulated cluster with the reference JobSet controller and webhooks installed, and 4 nodes."""
    yield _make_cluster(request, with_jobset=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    clusters = item.stash.get(_CLUSTERS, [])
    if report.failed and clusters and call.when in ("call", "setup"):
        mode = item.config.getoption("--fakekube-trace")
        for i, cluster in enumerate(clusters):
            report.sections.append((f"fakekube cluster{f' {i}' if len(clusters) > 1 else ''}",
                                    _describe(cluster, item.nodeid, mode)))
    return report


def _describe(cluster: FakeCluster, nodeid: str, mode: str) -> str:
    from jobset_ref.testing.assertions import summary_table

    lines = [f"seed: {cluster.seed}  (re-run: pytest '{nodeid}' --fakekube-seed={cluster.seed})",
             f"virtual time: {cluster.elapsed:g}s"]
    try:
        lines += ["", summary_table(cluster)]
    except Exception as err:  # the report must never hide the original failure
        lines.append(f"(could not list objects: {err})")
    if mode != "off":
        trace = cluster.trace.lines if mode == "full" else cluster.trace.tail(TRACE_TAIL)
        lines += ["", f"trace ({'full' if mode == 'full' else f'last {len(trace)} lines'}):", *trace]
    return "\n".join(lines)
