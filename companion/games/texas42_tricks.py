"""Trick-taking pieces of Texas 42 (shared/rules/texas42.md): suits, ranks, counts, bids.

A trump is a number 0-6, ``"doubles"``, ``"follow-me"`` (no trumps), ``"nel-o"`` or
``"sevens"``; ``None`` until it is named (TX-11). A bid is a number of points: 30-41, 42
(1 mark) or 42 per mark (84 = 2 marks).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .errors import InvalidMoveError
from .tiles import Tile, full_set

SUIT_WORDS = ("blanks", "ones", "twos", "threes", "fours", "fives", "sixes")
TRUMP_WORDS = (*SUIT_WORDS, "doubles", "follow-me")
CONTRACT_WORDS = ("nel-o", "sevens")  # TX-18, TX-19: named instead of a trump
TRUMP_ALIASES = {
    **{str(n): word for n, word in enumerate(SUIT_WORDS)},
    **{word[:-1]: word for word in SUIT_WORDS},  # "five" -> "fives"
    "blank": "blanks", "six": "sixes", "no-trumps": "follow-me", "notrumps": "follow-me",
    "followme": "follow-me", "nello": "nel-o", "nelo": "nel-o", "nel-0": "nel-o",
}
COUNT_TILES = {Tile(5, 0): 5, Tile(4, 1): 5, Tile(3, 2): 5, Tile(5, 5): 10, Tile(6, 4): 10}  # TX-5
MIN_BID, MARK = 30, 42  # TX-7, TX-9
PLUNGE_MARKS, PLUNGE_DOUBLES = 4, 4  # TX-20
SPLASH_DOUBLES = 3  # Splash (docs/rules/texas-42.md)
TRICKS = 7  # TX-15


def on_off(value: object) -> bool:
    text = str(value).strip().lower()
    if text in ("1", "true", "on", "yes"):
        return True
    if text in ("0", "false", "off", "no"):
        return False
    raise ValueError("write on or off")


def team(seat: int) -> int:
    return seat % 2


def partner(seat: int) -> int:
    return (seat + 2) % 4


def draw_for_shaker(rng: random.Random) -> int:
    """TX-2: each player draws a tile; the most pips shakes; ties redraw between the tied."""
    seats = list(range(4))
    while len(seats) > 1:
        tiles = rng.sample(full_set(6), len(seats))
        best = max(t.pips for t in tiles)
        seats = [seat for seat, t in zip(seats, tiles) if t.pips == best]
    return seats[0]


def trump_value(word: str) -> int | str:
    """``"fives"`` -> 5; ``"doubles"``, ``"follow-me"``, ``"nel-o"``, ``"sevens"`` stay words."""
    return SUIT_WORDS.index(word) if word in SUIT_WORDS else word


def trump_word(trump: int | str | None) -> str | None:
    return SUIT_WORDS[trump] if isinstance(trump, int) else trump


def suit_name(suit: int | str) -> str:
    return "trumps" if suit == "trump" else SUIT_WORDS[suit]


def is_trump(tile: Tile, trump: int | str | None) -> bool:
    """TX-13: a tile with the trump number (or any double, when doubles are trumps)."""
    if isinstance(trump, int):
        return tile.has(trump)
    return trump == "doubles" and tile.is_double


def led_suit(tile: Tile, trump: int | str | None) -> int | str | None:
    """TX-13: the suit a led tile calls for: "trump", or its higher end. Sevens has no suits."""
    if trump == "sevens":
        return None
    return "trump" if is_trump(tile, trump) else tile.high


def follows(tile: Tile, suit: int | str | None, trump: int | str | None) -> bool:
    """TX-14: does ``tile`` belong to the suit led? (a trump belongs to trumps only)."""
    if suit is None:
        return True
    if suit == "trump":
        return is_trump(tile, trump)
    return not is_trump(tile, trump) and tile.has(suit)


def rank(tile: Tile, suit: int | str, trump: int | str | None) -> int:
    """TX-13: rank within a suit by the other end; the double is the highest (7)."""
    if suit == "trump" and trump == "doubles":
        return tile.high
    number = trump if suit == "trump" else suit
    return 7 if tile.is_double else tile.other_end(number)


def trick_winner(plays: Sequence[tuple[int, Tile]], trump: int | str | None) -> int:
    """TX-15 (TX-19 for Sevens): the seat that wins a complete trick."""
    if trump == "sevens":
        best = min(range(len(plays)), key=lambda i: (abs(plays[i][1].pips - 7), i))
        return plays[best][0]
    suit = led_suit(plays[0][1], trump)
    trumps = [(seat, tile) for seat, tile in plays if is_trump(tile, trump)]
    if trumps:
        return max(trumps, key=lambda p: rank(p[1], "trump", trump))[0]
    followers = [(seat, tile) for seat, tile in plays if follows(tile, suit, trump)]
    return max(followers, key=lambda p: rank(p[1], suit, trump))[0]


def trick_points(plays: Sequence[tuple[int, Tile]]) -> int:
    """TX-5: one point for the trick plus its count tiles."""
    return 1 + sum(COUNT_TILES.get(tile, 0) for _, tile in plays)


def bid_marks(bid: int) -> int:
    """TX-9, TX-17: a points bid is worth 1 mark; 42 per mark above."""
    return max(1, bid // MARK)


def bid_text(bid: int) -> str:
    """Canonical bid word: ``"30"``..``"42"``, then ``"2m"``, ``"3m"``..."""
    return str(bid) if bid <= MARK or bid % MARK else f"{bid // MARK}m"


def parse_bid(word: str) -> int:
    """``"35"`` -> 35, ``"42"``/``"1m"`` -> 42, ``"2m"``/``"84"`` -> 84; check() judges the rest."""
    text = word.strip().lower()
    if text.endswith("m") and text[:-1].isdigit() and int(text[:-1]) >= 1:
        return int(text[:-1]) * MARK
    if text.isdigit():
        return int(text)
    raise InvalidMoveError(f"{word!r} is not a bid; write bid 30..42, bid 2m, bid plunge or pass")


def raises(high: int) -> list[int]:
    """TX-7, TX-9: the bids allowed over ``high`` (0 = no bid yet)."""
    if high < MARK:
        return [*range(max(MIN_BID, high + 1), MARK + 1), 2 * MARK]
    if high == MARK:
        return [2 * MARK]
    return [high + MARK]


def contract_outcome(state) -> str | None:
    """"made", "set", or None while the tricks so far decide nothing (TX-10, TX-17..19)."""
    bidders = team(state.bidder)
    done = len(state.tricks) == TRICKS
    if state.trump == "nel-o":
        if any(winner == state.bidder for winner, _ in state.tricks):
            return "set"
        return "made" if done else None
    if state.high_bid >= MARK or state.trump == "sevens":
        if state.team_tricks[1 - bidders]:
            return "set"
        return "made" if done else None
    if state.team_points[bidders] >= state.high_bid:
        return "made"
    if state.team_points[1 - bidders] > 42 - state.high_bid:
        return "set"
    return None


def look_for_breaches(state, seat: int, tile: Tile) -> None:
    """Table mode: record a renege (TX-14) or a false plunge/splash once proof appears."""
    trick_no = len(state.tricks) + 1
    for suit, void_trick in state.voids[seat].items():
        if follows(tile, suit, state.trump):
            state.reneges.append({"seat": seat, "suit": suit, "tile": str(tile),
                                  "void_trick": void_trick, "trick": trick_no})
            state.flags.append(
                f"TX-14: p{seat + 1} did not follow {suit_name(suit)} in trick {void_trick} "
                f"but plays {tile} of that suit in trick {trick_no}: a renege.")
    if not tile.is_double:
        state.non_doubles[seat] += 1
        if state.special and seat == state.bidder:
            need = PLUNGE_DOUBLES if state.special == "plunge" else SPLASH_DOUBLES
            if state.non_doubles[seat] == TRICKS - need + 1:
                rule = "TX-20" if state.special == "plunge" else "SPLASH"
                state.flags.append(
                    f"{rule}: p{seat + 1} bid {state.special} ({need} doubles needed) but has "
                    f"played {TRICKS - need + 1} tiles that are not doubles.")
