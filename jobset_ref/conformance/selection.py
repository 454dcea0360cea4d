"""``-k`` expressions, as pytest reads them: words match as substrings of a scenario id
(``failure/``, ``restart``), combined with ``and``, ``or``, ``not`` and parentheses.

    failure/ and not restart-job
    (startup or success) and not examples/
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

__all__ = ["SelectionError", "compile_selection"]

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
_KEYWORDS = ("and", "or", "not")


class SelectionError(ValueError):
    """A ``-k`` expression that does not parse; the message says where."""


Match = Callable[[str], bool]


def compile_selection(text: str) -> Match:
    """The predicate over scenario ids that ``text`` describes."""
    tokens = _TOKEN.findall(text)
    if "".join(tokens) != re.sub(r"\s+", "", text):
        raise SelectionError(f"cannot read -k {text!r}")
    if not tokens:
        raise SelectionError("-k needs an expression: a word of a scenario id, with and/or/not")
    parser = _Parser(text, tokens)
    match = parser.disjunction()
    if parser.pos != len(tokens):
        raise SelectionError(f"-k {text!r}: unexpected {tokens[parser.pos]!r}")
    return match


class _Parser:
    def __init__(self, text: str, tokens: list[str]) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise SelectionError(f"-k {self.text!r}: the expression ends too soon")
        self.pos += 1
        return token

    def disjunction(self) -> Match:
        return self._joined("or", self.conjunction, any)

    def conjunction(self) -> Match:
        return self._joined("and", self.negation, all)

    def _joined(self, word: str, operand: Callable[[], Match], combine: Callable[[Iterator[bool]], bool]) -> Match:
        """``operand (word operand)*``: one operand as it is, several combined by ``combine``."""
        parts = [operand()]
        while self._peek() == word:
            self.pos += 1
            parts.append(operand())
        return parts[0] if len(parts) == 1 else (lambda s: combine(p(s) for p in parts))

    def negation(self) -> Match:
        if self._peek() == "not":
            self.pos += 1
            inner = self.negation()
            return lambda s: not inner(s)
        return self.atom()

    def atom(self) -> Match:
        token = self._take()
        if token == "(":
            inner = self.disjunction()
            if self._take() != ")":
                raise SelectionError(f"-k {self.text!r}: a '(' is not closed")
            return inner
        if token == ")" or token in _KEYWORDS:
            raise SelectionError(f"-k {self.text!r}: unexpected {token!r}")
        return lambda s: token in s
