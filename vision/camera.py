"""Frame sources: the one I/O module of ``vision`` (DESIGN.md §2).

``CameraSource(spec)`` reads frames from a webcam index (``0``), a video file, a folder of
images or an HTTP MJPEG / RTSP URL through ``cv2.VideoCapture``. It never raises on a
missing or vanished camera: ``read()`` returns ``None`` and ``status`` says what is wrong
in words a person can act on, while live sources are reopened with a growing back-off.
``write_video`` stores rendered frames (the demo's recorded table).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_FOURCC = {".avi": "MJPG", ".mp4": "mp4v", ".mkv": "MJPG"}

# Status states. live: frames arrive. connecting/reconnecting: trying to (re)open a live
# source. unavailable: a live source cannot be opened now (retrying). ended: a file or
# folder was read to its end. failed: a file or folder that can never be read. closed.
STATES = ("connecting", "live", "reconnecting", "unavailable", "ended", "failed", "closed")


@dataclass(frozen=True)
class SourceSpec:
    """What a source setting names: ``kind`` is device, file, folder or url."""

    kind: str
    value: str | int

    @property
    def live(self) -> bool:
        return self.kind in ("device", "url")

    def describe(self) -> str:
        if self.kind == "device":
            return f"camera {self.value}"
        if self.kind == "url":
            return f"stream {redact(str(self.value))}"
        return f"{self.kind} {self.value}"


def redact(url: str) -> str:
    """A URL without its password, for status lines and logs."""
    if "://" in url and "@" in url.split("://", 1)[1].split("/", 1)[0]:
        scheme, rest = url.split("://", 1)
        creds, host = rest.split("@", 1)
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url


def parse_source(spec: str | int) -> SourceSpec:
    """``0`` / ``"0"`` -> device; ``rtsp://``, ``http(s)://`` -> url; a folder; else a file."""
    if isinstance(spec, bool):
        raise ValueError("camera source must be a device index, a path or a URL")  # noqa: TRY004
    if isinstance(spec, int):
        if spec < 0:
            raise ValueError(f"camera index must be 0 or more, got {spec}")
        return SourceSpec("device", spec)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("camera source must be a device index, a path or a URL, got "
                         f"{spec!r}")
    text = spec.strip()
    if text.isdigit():
        return SourceSpec("device", int(text))
    if "://" in text:
        scheme = text.split("://", 1)[0].lower()
        if scheme not in ("http", "https", "rtsp", "rtsps", "rtmp", "udp", "tcp"):
            raise ValueError(f"camera URL scheme {scheme!r} is not supported (http, https, rtsp)")
        return SourceSpec("url", text)
    if os.path.isdir(text):
        return SourceSpec("folder", text)
    return SourceSpec("file", text)


class CameraSource:
    """Frames from one source; thread-safe ``status``; see the module docstring.

    ``loop`` restarts a file or folder at its end (a demo table that plays forever);
    ``pace`` sleeps so files play at their own frame rate (``fps`` overrides it);
    ``retry`` is the back-off range in seconds for reopening live sources.
    """

    def __init__(self, spec: str | int, *, loop: bool = False, pace: bool = False,
                 fps: float | None = None, retry: tuple[float, float] = (0.5, 8.0),
                 lost_after: float = 3.0):
        self.spec = parse_source(spec)
        self.loop = loop
        self.pace = pace
        self.retry = retry
        self.lost_after = lost_after
        self._fps_override = fps
        self._cap: cv2.VideoCapture | None = None
        self._images: list[str] = []
        self._image_index = 0
        self._lock = threading.Lock()
        self._state = "connecting"
        self._message = f"opening {self.spec.describe()}"
        self._frames = 0
        self._failures = 0
        self._next_attempt = 0.0
        self._last_frame_at: float | None = None
        self._next_due: float | None = None
        self.fps: float = fps or 0.0
        self.frame_size: tuple[int, int] | None = None

    # -- status -----------------------------------------------------------------------
    def _set(self, state: str, message: str) -> None:
        with self._lock:
            self._state, self._message = state, message

    @property
    def state(self) -> str:
        with self._lock:
            return self._state

    @property
    def status(self) -> dict:
        """``{"state", "message", "source", "kind", "frames", "fps", "size", "last_frame_age"}``."""
        with self._lock:
            age = None if self._last_frame_at is None else round(time.monotonic() - self._last_frame_at, 2)
            return {"state": self._state, "message": self._message,
                    "source": self.spec.describe(), "kind": self.spec.kind,
                    "frames": self._frames, "fps": round(self.fps, 2),
                    "size": list(self.frame_size) if self.frame_size else None,
                    "last_frame_age": age}

    @property
    def finished(self) -> bool:
        """True when no frame will ever come again (file ended or unreadable, closed)."""
        return self.state in ("ended", "failed", "closed")

    # -- opening ----------------------------------------------------------------------
    def open(self) -> bool:
        """Try to open now; False (with the reason in ``status``) when it cannot."""
        spec = self.spec
        if spec.kind == "folder":
            names = sorted(n for n in os.listdir(spec.value)
                           if n.lower().endswith(IMAGE_EXTENSIONS))
            if not names:
                self._set("failed", f"folder {spec.value} holds no images "
                                    f"({', '.join(IMAGE_EXTENSIONS)})")
                return False
            self._images = [os.path.join(spec.value, n) for n in names]
            self._image_index = 0
            self.fps = self._fps_override or 2.0
            self._set("live", f"reading {len(names)} images from {spec.value}")
            return True
        if spec.kind == "file":
            if not os.path.exists(spec.value):
                self._set("failed", f"no such video file: {spec.value}")
                return False
            if not os.access(spec.value, os.R_OK):
                self._set("failed", f"video file {spec.value} is not readable (permissions)")
                return False
        self.release()
        cap = cv2.VideoCapture(spec.value)
        if not cap.isOpened():
            cap.release()
            self._failed_open()
            return False
        if spec.kind == "file":
            ok, frame = cap.read()
            if not ok or frame is None:
                cap.release()
                self._set("failed", f"cannot read video file {spec.value}: OpenCV could not "
                                    "decode a frame (not a video, or a codec it lacks)")
                return False
            cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
        self._cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS)
        self.fps = self._fps_override or (fps if fps and 0 < fps < 240 else 15.0)
        self._failures = 0
        self._set("live", f"{spec.describe()} is live")
        return True

    def _failed_open(self) -> None:
        spec = self.spec
        if spec.kind == "file":
            self._set("failed", f"cannot open video file {spec.value}: not a video OpenCV "
                                "can read")
            return
        self._failures += 1
        delay = min(self.retry[1], self.retry[0] * 2 ** (self._failures - 1))
        self._next_attempt = time.monotonic() + delay
        if spec.kind == "device":
            what = (f"camera {spec.value} is not available (no device answered: unplugged, "
                    "in use by another program, or no permission)")
        else:
            what = f"{spec.describe()} does not answer (network, address or credentials)"
        self._set("unavailable", f"{what}; retrying in {delay:.1f} s "
                                 f"(attempt {self._failures})")

    def release(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def close(self) -> None:
        self.release()
        self._set("closed", f"{self.spec.describe()} closed")

    # -- reading ----------------------------------------------------------------------
    def read(self) -> np.ndarray | None:
        """The next frame (BGR uint8), or None when there is none now; see ``status``."""
        state = self.state
        if state in ("failed", "closed"):
            return None
        if state == "ended":
            if not self.loop:
                return None
            self._set("connecting", f"restarting {self.spec.describe()}")
        if self._cap is None and not self._images:
            if self.spec.live and time.monotonic() < self._next_attempt:
                return None
            if state == "live":
                self._set("reconnecting", f"reopening {self.spec.describe()}")
            if not self.open():
                return None
        frame = self._read_image() if self.spec.kind == "folder" else self._read_capture()
        if frame is None:
            return None
        self._pace()
        with self._lock:
            self._frames += 1
            self._last_frame_at = time.monotonic()
        self.frame_size = (frame.shape[1], frame.shape[0])
        return frame

    def _read_image(self) -> np.ndarray | None:
        while self._image_index < len(self._images):
            path = self._images[self._image_index]
            self._image_index += 1
            frame = cv2.imread(path, cv2.IMREAD_COLOR)
            if frame is not None:
                return frame
            self._set("live", f"skipped unreadable image {os.path.basename(path)}")
        self._images = []
        self._set("ended", f"{self.spec.describe()}: all images read")
        return None

    def _read_capture(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        if ok and frame is not None:
            if frame.ndim == 2:
                frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
            return frame
        self.release()
        if self.spec.kind == "file":
            self._set("ended", f"{self.spec.describe()}: end of video after "
                               f"{self._frames} frames")
            return None
        since = "" if self._last_frame_at is None else \
            f" after {self._frames} frames"
        self._failures += 1
        delay = min(self.retry[1], self.retry[0] * 2 ** (self._failures - 1))
        self._next_attempt = time.monotonic() + delay
        self._set("reconnecting", f"{self.spec.describe()} stopped sending frames{since} "
                                  f"(disconnected?); reconnecting in {delay:.1f} s")
        return None

    def _pace(self) -> None:
        if not self.pace or self.spec.live or self.fps <= 0:
            return
        now = time.monotonic()
        if self._next_due is None or now - self._next_due > 1.0:
            self._next_due = now
        wait = self._next_due - now
        if wait > 0:
            time.sleep(wait)
        self._next_due += 1.0 / self.fps

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def write_video(frames: Iterable[np.ndarray], path: str, fps: float,
                fourcc: str | None = None) -> int:
    """Write BGR frames to ``path`` (MJPG in .avi, mp4v in .mp4); returns the frame count.
    Raises ValueError when no frame came or OpenCV cannot write that format."""
    writer = None
    count = 0
    ext = os.path.splitext(path)[1].lower()
    code = fourcc or VIDEO_FOURCC.get(ext)
    if code is None:
        raise ValueError(f"video path must end in one of {', '.join(VIDEO_FOURCC)}, got {path!r}")
    try:
        for frame in frames:
            if writer is None:
                h, w = frame.shape[:2]
                writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*code), float(fps), (w, h))
                if not writer.isOpened():
                    raise ValueError(f"OpenCV cannot write {code} video to {path}")
                if code == "MJPG":
                    writer.set(cv2.VIDEOWRITER_PROP_QUALITY, 95)
            writer.write(frame)
            count += 1
    finally:
        if writer is not None:
            writer.release()
    if count == 0:
        raise ValueError("write_video got no frames")
    return count
