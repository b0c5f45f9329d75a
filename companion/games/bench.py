"""Speed figures of the rules core, printed one per line as ``name value unit``.

Targets (issue 2): >= 20,000 checked plays/s in table mode on one core; a full 13-round,
8-player double-12 Mexican Train match with random legal play in <= 200 ms (median).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from .base import TABLE
from .match import play_random_match, random_playout
from .registry import game_names, get_rules

TARGET_PLAYS_PER_S = 20_000
TARGET_MATCH_MS = 200


def recorded_rounds(game: str, players: int, count: int) -> list:
    """Simulated rounds whose moves are replayed, checked, in table mode."""
    rules = get_rules(game)
    options = rules.resolve_options(players)
    plan = rules.round_plan(players, options)
    rounds = []
    for seed in range(count):
        state = rules.new_round(players, options, seed % len(plan) if plan else 0, seed=seed)
        random_playout(rules, state, random.Random(seed))
        rounds.append(state)
    return rounds


def checked_plays_per_second(game: str, players: int, rounds: int = 30) -> float:
    rules = get_rules(game)
    recorded = recorded_rounds(game, players, rounds)
    moves = 0
    started = time.perf_counter()
    for state in recorded:
        table = rules.new_round(state.players, state.options, state.round_index, mode=TABLE,
                                **state.setup)
        for move in state.moves:
            rules.play(table, move)
        moves += len(state.moves)
    return moves / (time.perf_counter() - started)


def match_ms(game: str, players: int, options: dict, repeats: int = 15) -> float:
    rules = get_rules(game)
    times = []
    for seed in range(repeats):
        started = time.perf_counter()
        play_random_match(rules, players, options, seed=seed)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def run_bench() -> int:
    failures = []
    for game in game_names():
        rules = get_rules(game)
        players = 4 if rules.min_players <= 4 <= rules.max_players else rules.min_players
        rate = checked_plays_per_second(game, players)
        print(f"{game}.table_checked_plays {rate:.0f} plays/s", flush=True)
        if game in ("mexican-train", "chicken-foot") and rate < TARGET_PLAYS_PER_S:
            failures.append(f"{game} checked plays {rate:.0f}/s < {TARGET_PLAYS_PER_S}")
        ms = match_ms(game, players, {}, repeats=5)
        print(f"{game}.match_{players}p {ms:.1f} ms", flush=True)
    ms = match_ms("mexican-train", 8, {"set": "double-12"})
    print(f"mexican-train.match_13_rounds_8p_double12 {ms:.1f} ms", flush=True)
    if ms > TARGET_MATCH_MS:
        failures.append(f"full 8-player match {ms:.0f} ms > {TARGET_MATCH_MS} ms")
    for failure in failures:
        print(f"FAR OFF TARGET: {failure}", file=sys.stderr)
    return 1 if failures else 0
