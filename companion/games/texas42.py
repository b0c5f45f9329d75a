"""Texas 42, exactly as ``shared/rules/texas42.md`` (rule ids TX-x), options as data.

Move text: ``"bid 30"``..``"bid 42"`` (42 = 1 mark), ``"bid 2m"``, ``"bid 3m"``.. (marks),
``"bid plunge"``, ``"bid splash"``, ``"pass"``; ``"trumps fives"`` (blanks..sixes, doubles,
follow-me, nel-o, sevens); a tile played to the trick is just the tile, ``"6-4"``.
Seats 0-3; partners sit opposite: team 0 = seats 0 and 2, team 1 = seats 1 and 3.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .base import SIMULATION, GameState, OptionSpec, RoundResult, Rules, check_mode, choice
from .errors import IllegalMoveError, InvalidMoveError
from .moves import Move
from .registry import register
from .texas42_tricks import (
    CONTRACT_WORDS,
    MARK,
    MIN_BID,
    PLUNGE_DOUBLES,
    PLUNGE_MARKS,
    SPLASH_DOUBLES,
    TRICKS,
    TRUMP_ALIASES,
    TRUMP_WORDS,
    bid_marks,
    bid_text,
    contract_outcome,
    draw_for_shaker,
    follows,
    led_suit,
    look_for_breaches,
    on_off,
    parse_bid,
    partner,
    raises,
    suit_name,
    team,
    trick_points,
    trick_winner,
    trump_value,
    trump_word,
)
from .tiles import Tile, full_set, parse_tiles

OPTIONS = (
    OptionSpec("goal", "marks", choice("marks", "points"),
               "play to 7 marks, or to 250 points", "TX-1/TX-17"),
    OptionSpec("all_pass", "forced-bid", choice("forced-bid", "redeal"),
               "when all four pass: the shaker bids 30, or the hand is redealt", "TX-8"),
    OptionSpec("end_early", False, on_off,
               "end the hand as soon as the contract is made or set", "TX-15/TX-17"),
    OptionSpec("nel_o", False, on_off, "Nel-O contract (at least 2 marks)", "TX-18"),
    OptionSpec("sevens", False, on_off, "Sevens contract (at least 1 mark)", "TX-19"),
    OptionSpec("plunge", False, on_off, "Plunge bid with 4 doubles (4 marks)", "TX-20"),
    OptionSpec("splash", False, on_off, "Splash bid with 3 doubles (2-3 marks)", "SPLASH"),
)
GOALS = {"marks": 7, "points": 250}


@dataclass(kw_only=True)
class Texas42State(GameState):
    shaker: int
    phase: str = "bid"  # bid | trumps | play | over
    bids: list[tuple[int, str]] = field(default_factory=list)  # (seat, "pass" | bid word)
    high_bid: int = 0
    bidder: int | None = None
    special: str | None = None  # "plunge" | "splash" (partner names trumps and leads)
    declarer: int | None = None  # who names trumps and leads the first trick
    trump: int | str | None = None
    sitting_out: int | None = None  # Nel-O: the bidder's partner (TX-18)
    trick: list[tuple[int, Tile]] = field(default_factory=list)
    tricks: list[tuple[int, list[tuple[int, Tile]]]] = field(default_factory=list)  # (winner, plays)
    team_points: list[int] = field(default_factory=lambda: [0, 0])
    team_tricks: list[int] = field(default_factory=lambda: [0, 0])
    voids: list[dict] = field(default_factory=lambda: [{} for _ in range(4)])  # suit -> trick no.
    reneges: list[dict] = field(default_factory=list)  # table mode: proven reneges (TX-14)
    non_doubles: list[int] = field(default_factory=lambda: [0] * 4)  # table: for plunge proof
    outcome: str | None = None  # made | set | redeal

    def snapshot(self):
        return (
            super().snapshot(), self.phase, list(self.bids), self.high_bid, self.bidder,
            self.special, self.declarer, self.trump, self.sitting_out, list(self.trick),
            list(self.tricks), list(self.team_points), list(self.team_tricks),
            [dict(v) for v in self.voids], list(self.reneges), list(self.non_doubles), self.outcome,
        )

    def restore(self, snap) -> None:
        (
            base, self.phase, self.bids, self.high_bid, self.bidder, self.special, self.declarer,
            self.trump, self.sitting_out, self.trick, self.tricks, self.team_points,
            self.team_tricks, self.voids, self.reneges, self.non_doubles, self.outcome,
        ) = snap
        super().restore(base)


class Texas42(Rules):
    name = "texas-42"
    aliases = ("42", "texas42", "tx")
    title = "Texas 42"
    min_players = 4
    max_players = 4
    lower_total_wins = False
    round_end_rule = "TX-15"  # seven tricks make a hand
    turn_rule = "TX-12"
    option_specs = OPTIONS
    plays_need_target = False

    # -- options and match ---------------------------------------------------------------
    def round_plan(self, players: int, options: dict) -> list:
        return []  # hands continue until a team reaches the goal (TX-17)

    def match_over(self, players: int, options: dict, totals: list[int], rounds: int) -> bool:
        return bool(totals) and max(totals) >= GOALS[options["goal"]]

    # -- a hand --------------------------------------------------------------------------
    def new_round(self, players, options, round_index=0, *, mode=SIMULATION, seed=None,
                  previous=None, **table) -> Texas42State:
        check_mode(mode)
        rng = random.Random(seed)
        if "shaker" in table:
            shaker = int(table["shaker"]) % 4
        elif previous is not None:
            shaker = (previous.shaker + 1) % 4  # TX-4: the shaker rotates
        elif mode == SIMULATION:
            shaker = draw_for_shaker(rng)  # TX-2
        else:
            shaker = round_index % 4
        hands = None
        if mode == SIMULATION and "hands" in table:  # an explicit deal (golden hands)
            hands = [parse_tiles(h) if isinstance(h, str) else list(h) for h in table["hands"]]
        elif mode == SIMULATION:
            tiles = full_set(6)
            rng.shuffle(tiles)
            hands = [[] for _ in range(4)]
            for turn in range(4):  # TX-4: the shaker's left draws first, the shaker last
                hands[(shaker + 1 + turn) % 4] = sorted(tiles[7 * turn: 7 * turn + 7], reverse=True)
        state = Texas42State(
            game=self.name, options=options, players=4, mode=mode, round_index=round_index,
            current=(shaker + 1) % 4, hand_sizes=[TRICKS] * 4, hands=hands,
            boneyard=[] if hands else None, boneyard_count=0, shaker=shaker,
        )
        state.setup = {"shaker": shaker}
        return state

    # -- legal moves -----------------------------------------------------------------------
    def _doubles_held(self, state: Texas42State, seat: int) -> int:
        return sum(t.is_double for t in state.hands[seat])

    def _special_bids(self, state: Texas42State) -> list[tuple[str, int]]:
        """Plunge (TX-20) and Splash bids open to the current player, with their value."""
        found, options, seat = [], state.options, state.current
        if options["plunge"] and state.high_bid == 0 and (
                not state.simulated or self._doubles_held(state, seat) >= PLUNGE_DOUBLES):
            found.append(("plunge", PLUNGE_MARKS * MARK))
        if options["splash"] and state.high_bid <= 2 * MARK and (
                not state.simulated or self._doubles_held(state, seat) >= SPLASH_DOUBLES):
            found.append(("splash", 3 * MARK if state.high_bid == 2 * MARK else 2 * MARK))
        return found

    def _trump_words(self, state: Texas42State) -> list[str]:
        words = list(TRUMP_WORDS)
        if state.special is None:  # partners naming for a plunge/splash name a trump
            if state.options["nel_o"] and state.high_bid >= 2 * MARK:
                words.append("nel-o")  # TX-18
            if state.options["sevens"] and state.high_bid >= MARK:
                words.append("sevens")  # TX-19
        return words

    def _playable(self, state: Texas42State) -> list[Tile]:
        """Tiles the current player may put on the trick (simulation: TX-14 enforced)."""
        if not state.simulated:
            return [t for t in full_set(6) if t not in state.played]
        hand = state.hands[state.current]
        if not state.trick:
            return list(hand)
        suit = led_suit(state.trick[0][1], state.trump)
        following = [t for t in hand if follows(t, suit, state.trump)]
        return following or list(hand)

    def legal_moves(self, state: Texas42State) -> list[Move]:
        if self.is_round_over(state):
            return []
        if state.phase == "bid":
            return ([Move("pass")] + [Move("bid", value=bid_text(b)) for b in raises(state.high_bid)]
                    + [Move("bid", value=word) for word, _ in self._special_bids(state)])
        plays = [Move("play", tile) for tile in self._playable(state)]
        if state.phase == "trumps":
            return [Move("trumps", value=word) for word in self._trump_words(state)] + plays
        return plays

    # -- reading moves -------------------------------------------------------------------
    def parse_move(self, state: Texas42State, text: str) -> Move:
        if text.strip().lower() in ("plunge", "splash"):
            return Move("bid", value=text.strip().lower())
        move = Move.parse(text)
        if move.kind == "plunge":
            return Move("bid", value="plunge")
        if move.kind == "bid" and move.value not in ("plunge", "splash"):
            return Move("bid", value=bid_text(parse_bid(move.value)))
        if move.kind == "trumps":
            return Move("trumps", value=TRUMP_ALIASES.get(move.value, move.value))
        return move

    # -- checking --------------------------------------------------------------------------
    def check(self, state: Texas42State, move: Move) -> None:
        self.require_turn_holder(state)
        if move.kind in ("bid", "pass"):
            if state.phase != "bid":
                raise IllegalMoveError("TX-6", "Bidding is over: each player bids once.")
            if move.kind == "bid":
                self._check_bid(state, move)
        elif move.kind == "trumps":
            if state.phase != "trumps":
                raise IllegalMoveError("TX-11", "Trumps are named once, after bidding, before play.")
            word = move.value
            if word not in TRUMP_WORDS + CONTRACT_WORDS:
                raise InvalidMoveError(f"{word!r} is not a trump; write one of "
                                       f"{', '.join(TRUMP_WORDS + CONTRACT_WORDS)}")
            if word not in self._trump_words(state):
                rule = "TX-18" if word == "nel-o" else "TX-19"
                need = "2 marks" if word == "nel-o" else "1 mark"
                if not state.options[word.replace("-", "_")]:
                    raise IllegalMoveError(rule, f"{word} is not played at this table (option off).")
                if state.special:
                    raise IllegalMoveError(rule, f"After a {state.special} the partner names a trump, "
                                                 f"not {word}.")
                raise IllegalMoveError(rule, f"{word} needs a bid of at least {need}.")
        elif move.kind == "play":
            self._check_play(state, move)
        else:
            raise InvalidMoveError(f"{move} is not a Texas 42 move; bid, pass, trumps or a tile")

    def _check_bid(self, state: Texas42State, move: Move) -> None:
        seat, word = state.current, move.value
        if word in ("plunge", "splash"):
            if not state.options[word]:
                raise IllegalMoveError("TX-20" if word == "plunge" else "SPLASH",
                                       f"{word} is not played at this table (option off).")
            if word not in dict(self._special_bids(state)):
                if word == "plunge":
                    if state.high_bid:
                        raise IllegalMoveError("TX-20", "A plunge must be declared before anyone bids.")
                    raise IllegalMoveError("TX-20", f"p{seat + 1} holds fewer than 4 doubles, so may "
                                                    "not plunge.")
                if state.high_bid > 2 * MARK:
                    raise IllegalMoveError("SPLASH", "A splash is 2 or 3 marks; the bid is higher.")
                raise IllegalMoveError("SPLASH", f"p{seat + 1} holds fewer than 3 doubles, so may "
                                                 "not splash.")
            return
        bid = parse_bid(word)
        if bid < MIN_BID:
            raise IllegalMoveError("TX-7", f"The minimum bid is {MIN_BID}.")
        if bid <= state.high_bid:
            raise IllegalMoveError("TX-7", f"A bid must be higher than {bid_text(state.high_bid)}.")
        if bid not in raises(state.high_bid):
            if bid % MARK:
                raise IllegalMoveError("TX-9", "Once bidding reaches 42 only marks can be bid.")
            raise IllegalMoveError("TX-9", f"Bid at most {bid_text(raises(state.high_bid)[-1])}: a "
                                           "jump goes to 2 marks, then one mark at a time.")

    def _check_play(self, state: Texas42State, move: Move) -> None:
        tile, seat = move.tile, state.current
        if move.target is not None:
            raise InvalidMoveError(f"{move}: a 42 play is just the tile, like 6-4")
        if state.phase == "bid":
            raise IllegalMoveError("TX-3", "Bidding comes before play.")
        if tile.high > 6:
            raise IllegalMoveError("TX-1", f"{tile} is not a tile of a double-6 set.")
        if tile in state.played:
            raise IllegalMoveError("TX-1", f"{tile} has already been played: every tile exists once.")
        if state.simulated:
            if tile not in state.hands[seat]:
                raise IllegalMoveError("TX-4", f"p{seat + 1} does not hold {tile}.")
            if move.tile not in self._playable(state):
                suit = led_suit(state.trick[0][1], state.trump)
                raise IllegalMoveError("TX-14", f"p{seat + 1} must follow {suit_name(suit)} with "
                                                f"a tile of that suit.")
        elif state.hand_sizes[seat] == 0:
            raise IllegalMoveError("TX-15", f"p{seat + 1} has no tiles left.")

    # -- applying --------------------------------------------------------------------------
    def _apply(self, state: Texas42State, move: Move) -> None:
        if move.kind in ("bid", "pass"):
            self._apply_bid(state, move)
        elif move.kind == "trumps":
            self._name_trump(state, trump_value(move.value))
        else:
            if state.phase == "trumps":
                self._name_trump(state, move.tile.high)  # TX-11: the first tile led sets trump
            self._apply_play(state, move.tile)

    def _apply_bid(self, state: Texas42State, move: Move) -> None:
        seat = state.current
        if move.kind == "pass":
            state.bids.append((seat, "pass"))
        else:
            special = dict(self._special_bids(state)) if move.value in ("plunge", "splash") else {}
            value = special.get(move.value) or parse_bid(move.value)
            state.high_bid, state.bidder = value, seat
            state.special = move.value if special else None
            state.bids.append((seat, move.value))
        state.current = (seat + 1) % 4
        if len(state.bids) < 4:
            return
        if state.bidder is None:
            if state.options["all_pass"] == "redeal":
                state.phase, state.outcome = "over", "redeal"
                return
            state.bidder, state.high_bid = state.shaker, MIN_BID  # TX-8
        state.declarer = partner(state.bidder) if state.special else state.bidder  # TX-20
        state.phase, state.current = "trumps", state.declarer

    def _name_trump(self, state: Texas42State, trump: int | str) -> None:
        state.trump = trump
        state.phase = "play"
        if trump == "nel-o":
            state.sitting_out = partner(state.bidder)  # TX-18

    def _apply_play(self, state: Texas42State, tile: Tile) -> None:
        seat = state.current
        if state.simulated:
            state.hands[seat].remove(tile)
        state.hand_sizes[seat] -= 1
        state.played.add(tile)
        if not state.simulated:
            look_for_breaches(state, seat, tile)
        if state.trick:
            suit = led_suit(state.trick[0][1], state.trump)
            if not follows(tile, suit, state.trump):
                state.voids[seat].setdefault(suit, len(state.tricks) + 1)
        state.trick.append((seat, tile))
        active = 3 if state.sitting_out is not None else 4
        if len(state.trick) < active:
            state.current = self._next_seat(state, seat)
            return
        winner = trick_winner(state.trick, state.trump)  # TX-15
        state.team_points[team(winner)] += trick_points(state.trick)
        state.team_tricks[team(winner)] += 1
        state.tricks.append((winner, state.trick))
        state.trick = []
        state.current = winner
        decided = contract_outcome(state)
        if len(state.tricks) == TRICKS or (decided and (
                state.options["end_early"] or state.trump == "sevens")):  # TX-19 ends at once
            state.phase, state.outcome = "over", decided

    def _next_seat(self, state: Texas42State, seat: int) -> int:
        nxt = (seat + 1) % 4
        return (nxt + 1) % 4 if nxt == state.sitting_out else nxt

    # -- the end of a hand -------------------------------------------------------------------
    def is_round_over(self, state: Texas42State) -> bool:
        return state.phase == "over"

    def round_result(self, state: Texas42State, revealed=None) -> RoundResult:
        if not self.is_round_over(state):
            raise ValueError("the hand is not over yet (TX-15)")
        details = {"shaker": state.shaker, "bidder": state.bidder, "bid": bid_text(state.high_bid)
                   if state.high_bid else None, "special": state.special,
                   "trump": trump_word(state.trump), "team_points": list(state.team_points),
                   "team_tricks": list(state.team_tricks), "reneges": list(state.reneges)}
        if state.outcome == "redeal":
            return RoundResult([0] * 4, "redeal", [], details=details)
        bidders = team(state.bidder)
        scoring = bidders if state.outcome == "made" else 1 - bidders
        if state.options["goal"] == "marks":
            team_scores = [0, 0]
            team_scores[scoring] = bid_marks(state.high_bid)  # TX-17
        else:  # 250 points (docs/rules/texas-42.md): points taken, the bid value when set
            value = state.high_bid
            team_scores = list(state.team_points)
            if state.outcome == "made":
                team_scores[bidders] = max(team_scores[bidders], value)
            else:
                team_scores[bidders] = 0
                team_scores[scoring] += value
        scores = [team_scores[team(seat)] for seat in range(4)]
        return RoundResult(scores, state.outcome, [s for s in range(4) if team(s) == scoring],
                           details=details)

    def describe(self, state: Texas42State) -> dict:
        view = super().describe(state)
        view.update({
            "shaker": state.shaker, "phase": state.phase,
            "bids": [{"seat": seat, "bid": word} for seat, word in state.bids],
            "high_bid": bid_text(state.high_bid) if state.high_bid else None,
            "bidder": state.bidder, "special": state.special, "declarer": state.declarer,
            "trump": trump_word(state.trump), "sitting_out": state.sitting_out,
            "trick": [{"seat": seat, "tile": str(tile)} for seat, tile in state.trick],
            "tricks": [{"winner": winner, "tiles": [str(t) for _, t in plays],
                        "points": trick_points(plays)} for winner, plays in state.tricks],
            "team_points": list(state.team_points), "team_tricks": list(state.team_tricks),
            "reneges": list(state.reneges), "outcome": state.outcome,
        })
        return view


TEXAS_42 = register(Texas42())

_FLAGS = ("nel_o", "sevens", "plunge", "splash")
CONFORMANCE_OPTIONS = [
    {"players": 4},
    {"players": 4, "end_early": True, "all_pass": "redeal"},
    {"players": 4, **{key: True for key in _FLAGS}},
    {"players": 4, "goal": "points", "end_early": True, **{key: True for key in _FLAGS}},
]
