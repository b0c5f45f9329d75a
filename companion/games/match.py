"""A match: rounds in the game's order, round scores, cumulative totals, winners."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .base import SIMULATION, TABLE, GameState, Rules
from .moves import Move


@dataclass
class RoundRecord:
    engine: object
    scores: list[int]
    ended: str
    moves: list[str] = field(default_factory=list)


@dataclass
class MatchRecord:
    game: str
    options: dict
    players: int
    rounds: list[RoundRecord] = field(default_factory=list)

    def totals(self) -> list[int]:
        totals = [0] * self.players
        for record in self.rounds:
            for seat, score in enumerate(record.scores):
                totals[seat] += score
        return totals

    def to_json(self, rules: Rules) -> dict:
        totals = self.totals()
        return {
            "game": self.game,
            "options": self.options,
            "rounds": [
                {"engine": str(r.engine), "scores": r.scores, "ended": r.ended} for r in self.rounds
            ],
            "totals": totals,
            "winners": rules.winners(totals),
        }


def random_playout(rules: Rules, state: GameState, rng: random.Random, max_moves: int = 5000) -> None:
    """Play random legal moves until the round ends (simulation mode)."""
    for _ in range(max_moves):
        if rules.is_round_over(state):
            return
        moves = rules.legal_moves(state)
        if not moves:
            raise RuntimeError(f"{rules.name}: no legal move in a round that is not over")
        rules.apply(state, moves[rng.randrange(len(moves))] if len(moves) > 1 else moves[0])
    raise RuntimeError(f"{rules.name}: round did not end within {max_moves} moves")


def play_random_match(
    rules: Rules, players: int, options: dict | None = None, seed: int = 0, keep_moves: bool = False
) -> MatchRecord:
    """A whole match with random legal play; deterministic for a seed."""
    options = rules.resolve_options(players, options)
    rng = random.Random(seed)
    record = MatchRecord(rules.name, options, players)
    plan = rules.round_plan(players, options)
    round_index = 0
    previous: GameState | None = None
    while not rules.match_over(players, options, record.totals(), round_index):
        state = rules.new_round(
            players, options, round_index, mode=SIMULATION, seed=rng.randrange(2**32),
            previous=previous,
        )
        random_playout(rules, state, rng)
        result = rules.round_result(state)
        record.rounds.append(
            RoundRecord(
                engine=f"{plan[round_index]}-{plan[round_index]}" if plan else round_index + 1,
                scores=result.scores,
                ended=result.ended,
                moves=[str(m) for m in state.moves] if keep_moves else [],
            )
        )
        previous = state
        round_index += 1
    return record


def table_replay(rules: Rules, state: GameState) -> GameState:
    """Replay a simulated round's moves on a table-mode round built from its public start."""
    table = rules.new_round(
        state.players, state.options, state.round_index, mode=TABLE, **state.setup
    )
    for move in state.moves:
        rules.play(table, Move.parse(str(move)))
    return table
