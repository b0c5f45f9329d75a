"""Shared helpers for the vision tests."""

from __future__ import annotations

import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PHOTOS = os.path.normpath(os.path.join(REPO, "..", "shared", "photos"))
LABELS = os.path.join(PHOTOS, "labels.json")


@pytest.fixture(scope="session")
def photos_labels() -> str:
    if not os.path.exists(LABELS):
        pytest.skip(f"real photos not available ({LABELS} missing)")
    return LABELS


def pairs(tiles) -> list[tuple[int, int]]:
    return sorted(t.pair for t in tiles)
