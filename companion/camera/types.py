"""What the camera worker says to the rest of the service, and the one small protocol it
needs from it (no Flask here: an adapter binds these callables to a table)."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

_ids = itertools.count(1)


def next_id(prefix: str) -> str:
    return f"{prefix}{next(_ids)}"


@dataclass
class SubmitResult:
    """The session's answer to a camera move: accepted, or refused with its sentence."""

    accepted: bool
    message: str = ""
    rule: str | None = None


@dataclass
class Question:
    """Something only a person can settle: which train a tile went on (``kind`` "target")
    or which tile it is (``kind`` "tile"). ``candidates`` are moves in canonical text;
    ``crop_png`` is the annotated picture of the spot."""

    kind: str
    tile: str
    text: str
    candidates: list[str]
    crop_png: bytes | None = None
    id: str = field(default_factory=lambda: next_id("q"))
    time: float = field(default_factory=time.time)

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, "tile": self.tile, "text": self.text,
                "candidates": list(self.candidates), "time": round(self.time, 3),
                "has_crop": self.crop_png is not None}


@dataclass
class Problem:
    """What the camera sees contradicts the game (never fixed by rewriting history):
    ``kind`` is vanished, moved, duplicate, refused or camera."""

    kind: str
    text: str
    tile: str | None = None
    crop_png: bytes | None = None
    id: str = field(default_factory=lambda: next_id("x"))
    time: float = field(default_factory=time.time)
    resolved: bool = False

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, "tile": self.tile, "text": self.text,
                "time": round(self.time, 3), "resolved": self.resolved,
                "has_crop": self.crop_png is not None}


class TableLink(Protocol):
    """The four things the worker needs from a table."""

    def submit(self, move_text: str, source: str = "camera") -> SubmitResult | bool | None:
        """Post a move; None/True/accepted result = accepted; raise ValueError or return a
        refused result when the session refuses it."""

    def view(self) -> dict | None:
        """The current public round view (``Rules.describe``); None when no round."""

    def ask(self, question: Question) -> None:
        """Show a question on the tablet."""

    def report(self, problem: Problem) -> None:
        """Show a problem on the tablet."""

    # Optional: ``check(move_text) -> str | None`` (None when the session would accept the
    # move now, else its sentence), used to narrow a question to the moves that are legal;
    # ``withdraw(question_id)`` when a question no longer stands.


@dataclass
class CallbackLink:
    """A ``TableLink`` from plain callables (``ask``/``report``/``status`` optional)."""

    submit_fn: Any
    view_fn: Any
    ask_fn: Any = None
    report_fn: Any = None
    withdraw_fn: Any = None
    check_fn: Any = None

    def submit(self, move_text: str, source: str = "camera"):
        return self.submit_fn(move_text, source=source)

    def view(self):
        return self.view_fn()

    def ask(self, question: Question) -> None:
        if self.ask_fn:
            self.ask_fn(question)

    def report(self, problem: Problem) -> None:
        if self.report_fn:
            self.report_fn(problem)

    def withdraw(self, question_id: str) -> None:
        if self.withdraw_fn:
            self.withdraw_fn(question_id)

    def check(self, move_text: str) -> str | None:
        return self.check_fn(move_text) if self.check_fn else None


def read_result(outcome: Any) -> SubmitResult:
    """Normalise what a submit callable returned."""
    if outcome is None or outcome is True:
        return SubmitResult(True)
    if outcome is False:
        return SubmitResult(False, "refused")
    if isinstance(outcome, SubmitResult):
        return outcome
    if isinstance(outcome, dict):
        if "error" in outcome:
            return SubmitResult(False, str(outcome.get("message", outcome["error"])),
                                outcome.get("rule"))
        return SubmitResult(True)
    return SubmitResult(True)
