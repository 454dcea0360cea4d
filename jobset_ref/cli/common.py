"""What every ``jobset-ref`` command shares: exit codes, the usage error, small parsers and
manifest loading (files or ``-`` for stdin)."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "EXIT_EXPECTATION",
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_USAGE",
    "EXIT_WHAT_IF",
    "CliError",
    "load_manifests",
    "parse_duration",
    "parse_fault",
    "parse_gates",
    "parse_labels",
    "read_text",
]

#: Everything happened as asked.
EXIT_OK = 0
#: The API server refused something: a manifest or a what-if action was rejected, or a kind is not served.
EXIT_REJECTED = 1
#: Bad input: a flag, a file, malformed YAML (one line on stderr).
EXIT_USAGE = 2
#: A what-if never happened: its target matched nothing, it came after the run ended or it would change
#: nothing (the timeline says why); also a ``--follow`` target that never existed, or no JobSet at all.
EXIT_WHAT_IF = 3
#: ``--expect`` did not hold: a JobSet ended otherwise (or not at all).
EXIT_EXPECTATION = 4

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")


class CliError(Exception):
    """A problem with the user's input: printed as one line, exit code 2 (or ``code``)."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``10m``, ``1h30m`` → seconds."""
    match = _DURATION.match(text.strip())
    if not text.strip() or match is None or not any(match.groups()):
        raise CliError(f"invalid duration {text!r}: use seconds (90), or units like 30s, 10m, 1h30m")
    h, m, s = (float(g) if g else 0.0 for g in match.groups())
    return h * 3600 + m * 60 + s


def parse_gates(text: str | None) -> dict[str, bool]:
    gates: dict[str, bool] = {}
    for item in filter(None, (text or "").split(",")):
        name, sep, value = item.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise CliError(f"invalid feature gate {item!r}: use Name=true or Name=false")
        gates[name.strip()] = value.lower() == "true"
    return gates


def parse_labels(text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in filter(None, (text or "").split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CliError(f"invalid node label {item!r}: use key=value")
        pairs.append((key.strip(), value.strip()))
    return pairs


def parse_fault(text: str) -> tuple[str, float, int]:
    """``TARGET@TIME[:EXIT]`` where TARGET is a pod (name or hostname) or ``node/<name>``."""
    target, sep, rest = text.partition("@")
    if not sep or not target:
        raise CliError(f"invalid --fail {text!r}: use POD@TIME[:EXIT_CODE] or node/NAME@TIME")
    when, _, code = rest.partition(":")
    try:
        exit_code = int(code) if code else 1
    except ValueError:
        raise CliError(f"invalid exit code in --fail {text!r}: {code!r} is not an integer") from None
    return target, parse_duration(when), exit_code


_stdin: tuple[Any, str] | None = None


def read_text(path: str) -> str:
    """A file's text, or stdin's for ``-``. stdin is read once: every later ``-`` (a command that
    looks at its input before loading it, or ``-`` given twice) gets the same text."""
    global _stdin
    if path == "-":
        if _stdin is None or _stdin[0] is not sys.stdin:  # a new stdin (in-process callers swap it)
            _stdin = (sys.stdin, sys.stdin.read())
        return _stdin[1]
    file = Path(path)
    if not file.is_file():
        raise CliError(f"{path}: no such file")
    try:
        return file.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise CliError(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None


def parse_documents(path: str, text: str) -> list[Any]:
    import yaml

    try:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise CliError(f"{path}:{where} malformed YAML: {getattr(err, 'problem', None) or err}") from None


def load_manifests(paths: Sequence[str]) -> list[dict[str, Any]]:
    """Every document of the given files (``-``: stdin); each needs apiVersion and kind."""
    return [doc for _, doc in load_sources(paths)]


def load_sources(paths: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """``(path, document)`` for every document of the given files, in order (``-``: stdin)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for path in paths:
        for doc in parse_documents(path, read_text(path)):
            if not isinstance(doc, dict) or not doc.get("kind") or not doc.get("apiVersion"):
                raise CliError(f"{path}: every document needs apiVersion and kind")
            out.append((path, doc))
    if not out:
        raise CliError("no objects found in the given manifests")
    return out


def unmapped(cluster: Any, sources: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """kubectl's error for each document whose kind the cluster does not serve (asked of the
    cluster's resource registry, after the CustomResourceDefinitions among ``sources``)."""
    from fakekube import ApiError, UsageError

    served_later = {(f"{d['spec']['group']}/{v.get('name')}", d["spec"].get("names", {}).get("kind"))
                    for _, d in sources if d.get("kind") == "CustomResourceDefinition"
                    and isinstance(d.get("spec"), dict) and isinstance(d["spec"].get("versions"), list)
                    for v in d["spec"]["versions"] if isinstance(v, dict)}
    errors = []
    for path, doc in sources:
        if (doc["apiVersion"], doc["kind"]) in served_later:
            continue
        try:
            cluster.api.registry.for_object(doc)
        except (ApiError, UsageError):
            meta: dict[str, Any] = doc["metadata"] if isinstance(doc.get("metadata"), dict) else {}
            errors.append(f'error: resource mapping not found for name: "{meta.get("name", "")}" namespace: '
                          f'"{meta.get("namespace", "")}" from "{"STDIN" if path == "-" else path}": no matches for kind "{doc["kind"]}" in '
                          f'version "{doc["apiVersion"]}"\nensure CRDs are installed first')
    return errors


_GATE_DISABLED = re.compile(r"\b([A-Z][A-Za-z0-9]+) feature gate is disabled")


def gate_hints(message: str) -> list[str]:
    """How to enable each feature gate a rejection names as disabled."""
    return [f"hint: enable the {name} feature gate with --feature-gates {name}=true"
            for name in dict.fromkeys(_GATE_DISABLED.findall(message))]


def rejection(path: str, doc: dict[str, Any], err: Any) -> str:
    """A rejected create as kubectl prints it, naming the file (plus how to enable a disabled feature gate).

    kubectl names the Status's reason in brackets, and leaves them out when it has none (a webhook's
    ``Errored`` denial)."""
    source = "STDIN" if path == "-" else path
    reason = f" ({err.reason})" if err.reason else ""
    line = f'Error from server{reason}: error when creating "{source}": {err.message}'
    return "\n".join([line, *gate_hints(str(err.message))])


FIELD_VALIDATION = {"strict": "Strict", "true": "Strict", "warn": "Warn", "ignore": "Ignore", "false": "Ignore"}


def add_validate_option(parser: Any) -> None:
    parser.add_argument("--validate", default="strict", choices=sorted(FIELD_VALIDATION), metavar="MODE",
                        help="field validation, as kubectl's --validate: strict (default; an unknown or "
                             "misspelled field rejects the object), warn (print a warning and drop it), "
                             "ignore/false (drop it silently)")


def apply_sources(cluster: Any, sources: Sequence[tuple[str, dict[str, Any]]], validate: str) -> int:
    """Apply each ``(path, document)`` as ``kubectl apply --validate=<validate>`` does, printing its
    warnings and rejections on stderr as kubectl prints them; returns how many were rejected."""
    import warnings

    from fakekube import ApiError

    rejected = 0
    for path, doc in sources:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                cluster.apply(doc, field_validation=FIELD_VALIDATION[validate])
        except ApiError as err:
            rejected += 1
            print(rejection(path, doc, err), file=sys.stderr)
            continue
        for line in warning_lines(caught):
            print(line, file=sys.stderr)
    return rejected


def warning_lines(caught: Sequence[Any]) -> list[str]:
    """``Warning: ...`` lines for the API warnings a write returned, as kubectl prints them."""
    from fakekube import ApiWarning

    return [f"Warning: {w.message}" for w in caught if issubclass(w.category, ApiWarning)]
