"""``jobset-ref validate``: admission only (defaulting, validation, webhooks), as
``kubectl apply --dry-run=server`` prints it; ``-o yaml|json`` prints the objects after defaulting."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

from jobset_ref.cli.common import (
    EXIT_REJECTED,
    FIELD_VALIDATION,
    add_validate_option,
    load_sources,
    parse_gates,
    rejection,
    unmapped,
    warning_lines,
)

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    val = sub.add_parser("validate", help="run admission only and print the result like kubectl apply --dry-run=server",
                         description="Run defaulting, validation and the JobSet webhooks on each object without "
                                     "storing it. Exit 0: every object admitted; 1: one was rejected or its kind "
                                     "is not served; 2: bad input.")
    val.add_argument("manifests", nargs="+", metavar="MANIFEST", help="YAML files (- for stdin)")
    val.add_argument("--feature-gates", default=None, metavar="NAME=BOOL,...", help="JobSet feature gates, e.g. RestartJob=true,"
                                                           "InPlaceRestart=true")
    add_validate_option(val)
    val.add_argument("-o", "--output", choices=("name", "yaml", "json"), default="name",
                     help="name (default): one line per object as kubectl apply prints it; yaml/json: the "
                          "objects as the server would store them (after defaulting)")


def run(args: argparse.Namespace) -> int:
    import jobset_ref
    from fakekube import ApiError, FakeCluster

    sources = load_sources(args.manifests)
    cluster = FakeCluster(seed=0, simulate=False)
    jobset_ref.install(cluster, feature_gates=parse_gates(args.feature_gates))
    failed = unmapped(cluster, sources)
    for line in failed:
        print(line, file=sys.stderr)
    bad_docs = len(failed)
    admitted: list[dict[str, Any]] = []
    for path, doc in sources:
        try:
            cluster.api.registry.for_object(doc)
        except ApiError:
            continue  # reported above
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                obj = cluster.client.create(doc, namespace=(doc.get("metadata") or {}).get("namespace"),
                                            dry_run=True, field_validation=FIELD_VALIDATION[args.validate])
        except ApiError as err:
            bad_docs += 1
            print(rejection(path, doc, err))
            continue
        for line in warning_lines(caught):
            print(line, file=sys.stderr)
        if doc.get("kind") == "CustomResourceDefinition":  # later documents may be of its kind
            cluster.apply(doc)
        admitted.append(obj)
        if args.output == "name":
            kind = doc["kind"].lower()
            group = doc["apiVersion"].split("/")[0] if "/" in doc["apiVersion"] else ""
            name = obj["metadata"].get("name", "")
            print(f"{kind}.{group}/{name} created (server dry run)" if group else f"{kind}/{name} created (server dry run)")
    if args.output == "json":
        print(json.dumps(admitted[0] if len(admitted) == 1 else {"apiVersion": "v1", "kind": "List",
                                                                  "items": admitted}, indent=4))
    elif args.output == "yaml":
        import yaml

        print(yaml.safe_dump_all(admitted, sort_keys=True, default_flow_style=False), end="")
    return EXIT_REJECTED if bad_docs else 0
