"""The one small interface every game implements (DESIGN.md §3), plus shared state pieces.

A ``Rules`` object is stateless: options are data in the state. ``play`` checks a move and
applies it (raising ``IllegalMoveError`` with the rule id and leaving the state unchanged);
``apply`` applies without checks; ``undo`` pops the snapshot stack (STYLE.md 4).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from .moves import Move
from .tiles import Tile, pip_total

SIMULATION = "simulation"
TABLE = "table"
MODES = (SIMULATION, TABLE)


@dataclass(frozen=True)
class OptionSpec:
    """One house-rule option: its id, default, how to read a value, the rule it changes."""

    key: str
    default: Any
    parse: Callable[[Any], Any]
    doc: str
    rule: str
    choices: tuple = ()

    def read(self, value: Any) -> Any:
        try:
            parsed = self.parse(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"option {self.key}={value!r} is not valid: {exc}") from None
        if self.choices and parsed not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise ValueError(f"option {self.key}={value!r} is not one of: {allowed}")
        return parsed


def choice(*values: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in values:
            raise ValueError(f"expected one of {', '.join(values)}")
        return text

    return parse


@dataclass
class RoundResult:
    """Scores of one finished round: one number per seat, how it ended, who won it."""

    scores: list[int]
    ended: str  # "out" | "blocked" | game-specific words
    winners: list[int]
    hand_pips: list[int | None] = field(default_factory=list)
    details: dict = field(default_factory=dict)


@dataclass(kw_only=True)
class GameState:
    """What every game's round state holds. Hands and boneyard are None in table mode."""

    game: str
    options: dict
    players: int
    mode: str
    round_index: int
    current: int
    hand_sizes: list[int]
    hands: list[list[Tile]] | None = None
    boneyard: list[Tile] | None = None
    boneyard_count: int = 0
    played: set[Tile] = field(default_factory=set)
    history: list[tuple[Move, Any]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    setup: dict = field(default_factory=dict)  # public start facts: new_round(mode=TABLE, **setup)
    claims: list = field(default_factory=list)  # table mode: (move index, seat, draw|pass, ends)

    @property
    def simulated(self) -> bool:
        return self.mode == SIMULATION

    @property
    def moves(self) -> list[Move]:
        return [move for move, _ in self.history]

    def hand(self, seat: int) -> list[Tile]:
        if self.hands is None:
            raise ValueError("hands are hidden in table mode")
        return self.hands[seat]

    def snapshot(self) -> Any:
        """Copy of every field a move can change (subclasses extend)."""
        return (
            self.current,
            list(self.hand_sizes),
            [list(h) for h in self.hands] if self.hands is not None else None,
            list(self.boneyard) if self.boneyard is not None else None,
            self.boneyard_count,
            set(self.played),
            list(self.flags),
            list(self.claims),
        )

    def restore(self, snap: Any) -> None:
        (
            self.current,
            self.hand_sizes,
            self.hands,
            self.boneyard,
            self.boneyard_count,
            self.played,
            self.flags,
            self.claims,
        ) = snap


class Rules(ABC):
    """A game's rules: stateless, options as data, found by name or alias in the registry."""

    name: str = ""
    aliases: tuple[str, ...] = ()
    title: str = ""
    min_players: int = 2
    max_players: int = 8
    lower_total_wins: bool = True
    round_end_rule: str = "END"  # the game's rule id that ends a round (e.g. MT-19)
    turn_rule: str = "TURN"  # the game's rule id for whose turn it is (e.g. MT-7)
    option_specs: tuple[OptionSpec, ...] = ()

    # -- options and match plan -------------------------------------------------------
    def resolve_options(self, players: int, overrides: dict | None = None) -> dict:
        """Defaults plus validated overrides; raise ValueError naming a bad key or value."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.title} is for {self.min_players}-{self.max_players} players, not {players}"
            )
        specs = {spec.key: spec for spec in self.option_specs}
        options = {key: spec.default for key, spec in specs.items()}
        for key, value in (overrides or {}).items():
            if key not in specs:
                raise ValueError(f"unknown option {key!r} for {self.name}; options: {', '.join(specs)}")
            options[key] = specs[key].read(value)
        self.check_options(players, options)
        return options

    def check_options(self, players: int, options: dict) -> None:
        """Cross-option checks (e.g. a deal that fits the set); raise ValueError."""

    @abstractmethod
    def round_plan(self, players: int, options: dict) -> list[Any]:
        """What each round starts from (e.g. the engine double), in order; [] = open-ended."""

    def match_over(self, players: int, options: dict, totals: list[int], rounds: int) -> bool:
        plan = self.round_plan(players, options)
        return bool(plan) and rounds >= len(plan)

    def winners(self, totals: Sequence[int]) -> list[int]:
        """Seats with the best total; ties share first place."""
        best = min(totals) if self.lower_total_wins else max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    # -- a round ----------------------------------------------------------------------
    @abstractmethod
    def new_round(
        self,
        players: int,
        options: dict,
        round_index: int = 0,
        *,
        mode: str = SIMULATION,
        seed: int | None = None,
        previous: GameState | None = None,
        **table: Any,
    ) -> GameState:
        """Deal (simulation, from ``seed``) or set up a table-mode round from public facts.

        ``previous`` is the last round (who started it, etc.). A simulated round records in
        ``state.setup`` the keyword arguments that rebuild its start in table mode.
        """

    @abstractmethod
    def legal_moves(self, state: GameState) -> list[Move]:
        """Every legal move now, each once. In table mode: those consistent with public facts."""

    @abstractmethod
    def check(self, state: GameState, move: Move) -> None:
        """Raise IllegalMoveError (rule id + sentence) when ``move`` is not legal now."""

    @abstractmethod
    def _apply(self, state: GameState, move: Move) -> None:
        """Change the state for a legal move (no checks)."""

    @abstractmethod
    def is_round_over(self, state: GameState) -> bool: ...

    @abstractmethod
    def round_result(
        self, state: GameState, revealed: dict[int, list[Tile]] | None = None
    ) -> RoundResult:
        """Scores of a finished round; in table mode ``revealed`` gives the hands left."""

    def describe(self, state: GameState) -> dict:
        """A JSON-ready public view of the round (what the tablet and hub show)."""
        return {
            "game": state.game,
            "mode": state.mode,
            "round": state.round_index,
            "players": state.players,
            "current": state.current,
            "hand_sizes": list(state.hand_sizes),
            "boneyard_count": state.boneyard_count,
            "round_over": self.is_round_over(state),
            "problems": self.problems(state),
        }

    def problems(self, state: GameState) -> list[str]:
        """Impossible or suspicious observed facts, as sentences (STYLE.md 6)."""
        return list(state.flags)

    # -- shared mechanics -------------------------------------------------------------
    def play(self, state: GameState, move: Move | str) -> Move:
        """Checked play: parse text, check, apply. On refusal the state is unchanged."""
        if isinstance(move, str):
            move = self.parse_move(state, move)
        self.check(state, move)
        self.apply(state, move)
        return move

    def apply(self, state: GameState, move: Move) -> None:
        """Unchecked play, pushed on the undo stack."""
        state.history.append((move, state.snapshot()))
        self._apply(state, move)

    def undo(self, state: GameState) -> Move:
        """Take back the last move; raise IllegalMoveError when there is none."""
        if not state.history:
            raise IllegalMoveError("UNDO", "There is nothing to undo in this round.")
        move, snap = state.history.pop()
        state.restore(snap)
        return move

    def parse_move(self, state: GameState, text: str) -> Move:
        """Read canonical text; a play without a target is completed when exactly one fits."""
        move = Move.parse(text)
        if move.kind == "play" and move.target is None and self.plays_need_target:
            candidates = sorted(
                {m for m in self.legal_moves(state) if m.kind == "play" and m.tile == move.tile},
                key=str,
            )
            if len(candidates) == 1:
                return candidates[0]
            if len(candidates) > 1:
                names = ", ".join(str(c) for c in candidates)
                raise AmbiguousMoveError(f"{move.tile} fits more than one place: {names}", candidates)
            return move  # check() explains why it fits nowhere
        return move

    plays_need_target: bool = True

    def hand_pips(self, tiles: Sequence[Tile], options: dict) -> int:
        """Penalty pips of a hand with the house rules (0-0 value)."""
        return pip_total(tiles, int(options.get("double_blank", 0)))

    def require_turn_holder(self, state: GameState) -> None:
        if self.is_round_over(state):
            raise IllegalMoveError(
                self.round_end_rule, "The round is over; no more moves can be made.")


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise InvalidMoveError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")


def round_end_pips(rules: Rules, state: GameState, revealed) -> list[int]:
    """Penalty pips per seat: from the hands (simulation) or what was revealed (table)."""
    options = state.options
    if state.simulated and not revealed:
        return [rules.hand_pips(hand, options) for hand in state.hands]
    revealed = revealed or {}
    missing = [f"p{s + 1}" for s in range(state.players)
               if s not in revealed and state.hand_sizes[s] > 0]
    if missing:
        raise ValueError(f"the hands of {', '.join(missing)} are needed to score this round")
    pips = []
    for seat in range(state.players):
        hand = revealed.get(seat, [])
        pips.append(hand if isinstance(hand, int) else rules.hand_pips(hand, options))
    return pips


def reveal_problems(state: GameState, revealed: dict | None) -> list[str]:
    """Cross-check hands revealed at round end: a tile on the table or shown twice, a wrong count."""
    found: list[str] = []
    seen: dict = {}
    for seat, hand in sorted((revealed or {}).items()):
        if isinstance(hand, int):
            continue
        if len(hand) != state.hand_sizes[seat]:
            found.append(f"p{seat + 1} showed {len(hand)} tiles but should hold {state.hand_sizes[seat]}.")
        for tile in hand:
            if tile in state.played:
                found.append(f"p{seat + 1} showed {tile}, which is already on the table.")
            elif tile in seen:
                found.append(f"{tile} was shown by both p{seen[tile] + 1} and p{seat + 1}.")
            seen.setdefault(tile, seat)
    return found


def record_claim(state: GameState, kind: str, open_ends: list[tuple[str, int]]) -> None:
    """Table mode: remember a draw or pass (by its 1-based move number) and the usable ends."""
    if not state.simulated:
        state.claims.append((len(state.history), state.current, kind, tuple(open_ends)))


def must_play_breaches(state: GameState, revealed: dict | None, rule: str) -> list[str]:
    """Passes proven wrong by the hands revealed at round end (the player held a tile that fit).

    Only passes after which the player drew no more tiles are judged: every tile revealed at
    the end was then already in their hand.
    """
    found = []
    for index, seat, kind, open_ends in state.claims:
        hand = (revealed or {}).get(seat)
        if kind != "pass" or not isinstance(hand, list):
            continue
        if any(s == seat and k == "draw" and i > index for i, s, k, _ in state.claims):
            continue
        fitting = [(tile, target) for tile in hand for target, end in open_ends if tile.has(end)]
        if fitting:
            tile, target = fitting[0]
            found.append(f"p{seat + 1} passed at move {index} while holding {tile}, "
                         f"which fitted {target} ({rule}).")
    return found
