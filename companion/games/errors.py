"""The error trio of the rules core; all are ValueErrors so callers can catch broadly."""

from __future__ import annotations


class MoveError(ValueError):
    """Base of every move refusal."""


class InvalidMoveError(MoveError):
    """The text cannot be read as a move at all (syntax, unknown tile, unknown train)."""


class IllegalMoveError(MoveError):
    """A well-formed move that the rules do not allow now; carries the rule id it enforces."""

    def __init__(self, rule: str, sentence: str):
        super().__init__(f"{sentence} ({rule})")
        self.rule = rule
        self.sentence = sentence


class AmbiguousMoveError(MoveError):
    """The text could mean more than one legal move (e.g. a tile that fits two trains)."""

    def __init__(self, sentence: str, candidates: list):
        super().__init__(sentence)
        self.candidates = candidates
