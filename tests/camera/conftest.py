"""Shared camera fixtures: scripted rounds rendered once per test session."""

from __future__ import annotations

import pytest

from companion.camera.scripts import mexican_train
from vision.camera import write_video


@pytest.fixture(scope="session")
def mt_script():
    """Three players, double-9, eight plays and a nudged tile, 1280x720."""
    return mexican_train(players=3, plays=8, seed=0, nudge=True)


@pytest.fixture(scope="session")
def mt_video(mt_script, tmp_path_factory):
    """The Mexican Train script recorded to an MJPG file."""
    path = tmp_path_factory.mktemp("camera") / "mexican-train.avi"
    write_video(mt_script.frames(), str(path), mt_script.spec.fps)
    return str(path)
