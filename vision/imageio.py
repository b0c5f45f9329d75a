"""Input checking and safe image loading (no writing: the CLI writes files).

``validate_image`` is what every library entry point calls first. ``load_image`` reads
headers before decoding so a huge or truncated file is refused with a ``ValueError``
instead of hanging or returning a half-grey picture.
"""

from __future__ import annotations

import os
import struct

import cv2
import numpy as np

DEFAULT_MAX_PIXELS = 40_000_000


def validate_image(image: object, name: str = "image", max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Return ``image`` unchanged if it is an (H, W, 3) uint8 BGR array, else raise."""
    if not isinstance(image, np.ndarray):
        raise ValueError(  # noqa: TRY004 - one error type for all bad input (STYLE.md 5, 8)
            f"{name} must be a numpy array (H, W, 3) uint8 BGR, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise ValueError(
            f"{name} must have dtype uint8, got {image.dtype} (convert 16-bit images with image >> 8)"
        )
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"{name} must have shape (H, W, 3) BGR, got {image.shape}")
    h, w = image.shape[:2]
    if h < 16 or w < 16:
        raise ValueError(f"{name} is too small ({w}x{h}); at least 16x16 pixels are needed")
    if h * w > max_pixels:
        raise ValueError(f"{name} has {h * w} pixels, more than the limit of {max_pixels}")
    return image


def _png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            if i + 9 <= n:
                h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                return w, h
            return None
        i += 2 + length
    return None


def decode_image(data: bytes, name: str = "image", max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Decode encoded image bytes to (H, W, 3) uint8 BGR, refusing bad input with ValueError."""
    if not data:
        raise ValueError(f"{name} is empty (0 bytes)")
    size = _png_size(data) or _jpeg_size(data)
    if size is not None:
        w, h = size
        if w == 0 or h == 0:
            raise ValueError(f"{name} declares a 0-pixel size ({w}x{h})")
        if w * h > max_pixels:
            raise ValueError(f"{name} is {w}x{h} = {w * h} pixels, more than the limit of {max_pixels}")
    if data[:2] == b"\xff\xd8" and data.rstrip(b"\x00")[-2:] != b"\xff\xd9":
        raise ValueError(f"{name} is a truncated JPEG (no end-of-image marker)")
    buf = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"{name} is not a readable image (PNG, JPEG, BMP, TIFF, WebP...)")
    if image.size == 0:
        raise ValueError(f"{name} decodes to an empty image")
    if image.ndim == 3 and image.shape[0] * image.shape[1] > max_pixels:
        raise ValueError(f"{name} has more than {max_pixels} pixels")
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise ValueError(f"{name} has unsupported sample type {image.dtype}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.shape[2] == 1:
        image = cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    return validate_image(image, name, max_pixels)


def load_image(path: str | os.PathLike, max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Read an image file as (H, W, 3) uint8 BGR; ValueError on anything unusable."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ValueError(f"cannot read {name}: {exc.strerror or exc}") from exc
    return decode_image(data, name, max_pixels)
