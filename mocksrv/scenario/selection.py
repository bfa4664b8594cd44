"""`-k EXPR`: choose scenarios as pytest's -k chooses tests.

A word matches a scenario when it is part of its name, its file's path or one of its tags, whatever
the case; words combine with `and`, `or`, `not` and parentheses (`not` binds tightest, then `and`).
A word with spaces is quoted: `-k '"declined card" and not slow'`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mocksrv.scenario.format import Scenario

Matcher = Callable[[Sequence[str]], bool]
_TOKEN = re.compile(r"\s*(\(|\)|\"[^\"]*\"|'[^']*'|[^\s()]+)")
DEEPEST = 64  # `not`s and parentheses in one another


class KeywordError(ValueError):
    """An expression that cannot be read."""


def keyword_matcher(expression: str) -> Callable[[Scenario], bool]:
    """Whether a scenario is chosen by `expression`; an expression that cannot be read raises KeywordError."""
    tokens = _tokens(expression)
    if not tokens:
        raise KeywordError("an empty expression")
    parser = _Parser(tokens)
    matcher = parser.either()
    if parser.position < len(tokens):
        raise KeywordError(f"unexpected {tokens[parser.position]!r}")

    def chosen(scenario: Scenario) -> bool:
        return matcher(
            [scenario.name.lower(), scenario.file.lower(), *(tag.lower() for tag in scenario.tags)]
        )

    return chosen


def _tokens(expression: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    while expression[position:].strip():
        match = _TOKEN.match(expression, position)
        token = "" if match is None else match.group(1)
        if match is None or (token[0] in "\"'" and (len(token) < 2 or token[-1] != token[0])):
            raise KeywordError(f"a quote is not closed in {expression[position:].strip()!r}")
        tokens.append(token)
        position = match.end()
    return tokens


class _Parser:
    """A recursive descent over the grammar:

    either := both ("or" both)*;  both := single ("and" single)*;
    single := "not" single | "(" either ")" | word
    """

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.position = 0
        self.depth = 0  # of the `not`s and parentheses open where the parser is

    def _peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise KeywordError("the expression ends too soon")
        self.position += 1
        return token

    def either(self) -> Matcher:
        options = [self.both()]
        while self._peek() == "or":
            self._take()
            options.append(self.both())
        return options[0] if len(options) == 1 else lambda texts: any(option(texts) for option in options)

    def both(self) -> Matcher:
        parts = [self.single()]
        while self._peek() == "and":
            self._take()
            parts.append(self.single())
        return parts[0] if len(parts) == 1 else lambda texts: all(part(texts) for part in parts)

    def single(self) -> Matcher:
        token = self._take()
        if token == "not":
            negated = self._deeper(self.single)
            return lambda texts: not negated(texts)
        if token == "(":
            inner = self._deeper(self.either)
            if self._take() != ")":
                raise KeywordError("a parenthesis is not closed")
            return inner
        if token in (")", "and", "or"):
            raise KeywordError(f"unexpected {token!r}")
        word = token[1:-1] if token[:1] in "\"'" and len(token) > 1 else token
        word = word.lower()
        return lambda texts: any(word in text for text in texts)

    def _deeper(self, parse: Callable[[], Matcher]) -> Matcher:
        """What `parse` reads inside a `not` or a parenthesis: refused past DEEPEST, where reading it
        and choosing by it would run out of Python's stack."""
        if self.depth == DEEPEST:
            raise KeywordError(f"nested more than {DEEPEST} deep")
        self.depth += 1
        try:
            return parse()
        finally:
            self.depth -= 1
