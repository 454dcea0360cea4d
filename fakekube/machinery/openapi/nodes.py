"""The structural-schema tree every algorithm walks: one :class:`Node` per schema node.

:mod:`.schema` builds it from ``openAPIV3Schema``; ``MISSING`` marks an absent value (no
``default``, no correlated old value); ``META_FIELDS`` are the type and object meta fields a
resource root (or an embedded resource) carries outside its schema. A node's
``x-kubernetes-validations`` are :class:`Rule` values; the CEL pass (:mod:`.cel`) compiles each
on first use into the :class:`CompiledRule` the rule keeps.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["META_FIELDS", "MISSING", "CompiledRule", "Node", "Rule"]


class _Missing:
    """Sentinel: a value (or a correlated old value) that is absent."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final[Any] = _Missing()

META_FIELDS: Final = ("apiVersion", "kind", "metadata")


def _go_regex(pattern: str) -> re.Pattern[str]:
    """Compile an RE2 pattern with Python ``re`` (ASCII classes; ``$`` only at the very end)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":
                out.append("[]")
                i += 2
                continue
        elif ch == "$":
            out.append(r"\Z")
            i += 1
            continue
        out.append(ch)
        i += 1
    return re.compile("".join(out), re.ASCII)


class CompiledRule:
    """A compiled ``x-kubernetes-validations`` rule (``cel.CompilationResult``): celpy programs, or
    the compile ``error``; made by :func:`.cel.compile_rule`."""

    __slots__ = ("error", "field_path", "message_program", "plain_equality", "program", "uses_old_self")

    def __init__(self) -> None:
        self.plain_equality = False
        self.program: Any = None  # a celpy Runner (celpy is imported lazily, untyped)
        self.message_program: Any = None
        self.uses_old_self = False
        self.error = ""
        self.field_path = ""


class Rule:
    """One ``x-kubernetes-validations`` entry; ``compiled`` is set by the CEL pass on first use."""

    __slots__ = ("compiled", "field_path", "message", "message_expression", "optional_old_self",
                 "reason", "rule")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.rule: str = str(raw.get("rule") or "")
        self.message: str = str(raw.get("message") or "")
        self.message_expression: str = str(raw.get("messageExpression") or "")
        self.reason: str = str(raw.get("reason") or "")
        self.field_path: str = str(raw.get("fieldPath") or "")
        self.optional_old_self = bool(raw.get("optionalOldSelf"))
        self.compiled: CompiledRule | None = None

    def error_string(self) -> str:
        """``ruleErrorString``: the message if any, else the rule text."""
        return self.message.strip() if self.message else self.rule.strip()

    def message_or_default(self) -> str:
        """``ruleMessageOrDefault``."""
        return self.message.strip() if self.message else f"failed rule: {self.rule.strip()}"


class Node:
    """One schema node with the keywords the algorithms use (class attributes are the defaults)."""

    type: str = ""
    types: tuple[str, ...] = ()
    nullable = False
    format = ""
    properties: dict[str, Node] | None = None
    has_additional = False            # additionalProperties present (schema, true or false)
    additional: Node | None = None   # its schema, None for a bare boolean
    additional_false = False
    items: Node | None = None
    required: tuple[str, ...] = ()
    enum: tuple[Any, ...] | None = None
    default: Any = MISSING
    minimum: float | int | None = None
    maximum: float | int | None = None
    exclusive_minimum = False
    exclusive_maximum = False
    multiple_of: float | int | None = None
    max_length: int | None = None
    min_length: int | None = None
    pattern = ""
    max_items: int | None = None
    min_items: int | None = None
    unique_items = False
    max_properties: int | None = None
    min_properties: int | None = None
    preserve_unknown = False
    embedded = False
    int_or_string = False
    list_type = ""
    list_map_keys: tuple[str, ...] = ()
    map_type = ""
    rules: tuple[Rule, ...] = ()
    any_of: tuple[Node, ...] = ()
    all_of: tuple[Node, ...] = ()
    one_of: tuple[Node, ...] = ()
    not_: Node | None = None
    has_defaults = False   # a default somewhere in this subtree
    has_rules = False      # a CEL rule somewhere in this subtree
    has_list_checks = False  # a map/set list somewhere in this subtree
    _regex: re.Pattern[str] | None = None

    def regex(self) -> re.Pattern[str]:
        """The compiled ``pattern`` (compiled on first use)."""
        if self._regex is None:
            self._regex = _go_regex(self.pattern)
        return self._regex
