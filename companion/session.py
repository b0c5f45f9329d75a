"""Session glue (pure: no Flask, no SQL): a table's state is the replay of its event log.

``TableSession.apply(event)`` folds one committed event into the state; the ``command_*``
methods check a request against the rules and return the event to append, leaving the
state unchanged (DESIGN.md §3). Written once against the ``Rules`` interface, so every
registered game works the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .games import (
    TABLE,
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Tile,
    get_rules,
)
from .games.base import GameState, Rules
from .pipsum import parse_pip_sum

MAX_NAME = 40
MAX_REASON = 200


class CommandError(Exception):
    """A refused request: HTTP status, error code, sentence, and the rule id when a rule
    refused it."""

    def __init__(self, error: str, message: str, status: int = 422, rule: str | None = None,
                 **extra: Any):
        super().__init__(message)
        self.error = error
        self.message = message
        self.status = status
        self.rule = rule
        self.extra = extra

    def to_json(self) -> dict:
        body = {"error": self.error, "message": self.message}
        if self.rule:
            body["rule"] = self.rule
        body.update(self.extra)
        return body


def move_refusal(exc: Exception) -> CommandError:
    """Translate the rules core's error trio into a 422 refusal."""
    if isinstance(exc, IllegalMoveError):
        return CommandError("illegal_move", str(exc), rule=exc.rule, sentence=exc.sentence)
    if isinstance(exc, AmbiguousMoveError):
        return CommandError("ambiguous_move", str(exc),
                            candidates=[str(c) for c in exc.candidates])
    if isinstance(exc, InvalidMoveError):
        return CommandError("invalid_move", str(exc))
    return CommandError("invalid", str(exc))


def slot(seat: int) -> str:
    return f"p{seat + 1}"


def read_seat(value: Any, players: int, what: str = "player") -> int:
    """``"p2"`` or the 0-based int 1 -> 1; CommandError otherwise."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, str) and value.strip().lower().startswith("p") and value[1:].isdigit():
        seat = int(value.strip()[1:]) - 1
    elif isinstance(value, int):
        seat = value
    else:
        raise CommandError("invalid", f"{what} must be a slot like p2 or a seat number from 0")
    if not 0 <= seat < players:
        raise CommandError("invalid", f"there is no {what} {value!r} at this table of {players}")
    return seat


@dataclass
class Match:
    """The match in progress (or just finished) at a table."""

    started_seq: int
    rules: Rules
    options: dict
    players: int
    plan: list
    round_index: int = 0
    state: GameState | None = None
    moves: list[dict] = field(default_factory=list)  # this round's effective moves
    results: list[dict] = field(default_factory=list)
    over: bool = False

    def totals(self) -> list[int]:
        totals = [0] * self.players
        for result in self.results:
            for seat, score in enumerate(result["scores"]):
                totals[seat] += score
        return totals


class TableSession:
    """One table: seats, the match, the round state, the score sheet, built by replay."""

    def __init__(self, table_id: int, name: str = ""):
        self.table_id = table_id
        self.name = name
        self.seq = 0
        self.names: list[str] = []
        self.match: Match | None = None
        self.last_refusal: dict | None = None
        self.status: dict[str, Any] = {}
        self.problems: list[str] = []  # replay trouble (an engine that changed its mind)
        self.version = 0  # bumped by changes outside the log (refusal, status)
        self._view: tuple[tuple[int, int], dict] | None = None

    # -- folding events -----------------------------------------------------------------
    def apply(self, event: dict, checked: bool = True) -> None:
        """Fold one committed event (``{"seq", "kind", "payload", ...}``) into the state."""
        kind, p = event["kind"], event["payload"]
        handler = getattr(self, "_on_" + kind.replace(".", "_"), None)
        if handler is not None:
            handler(event["seq"], p, checked)
        self.seq = event["seq"]

    def _on_players_seated(self, seq: int, p: dict, checked: bool) -> None:
        self.names = list(p["players"])

    def _on_match_started(self, seq: int, p: dict, checked: bool) -> None:
        rules = get_rules(p["game"])
        self.names = list(p.get("names") or self.names)
        match = Match(seq, rules, p["options"], p["players"],
                      rules.round_plan(p["players"], p["options"]))
        self.match = match
        self._start_round(match, p.get("setup") or {})

    def _start_round(self, match: Match, setup: dict, previous=None) -> None:
        match.state = match.rules.new_round(match.players, match.options, match.round_index,
                                            mode=TABLE, previous=previous, **setup)
        match.moves = []

    def _on_move(self, seq: int, p: dict, checked: bool) -> None:
        match = self.match
        move = Move.parse(p["move"])
        if checked:
            try:
                match.rules.play(match.state, move)
            except ValueError as exc:  # the log is the fact; keep going, say so
                self.problems.append(f"event {seq}: {p['move']} replayed unchecked: {exc}")
                match.rules.apply(match.state, move)
        else:
            match.rules.apply(match.state, move)
        match.moves.append({"seq": seq, "move": p["move"], "seat": p.get("seat")})

    def _on_undo(self, seq: int, p: dict, checked: bool) -> None:
        self.match.rules.undo(self.match.state)
        self.match.moves.pop()

    def _on_tile_fixed(self, seq: int, p: dict, checked: bool) -> None:
        match = self.match
        moves = [dict(m, move=p["move"]) if m["seq"] == p["move_seq"] else m
                 for m in match.moves]
        match.state = self._rebuilt(match, moves, strict=False)
        match.moves = moves

    def _on_round_finished(self, seq: int, p: dict, checked: bool) -> None:
        match = self.match
        match.results.append(dict(p, seq=seq, edits=[]))
        previous = match.state
        match.round_index += 1
        if match.rules.match_over(match.players, match.options, match.totals(),
                                  match.round_index):
            match.over = True
            match.state = None
            match.moves = []
        else:
            self._start_round(match, p.get("next_setup") or {}, previous)

    def _on_score_edited(self, seq: int, p: dict, checked: bool) -> None:
        result = self.match.results[p["round"]]
        result["scores"] = list(p["scores"])
        result["edits"].append({"seq": seq, "seat": p["seat"], "old": p["old"],
                                "score": p["score"], "reason": p["reason"]})

    def _rebuilt(self, match: Match, moves: list[dict], strict: bool = True) -> GameState:
        """A fresh round state with ``moves`` replayed (a corrected tile, say)."""
        setup = dict(match.state.setup) if match.state is not None else {}
        state = match.rules.new_round(match.players, match.options, match.round_index,
                                      mode=TABLE, **setup)
        for entry in moves:
            try:
                match.rules.play(state, entry["move"])
            except ValueError as exc:
                if strict:
                    raise
                self.problems.append(f"event {entry['seq']}: {entry['move']} after a fix: {exc}")
                match.rules.apply(state, Move.parse(entry["move"]))
        return state

    # -- commands: check, then say which event to append -------------------------------
    def command_seat(self, names: Any) -> tuple[str, dict]:
        if self.match is not None and not self.match.over:
            raise CommandError("match_in_progress",
                               "Players cannot change seats while a match is in progress.")
        return "players.seated", {"players": clean_names(names)}

    def command_start(self, game: Any, options: Any, names: Any = None,
                      starter: Any = None, setup: Any = None) -> tuple[str, dict]:
        if self.match is not None and not self.match.over:
            raise CommandError("match_in_progress",
                               "A match is already in progress at this table.")
        if not isinstance(game, str):
            raise CommandError("invalid", "game must be a name like mexican-train")
        try:
            rules = get_rules(game)
        except ValueError as exc:
            raise CommandError("unknown_game", str(exc)) from None
        seated = clean_names(names) if names is not None else list(self.names)
        if not seated:
            raise CommandError("no_players", "Seat the players first (or send players).")
        if options is not None and not isinstance(options, dict):
            raise CommandError("invalid", "options must be an object like {\"double_blank\": 0}")
        try:
            resolved = rules.resolve_options(len(seated), options or {})
        except ValueError as exc:
            raise CommandError("invalid_options", str(exc)) from None
        setup = read_setup(setup, starter, len(seated))
        check_setup(rules, len(seated), resolved, 0, setup)
        payload = {"game": rules.name, "options": resolved, "players": len(seated),
                   "names": seated, "setup": setup}
        return "match.started", payload

    def _round(self) -> Match:
        match = self.match
        if match is None:
            raise CommandError("no_match", "No match has been started at this table.")
        if match.over or match.state is None:
            raise CommandError("match_over", "The match is over; start a new one.")
        return match

    def command_move(self, text: Any, player: Any = None) -> tuple[str, dict]:
        match = self._round()
        if not isinstance(text, str) or not text.strip():
            raise CommandError("invalid_move", "move must be text like 6-4>p2, draw or pass")
        state, rules = match.state, match.rules
        current = rules.describe(state).get("current")
        try:
            move = rules.parse_move(state, text)
            if player is not None and move.kind != "announce":
                seat = read_seat(player, match.players)
                if current is not None and seat != current and not rules.is_round_over(state):
                    rule = rules.turn_rule
                    raise IllegalMoveError(
                        rule, f"It is {self.seat_name(current)}'s turn, not "
                              f"{self.seat_name(seat)}'s.")
            move = rules.play(state, move)
        except ValueError as exc:
            raise move_refusal(exc) from None
        rules.undo(state)  # checked only; the committed event applies it
        return "move", {"move": str(move), "seat": current, "round": match.round_index}

    def command_undo(self) -> tuple[str, dict]:
        match = self._round()
        if not match.moves:
            raise CommandError("illegal_move", "There is nothing to undo in this round. (UNDO)",
                               rule="UNDO", sentence="There is nothing to undo in this round.")
        last = match.moves[-1]
        return "undo", {"undone": last["move"], "undone_seq": last["seq"],
                        "round": match.round_index}

    def command_fix(self, move_seq: Any, text: Any) -> tuple[str, dict]:
        match = self._round()
        if isinstance(move_seq, bool) or not isinstance(move_seq, int):
            raise CommandError("invalid", "move_seq must be the seq of a move in this round")
        old = next((m for m in match.moves if m["seq"] == move_seq), None)
        if old is None:
            raise CommandError("unknown_move", f"No move with seq {move_seq} stands in this round.")
        if not isinstance(text, str) or not text.strip():
            raise CommandError("invalid_move", "move must be a tile like 6-3 or a move like 6-3>p2")
        new = text.strip().lower()
        old_move = Move.parse(old["move"])
        if ">" not in new and old_move.kind == "play" and old_move.target:
            new = f"{new}>{old_move.target}"
        try:
            new_move = Move.parse(new)
        except ValueError as exc:
            raise move_refusal(exc) from None
        moves = [dict(m, move=str(new_move)) if m["seq"] == move_seq else m for m in match.moves]
        try:
            self._rebuilt(match, moves, strict=True)
        except ValueError as exc:
            raise move_refusal(exc) from None
        return "tile.fixed", {"move_seq": move_seq, "old": old["move"], "move": str(new_move),
                              "round": match.round_index}

    def round_preview(self, hands: Any) -> dict:
        """Scores of the finished round from what each player reveals, with cross-checks."""
        match = self._round()
        rules, state = match.rules, match.state
        if not rules.is_round_over(state):
            raise CommandError("round_not_over", "The round is not over yet: keep playing "
                               "until someone goes out or nobody can play.")
        if not isinstance(hands, dict):
            raise CommandError("invalid", "hands must be an object like "
                               "{\"p2\": {\"tiles\": [\"6-4\"]}, \"p3\": {\"pips\": \"10+15\"}}")
        revealed, entered, problems = {}, {}, []
        seen: dict[Tile, int] = {}
        max_pips = getattr(state, "max_pips", None)
        for key, value in hands.items():
            seat = read_seat(key, match.players)
            if isinstance(value, list):
                value = {"tiles": value}
            elif isinstance(value, (str, int)) and not isinstance(value, bool):
                value = {"pips": value}
            if not isinstance(value, dict) or not ({"tiles", "pips"} & set(value)):
                raise CommandError("invalid", f"{slot(seat)}: give tiles (a list) or pips "
                                   "(a number or a sum like 10+15+8)")
            if "tiles" in value and value["tiles"] is not None:
                tiles = read_tiles(value["tiles"], slot(seat), max_pips)
                for tile in tiles:
                    if tile in state.played:
                        problems.append(f"{tile} ({slot(seat)}) is already on the table.")
                    if tile in seen:
                        problems.append(f"{tile} was revealed twice ({slot(seen[tile])} and "
                                        f"{slot(seat)}).")
                    seen.setdefault(tile, seat)
                expected = state.hand_sizes[seat]
                if len(tiles) != expected:
                    problems.append(f"{slot(seat)} should hold {expected} tiles; "
                                    f"{len(tiles)} were entered.")
                revealed[seat] = tiles
                entered[slot(seat)] = {"tiles": [str(t) for t in tiles]}
            else:
                try:
                    pips = parse_pip_sum(value["pips"])
                except ValueError as exc:
                    raise CommandError("invalid_pips", f"{slot(seat)}: {exc}") from None
                revealed[seat] = pips
                entered[slot(seat)] = {"pips": pips, "expr": str(value["pips"])}
        try:
            result = rules.round_result(state, revealed=revealed)
        except ValueError as exc:
            raise CommandError("hands_needed", str(exc)) from None
        engine = match.plan[match.round_index] if match.plan else match.round_index
        return {"match": match.started_seq, "round": match.round_index,
                "engine": str(Tile(engine, engine)) if isinstance(engine, int) else str(engine),
                "revealed": entered, "scores": list(result.scores), "ended": result.ended,
                "winners": list(result.winners), "hand_pips": list(result.hand_pips),
                "problems": problems}

    def command_finish(self, hands: Any, starter: Any = None,
                       setup: Any = None) -> tuple[str, dict]:
        """Finish the round; ``setup``/``starter`` are the next round's public start facts
        (games like Doubles need them at a real table)."""
        payload = self.round_preview(hands)
        match = self.match
        next_setup = read_setup(setup, starter, match.players)
        totals = [t + s for t, s in zip(match.totals(), payload["scores"])]
        if not match.rules.match_over(match.players, match.options, totals,
                                      match.round_index + 1):
            check_setup(match.rules, match.players, match.options, match.round_index + 1,
                        next_setup, previous=match.state)
        payload["next_setup"] = next_setup
        return "round.finished", payload

    def command_edit_score(self, round_index: Any, player: Any, score: Any,
                           reason: Any) -> tuple[str, dict]:
        match = self.match
        if match is None or not match.results:
            raise CommandError("no_round", "No finished round to edit yet.")
        if isinstance(round_index, bool) or not isinstance(round_index, int) \
                or not 0 <= round_index < len(match.results):
            raise CommandError("no_round", f"round must be 0..{len(match.results) - 1}")
        seat = read_seat(player, match.players)
        if isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= 10000:
            raise CommandError("invalid", "score must be a whole number from 0 to 10000")
        if not isinstance(reason, str) or not reason.strip():
            raise CommandError("reason_needed", "Say why the score is edited (reason).")
        if len(reason) > MAX_REASON:
            raise CommandError("invalid", f"reason is longer than {MAX_REASON} characters")
        scores = list(match.results[round_index]["scores"])
        old, scores[seat] = scores[seat], score
        return "score.edited", {"match": match.started_seq, "round": round_index, "seat": seat,
                                "old": old, "score": score, "scores": scores,
                                "reason": reason.strip(),
                                "ended": match.results[round_index]["ended"]}

    # -- views --------------------------------------------------------------------------
    def seat_name(self, seat: int) -> str:
        if 0 <= seat < len(self.names):
            return f"{self.names[seat]} ({slot(seat)})"
        return slot(seat)

    def refuse(self, error: CommandError, move: Any, source: str) -> dict:
        """Remember the last refusal (shown on the tablet until the next event)."""
        self.version += 1
        self.last_refusal = {"seq": self.seq, "time": round(time.time(), 3),
                             "error": error.error, "rule": error.rule, "message": error.message,
                             "move": move if isinstance(move, str) else None, "source": source}
        return self.last_refusal

    def view(self) -> dict:
        """The public state of the table: what the tablet, the hub and the admin page show
        (computed once per change; treat it as read-only)."""
        key = (self.seq, self.version)
        if self._view is None or self._view[0] != key:
            self._view = (key, self._build_view())
        return self._view[1]

    def _build_view(self) -> dict:
        match = self.match
        view: dict[str, Any] = {
            "id": self.table_id, "name": self.name, "seq": self.seq,
            "players": [{"seat": i, "slot": slot(i), "name": n} for i, n in enumerate(self.names)],
            "match": None, "round": None, "scores": None, "moves": [],
            "last_refusal": self.last_refusal, "status": dict(self.status),
            "problems": self.problems[-5:],
        }
        if match is None:
            return view
        totals = match.totals()
        view["match"] = {
            "started_seq": match.started_seq, "game": match.rules.name,
            "title": match.rules.title, "options": match.options, "players": match.players,
            "plan": [str(Tile(e, e)) if isinstance(e, int) else str(e) for e in match.plan],
            "round_index": match.round_index, "over": match.over,
            "winners": match.rules.winners(totals) if match.over else [],
        }
        view["scores"] = {
            "rounds": [{k: r[k] for k in ("round", "engine", "scores", "ended", "winners",
                                          "problems", "edits", "revealed")}
                       for r in match.results],
            "totals": totals,
            "leaders": match.rules.winners(totals) if match.results else [],
        }
        if match.state is not None:
            round_view = match.rules.describe(match.state)
            round_view["can_undo"] = bool(match.moves)
            if round_view.get("round_over"):
                round_view["unseen_tiles"] = unseen(match.state)
            view["round"] = round_view
            view["moves"] = match.moves[-12:]
        return view


def read_setup(setup: Any, starter: Any, players: int) -> dict:
    """Public start facts of a round (``{"starter": 2, "opening": "6-6"}``), checked lightly."""
    if setup is None:
        setup = {}
    if not isinstance(setup, dict) or len(setup) > 8 or not all(
            isinstance(k, str) and (v is None or isinstance(v, (str, int, float, list)))
            for k, v in setup.items()):
        raise CommandError("invalid", "setup must be a small object like {\"starter\": 1}")
    setup = dict(setup)
    if starter is not None:
        setup["starter"] = starter
    if "starter" in setup:
        setup["starter"] = read_seat(setup["starter"], players, "starter")
    return setup


def check_setup(rules: Rules, players: int, options: dict, round_index: int, setup: dict,
                previous: GameState | None = None) -> None:
    """Refuse a start the engine cannot set up at a real table (say, a missing opening)."""
    try:
        rules.new_round(players, options, round_index, mode=TABLE, previous=previous, **setup)
    except (KeyError, TypeError, ValueError) as exc:
        detail = f"{exc.args[0]!r} is needed" if isinstance(exc, KeyError) else str(exc)
        raise CommandError("setup_needed", f"{rules.title} cannot start this round at the "
                           f"table: {detail}; send it in setup.") from None


def clean_names(names: Any) -> list[str]:
    if not isinstance(names, list) or not names:
        raise CommandError("invalid", "players must be a list of names like [\"Ann\", \"Ben\"]")
    cleaned = []
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise CommandError("invalid", "every player needs a name")
        if len(name.strip()) > MAX_NAME:
            raise CommandError("invalid", f"a name is longer than {MAX_NAME} characters")
        cleaned.append(name.strip())
    if len(cleaned) > 12:
        raise CommandError("invalid", "at most 12 players sit at one table")
    return cleaned


def read_tiles(values: Any, who: str, max_pips: int | None) -> list[Tile]:
    if isinstance(values, str):
        values = values.replace(",", " ").split()
    if not isinstance(values, list) or len(values) > 60:
        raise CommandError("invalid", f"{who}: tiles must be a list like [\"6-4\", \"0-0\"]")
    tiles = []
    for value in values:
        try:
            tile = Tile.parse(str(value))
        except ValueError as exc:
            raise CommandError("invalid_tile", f"{who}: {exc}") from None
        if max_pips is not None and tile.high > max_pips:
            raise CommandError("invalid_tile", f"{who}: {tile} is not in this set "
                               f"(highest half is {max_pips})")
        tiles.append(tile)
    return tiles


def unseen(state: GameState) -> list[str]:
    """Tiles of the set not on the table: what the round-end tile picker offers."""
    max_pips = getattr(state, "max_pips", None)
    if max_pips is None:
        return []
    return [str(Tile(a, b)) for a in range(max_pips, -1, -1) for b in range(a, -1, -1)
            if Tile(a, b) not in state.played]
