"""The rules core: pure Python, no I/O. Importing it registers every game."""

from . import chicken_foot, mexican_train  # noqa: F401  (registration side effect)
from . import doubles, texas42  # noqa: F401  (registration side effect)
from .base import SIMULATION, TABLE, GameState, OptionSpec, Rules, RoundResult
from .errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from .moves import Move
from .registry import game_names, get_rules, register
from .tiles import Tile, full_set, pip_total

__all__ = [
    "SIMULATION", "TABLE", "GameState", "OptionSpec", "Rules", "RoundResult",
    "AmbiguousMoveError", "IllegalMoveError", "InvalidMoveError", "MoveError",
    "Move", "game_names", "get_rules", "register", "Tile", "full_set", "pip_total",
]
