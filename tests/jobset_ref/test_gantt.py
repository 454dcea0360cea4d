"""The Gantt chart, structurally: rows per pod hostname grouped by Job, bars coloured by state,
markers for failures, in-place restarts and deletions, JobSet conditions as vertical lines, one
row per Job for large runs, and the same bytes for the same run."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

import jobset_ref
from fakekube import FakeCluster, UsageError
from jobset_ref.gantt import COLOURS, GanttRecorder, check_path, render_html, render_svg

SVG = "{http://www.w3.org/2000/svg}"


def _jobset(name: str, replicas: int, pods: int, restart_policy: str = "Never") -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": name},
            "spec": {"failurePolicy": {"maxRestarts": 2}, "replicatedJobs": [{
                "name": "slice", "replicas": replicas, "template": {"spec": {
                    "parallelism": pods, "completions": pods, "backoffLimit": 0, "template": {
                        "metadata": {"annotations": {"fakekube.io/run-seconds": "100"}},
                        "spec": {"restartPolicy": restart_policy,
                                 "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}


def _run(replicas: int = 2, pods: int = 2, *, fail: str | None = "js-slice-1-0", restart_policy: str = "Never",
         seed: int = 0) -> str:
    cluster = FakeCluster(seed=seed)
    jobset_ref.install(cluster)
    cluster.add_nodes(replicas * pods)
    recorder = GanttRecorder(cluster)
    cluster.apply(_jobset("js", replicas, pods, restart_policy))
    cluster.advance(30)
    if fail:
        pod = next(p for p in cluster.list("pods") if p["spec"].get("hostname") == fail)
        cluster.fail_pod(pod["metadata"]["name"], exit_code=3)
    cluster.run_until(lambda: bool((cluster.get("jobsets.jobset.x-k8s.io", "js").get("status") or {})
                                   .get("terminalState")), timeout=1000)
    cluster.run_until_idle()
    recorder.stop()
    return render_svg(recorder.chart("js"))


def _rows(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "podrow"]


def test_one_row_per_pod_hostname_grouped_by_job_with_a_restart_in_the_same_row() -> None:
    root = ET.fromstring(_run())
    rows = _rows(root)
    assert [r.get("data-row") for r in rows] == ["js-slice-0-0", "js-slice-0-1", "js-slice-1-0", "js-slice-1-1"]
    headers = [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == "grp"]
    assert [h.split("  ")[0] for h in headers] == ["Job js-slice-0", "Job js-slice-1"]
    assert all("restart attempts 0-1" in h for h in headers)
    # the failed pod's row holds both incarnations: a Ready bar before the failure and one after
    failed_row = rows[2]
    ready = [b for b in failed_row.iter(f"{SVG}rect") if b.get("data-state") == "Ready"]
    assert len(ready) == 2 and float(ready[0].get("x", 0)) < float(ready[1].get("x", 0))
    assert all(b.get("fill") == COLOURS["Ready"] for b in ready)


def test_markers_tell_failure_deletion_success_apart() -> None:
    root = ET.fromstring(_run())
    rows = {r.get("data-row"): r for r in _rows(root)}

    def markers(row: str) -> list[str]:
        return [str(e.get("class")) for e in rows[row].iter() if "marker" in str(e.get("class"))]

    assert markers("js-slice-1-0") == ["marker failed", "marker succeeded"]   # the pod that failed, then its successor
    assert markers("js-slice-0-0") == ["marker stopped", "marker succeeded"]  # deleted by the JobSet restart
    tip = next(e for e in rows["js-slice-1-0"].iter() if e.get("class") == "marker failed").find(f"{SVG}title")
    assert tip is not None and "Failed (exit 3) at 00:00:30.000 on node-" in str(tip.text)


def test_an_in_place_restart_is_a_marker_not_a_failure() -> None:
    root = ET.fromstring(_run(restart_policy="OnFailure"))
    row = next(r for r in _rows(root) if r.get("data-row") == "js-slice-1-0")
    classes = [str(e.get("class")) for e in row.iter() if "marker" in str(e.get("class"))]
    assert classes[0] == "marker restart"
    assert "marker failed" not in classes


def test_jobset_conditions_are_vertical_lines() -> None:
    root = ET.fromstring(_run())
    labels = [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == "vlabel"]
    assert labels[0].startswith("js: RestartingJobSet (0:3")
    assert labels[-1].startswith("js: Completed (")
    colours = {str(line.get("stroke")) for line in root.iter(f"{SVG}line") if line.get("class") == "vline"}
    assert COLOURS["Succeeded"] in colours


def test_large_runs_draw_one_row_per_job(monkeypatch: pytest.MonkeyPatch) -> None:
    import jobset_ref.gantt as gantt

    monkeypatch.setattr(gantt, "MAX_POD_ROWS", 3)
    root = ET.fromstring(_run(replicas=3, pods=2, fail=None))
    assert [r.get("data-row") for r in _rows(root)] == [f"js-slice-{i} · 2 nodes" for i in range(3)]
    assert "one row per Job (3 Jobs, 6 pods" in ET.tostring(root, encoding="unicode")


def test_same_run_same_bytes_and_a_different_seed_is_still_well_formed() -> None:
    first = _run()
    assert first == _run()
    ET.fromstring(_run(seed=5))
    assert re.search(r"width=\"-", first) is None  # no negative widths


def test_html_wraps_the_svg_and_paths_are_checked(tmp_path: Any) -> None:
    cluster = FakeCluster(seed=0)
    recorder = GanttRecorder(cluster)
    page = render_html(recorder.chart("<empty>"))
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "&lt;empty&gt;" in page
    with pytest.raises(UsageError, match=r"\.html or \.svg"):
        check_path("chart.png")
    recorder.write(str(tmp_path / "x.svg"))
    ET.parse(tmp_path / "x.svg")


def test_the_header_names_the_jobset_restart_and_the_first_failures() -> None:
    root = ET.fromstring(_run())
    causes = next(t.text for t in root.iter(f"{SVG}text") if t.get("class") == "causes")
    assert causes == ("JobSet js restart 1 at 0:32 (Job js-slice-1 failed: BackoffLimitExceeded); "
                      "first failures: js-slice-1-0 failed at 0:30")
    root = ET.fromstring(_run(restart_policy="OnFailure"))
    causes = next(t.text for t in root.iter(f"{SVG}text") if t.get("class") == "causes")
    assert causes == ("JobSet js restart 1 at 0:32 (Job js-slice-1 failed: BackoffLimitExceeded); "
                      "first failures: js-slice-1-0 restarted in place at 0:30")


def test_the_restart_window_is_a_band_across_the_rows() -> None:
    root = ET.fromstring(_run())
    bands = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "band restart"]
    assert len(bands) == 1
    title = bands[0].find(f"{SVG}title")
    assert title is not None and title.text == ("JobSet js restart 1 (Job js-slice-1 failed: BackoffLimitExceeded): "
                                                "00:00:32.000-00:00:34.010")
    row_ys = [float(r.get("y", 0)) for row in _rows(root) for r in row.iter(f"{SVG}rect") if r.get("class") == "row"]
    band_y, band_h = float(bands[0].get("y", 0)), float(bands[0].get("height", 0))
    assert band_y <= min(row_ys) and band_y + band_h >= max(row_ys) + 11  # across every row
    assert float(bands[0].get("width", 0)) >= 4


def test_the_svg_scales_to_its_window() -> None:
    """A fixed pixel width cut the completion markers off in narrower windows: the drawing has a
    viewBox and takes the width it is given (height follows the aspect ratio)."""
    root = ET.fromstring(_run())
    assert root.get("width") == "100%"
    assert root.get("height") is None
    _, _, width, height = (float(v) for v in str(root.get("viewBox")).split())
    assert root.get("preserveAspectRatio") == "xMinYMin meet" and "height:auto" in str(root.get("style"))
    # everything is drawn inside the viewBox: the markers at the end and the header
    xs = [float(e.get(k, 0)) for e in root.iter() for k in ("x", "cx") if e.get(k) is not None]
    assert 0 <= min(xs) and max(xs) <= width
    assert width <= 1400 and height > 0


def test_a_bar_tells_which_pod_attempt_and_node() -> None:
    root = ET.fromstring(_run())
    row = next(r for r in _rows(root) if r.get("data-row") == "js-slice-1-0")
    tips = [str(t.text) for b in row.iter(f"{SVG}rect") if b.get("data-state") == "Ready"
            for t in b.iter(f"{SVG}title")]
    assert re.fullmatch(r"js-slice-1-0-\w+, restart-attempt 0 on node-\d: Ready 0:01-0:30", tips[0]), tips
    assert ", restart-attempt 1 on node-" in tips[1]
