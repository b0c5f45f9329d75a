"""Tiles, sets and moves: canonical text forms that round-trip (STYLE.md 2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games import InvalidMoveError, Move, Tile, full_set, get_rules, pip_total
from companion.games.tiles import parse_tiles, set_max_pips

pips = st.integers(0, 18)


@given(pips, pips)
def test_tile_is_unordered_and_round_trips(a, b):
    tile = Tile(a, b)
    assert tile == Tile(b, a) and hash(tile) == hash(Tile(b, a))
    assert Tile.parse(str(tile)) == tile
    assert eval(repr(tile)) == tile
    assert str(tile) == f"{max(a, b)}-{min(a, b)}"


@pytest.mark.parametrize("name,count", [("double-6", 28), ("double-9", 55), ("double-12", 91),
                                        ("double-15", 136), ("double-18", 190)])
def test_sets_hold_every_pair_once(name, count):
    tiles = full_set(set_max_pips(name))
    assert len(tiles) == len(set(tiles)) == count


@pytest.mark.parametrize("text", ["", "6", "6-", "a-b", "6-4-2", "19-1", "-1-2"])
def test_bad_tiles_are_refused(text):
    with pytest.raises(InvalidMoveError):
        Tile.parse(text)


def test_pip_total_house_rule_for_double_blank():
    hand = parse_tiles("0-0 6-4 3-1")
    assert pip_total(hand) == 14
    assert pip_total(hand, double_blank=50) == 64


@given(pips, pips, st.sampled_from(["p1", "p8", "mx", "l12", "c", None]))
def test_play_moves_round_trip(a, b, target):
    move = Move.play(Tile(a, b), target)
    assert Move.parse(str(move)) == move
    assert eval(repr(move)) == move


@pytest.mark.parametrize("text", ["draw", "pass", "bid 30", "trumps fives", "announce p2"])
def test_word_moves_round_trip(text):
    assert str(Move.parse(text)) == text


@pytest.mark.parametrize("text", ["", "jump", "6-4>", "bid", "6-4 > p2 extra"])
def test_unreadable_moves_are_invalid(text):
    with pytest.raises(InvalidMoveError):
        Move.parse(text)


def test_registry_finds_names_and_aliases():
    assert get_rules("mt") is get_rules("mexican-train")
    assert get_rules("CF") is get_rules("chicken-foot")
    with pytest.raises(ValueError, match="unknown game"):
        get_rules("poker")


def test_options_are_validated_with_a_clear_message():
    rules = get_rules("mt")
    assert rules.resolve_options(4)["double_blank"] == 50
    with pytest.raises(ValueError, match="double_rule"):
        rules.resolve_options(4, {"double_rule": "sometimes"})
    with pytest.raises(ValueError, match="unknown option"):
        rules.resolve_options(4, {"colour": "red"})
    with pytest.raises(ValueError, match="2-12 players"):
        rules.resolve_options(13)
    with pytest.raises(ValueError, match="MT-5"):
        rules.resolve_options(9, {"set": "double-12"})
