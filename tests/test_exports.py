"""The public surface, tested the way httpx tests its own: every exported name exists and is
documented, ``__all__`` is sorted, complete and free of private names, and jobset_ref imports
from fakekube only what fakekube's public modules export."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The modules whose ``__all__`` is the API (the re-exporting packages and facades). Everything
#: public in their namespace must be exported.
PUBLIC_PACKAGES = ["fakekube", "fakekube.clock", "fakekube.errors", "fakekube.generated", "fakekube.remote", "fakekube.runtime",
                   "fakekube.testing", "fakekube.kueue", "jobset_ref", "jobset_ref.api"]
#: Library modules that are public as well (apimachinery's counterparts); they also import helpers.
PUBLIC_LIBRARIES = ["fakekube.machinery.patch", "fakekube.machinery.quantity", "fakekube.machinery.selectors",
                    "fakekube.machinery.field_selectors", "fakekube.machinery.validation", "fakekube.testing.builders", "fakekube.machinery.endpoints",
                    "fakekube.faults"]
PUBLIC_FAKEKUBE = {m for m in PUBLIC_PACKAGES + PUBLIC_LIBRARIES if m.startswith("fakekube")}


def _isort_key(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: SCREAMING_SNAKE_CASE, then CamelCase, then the rest."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def _exports(name: str) -> tuple[ModuleType, list[str]]:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list | tuple), f"{name} has no __all__"
    return module, list(exported)


def _own_doc(obj: Any) -> str:
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and (doc or "").startswith(f"{obj.__name__}("):
        return ""  # the signature dataclasses write when a class has no docstring
    return (doc or "").strip()


def _documented(obj: Any) -> bool:
    """A docstring of its own, or a mention in the docstring of the module that defines it
    (``fakekube.errors`` documents its subclasses as one tree)."""
    if _own_doc(obj):
        return True
    home = sys.modules[obj.__module__].__doc__ or ""
    return re.search(rf"\b{re.escape(obj.__name__)}\b", home) is not None


@pytest.mark.parametrize("name", PUBLIC_PACKAGES + PUBLIC_LIBRARIES)
def test_every_exported_name_exists_and_is_documented(name: str) -> None:
    module, exported = _exports(name)
    assert (module.__doc__ or "").strip(), f"{name} has no docstring"
    assert [n for n in exported if not hasattr(module, n)] == []
    api = [n for n in exported if inspect.isclass(getattr(module, n)) or inspect.isfunction(getattr(module, n))]
    assert [n for n in api if not _documented(getattr(module, n))] == []


@pytest.mark.parametrize("name", PUBLIC_PACKAGES + PUBLIC_LIBRARIES)
def test_all_is_sorted_and_exports_nothing_private(name: str) -> None:
    module, exported = _exports(name)
    assert exported == sorted(set(exported), key=_isort_key)
    assert [n for n in exported if n.startswith("_")] == []
    named = [getattr(module, n) for n in exported]
    assert [o.__name__ for o in named if (inspect.isclass(o) or inspect.isfunction(o))
            and o.__name__.startswith("_")] == []


def _ours(value: Any) -> bool:
    """Defined by this project (a constant counts): not ``Any`` or ``dataclass`` imported to write it."""
    home = getattr(value, "__module__", None)
    return not isinstance(home, str) or home.split(".")[0] in ("fakekube", "jobset_ref")


@pytest.mark.parametrize("name", PUBLIC_PACKAGES)
def test_all_is_complete(name: str) -> None:
    module, exported = _exports(name)
    for n in exported:
        getattr(module, n)  # lazy packages bind a name on first access
    public = {n for n, value in vars(module).items()
              if not n.startswith("_") and not isinstance(value, ModuleType) and _ours(value)}
    assert sorted(public - set(exported)) == []


def test_the_simulators_shared_client_is_exported_nowhere() -> None:
    for name in PUBLIC_PACKAGES:
        _, exported = _exports(name)
        assert "SharedClient" not in exported, name


def _fakekube_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "fakekube":
            found.append((node.lineno, node.module or "", [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names if a.name.split(".")[0] == "fakekube"]
    return found


def test_jobset_ref_imports_from_fakekube_only_what_its_public_modules_export() -> None:
    offenders = []
    for path in sorted((ROOT / "jobset_ref").rglob("*.py")):
        for line, module_name, names in _fakekube_imports(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            if module_name not in PUBLIC_FAKEKUBE:
                offenders.append(f"{where}: {module_name} is not a public module")
                continue
            _, exported = _exports(module_name)
            offenders += [f"{where}: {module_name}.{n} is not exported" for n in names if n not in exported]
    assert offenders == []
