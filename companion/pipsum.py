"""Pip-sum entry: read ``10+15+8`` (or ``2*12 + 7``) safely, without eval.

Grammar: ``sum := term (("+" | "-") term)*``, ``term := int (("*" | "x") int)*``; integers
only, at most 40 terms, each at most 1000. A result below zero is refused.
"""

from __future__ import annotations

import re

MAX_TERMS = 40
MAX_NUMBER = 1000
_TOKEN = re.compile(r"\s*(?:(\d+)|([-+*x×]))")


def parse_pip_sum(text: str | int) -> int:
    """The value of a pip sum like ``"10+15+8"``; ValueError saying what is wrong."""
    if isinstance(text, bool):
        raise ValueError("a pip sum must be a number or text like 10+15+8")  # noqa: TRY004
    if isinstance(text, int):
        if not 0 <= text <= MAX_NUMBER * MAX_TERMS:
            raise ValueError(f"{text} is not a possible pip total")
        return text
    if not isinstance(text, str):
        raise ValueError("a pip sum must be a number or text like 10+15+8")  # noqa: TRY004
    tokens = _tokens(text)
    if not tokens:
        raise ValueError("the pip sum is empty; write a number or a sum like 10+15+8")
    total, sign, product, expect_number, numbers = 0, 1, None, True, 0
    for token in tokens:
        if expect_number:
            if not isinstance(token, int):
                raise ValueError(f"{text!r}: expected a number before {token!r}")
            numbers += 1
            if numbers > MAX_TERMS:
                raise ValueError(f"{text!r} has more than {MAX_TERMS} numbers")
            product = token if product is None else product * token
            expect_number = False
        else:
            if token in ("*", "x", "×"):
                expect_number = True
                continue
            total += sign * product
            sign = 1 if token == "+" else -1
            product, expect_number = None, True
    if expect_number:
        raise ValueError(f"{text!r} ends with an operator; finish it with a number")
    total += sign * product
    if total < 0:
        raise ValueError(f"{text!r} comes to {total}; a pip total cannot be negative")
    return total


def _tokens(text: str) -> list[int | str]:
    if len(text) > 400:
        raise ValueError("the pip sum is too long")
    tokens: list[int | str] = []
    pos = 0
    text = text.strip().lower()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            bad = text[pos:].strip()[:1]
            raise ValueError(f"{text!r}: {bad!r} is not allowed; use numbers with + - *")
        number, op = match.groups()
        if number is not None:
            if len(number) > 4 or int(number) > MAX_NUMBER:
                raise ValueError(f"{number} is too big for a pip count")
            tokens.append(int(number))
        else:
            tokens.append(op)
        pos = match.end()
        if pos < len(text) and text[pos:].strip() == "":
            break
    return tokens
