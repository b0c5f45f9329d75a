"""A table held in memory by the rules core alone (no service): the camera's ``TableLink``
for tests, the bench and ``python -m companion.camera replay``."""

from __future__ import annotations

import threading

from ..games import TABLE, Move, get_rules
from .types import Problem, Question, SubmitResult


class LocalTable:
    """A table-mode round checked by the real rules; records what the camera said.

    ``auto`` lists words (draw, pass, ...) a person would enter on the tablet: before a
    camera play is checked, the next scripted words due at that point are applied.
    """

    def __init__(self, game: str, players: int, options: dict | None = None,
                 round_index: int = 0, script: list[str] | None = None):
        self.rules = get_rules(game)
        self.options = self.rules.resolve_options(players, options or {})
        self.state = self.rules.new_round(players, self.options, round_index, mode=TABLE)
        self.script = list(script or [])
        self.accepted: list[str] = []
        self.refused: list[tuple[str, str]] = []
        self.questions: list[Question] = []
        self.problems: list[Problem] = []
        self.withdrawn: list[str] = []
        self.lock = threading.Lock()

    def _auto_words(self) -> None:
        done = len(self.state.history)
        while done < len(self.script) and Move.parse(self.script[done]).kind != "play":
            self.rules.play(self.state, self.script[done])
            done += 1

    def submit(self, move_text: str, source: str = "camera") -> SubmitResult:
        with self.lock:
            self._auto_words()
            try:
                move = self.rules.play(self.state, move_text)
            except ValueError as exc:
                sentence = getattr(exc, "sentence", None) or str(exc)
                self.refused.append((move_text, sentence))
                return SubmitResult(False, sentence, getattr(exc, "rule", None))
            self.accepted.append(str(move))
            return SubmitResult(True)

    def check(self, move_text: str) -> str | None:
        """None when ``move_text`` would be accepted now, else the refusal sentence."""
        with self.lock:
            self._auto_words()
            try:
                self.rules.play(self.state, move_text)
            except ValueError as exc:
                return getattr(exc, "sentence", None) or str(exc)
            self.rules.undo(self.state)
            return None

    def view(self) -> dict:
        with self.lock:
            return self.rules.describe(self.state)

    def ask(self, question: Question) -> None:
        self.questions.append(question)

    def report(self, problem: Problem) -> None:
        self.problems.append(problem)

    def withdraw(self, question_id: str) -> None:
        self.withdrawn.append(question_id)
