"""Scripted rounds for the synthetic table video: which tile goes where, and what the camera
should make of it (the moves in order, the questions and problems it should raise).

A Mexican Train round is a legal simulated round (the same start the table-mode session
uses: round 0, starter p1) laid out along calibrated hub slots; a Chicken Foot script opens
two lines and grows a foot. ``vision.video.render_video`` turns a script into frames.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

from vision.video import Action, Placement, VideoSpec, axis_angle, render_video

from ..games import SIMULATION, TABLE, Move, get_rules
from .layout import Calibration


@dataclass
class Script:
    """A video plan plus what a correct worker reports for it."""

    game: str
    players: int
    options: dict
    spec: VideoSpec
    initial: list[Placement]
    actions: list[Action]
    calibration: Calibration
    moves: list[str]  # the plays the camera must submit, in order
    questions: list[dict] = field(default_factory=list)  # {"tile", "candidates", "answer"}
    problems: list[dict] = field(default_factory=list)  # {"kind", "tile"}

    def frames(self):
        """Frames only (see ``vision.video.render_video`` for the labels)."""
        for frame, _info in render_video(self.spec, self.initial, self.actions):
            yield frame

    def new_state(self):
        """The table-mode round the session starts for this script."""
        rules = get_rules(self.game)
        options = rules.resolve_options(self.players, self.options)
        return rules, rules.new_round(self.players, options, 0, mode=TABLE)


def _unit(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([math.cos(a), math.sin(a)])


def slot_angles(trains: int) -> list[float]:
    """Directions (degrees, image y down) of ``trains`` hub slots: two fans, left and right,
    so long trains fit a landscape frame."""
    right = (trains + 1) // 2
    left = trains - right
    out = []
    for count, base in ((right, 0.0), (left, 180.0)):
        spread = min(100.0, 60.0 * (count - 1))
        for i in range(count):
            offset = 0.0 if count == 1 else -spread / 2 + spread * i / (count - 1)
            out.append(base + offset if base == 0.0 else base - offset)
    return out


def seat_point(seat: int, players: int, width: int, height: int) -> tuple[float, float]:
    """Where player ``seat``'s hand enters: p1 at the bottom edge, then clockwise."""
    angle = math.radians(90.0 + 360.0 * seat / players)
    d = np.array([math.cos(angle), math.sin(angle)])
    centre = np.array([width / 2, height / 2])
    t = min(abs((width / 2) / d[0]) if abs(d[0]) > 1e-6 else 1e9,
            abs((height / 2) / d[1]) if abs(d[1]) > 1e-6 else 1e9)
    p = centre + d * t * 1.05
    return float(p[0]), float(p[1])


def _train_pose(centre, direction, index, tw, hub_radius, gap) -> tuple[tuple[float, float], float]:
    c = np.array(centre) + direction * (hub_radius + tw + index * (2 * tw + gap))
    return (float(c[0]), float(c[1])), axis_angle(tuple(direction))


def _capacity(centre, direction, tw, hub_radius, gap, width, height) -> int:
    margin = 0.8 * tw
    n = 0
    while True:
        c = np.array(centre) + direction * (hub_radius + tw + n * (2 * tw + gap))
        end = c + direction * tw
        if not (margin <= end[0] <= width - margin and margin <= end[1] <= height - margin):
            return n
        n += 1


def mexican_train(players: int = 3, plays: int = 8, seed: int = 0, *, width: int = 1280,
                  height: int = 720, tile_width: float = 40.0, nudge: bool = True,
                  vanish: bool = False, ambiguous: bool = False, fps: float = 10.0,
                  options: dict | None = None, max_seeds: int = 400) -> Script:
    """A Mexican Train round of ``plays`` tile plays with no draw or pass in between.

    ``ambiguous``: the first tile lands between the starter's slot and the Mexican train's
    slot (a question the test answers with the starter's train); ``vanish``: at the end a
    hand takes a tile off a train (a problem); ``nudge``: midway a hand nudges a tile.
    """
    rules = get_rules("mexican-train")
    options = rules.resolve_options(players, {"set": "double-9", **(options or {})})
    names = [f"p{i + 1}" for i in range(players)] + ["mx"]
    order = names if not ambiguous else ["p1", "mx"] + names[1:-1]  # mx beside p1
    angles = dict(zip(order, slot_angles(len(order))))
    tw = tile_width
    gap = 0.15 * tw
    hub_radius = 1.9 * tw
    centre = (width / 2, height / 2)
    dirs = {n: _unit(a) for n, a in angles.items()}
    if ambiguous:
        starter_slot = "p1"
        mid = math.degrees(math.atan2(*(dirs[starter_slot] + dirs["mx"])[::-1]))
        dirs[starter_slot] = _unit(mid)
    capacity = {n: _capacity(centre, d, tw, hub_radius, gap, width, height) for n, d in dirs.items()}
    if ambiguous:
        capacity["mx"] = 0  # its slot is too close to the bent p1 train
    chosen = None
    for attempt in range(max_seeds):
        rng = random.Random(seed * 1000 + attempt)
        state = rules.new_round(players, options, 0, mode=SIMULATION, seed=seed * 1000 + attempt)
        recorded: list[tuple[Move, int]] = []
        while len(recorded) < plays:
            legal = [m for m in rules.legal_moves(state) if m.kind == "play"
                     and len(state.trains[m.target].tiles) < capacity[m.target]]
            if ambiguous and not recorded:
                legal = [m for m in legal if m.target == "p1"]
            if not legal:
                break
            move = legal[rng.randrange(len(legal))]
            recorded.append((move, state.current, state.trains[move.target].open_end))
            rules.apply(state, move)
        if len(recorded) == plays:
            chosen = recorded
            break
    if chosen is None:
        raise ValueError(f"no round with {plays} plays fits this frame; use fewer plays")
    spec = VideoSpec(width=width, height=height, tile_width=tw, fps=fps, seed=seed)
    engine = options_engine(rules, players, options)
    initial = [Placement((engine, engine), centre, 0.0)]
    actions: list[Action] = []
    counts = {n: 0 for n in names}
    placed: list[tuple[str, int]] = []  # (tile text, index in the video's tile list)
    questions, problems = [], []
    for k, (move, seat, open_end) in enumerate(chosen):
        tile = move.tile
        far = tile.other_end(open_end)
        pos, ang = _train_pose(centre, dirs[move.target], counts[move.target], tw, hub_radius, gap)
        counts[move.target] += 1
        actions.append(Action("place", Placement((open_end, far), pos, ang),
                              seat=seat_point(seat, players, width, height), label=str(move)))
        placed.append((str(tile), len(initial) + k))
        if ambiguous and k == 0:
            questions.append({"tile": str(tile), "answer": str(move),
                              "candidates": sorted([f"{tile}>p1", f"{tile}>mx"])})
        if nudge and k == plays // 2 and k >= 2:
            text, index = placed[k - 2]
            actions.append(Action("nudge", index=index, offset=(0.12 * tw, -0.1 * tw, 3.0),
                                  seat=seat_point(seat, players, width, height),
                                  label=f"nudge {text}"))
    if vanish:
        text, index = placed[0]
        actions.append(Action("remove", index=index, seat=seat_point(0, players, width, height),
                              label=f"remove {text}"))
        problems.append({"kind": "vanished", "tile": text})
    slots = {}
    for n in names:
        a = angles[n]
        d = _unit(a)
        p = np.array(centre) + d * (hub_radius + tw)
        slots[n] = (float(p[0]), float(p[1]))
    calibration = Calibration(hub=centre, slots=slots)
    return Script("mexican-train", players, {"set": options["set"]}, spec, initial, actions,
                  calibration, [str(m) for m, _, _ in chosen], questions, problems)


def options_engine(rules, players: int, options: dict) -> int:
    return int(rules.round_plan(players, options)[0])


#: The Chicken Foot script: two opening lines, a double that grows a three-toed foot, then
#: plays on a toe and on the first line. (move, line direction key, toe index)
CHICKEN_FOOT_MOVES = ["9-3>c", "9-5>c", "5-5>l2", "5-1>l2", "5-2>l2", "5-4>l2", "6-4>l5",
                      "3-0>l1"]


def chicken_foot(*, width: int = 1280, height: int = 720, tile_width: float = 40.0,
                 fps: float = 10.0, seed: int = 0) -> Script:
    """Two players on a double-9 set: lines right (l1) and left (l2) of the 9-9, a 5-5
    across the end of l2 with three toes (l3, l4, l5), then 6-4 on the l5 toe and 3-0 on l1."""
    rules = get_rules("chicken-foot")
    players = 2
    options = rules.resolve_options(players, {"set": "double-9"})
    state = rules.new_round(players, options, 0, mode=TABLE)
    tw = tile_width
    gap = 0.15 * tw
    centre = np.array([width / 2, height / 2])
    right, left = np.array([1.0, 0.0]), np.array([-1.0, 0.0])
    initial = [Placement((9, 9), (float(centre[0]), float(centre[1])), 0.0)]
    # where each line's next tile starts (near end point) and its direction
    heads: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # line -> (next near end, direction)
    actions = []
    toes: list[tuple[np.ndarray, np.ndarray]] = []
    for text in CHICKEN_FOOT_MOVES:
        seat = state.current
        lines_before = len(state.lines)
        open_before = state.lines[text.split(">")[1]].open_end if ">l" in text else state.centre
        move = rules.play(state, text)
        tile, target = move.tile, move.target
        seat_at = seat_point(seat, players, width, height)
        if len(state.lines) > lines_before:  # a new line: from the centre or a toe of a foot
            name = f"l{len(state.lines)}"
            if target == "c":
                d = right if name == "l1" else left
                start = centre + d * (tw / 2 + gap)
            else:
                start, d = toes.pop(0)
            pair = (open_before, state.lines[name].open_end)
        elif tile.is_double and state.foot is not None and state.foot[0] == target:
            head, d = heads[target]
            n = np.array([-d[1], d[0]])
            pos = head + d * (tw / 2)
            actions.append(Action("place", Placement((tile[0], tile[1]), tuple(pos),
                                                     axis_angle(tuple(n))),
                                  seat=seat_at, label=text))
            far_side = pos + d * (tw / 2 + gap)
            toes = [(far_side + n * s, _rotate(d, a)) for s, a in
                    ((-1.05 * tw, -40.0), (0.0, 0.0), (1.05 * tw, 40.0))]
            continue
        else:  # a plain play at a line's end
            name = target
            start, d = heads[target]
            pair = (open_before, state.lines[name].open_end)
        pos = start + d * tw
        heads[name] = (pos + d * (tw + gap), d)
        actions.append(Action("place", Placement(pair, (float(pos[0]), float(pos[1])),
                                                 axis_angle(tuple(d))),
                              seat=seat_at, label=text))
    spec = VideoSpec(width=width, height=height, tile_width=tw, fps=fps, seed=seed,
                     background="wood")
    calibration = Calibration(hub=(float(centre[0]), float(centre[1])), slots={})
    return Script("chicken-foot", players, {"set": "double-9"}, spec, initial, actions,
                  calibration, list(CHICKEN_FOOT_MOVES))


def _rotate(d: np.ndarray, degrees: float) -> np.ndarray:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    return np.array([c * d[0] - s * d[1], s * d[0] + c * d[1]])
