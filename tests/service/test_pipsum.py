"""Pip-sum entry is parsed, never evaluated."""

import pytest

from companion.pipsum import parse_pip_sum


@pytest.mark.parametrize("text, value", [("10+15+8", 33), (" 7 ", 7), ("2*12 + 7", 31),
                                         ("3x4", 12), ("20-5", 15), (0, 0), (42, 42),
                                         ("0", 0), ("1+1+1+1", 4)])
def test_sums(text, value):
    assert parse_pip_sum(text) == value


@pytest.mark.parametrize("text", ["", "   ", "10+", "+5", "10++5", "5-10", "__import__('os')",
                                  "1e3", "2**3", "10/2", "(1+2)", "99999", "1" * 500, True,
                                  None, [1], -3, "+".join(["1"] * 41), "1.5"])
def test_refused(text):
    with pytest.raises(ValueError):
        parse_pip_sum(text)
