"""Bad input gives a clear ValueError naming the problem, never a crash or a hang."""

from __future__ import annotations

import struct
import time
import zlib

import cv2
import numpy as np
import pytest

from vision import RenderSpec, decode_image, load_image, render_table, scan


def _png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)))


@pytest.mark.parametrize("image,words", [
    (np.zeros((0, 0, 3), np.uint8), "too small"),
    (np.zeros((100, 100), np.uint8), "shape"),
    (np.zeros((100, 100, 1), np.uint8), "shape"),
    (np.zeros((100, 100, 4), np.uint8), "shape"),
    (np.zeros((100, 100, 3), np.uint16), "uint8"),
    (np.zeros((100, 100, 3), np.float32), "uint8"),
    ([[0, 0, 0]], "numpy array"),
    (None, "numpy array"),
])
def test_scan_rejects_bad_arrays(image, words):
    with pytest.raises(ValueError, match=words) as info:
        scan(image)
    assert "image" in str(info.value)


def test_scan_rejects_50_megapixel_array_quickly():
    big = np.zeros((6250, 8000, 3), np.uint8)  # 50 MP
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="pixels"):
        scan(big)
    assert time.perf_counter() - t0 < 1.0


def test_load_rejects_empty_file(tmp_path):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        load_image(path)


def test_load_rejects_missing_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        load_image(tmp_path / "nope.png")


def test_load_rejects_text_file(tmp_path):
    path = tmp_path / "notes.png"
    path.write_text("this is not an image\n" * 10)
    with pytest.raises(ValueError, match="not a readable image"):
        load_image(path)


def test_load_rejects_zero_size_png_header(tmp_path):
    path = tmp_path / "zero.png"
    path.write_bytes(_png_header(0, 0) + b"\x00" * 32)
    with pytest.raises(ValueError, match="0-pixel|not a readable"):
        load_image(path)


def test_load_rejects_50_megapixel_file_before_decoding(tmp_path):
    path = tmp_path / "huge.png"
    path.write_bytes(_png_header(8000, 6250) + b"\x00" * 64)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="pixels"):
        load_image(path)
    assert time.perf_counter() - t0 < 0.5


def test_load_rejects_truncated_jpeg(tmp_path):
    image, _ = render_table(RenderSpec(n_tiles=3, width=320, height=240))
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    path = tmp_path / "cut.jpg"
    path.write_bytes(data.tobytes()[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated"):
        load_image(path)


def test_load_rejects_truncated_png(tmp_path):
    image, _ = render_table(RenderSpec(n_tiles=3, width=320, height=240))
    _ok, data = cv2.imencode(".png", image)
    path = tmp_path / "cut.png"
    path.write_bytes(data.tobytes()[: len(data) // 3])
    with pytest.raises(ValueError):
        load_image(path)


def test_load_converts_grey_and_16_bit_files(tmp_path):
    grey = np.full((64, 80), 200, np.uint8)
    deep = np.full((64, 80, 3), 50000, np.uint16)
    for name, arr in (("grey.png", grey), ("deep.png", deep)):
        _ok, data = cv2.imencode(".png", arr)
        image = decode_image(data.tobytes(), name)
        assert image.shape == (64, 80, 3) and image.dtype == np.uint8


def test_tiny_and_uniform_images_have_no_tiles():
    for value in (0, 128, 255):
        assert scan(np.full((32, 48, 3), value, np.uint8)).tiles == ()


def test_random_noise_is_fast_and_finds_nothing_confident():
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    t0 = time.perf_counter()
    obs = scan(noise)
    assert time.perf_counter() - t0 < 5.0
    assert obs.confident == ()
