"""The tracker's side of talking to people: questions (with their crops and answers) and
problems, as a mixin of ``TableTracker`` (it uses the tracker's tiles, link and view)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import numpy as np

from .types import Problem, Question, SubmitResult

if TYPE_CHECKING:
    from .tracker import Seen

log = logging.getLogger(__name__)


class Conversation:
    """Questions and problems of one table's camera (mixed into ``TableTracker``)."""

    # -- questions and problems -------------------------------------------------------
    def _ask_target(self, frame, seen: Seen, candidates: list[str]) -> None:
        names = ", ".join(c.split(">")[1] for c in candidates)
        q = Question("target", seen.text, f"Where did {seen.text} go? It touches {names}.",
                     sorted(candidates), self._crop(frame, seen, candidates))
        self._ask(seen, q)

    def _ask_tile(self, frame, seen: Seen) -> None:
        view = self._view()
        anchors = self.anchors(view)
        cands = self._candidates(seen, anchors)
        options = [seen.text] if cands else []
        moves = []
        for cand in cands[:2]:
            value = next(a.value for a in anchors if a.target == cand.target)
            guess = f"{seen.text}>{cand.target}" if value in seen.pips else None
            if guess:
                moves.append(guess)
            for other in range(self.params.set_size + 1):
                hi, lo = max(value, other), min(value, other)
                move = f"{hi}-{lo}>{cand.target}"
                if move not in moves and f"{hi}-{lo}" not in self.tiles:
                    moves.append(move)
        options = moves or [seen.text]
        q = Question("tile", seen.text, f"The camera is not sure this tile is {seen.text} "
                     f"(confidence {seen.confidence:.2f}). Which tile is it?", options,
                     self._crop(frame, seen))
        self._ask(seen, q)

    def _ask(self, seen: Seen, q: Question) -> None:
        self._close_question(seen)
        seen.state, seen.question = "asked", q.id
        self.questions[q.id] = q
        try:
            self.link.ask(q)
        except Exception:
            log.exception("camera: asking failed")

    def answer(self, question_id: str, choice: str) -> SubmitResult:
        """A person picked ``choice`` (one of the candidates, or "ignore")."""
        q = self.questions.get(question_id)
        if q is None:
            return SubmitResult(False, f"there is no open camera question {question_id}")
        seen = next((s for s in self.tiles.values() if s.question == question_id), None)
        if choice == "ignore":
            if seen is not None:
                seen.state = "loose"
            self._close_question(seen) if seen else self._withdraw(question_id)
            self._release()
            return SubmitResult(True, "ignored")
        if choice not in q.candidates:
            return SubmitResult(False, f"{choice!r} is not one of {', '.join(q.candidates)}")
        self._withdraw(question_id)
        if seen is None:
            return SubmitResult(False, "that tile is no longer on the table")
        seen.question = None
        text = choice.split(">", 1)[0]
        if text != seen.text:  # the person corrected the value
            self.tiles.pop(seen.text, None)
            seen.text = text
            seen.pips = tuple(int(v) for v in text.split("-"))
            seen.confidence = 1.0
            self.tiles[text] = seen
        frame = self.last_frame
        ok = self._submit(frame, seen, choice)
        self._release()
        return SubmitResult(ok, "" if ok else "refused")

    def _close_question(self, seen: Seen | None) -> None:
        if seen is not None and seen.question:
            self._withdraw(seen.question)
            seen.question = None

    def _withdraw(self, question_id: str) -> None:
        if self.questions.pop(question_id, None) is not None:
            withdraw = getattr(self.link, "withdraw", None)
            if withdraw:
                try:
                    withdraw(question_id)
                except Exception:
                    log.exception("camera: withdrawing a question failed")

    def _report(self, problem: Problem, seen: Seen | None = None) -> None:
        self.problems.append(problem)
        del self.problems[:-self.params.keep_problems]
        if seen is not None:
            seen.problem = problem.id
        try:
            self.link.report(problem)
        except Exception:
            log.exception("camera: reporting a problem failed")

    def _resolve_problem(self, seen: Seen) -> None:
        for p in self.problems:
            if p.id == seen.problem:
                p.resolved = True
        seen.problem = None

    def _where(self, seen: Seen) -> str:
        if seen.state == "engine" or seen.target is None:
            return "the table" if seen.state != "engine" else "the hub"
        if seen.target == "mx":
            return "the Mexican train"
        if seen.target == "c":
            return "the centre"
        return f"{seen.target}'s train" if seen.target.startswith("p") else f"line {seen.target}"

    # -- pictures ---------------------------------------------------------------------
    def _crop(self, frame: np.ndarray | None, seen: Seen, candidates: list[str] | None = None
              ) -> bytes | None:
        if frame is None:
            return None
        from .annotate import crop_png
        return crop_png(frame, seen, self, candidates)
