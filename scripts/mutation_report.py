"""The mutation run's report: scores by module, the survivors with their triage, what is untriaged.

Run from the repository root after ``mutmut run`` (docs/conformance.md, "Mutation testing"):

    python scripts/mutation_report.py            # print the report (markdown) and the untriaged survivors
    python scripts/mutation_report.py --write    # also rewrite the generated part of docs/mutation-survivors.md

Verdicts live in ``docs/mutation-triage.yaml``: per function, which surviving mutants (by mutmut's
number) are *equivalent*, *unobservable* through the API, or a *missing* scenario, with the reason.
mutmut numbers a function's mutants in the order it generates them, so a verdict carries over to a
later run only while the function's source is the one it was given for (``triaged_at``, a commit):
a survivor in a function changed since is reported as untriaged, to be looked at again.

Mutants on lines no scenario executes are not generated (``mutate_only_covered_lines``); the report
counts them by generating every mutant of each file without that filter, and scores them as not
killed. Exit status: 0, or 1 when a survivor has no verdict (the report lists them with their diffs).

This reads mutmut's own results (``mutants/``) through its Python modules, so it follows the
``mutation`` extra's pin (mutmut 3.8).
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import yaml

TRIAGE = Path("docs/mutation-triage.yaml")
SURVIVORS_DOC = Path("docs/mutation-survivors.md")
START, END = "<!-- mutation-report:start -->", "<!-- mutation-report:end -->"
VERDICTS = ("equivalent", "unobservable", "missing")


@dataclass(frozen=True)
class Mutant:
    name: str  # mutmut's: jobset_ref.api.models.xǁReplicatedJobǁcontainers__mutmut_1
    module: str  # jobset_ref.api.models
    function: str  # ReplicatedJob.containers
    number: int
    status: str  # killed, survived, timeout, not checked, ...


def parse_name(name: str, status: str) -> Mutant:
    head, _, number = name.rpartition("__mutmut_")
    module, _, mangled = head.rpartition(".x")
    function = mangled.strip("ǁ").replace("ǁ", ".") if mangled.startswith("ǁ") else mangled.removeprefix("_")
    return Mutant(name, module, function, int(number), status)


def function_sources(source: str) -> dict[str, str]:
    """Each top-level function's and method's source, by the name the report uses."""
    found: dict[str, str] = {}
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = ast.get_source_segment(source, node) or ""
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}.{item.name}"] = ast.get_source_segment(source, item) or ""
    return found


def module_path(module: str) -> Path:
    return Path(*module.split(".")).with_suffix(".py")


def load_results() -> tuple[list[Mutant], dict[str, Counter[str]]]:
    """Every mutant mutmut generated, with its status; and, per module, how many mutants each function
    would have without the covered-lines filter."""
    from mutmut.__main__ import SourceFileMutationData, status_by_exit_code, walk_mutatable_files
    from mutmut.mutation.file_mutation import mutate_file_contents

    mutants: list[Mutant] = []
    every: dict[str, Counter[str]] = {}
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        for name, code in data.exit_code_by_key.items():
            mutants.append(parse_name(name, status_by_exit_code[code]))
        module = ".".join(Path(path).with_suffix("").parts)
        generated = mutate_file_contents(str(path), Path(path).read_text())
        every[module] = Counter(parse_name(f"{module}.{n}", "").function for n in generated.mutant_names)
    return mutants, every


def diff_of(mutant: Mutant) -> str:
    from mutmut.__main__ import find_mutant
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    return str(get_diff_for_mutant(mutant.name, path=find_mutant(mutant.name).path))


def changed_functions(triaged_at: str, modules: set[str]) -> set[tuple[str, str]]:
    """(module, function) whose source differs from the triaged commit's."""
    changed: set[tuple[str, str]] = set()
    for module in modules:
        path = module_path(module)
        old = subprocess.run(["git", "show", f"{triaged_at}:{path.as_posix()}"], capture_output=True, text=True)
        before = function_sources(old.stdout) if old.returncode == 0 else {}
        now = function_sources(path.read_text())
        changed |= {(module, f) for f, src in now.items() if before.get(f) != src}
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite the generated part of {SURVIVORS_DOC}")
    args = parser.parse_args()
    if not Path("mutants").is_dir():
        print("error: no mutants/ here: run `mutmut run` from the repository root first", file=sys.stderr)
        return 2
    triage = yaml.safe_load(TRIAGE.read_text())
    verdicts: dict[tuple[str, str, int], dict[str, str]] = {}
    for entry in triage["entries"]:
        for n in entry["mutants"]:
            verdicts[(entry["module"], entry["function"], n)] = entry
    mutants, every = load_results()
    changed = changed_functions(triage["triaged_at"], {m.module for m in mutants})

    rows: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: dict[tuple[str, str], list[tuple[Mutant, dict[str, str] | None]]] = defaultdict(list)
    generated: dict[str, Counter[str]] = defaultdict(Counter)
    for m in mutants:
        generated[m.module][m.function] += 1
        row = rows[m.module]
        row["mutants"] += 1
        if m.status == "survived":
            entry = None if (m.module, m.function) in changed else verdicts.get((m.module, m.function, m.number))
            row[entry["verdict"] if entry else "untriaged"] += 1
            survivors[(m.module, m.function)].append((m, entry))
        else:
            row[m.status] += 1
    uncovered: Counter[tuple[str, str]] = Counter()
    for module, counts in every.items():
        for function, n in counts.items():
            missing = n - generated[module][function]
            if missing > 0:
                uncovered[(module, function)] = missing
                rows[module]["uncovered"] += missing

    out: list[str] = []
    columns = ("mutants", "killed", "timeout", "equivalent", "unobservable", "missing", "untriaged",
               "no tests", "not checked", "uncovered")
    out += ["| module | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    total: Counter[str] = Counter()
    for module in sorted(rows):
        total.update(rows[module])
        out.append(f"| `{module.removeprefix('jobset_ref.')}` | " + " | ".join(str(rows[module][c]) for c in columns)
                   + " |")
    out.append("| **all** | " + " | ".join(f"**{total[c]}**" for c in columns) + " |")
    non_equivalent = total["mutants"] + total["uncovered"] - total["equivalent"]
    killed = total["killed"] + total["timeout"]
    out += ["", f"Killed (timeouts included): {killed}; non-equivalent mutants (uncovered lines included): "
            f"{non_equivalent}; score **{killed / max(non_equivalent, 1):.1%}**"
            f" (the {total['not checked']} not checked yet and the {total['no tests']} no scenario reaches count as "
            "not killed).", ""]
    out += ["### Lines no scenario runs, by function", "", "| function | mutants |", "|---|---:|"]
    out += [f"| `{m.removeprefix('jobset_ref.')}.{f}` | {n} |" for (m, f), n in uncovered.most_common()]
    out += ["", "### Survivors by module and function", ""]
    untriaged: list[Mutant] = []
    for module, function in sorted(survivors):
        out.append(f"**`{module.removeprefix('jobset_ref.')}` {function}**")
        out.append("")
        by_entry: dict[int, tuple[dict[str, str] | None, list[int]]] = {}
        for m, entry in survivors[(module, function)]:
            by_entry.setdefault(id(entry), (entry, []))[1].append(m.number)
            if entry is None:
                untriaged.append(m)
        for entry, numbers in by_entry.values():
            listed = ", ".join(f"#{n}" for n in sorted(numbers))
            out.append(f"- {entry['verdict']}: {listed}. {entry['reason']}" if entry else f"- untriaged: {listed}")
        out.append("")
    report = "\n".join(out)
    print(report)
    if args.write:
        doc = SURVIVORS_DOC.read_text()
        before, _, rest = doc.partition(START)
        _, _, after = rest.partition(END)
        SURVIVORS_DOC.write_text(f"{before}{START}\n{report}\n{END}{after}")
    if untriaged:
        print(f"\n{len(untriaged)} survivors have no verdict in {TRIAGE}:", file=sys.stderr)
        for m in untriaged:
            print(f"# {m.name}\n{diff_of(m)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
