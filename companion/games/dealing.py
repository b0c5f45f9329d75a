"""Shared pieces of the line-building games (Mexican Train, Chicken Foot): dealing and ladders."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .tiles import Tile, full_set


def deal(
    max_pips: int, hand_sizes: Sequence[int], rng: random.Random, *, exclude: Tile | None = None
) -> tuple[list[list[Tile]], list[Tile]]:
    """Shuffle a double-N set (without ``exclude``) and deal; returns hands and the boneyard."""
    tiles = [t for t in full_set(max_pips) if t != exclude]
    if sum(hand_sizes) > len(tiles):
        raise ValueError(f"cannot deal {sum(hand_sizes)} tiles from {len(tiles)}")
    rng.shuffle(tiles)
    hands, start = [], 0
    for size in hand_sizes:
        hands.append(tiles[start : start + size])
        start += size
    return hands, tiles[start:]


def parse_ladder(value: object, max_pips: int, short: tuple[int, int] | None = None) -> list[int]:
    """Round schedule: "full" (max..0), "short" (a named short game), "S:C" or "S" (S down)."""
    text = str(value).strip().lower()
    if text == "full":
        return list(range(max_pips, -1, -1))
    if text in ("wg", "short") and short is not None:
        start, count = short
        start = min(start, max_pips)
        return list(range(start, start - count, -1))
    start_text, _, count_text = text.partition(":")
    if not start_text.isdigit() or (count_text and not count_text.isdigit()):
        raise ValueError("write full, wg, or START:COUNT like 12:6")
    start = int(start_text)
    count = int(count_text) if count_text else start + 1
    if start > max_pips or count < 1 or start - count + 1 < 0:
        raise ValueError(f"{text} does not fit a double-{max_pips} set")
    return list(range(start, start - count, -1))


def hand_size_value(value: object) -> str | int:
    """A hand_size option: a table name word, or a positive integer."""
    text = str(value).strip().lower()
    if text.isdigit() and int(text) > 0:
        return int(text)
    if text in ("gr", "wg", "table", "cf"):
        return text
    raise ValueError("write gr, wg or a number of tiles")
