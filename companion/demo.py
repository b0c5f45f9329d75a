"""Realistic traffic for a table: a simulated round's moves posted as if seen at the table.

Used by ``serve --demo`` (a match in progress), the bench and the tests. The round is dealt
in simulation mode with the same public start the table-mode session uses, so each move is
legal at the table too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .games import SIMULATION, get_rules
from .games.match import random_playout
from .service import Tables

DEMO_PLAYERS = ["Ann", "Ben", "Cat", "Dan"]


@dataclass
class SimulatedRound:
    moves: list[str]
    hands: dict[str, list[str]]  # what each player shows at the end: slot -> tiles


def simulated_round(game: str, players: int, options: dict, round_index: int,
                    seed: int) -> SimulatedRound:
    """Moves of a random legal round and the hands left at its end."""
    rules = get_rules(game)
    state = rules.new_round(players, options, round_index, mode=SIMULATION, seed=seed)
    random_playout(rules, state, random.Random(seed))
    hands = {f"p{seat + 1}": [str(t) for t in hand] for seat, hand in enumerate(state.hands)
             if hand}
    return SimulatedRound([str(m) for m in state.moves], hands)


def seed_demo(tables: Tables, seed: int = 7, name: str = "Demo table") -> int:
    """A demo table: Mexican Train, round 1 finished, round 2 part-played. Returns its id."""
    for info in tables.store.tables():
        if info["name"] == name:
            return info["id"]
    table_id = tables.store.create_table(name)

    def run(command):
        tables.execute(table_id, command, source="system")

    run(lambda s: s.command_start("mexican-train", {}, DEMO_PLAYERS))
    session = tables.session(table_id)
    options = session.match.options
    first = simulated_round("mexican-train", len(DEMO_PLAYERS), options, 0, seed)
    for text in first.moves:
        run(lambda s, text=text: s.command_move(text))
    run(lambda s: s.command_finish(first.hands))
    second = simulated_round("mexican-train", len(DEMO_PLAYERS), options, 1, seed + 1)
    for text in second.moves[: max(len(second.moves) // 3, 6)]:
        run(lambda s, text=text: s.command_move(text))
    return table_id
