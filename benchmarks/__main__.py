"""Run the benchmarks and print a table: ``python -m benchmarks [--quick] [--only core|multislice|coldstart|kueue|http|floor]``."""

from __future__ import annotations

import argparse
import sys

from benchmarks import core


def run_core(quick: bool) -> list[str]:
    sizes = [500, 1000] if quick else [3200, 6400, 12800]  # 12,800: the multislice pod count
    lines = ["## API server", "", "| what | size | wall | per item |", "|---|---:|---:|---:|"]
    previous = None
    last_cluster = None
    for size in sizes:
        cluster, m = core.create_pods(size)
        ratio = f" (x{m.seconds / previous:.2f} for x{size // sizes[sizes.index(size) - 1]})" if previous else ""
        lines.append(f"| {m.name} | {size} | {m.seconds * 1000:.0f} ms{ratio} | {m.per_item_us:.0f} µs |")
        previous = m.seconds
        last_cluster = cluster
    assert last_cluster is not None
    for m in (*core.list_by_selector(last_cluster), core.list_set_based(last_cluster)):
        lines.append(f"| {m.name} | {m.size} | {m.seconds * 1000:.2f} ms | |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test of correctness, not speed")
    parser.add_argument("--only", choices=("core", "multislice", "coldstart", "kueue", "http", "floor"), default=None)
    parser.add_argument("--floor-slices", type=int, default=25, metavar="N",
                        help="the size --only floor measures (default 25)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run each multislice (and Kueue queue) size N times and keep the least CPU time")
    args = parser.parse_args(argv)
    out: list[str] = []
    if args.only in (None, "core"):
        out += run_core(args.quick)
    if args.only in (None, "coldstart", "multislice"):
        from benchmarks import multislice

        if args.only in (None, "coldstart"):
            out += ["", *multislice.run_cold_start()]
        if args.only in (None, "multislice"):
            out += ["", *multislice.run_scaling(args.quick, max(1, args.repeat))]
    if args.only in (None, "kueue"):
        from benchmarks import kueue_queue

        out += ["", *kueue_queue.run(args.quick, max(1, args.repeat))]
    if args.only == "floor":
        from benchmarks import floor

        out += floor.run(2 if args.quick else args.floor_slices)
    if args.only in (None, "http"):
        from benchmarks import http

        out += ["", *http.run(args.quick)]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
