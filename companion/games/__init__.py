"""The rules core: pure Python, no I/O. Importing it registers every game."""

from . import chicken_foot, doubles, mexican_train, texas42  # noqa: F401  (registration side effect)  # noqa: F401  (registration side effect)
from .base import SIMULATION, TABLE, GameState, OptionSpec, RoundResult, Rules
from .errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from .moves import Move
from .registry import game_names, get_rules, register
from .tiles import Tile, full_set, pip_total

__all__ = [
    "SIMULATION",
    "TABLE",
    "AmbiguousMoveError",
    "GameState",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "MoveError",
    "OptionSpec",
    "RoundResult",
    "Rules",
    "Tile",
    "full_set",
    "game_names",
    "get_rules",
    "pip_total",
    "register",
]
