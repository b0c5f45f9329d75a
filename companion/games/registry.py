"""Find a game's Rules by name or alias (STYLE.md 3)."""

from __future__ import annotations

from .base import Rules

_RULES: dict[str, Rules] = {}
_ALIASES: dict[str, str] = {}


def register(rules: Rules) -> Rules:
    """Add a Rules object under its name and aliases; returns it for decorator-style use."""
    _RULES[rules.name] = rules
    for alias in (rules.name, *rules.aliases):
        _ALIASES[alias] = rules.name
    return rules


def get_rules(name: str) -> Rules:
    """The Rules for ``name`` or an alias; ValueError listing the games otherwise."""
    key = name.strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(sorted(_RULES))}")
    return _RULES[_ALIASES[key]]


def game_names() -> list[str]:
    return sorted(_RULES)
