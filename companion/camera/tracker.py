"""From settled frames to moves: what changed since the last accepted still frame, which
open end each new tile touches, and when to ask a person or report a problem.

``TableTracker.observe(frame)`` is called once per settled frame (the worker's motion gate
decides when). It recognises only the changed regions with the real vision library, keys
tiles by their value (each tile exists once in a set), and talks to the table through a
``TableLink``. It never rewrites history: a contradiction becomes a ``Problem``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from vision import Params, scan
from vision.motion import MotionParams, change_map, merge_boxes

from .asking import Conversation
from .layout import (
    Anchor,
    Calibration,
    LayoutParams,
    candidates_for,
    centre,
    decide,
    end_points,
    tile_width,
)
from .types import Problem, Question, SubmitResult, TableLink, read_result

log = logging.getLogger(__name__)


@dataclass
class Seen:
    """A tile the camera tracks. ``state``: engine, table (on ``target`` in the game),
    pending, asked, refused, loose (not part of play), missing (vanished), moved."""

    text: str
    pips: tuple[int, int]
    corners: np.ndarray
    confidence: float
    state: str = "pending"
    target: str | None = None
    question: str | None = None
    problem: str | None = None

    @property
    def centre(self) -> np.ndarray:
        return centre(self.corners)


@dataclass(frozen=True)
class TrackerParams:
    """Thresholds of the tracker (lengths in tile widths)."""

    #: a tile's outline must have changed at least this much to be new or gone.
    changed: float = 0.3
    #: the same tile seen within this distance is the same tile (a nudge at most).
    same_place: float = 1.0
    #: regions around changes are grown by this many tile widths before recognising.
    crop_pad: float = 2.6
    #: when more than this fraction of the frame changed, the whole frame is recognised.
    full_scan_fraction: float = 0.25
    #: tile width (pixels) assumed until tiles are measured.
    default_tile_width: float = 40.0
    #: largest pip count of the set (for "which tile is it?" candidates).
    set_size: int = 12
    #: most problems kept in the status.
    keep_problems: int = 12


def _targets(view: dict) -> dict[str, list[str]]:
    """Target name -> tiles on it, from a Mexican Train or Chicken Foot view."""
    if "trains" in view:
        return {t["name"]: list(t["tiles"]) for t in view["trains"]}
    if "lines" in view:
        return {line["name"]: list(line["tiles"]) for line in view["lines"]}
    return {}


def _is_double(text: str) -> bool:
    a, _, b = text.partition("-")
    return a == b


class TableTracker(Conversation):
    """Layout, tracked tiles, open questions and problems of one table's camera."""

    def __init__(self, link: TableLink, calibration: Calibration | None = None, *,
                 params: TrackerParams | None = None, layout: LayoutParams | None = None,
                 motion: MotionParams | None = None, vision: Params | None = None):
        self.link = link
        self.calibration = calibration or Calibration()
        self.params = params or TrackerParams()
        self.layout = layout or LayoutParams()
        self.motion = motion or MotionParams()
        self.vision = vision or Params()
        self.tiles: dict[str, Seen] = {}
        self.extras: list[Seen] = []  # duplicates seen this round (annotation only)
        self.learned: dict[str, np.ndarray] = {}
        self.questions: dict[str, Question] = {}
        self.problems: list[Problem] = []
        self.submitted: list[str] = []
        self.held: list[Seen] = []  # new tiles waiting for an open question to be settled
        self.submitted_late: list[str] = []  # moves posted when held tiles were released
        self.reference: np.ndarray | None = None
        self.engine_text: str | None = None
        self.on_table: dict[str, str] = {}  # tile text -> target, from the last view
        self.hub: np.ndarray | None = None
        self.width = self.params.default_tile_width
        self.last_frame: np.ndarray | None = None
        self.stats = {"settled": 0, "scans": 0, "last_ms": None, "unchanged": 0}

    # -- the view ---------------------------------------------------------------------
    def _view(self) -> dict:
        try:
            return self.link.view() or {}
        except Exception:  # the web side must never take the camera down
            log.exception("camera: reading the table view failed")
            return {}

    def _sync(self, view: dict) -> None:
        """Make tracked states agree with the game (moves entered on the tablet, undo)."""
        engine = view.get("engine")
        if engine and engine != self.engine_text:
            if self.engine_text is not None:
                self._new_round()
            self.engine_text = engine
        on_table = {}
        for target, tiles in _targets(view).items():
            for text in tiles:
                on_table[text] = target
        self.on_table = on_table
        for text, seen in self.tiles.items():
            if text in on_table:
                if seen.state not in ("table", "missing", "moved") or seen.target != on_table[text]:
                    seen.state, seen.target = "table", on_table[text]
                    self._close_question(seen)
                    self._learn(seen)
            elif seen.state == "table":
                seen.state, seen.target = "loose", None  # undone on the tablet: leave it be
            elif seen.state == "engine" and text != self.engine_text:
                seen.state = "loose"
        if self.engine_text in self.tiles:
            self.tiles[self.engine_text].state = "engine"

    def _new_round(self) -> None:
        self.tiles.clear()
        self.extras.clear()
        self.held.clear()
        self.learned.clear()
        for q in list(self.questions.values()):
            self._withdraw(q.id)
        self.reference = None
        self.hub = None

    # -- anchors ----------------------------------------------------------------------
    def _hub(self) -> np.ndarray | None:
        engine = self.tiles.get(self.engine_text or "")
        if engine is not None and engine.state == "engine":
            return engine.centre
        if self.calibration.hub is not None:
            return np.array(self.calibration.hub, float)
        return None

    def _direction(self, name: str) -> np.ndarray | None:
        if name in self.learned:
            return self.learned[name]
        return self.calibration.direction(name)

    def anchors(self, view: dict) -> list[Anchor]:
        out: list[Anchor] = []
        hub = self._hub()
        if "trains" in view:
            for train in view["trains"]:
                name, value, tiles = train["name"], int(train["open_end"]), train["tiles"]
                if not tiles:
                    out.append(Anchor(name, value, "hub", direction=self._direction(name)))
                    continue
                prev = self.tiles.get(tiles[-2]).centre if len(tiles) > 1 and tiles[-2] in self.tiles else hub
                out.append(self._tile_anchor(name, value, tiles[-1], prev))
        elif "lines" in view:
            engine = self.tiles.get(self.engine_text or "")
            centre_value = int((view.get("engine") or "0-0").split("-")[0])
            if engine is not None:
                out.append(Anchor("c", centre_value, "tile", corners=engine.corners))
            for line in view["lines"]:
                if line.get("closed"):
                    continue
                tiles = line["tiles"]
                prev = self.tiles.get(tiles[-2]).centre if len(tiles) > 1 and tiles[-2] in self.tiles else hub
                out.append(self._tile_anchor(line["name"], int(line["open_end"]), tiles[-1], prev))
        return out

    def _tile_anchor(self, name: str, value: int, text: str, prev: np.ndarray | None) -> Anchor:
        seen = self.tiles.get(text)
        if seen is None or seen.state not in ("table", "engine"):
            return Anchor(name, value, "unknown")
        if _is_double(text):
            return Anchor(name, value, "tile", corners=seen.corners)
        ends = end_points(seen.corners)
        if seen.pips[0] == value and seen.pips[1] != value:
            point = ends[0]
        elif seen.pips[1] == value and seen.pips[0] != value:
            point = ends[1]
        elif prev is not None:  # the reading disagrees with the game: take the far end
            point = max(ends, key=lambda e: float(np.hypot(*(e - prev))))
        else:
            return Anchor(name, value, "tile", corners=seen.corners)
        return Anchor(name, value, "end", point=point, corners=seen.corners)

    def _learn(self, seen: Seen) -> None:
        """An empty train's first tile teaches its slot direction."""
        hub = self._hub()
        if hub is None or seen.target is None or seen.target in self.learned:
            return
        is_train = seen.target == "mx" or seen.target.startswith("p")
        if is_train and self.calibration.direction(seen.target) is None:
            d = seen.centre - hub
            n = float(np.hypot(*d))
            if n > 1e-6:
                self.learned[seen.target] = d / n

    # -- one settled frame ------------------------------------------------------------
    def observe(self, frame: np.ndarray) -> list[str]:
        """Process one settled frame; returns the moves accepted from it."""
        t0 = time.perf_counter()
        self.stats["settled"] += 1
        self.last_frame = frame
        view = self._view()
        self._sync(view)
        released = self._release()  # a question settled on the tablet meanwhile
        if self.reference is None or self.reference.shape != frame.shape:
            self._start(frame, view)
            self.stats["last_ms"] = round((time.perf_counter() - t0) * 1000, 1)
            return released
        cmap = change_map(self.reference, frame, self.motion)
        boxes = cmap.boxes(self.motion.change_min_fraction)
        if not boxes:
            self.reference = frame
            self.stats["unchanged"] += 1
            return released
        h, w = frame.shape[:2]
        if cmap.fraction > self.params.full_scan_fraction:
            regions = [(0, 0, w, h)]
        else:
            regions = merge_boxes(boxes, int(self.params.crop_pad * self.width), w, h)
        readings = self._scan(frame, regions)
        accepted = released + self._reconcile(frame, cmap, readings)
        self.reference = frame
        self.stats["last_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        return accepted

    def _scan(self, frame: np.ndarray, regions) -> list[Seen]:
        out: list[Seen] = []
        for x0, y0, x1, y1 in regions:
            if x1 - x0 < 16 or y1 - y0 < 16:
                continue
            self.stats["scans"] += 1
            obs = scan(frame[y0:y1, x0:x1], self.vision)
            for tile in obs.tiles:
                corners = np.array(tile.corners, float) + [x0, y0]
                lo, hi = corners.min(axis=0), corners.max(axis=0)
                edge = 1.0
                cut = ((lo[0] < x0 + edge and x0 > 0) or (lo[1] < y0 + edge and y0 > 0)
                       or (hi[0] > x1 - edge and x1 < frame.shape[1])
                       or (hi[1] > y1 - edge and y1 < frame.shape[0]))
                if cut:
                    continue
                out.append(Seen(tile.text, tuple(int(p) for p in tile.pips), corners,
                                float(tile.confidence)))
        # the same tile found in two overlapping regions counts once
        unique: list[Seen] = []
        for s in sorted(out, key=lambda s: -s.confidence):
            if not any(u.text == s.text and np.hypot(*(u.centre - s.centre)) < 0.5 * self.width
                       for u in unique):
                unique.append(s)
        return unique

    def _start(self, frame: np.ndarray, view: dict) -> None:
        """First settled frame (or a new round): take stock of what lies on the table."""
        readings = self._scan(frame, [(0, 0, frame.shape[1], frame.shape[0])])
        on_table = {text: target for target, tiles in _targets(view).items() for text in tiles}
        widths = [tile_width(r.corners) for r in readings if r.confidence >= 0.8]
        if widths:
            self.width = float(np.median(widths))
        for r in readings:
            if r.text in self.tiles:
                continue
            if r.text == self.engine_text:
                r.state = "engine"
            elif r.text in on_table:
                r.state, r.target = "table", on_table[r.text]
            else:
                r.state = "loose"
            self.tiles[r.text] = r
        self.hub = self._hub()
        self.reference = frame
        for seen in self.tiles.values():
            if seen.state == "table":
                self._learn(seen)

    def _reconcile(self, frame: np.ndarray, cmap, readings: list[Seen]) -> list[str]:
        width = self.width
        changed = {id(r): cmap.fraction_in(r.corners) >= self.params.changed for r in readings}
        matched: set[str] = set()
        fresh: list[Seen] = []
        for r in sorted(readings, key=lambda r: -r.confidence):
            old = self.tiles.get(r.text)
            if (old is not None and r.text not in matched
                    and np.hypot(*(r.centre - old.centre)) <= self.params.same_place * width):
                old.corners, old.pips, old.confidence = r.corners, r.pips, r.confidence
                matched.add(r.text)
                if old.state in ("missing", "moved"):
                    old.state = "table" if old.target else "pending"
                    self._resolve_problem(old)
                continue
            if not changed[id(r)]:
                continue  # an unchanged spot read differently this time: not news
            if old is None:
                if r.text in self.on_table:  # entered on the tablet before the camera saw it
                    r.state, r.target = "table", self.on_table[r.text]
                    self.tiles[r.text] = r
                    matched.add(r.text)
                    self._learn(r)
                else:
                    fresh.append(r)
                continue
            old_spot_changed = cmap.fraction_in(old.corners) >= self.params.changed
            if old.state in ("table", "engine") and not old_spot_changed:
                self.extras.append(r)
                r.state = "duplicate"
                self._report(Problem("duplicate", f"A second {r.text} is on the table, but "
                                     f"{r.text} is already on {self._where(old)}. Is one of "
                                     "them misread?", r.text, self._crop(frame, r)))
                continue
            if old.state in ("table", "engine", "missing"):
                matched.add(r.text)
                was = self._where(old)
                old.corners, old.pips = r.corners, r.pips
                old.state = "moved"
                self._report(Problem("moved", f"{r.text} moved off {was}; put it back where "
                                     "it was (the game keeps it there).", r.text,
                                     self._crop(frame, old)), old)
                continue
            # a tile not yet in play was picked up and put down elsewhere: think again
            matched.add(r.text)
            self._close_question(old)
            old.corners, old.pips, old.confidence, old.state = r.corners, r.pips, r.confidence, "pending"
            fresh.append(old)
        for text, old in list(self.tiles.items()):
            if text in matched or old.state in ("missing",):
                continue
            if cmap.fraction_in(old.corners) < self.params.changed:
                continue
            if old.state in ("table", "engine"):
                old.state = "missing"
                self._report(Problem("vanished", f"{text} on {self._where(old)} is gone from "
                                     "view. The game still counts it there: put it back, or "
                                     "undo on the tablet.", text, self._crop(frame, old)), old)
            elif old.state != "moved":
                self._close_question(old)
                del self.tiles[text]  # taken back before it counted
        for r in fresh:
            self.tiles[r.text] = r
        return self._place(frame, fresh)

    # -- attaching new tiles ----------------------------------------------------------
    def _place(self, frame: np.ndarray, fresh: list[Seen]) -> list[str]:
        accepted: list[str] = []
        pending = []
        view = self._view()
        if not view or view.get("round_over"):
            for seen in fresh:  # no round in play (or hands spread for counting): not plays
                seen.state = "loose"
            return accepted
        if self.questions:  # keep the order of play: wait until the open question is settled
            for seen in fresh:
                seen.state = "pending"
                self.held.append(seen)
            return accepted
        for seen in fresh:
            if seen.confidence < self.vision.min_confidence:
                self._ask_tile(frame, seen)
            else:
                pending.append(seen)
        progress = True
        while pending and progress:
            progress = False
            view = self._view()
            anchors = self.anchors(view)
            for seen in pending:
                kind, cands = decide(self._candidates(seen, anchors), self.layout)
                if kind == "ask":
                    legal = self._legal(seen, cands)
                    if len(legal) == 1:
                        kind, cands = "attach", legal
                if kind == "attach":
                    pending.remove(seen)
                    move = f"{seen.text}>{cands[0].target}"
                    if self._submit(frame, seen, move):
                        accepted.append(move)
                    progress = True
                    break
        if pending:
            view = self._view()
            anchors = self.anchors(view)
            for seen in pending:
                kind, cands = decide(self._candidates(seen, anchors), self.layout)
                if kind == "ask":
                    cands = self._legal(seen, cands) or cands
                    self._ask_target(frame, seen, [f"{seen.text}>{c.target}" for c in cands])
                elif kind == "refusable":
                    self._submit(frame, seen, f"{seen.text}>{cands[0].target}")
                else:
                    unknown = [a for a in anchors if a.kind == "unknown"
                               and a.value in seen.pips]
                    if unknown:
                        self._ask_target(frame, seen, [f"{seen.text}>{a.target}" for a in unknown])
                    else:
                        seen.state = "loose"
        return accepted

    def _release(self) -> list[str]:
        """Tiles held back while a question was open, placed now that none is."""
        if self.questions or not self.held:
            return []
        held, self.held = self.held, []
        alive = [s for s in held if self.tiles.get(s.text) is s and s.state == "pending"]
        moves = self._place(self.last_frame, alive)
        self.submitted_late.extend(moves)
        return moves

    def _legal(self, seen: Seen, cands):
        """The candidates the session would accept now (all of them when it cannot say)."""
        check = getattr(self.link, "check", None)
        if check is None:
            return list(cands)
        legal = []
        for cand in cands:
            try:
                if check(f"{seen.text}>{cand.target}") is None:
                    legal.append(cand)
            except Exception:
                log.exception("camera: checking a move failed")
                return list(cands)
        return legal

    def _candidates(self, seen: Seen, anchors: list[Anchor]):
        return candidates_for(seen.pips, seen.corners, anchors, self._hub(), self.width,
                              self.layout)

    def _submit(self, frame: np.ndarray, seen: Seen, move: str) -> bool:
        try:
            result = read_result(self.link.submit(move, source="camera"))
        except ValueError as exc:
            result = SubmitResult(False, getattr(exc, "message", None) or str(exc),
                                  getattr(exc, "rule", None))
        except Exception as exc:  # the service failed: say so, keep the tile pending
            log.exception("camera: submitting %s failed", move)
            result = SubmitResult(False, f"the table did not answer ({exc.__class__.__name__})")
        if result.accepted:
            seen.state, seen.target = "table", move.split(">", 1)[1]
            self.submitted.append(move)
            self._learn(seen)
            return True
        seen.state = "refused"
        seen.target = None
        self._report(Problem("refused", f"The camera saw {move}, refused: {result.message}",
                             seen.text, self._crop(frame, seen)), seen)
        return False

    def status(self) -> dict:
        counts: dict[str, int] = {}
        for s in self.tiles.values():
            counts[s.state] = counts.get(s.state, 0) + 1
        return {
            "calibrated": bool(self.calibration.slots) or bool(self.learned),
            "hub": None if self._hub() is None else [round(float(v), 1) for v in self._hub()],
            "tile_width_px": round(self.width, 1),
            "tiles": counts,
            "questions": [q.to_json() for q in self.questions.values()],
            "problems": [p.to_json() for p in self.problems if not p.resolved][-5:],
            "moves": list(self.submitted[-10:]),
            "settled_frames": self.stats["settled"],
            "last_ms": self.stats["last_ms"],
        }
