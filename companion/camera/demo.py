"""The camera demo: a recorded synthetic Mexican Train round played into a demo table, so a
new user sees plays appear on the tablet by themselves.

``render_demo_video(path)`` writes the video (about 10 s of rendering; kept in the instance
folder, not in git). ``CameraDemo(tables, cameras, instance_path).start()`` renders it if
missing, seats a "Camera demo" table with the matching match (double-9, three players),
plays the video through a real ``CameraWorker`` at its own frame rate, then undoes the
round back to its start and plays it again, forever (undo is an event: nothing is lost).
"""

from __future__ import annotations

import logging
import os
import threading

from vision.camera import write_video

from .scripts import Script, mexican_train

log = logging.getLogger(__name__)

DEMO_NAME = "Camera demo"
DEMO_PLAYERS = ["Ann", "Ben", "Cat"]
DEMO_FILE = "camera-demo-v1.mp4"  # bump when the demo script changes


def demo_script(plays: int = 12, seed: int = 3) -> Script:
    """The demo round: three players, double-9, ``plays`` tiles, a nudged tile."""
    return mexican_train(players=len(DEMO_PLAYERS), plays=plays, seed=seed, nudge=True)


def render_demo_video(path: str, script: Script | None = None) -> Script:
    """Render the demo round to ``path`` (.mp4 or .avi); returns its script."""
    script = script or demo_script()
    tmp = path + ".part" + os.path.splitext(path)[1]
    write_video(script.frames(), tmp, script.spec.fps)
    os.replace(tmp, path)
    return script


def seed_camera_table(tables, script: Script, name: str = DEMO_NAME) -> int:
    """The demo table with the script's match started (reused when it exists)."""
    for info in tables.store.tables():
        if info["name"] == name:
            return info["id"]
    table_id = tables.store.create_table(name)
    tables.execute(table_id, lambda s: s.command_start(script.game, script.options,
                                                       DEMO_PLAYERS), source="system")
    return table_id


def rewind(tables, table_id: int) -> int:
    """Undo the current round back to its first move; returns how many moves were undone."""
    count = 0
    while True:
        session = tables.session(table_id)
        if session.match is None or session.match.state is None or not session.match.moves:
            return count
        tables.execute(table_id, lambda s: s.command_undo(), source="system")
        count += 1


class CameraDemo:
    """Plays the demo video into the demo table in a loop (a daemon thread)."""

    def __init__(self, tables, cameras, instance_path: str, *, pause: float = 10.0,
                 script: Script | None = None):
        self.tables = tables
        self.cameras = cameras
        self.path = os.path.join(instance_path, DEMO_FILE)
        self.pause = pause
        self.script = script
        self.table_id: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def prepare(self) -> int:
        """Seat the demo table (fast; the video is rendered by the thread); returns its id."""
        if self.script is None:
            self.script = demo_script()
        if self.table_id is None:
            self.table_id = seed_camera_table(self.tables, self.script)
        return self.table_id

    def start(self) -> CameraDemo:
        self._thread = threading.Thread(target=self._run, name="camera-demo", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self.table_id is not None:
            self.cameras.stop(self.table_id)

    def _run(self) -> None:
        try:
            table_id = self.prepare()
            if not os.path.exists(self.path):
                log.info("camera demo: rendering %s", self.path)
                self.tables.set_status(table_id, "camera", {
                    "online": False, "text": "preparing the demo video…"})
                render_demo_video(self.path, self.script)
            while not self._stop.is_set():
                rewind(self.tables, table_id)
                worker = self.cameras.start(table_id, self.path,
                                            self.script.calibration.to_dict())
                while worker.running and not worker.source_done.is_set() \
                        and not self._stop.is_set():
                    worker.source_done.wait(0.5)
                self._stop.wait(self.pause)
        except Exception:
            log.exception("camera demo stopped")
