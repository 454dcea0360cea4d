"""Lazy re-exports for ``jobset_ref``'s package ``__init__`` modules (PEP 562).

Each package lists its exported names once, grouped by the module that defines them; a name is
imported from there on first access. So ``import jobset_ref`` (the pytest plugin) and
``from jobset_ref.api import constants`` do not import pydantic or build the models.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports", "sort_key"]


def sort_key(name: str) -> tuple[int, str]:
    """The order of ``__all__`` (ruff's isort-style RUF022): CONSTANTS, then Classes, then the rest."""
    if name.isupper():
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def lazy_exports(package: str, homes: Mapping[str, Iterable[str]], *, eager: Iterable[str] = ()
                 ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for ``package``, which exports the names of
    ``homes`` (defining module -> names) lazily and the ``eager`` names it imports itself."""
    where: dict[str, str] = {}
    for module, names in homes.items():
        for name in names:
            if name in where:
                raise ValueError(f"{package} exports {name!r} from both {where[name]} and {module}")
            where[name] = module
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        home = where.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return sorted({*where, *eager}, key=sort_key), __getattr__, __dir__
