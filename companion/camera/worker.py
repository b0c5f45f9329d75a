"""The per-camera worker thread: frames -> motion gate -> settled frame -> tracker -> moves.

``CameraWorker(source, link)`` owns a ``vision.camera.CameraSource`` and a ``TableTracker``.
It runs on its own daemon thread; callers only enqueue (answers, calibration) into a bounded
queue and read ``status()`` / ``latest_png()``, so the web server is never blocked.
``process_frame`` is the same step without a thread (tests, the bench).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass

import numpy as np

from vision import Params
from vision.camera import CameraSource
from vision.motion import MotionGate, MotionParams, StillnessDetector

from .annotate import annotate_frame, png
from .layout import Calibration
from .tracker import TableTracker, TrackerParams
from .types import SubmitResult, TableLink

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerParams:
    """How the worker runs. ``realtime``: drop frames it cannot keep up with (live
    cameras; a file is then also played at its own rate); otherwise every frame is used."""

    realtime: bool = True
    commands: int = 32  # bounded command queue
    idle_sleep: float = 0.02  # seconds to wait when the source has no frame
    status_every: float = 1.0  # seconds between status pushes while nothing happens
    stop_at_end: bool = True  # a file that ended stops the thread (else it keeps answering)


class CameraWorker:
    """One camera watching one table (see the module docstring)."""

    def __init__(self, source: str | int | CameraSource, link: TableLink,
                 calibration: Calibration | dict | None = None, *,
                 params: WorkerParams | None = None, motion: MotionParams | None = None,
                 tracker: TrackerParams | None = None, vision: Params | None = None,
                 on_status=None, name: str = "camera", loop: bool = False):
        self.params = params or WorkerParams()
        if not isinstance(source, CameraSource):
            source = CameraSource(source, loop=loop, pace=self.params.realtime)
        self.source = source
        if isinstance(calibration, dict):
            calibration = Calibration.from_dict(calibration)
        self.motion = motion or MotionParams()
        self.tracker = TableTracker(link, calibration, params=tracker, motion=self.motion,
                                    vision=vision)
        self.gate = MotionGate(self.motion)
        self.stillness = StillnessDetector(self.motion)
        self.on_status = on_status
        self.name = name
        self._commands: queue.Queue = queue.Queue(self.params.commands)
        self._stop = threading.Event()
        self.source_done = threading.Event()  # a file or folder was read to its end
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._frame: np.ndarray | None = None
        self._annotated: np.ndarray | None = None
        self._png: tuple[int, bytes] | None = None
        self._version = 0
        self._frames = 0
        self._gate_ms: deque = deque(maxlen=200)
        self._latency_ms: deque = deque(maxlen=50)
        self._last_push = 0.0
        self._error: str | None = None
        self.dropped = 0  # frames skipped to keep up with a live camera
        self._latest: queue.Queue = queue.Queue(1)
        self._tracker_status: dict = self.tracker.status()
        self._grabber: threading.Thread | None = None

    # -- thread control ---------------------------------------------------------------
    def start(self) -> CameraWorker:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=f"{self.name}-worker",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._grabber is not None:
            self._grabber.join(timeout)
        self.source.close()
        self._push(force=True)

    @property
    def moves(self) -> list[str]:
        """Every move this worker's table accepted from the camera, in order."""
        return list(self.tracker.submitted)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    # -- requests from other threads (never block) ------------------------------------
    def answer(self, question_id: str, choice: str) -> bool:
        """Queue a person's answer to a question; False when the queue is full."""
        return self._enqueue(("answer", question_id, choice))

    def calibrate(self, calibration: Calibration | dict) -> bool:
        """Queue a new calibration (hub and slot points)."""
        if isinstance(calibration, dict):
            calibration = Calibration.from_dict(calibration)
        return self._enqueue(("calibrate", calibration))

    def refresh(self) -> bool:
        """The game changed on the tablet: re-read it before the next frame."""
        return self._enqueue(("refresh",))

    def _enqueue(self, item) -> bool:
        try:
            self._commands.put_nowait(item)
            return True
        except queue.Full:
            return False

    def drain(self) -> None:
        """Handle queued requests now (the thread does this before every frame)."""
        self._drain()

    def _drain(self) -> None:
        while True:
            try:
                item = self._commands.get_nowait()
            except queue.Empty:
                return
            self.handle(item)

    def handle(self, item) -> SubmitResult | None:
        kind = item[0]
        if kind == "answer":
            result = self.tracker.answer(item[1], item[2])
            self._redraw()
            self._push(force=True)
            return result
        if kind == "calibrate":
            self.tracker.calibration = item[1]
            self.tracker.learned.clear()
            self._redraw()
            self._push(force=True)
        elif kind == "refresh":
            self.tracker._sync(self.tracker._view())
            self._redraw()
        return None

    # -- the loop ---------------------------------------------------------------------
    def _read(self) -> np.ndarray | None:
        try:
            frame = self.source.read()
            self._error = None if frame is not None else self._error
            return frame
        except Exception as exc:  # a driver crash must not end the thread silently
            log.exception("camera %s: read failed", self.name)
            self._error = f"reading frames failed: {exc}"
            return None

    def _grab(self) -> None:
        """Live sources in realtime mode: keep only the newest frame (one slot), so a slow
        recognition step drops frames instead of falling behind the table."""
        while not self._stop.is_set():
            frame = self._read()
            if frame is None:
                if self.source.finished:
                    break
                self._stop.wait(self.params.idle_sleep)
                continue
            try:
                self._latest.get_nowait()
                self.dropped += 1
            except queue.Empty:
                pass
            self._latest.put_nowait(frame)

    def _next_frame(self) -> np.ndarray | None:
        if self._grabber is None:
            return self._read()
        try:
            return self._latest.get(timeout=self.params.idle_sleep)
        except queue.Empty:
            return None

    def _run(self) -> None:
        self._push(force=True)
        if self.params.realtime and self.source.spec.live:
            self._grabber = threading.Thread(target=self._grab, name=f"{self.name}-grab",
                                             daemon=True)
            self._grabber.start()
        while not self._stop.is_set():
            self._drain()
            frame = self._next_frame()
            if frame is None:
                if self.source.finished and not self.source.loop:
                    self.source_done.set()
                    if self.params.stop_at_end:
                        break
                    # a recorded table ended: keep answering its questions until stopped
                    self._push()
                    self._stop.wait(0.1)
                    continue
                self._push()
                if self._grabber is None:
                    self._stop.wait(self.params.idle_sleep)
                continue
            try:
                self.process_frame(frame)
            except Exception as exc:
                log.exception("camera %s: processing a frame failed", self.name)
                self._error = f"processing a frame failed: {exc}"
            self._push()
        self._push(force=True)

    def process_frame(self, frame: np.ndarray) -> list[str]:
        """Gate one frame; on a settled one, recognise and reconcile. Returns new moves."""
        t0 = time.perf_counter()
        score = self.gate.score(frame)
        settled = self.stillness.update(score)
        self._gate_ms.append((time.perf_counter() - t0) * 1000)
        self._frames += 1
        with self._lock:
            self._frame = frame
        if not settled:
            return []
        t1 = time.perf_counter()
        moves = self.tracker.observe(frame)
        self._latency_ms.append((time.perf_counter() - t1) * 1000)
        self._redraw()
        if moves or self.tracker.questions:
            self._push(force=True)
        return moves

    # -- what the tablet reads --------------------------------------------------------
    def _redraw(self) -> None:
        self._snapshot()
        frame = self.tracker.last_frame
        if frame is None:
            return
        annotated = annotate_frame(frame, self.tracker, self._status_line())
        with self._lock:
            self._annotated = annotated
            self._version += 1

    def _status_line(self) -> str:
        q = len(self.tracker.questions)
        last = self.tracker.submitted[-1] if self.tracker.submitted else "-"
        return f"last move {last}" + (f" | {q} question(s)" if q else "")

    def latest_png(self) -> bytes | None:
        """The latest annotated still frame as PNG (encoded once per change)."""
        with self._lock:
            image, version = self._annotated, self._version
            cached = self._png
            if image is None and self._frame is not None:
                image, version = self._frame, -self._frames
        if image is None:
            return None
        if cached is not None and cached[0] == version:
            return cached[1]
        data = png(image)
        with self._lock:
            self._png = (version, data)
        return data

    def question_png(self, question_id: str) -> bytes | None:
        q = self.tracker.questions.get(question_id)
        return q.crop_png if q else None

    def status(self) -> dict:
        src = self.source.status
        state = src["state"]
        if state == "live":
            state = "watching" if self.stillness.settled else "motion"
        gate = sorted(self._gate_ms)
        lat = sorted(self._latency_ms)
        out = {
            "state": state,
            "message": self._error or src["message"],
            "source": src,
            "frames": self._frames,
            "dropped": self.dropped,
            "gate_ms": round(gate[len(gate) // 2], 2) if gate else None,
            "settle_ms": round(lat[len(lat) // 2], 1) if lat else None,
            "running": self.running,
        }
        with self._lock:
            out.update(self._tracker_status)
        return out

    def _snapshot(self) -> None:
        """Copy the tracker's status (worker thread only), for readers on other threads."""
        snapshot = self.tracker.status()
        with self._lock:
            self._tracker_status = snapshot

    def _push(self, force: bool = False) -> None:
        if self.on_status is None:
            return
        now = time.monotonic()
        if not force and now - self._last_push < self.params.status_every:
            return
        self._last_push = now
        try:
            self.on_status(self.status())
        except Exception:
            log.exception("camera %s: status listener failed", self.name)
