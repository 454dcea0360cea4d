"""What a conformance run hands on: a Markdown report (one table per area of the coverage matrix:
each behaviour passed, failed or not run, with the first mismatch of each failure) and JUnit XML
for CI systems."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from jobset_ref.conformance.matrix import AREAS, EXAMPLES_AREA, coverage
from jobset_ref.conformance.scenario import Scenario

__all__ = ["Outcome", "first_mismatch", "junit_xml", "markdown_report"]

FAILED = ("FAIL", "ERROR", "XPASS")


@dataclass(frozen=True, slots=True)
class Outcome:
    """One scenario's result: ``status`` is PASS, FAIL, ERROR, XFAIL, XPASS or SKIP."""

    scenario: Scenario
    status: str
    detail: str
    seconds: float = 0.0


def first_mismatch(detail: str) -> str:
    """The first ``- expected vs actual`` line of a failure report, else its headline."""
    lines = detail.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("mismatches"):
            for follow in lines[i + 1:]:
                if follow.strip().startswith("- "):
                    return follow.strip()[2:]
    return lines[0].strip() if lines else ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:300]


def markdown_report(outcomes: Sequence[Outcome], *, mode: str = "in process", subset: str = "") -> str:
    """The report; ``subset`` (e.g. ``-k 'failure/'``) says the run was a part of the suite: then only
    the behaviours it ran are listed, not the rest of the matrix as "not run"."""
    by_id = {o.scenario.id: o for o in outcomes}
    cov = coverage([o.scenario for o in outcomes])
    counts = {s: sum(1 for o in outcomes if o.status == s) for s in ("PASS", "FAIL", "ERROR", "SKIP")}
    lines = ["# JobSet conformance report", "",
             f"Controller: {mode}. Scenarios: {counts['PASS']} passed, {counts['FAIL'] + counts['ERROR']} failed, "
             f"{counts['SKIP']} skipped.", ""]
    if subset:
        lines += [f"Only what ran is listed ({subset}).", ""]
    failures = [o for o in outcomes if o.status in FAILED]
    if failures:
        lines += ["## Failed scenarios", "", "| scenario | first mismatch |", "|---|---|"]
        lines += [f"| `{o.scenario.id}` | {_cell(first_mismatch(o.detail))} |" for o in failures]
        lines.append("")
    areas = {**AREAS, EXAMPLES_AREA: ()}
    for area, rows in areas.items():
        ids = [row.id for row in rows] if rows else sorted(i for i in cov if i.startswith("example:"))
        ran = {row_id: [by_id[sc.id] for sc in cov.get(row_id, []) if sc.id in by_id and by_id[sc.id].status != "SKIP"]
               for row_id in ids}
        if subset:
            ids = [row_id for row_id in ids if ran[row_id]]
            if not ids:
                continue
        lines += [f"## {area}", "", "| behaviour | result | scenarios | first mismatch |", "|---|---|---|---|"]
        for row_id in ids:
            runs = ran[row_id]
            failed = [o for o in runs if o.status in FAILED]
            result = "not run" if not runs else "failed" if failed else "passed"
            names = ", ".join(f"`{o.scenario.id}`" for o in (failed or runs))
            lines.append(f"| `{row_id}` | {result} | {names} | "
                         f"{_cell(first_mismatch(failed[0].detail)) if failed else ''} |")
        lines.append("")
    return "\n".join(lines)


def junit_xml(outcomes: Sequence[Outcome], *, name: str = "jobset-conformance") -> str:
    suite = ET.Element("testsuite", name=name, tests=str(len(outcomes)),
                       failures=str(sum(1 for o in outcomes if o.status in ("FAIL", "XPASS"))),
                       errors=str(sum(1 for o in outcomes if o.status == "ERROR")),
                       skipped=str(sum(1 for o in outcomes if o.status in ("SKIP", "XFAIL"))),
                       time=f"{sum(o.seconds for o in outcomes):.3f}")
    for o in outcomes:
        case = ET.SubElement(suite, "testcase", classname=name, name=o.scenario.id, time=f"{o.seconds:.3f}",
                             file=str(o.scenario.path))
        if o.status in ("FAIL", "XPASS"):
            ET.SubElement(case, "failure", message=first_mismatch(o.detail)).text = o.detail
        elif o.status == "ERROR":
            ET.SubElement(case, "error", message=first_mismatch(o.detail)).text = o.detail
        elif o.status in ("SKIP", "XFAIL"):
            ET.SubElement(case, "skipped", message=o.detail)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
