"""A mistake is written as an edit of one function of the reference: ``old`` text → ``new`` text.

An :class:`Edit` names a function by module and qualified name (``jobset_ref.controller.apply``,
``Applier.delete_jobs``). Applying it reads that function's source, replaces ``old`` (which must
occur exactly once) with ``new``, compiles the result as the module would (same globals, same
``from __future__`` flags, same line numbers) and swaps the new code object into the existing
function object. Every reference to the function sees the mistake at once (a name imported
elsewhere, a bound method, a callback registered at start-up), and restoring the old code
object undoes it exactly. Nothing is monkeypatched by name, and the reference itself carries
no switch for its mistakes.

An edit that no longer applies (the function was renamed, the text rewritten) raises
:class:`EditError` saying so, so the catalogue cannot rot silently.
"""

from __future__ import annotations
import __future__

import ast
import importlib
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FunctionType
from typing import Any

__all__ = ["Edit", "EditError"]


class EditError(Exception):
    """An edit that does not apply to the current reference (which mistake, which function, why)."""


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``old`` by ``new`` in function ``function`` (a qualified name) of ``module``.

    ``old`` is matched against the function's source as it stands in the file, indentation
    included, and must occur exactly once there.
    """

    module: str
    function: str
    old: str
    new: str

    @property
    def target(self) -> str:
        return f"{self.module}.{self.function}"

    def resolve(self) -> FunctionType:
        """The function object this edit changes."""
        try:
            obj: Any = importlib.import_module(self.module)
        except ImportError as err:
            raise EditError(f"{self.target}: cannot import {self.module}: {err}") from None
        for part in self.function.split("."):
            owner, obj = obj, getattr(obj, part, None)
            if obj is None:
                raise EditError(f"{self.target}: {part!r} not found in {owner!r}")
            if isinstance(obj, (staticmethod, classmethod)):
                obj = obj.__func__
        if isinstance(obj, property):
            obj = obj.fget
        if not isinstance(obj, FunctionType):
            raise EditError(f"{self.target} is a {type(obj).__name__}, not a function")
        return obj

    def compile(self, label: str) -> tuple[FunctionType, CodeType]:
        """``(function, mistaken code)``; ``label`` names the mistake in tracebacks."""
        func = self.resolve()
        try:
            lines, first = inspect.getsourcelines(func)
        except (OSError, TypeError) as err:
            raise EditError(f"{self.target}: no source to edit ({err})") from None
        source = "".join(lines)
        count = source.count(self.old)
        if count != 1:
            where = "not found" if count == 0 else f"found {count} times"
            raise EditError(f"{self.target}: the text to replace is {where}: {self.old!r}")
        tree = ast.parse(textwrap.dedent(source.replace(self.old, self.new)))
        node = tree.body[0] if tree.body else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(tree.body) != 1:
            raise EditError(f"{self.target}: the edited source is not one function definition")
        node.decorator_list = []  # the original's decorators already wrap the function object
        ast.increment_lineno(tree, first - 1)
        flags = 0
        module = inspect.getmodule(func)
        if getattr(module, "annotations", None) is __future__.annotations:
            flags |= __future__.annotations.compiler_flag
        code = compile(tree, f"<mistake {label}: {self.target}>", "exec", flags=flags, dont_inherit=True)
        namespace: dict[str, Any] = {}
        exec(code, func.__globals__, namespace)
        edited = namespace[node.name]
        if edited.__code__.co_freevars != func.__code__.co_freevars:
            raise EditError(f"{self.target}: the edit changes the function's closure "
                            f"({func.__code__.co_freevars} → {edited.__code__.co_freevars})")
        return func, edited.__code__


def swap(func: FunctionType, code: CodeType) -> Callable[[], None]:
    """Give ``func`` the ``code``; returns the undo."""
    original = func.__code__
    func.__code__ = code

    def undo() -> None:
        func.__code__ = original

    return undo
