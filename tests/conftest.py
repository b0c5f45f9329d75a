"""Shared test settings: where the shared folder is, and an output folder for artefacts."""

from __future__ import annotations

import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def test_output() -> pathlib.Path:
    """A folder for screenshots and other artefacts a person may want to look at."""
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    return out
