"""Frame sources: clear status for a missing device, a bad file, a folder, a video."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.camera import CameraSource, parse_source, redact, write_video


def frames(n: int = 5, h: int = 48, w: int = 64):
    for i in range(n):
        img = np.full((h, w, 3), 40, np.uint8)
        img[:, i * 4:i * 4 + 8] = 220
        yield img


def test_parse_source_kinds(tmp_path):
    assert parse_source(0).kind == "device"
    assert parse_source("2").value == 2
    assert parse_source("rtsp://cam.local/stream").kind == "url"
    assert parse_source("http://10.0.0.5:8080/video.mjpg").kind == "url"
    assert parse_source(str(tmp_path)).kind == "folder"
    assert parse_source(str(tmp_path / "x.mp4")).kind == "file"
    for bad in (-1, "", "ftp://x/y", True, None):
        with pytest.raises(ValueError):
            parse_source(bad)


def test_redact_hides_the_password():
    assert redact("rtsp://admin:secret@10.0.0.9/live") == "rtsp://admin:***@10.0.0.9/live"
    assert "secret" not in CameraSource("rtsp://admin:secret@127.0.0.1:1/x").status["source"]


def test_missing_device_reports_unavailable_and_retries_later():
    source = CameraSource(97, retry=(30.0, 60.0))
    assert source.read() is None
    status = source.status
    assert status["state"] == "unavailable"
    assert "camera 97 is not available" in status["message"]
    assert "retrying in 30.0 s" in status["message"]
    assert not source.finished  # a live camera may come back
    assert source.read() is None  # waits for the back-off, no busy reopening
    assert source.status["message"].endswith("(attempt 1)")


def test_missing_file_fails_for_good(tmp_path):
    source = CameraSource(str(tmp_path / "nope.mp4"))
    assert source.read() is None
    assert source.status["state"] == "failed"
    assert "no such video file" in source.status["message"]
    assert source.finished


def test_unreadable_file_says_it_cannot_be_decoded(tmp_path):
    bad = tmp_path / "garbage.mp4"
    bad.write_bytes(b"this is not a video" * 100)
    source = CameraSource(str(bad))
    assert source.read() is None
    assert source.status["state"] == "failed"
    assert "cannot" in source.status["message"] and "garbage.mp4" in source.status["message"]


def test_video_file_round_trip_and_end(tmp_path):
    path = str(tmp_path / "clip.avi")
    assert write_video(frames(5), path, fps=12) == 5
    source = CameraSource(path)
    got = [source.read() for _ in range(7)]
    assert sum(f is not None for f in got) == 5
    assert got[0].shape == (48, 64, 3)
    status = source.status
    assert status["state"] == "ended" and status["frames"] == 5
    assert abs(status["fps"] - 12) < 0.5
    assert "end of video" in status["message"]


def test_video_file_loops_when_asked(tmp_path):
    path = str(tmp_path / "clip.avi")
    write_video(frames(3), path, fps=10)
    source = CameraSource(path, loop=True)
    got = [source.read() for _ in range(8)]
    assert sum(f is not None for f in got) >= 6


def test_image_folder_in_name_order_skipping_bad_files(tmp_path):
    for i, img in enumerate(frames(3)):
        cv2.imwrite(str(tmp_path / f"frame_{i:02d}.png"), img)
    (tmp_path / "frame_01b.png").write_bytes(b"broken")
    (tmp_path / "notes.txt").write_text("not an image")
    source = CameraSource(str(tmp_path))
    got = [source.read() for _ in range(5)]
    assert sum(f is not None for f in got) == 3
    assert source.status["state"] == "ended"


def test_empty_folder_fails_clearly(tmp_path):
    source = CameraSource(str(tmp_path))
    assert source.read() is None
    assert source.status["state"] == "failed"
    assert "holds no images" in source.status["message"]


def test_write_video_refuses_unknown_extensions_and_no_frames(tmp_path):
    with pytest.raises(ValueError, match="must end in"):
        write_video(frames(1), str(tmp_path / "x.gif"), 10)
    with pytest.raises(ValueError, match="no frames"):
        write_video([], str(tmp_path / "x.avi"), 10)


def test_a_stream_that_does_not_answer_is_unavailable_not_a_crash():
    source = CameraSource("http://127.0.0.1:9/video.mjpg", retry=(30.0, 60.0))
    assert source.read() is None
    status = source.status
    assert status["state"] == "unavailable" and status["kind"] == "url"
    assert "does not answer" in status["message"]
