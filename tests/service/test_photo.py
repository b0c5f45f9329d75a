"""The photo seam: bad input, a clear 503 without vision, proposals with vision."""

from __future__ import annotations

import io

import pytest

from companion import photo


def test_photo_needs_an_image(mt_table):
    response = mt_table.post("/round/photo", data={})
    assert response.status_code == 400 and response.get_json()["error"] == "no_image"


def test_photo_without_vision_is_503(mt_table, monkeypatch):
    monkeypatch.setattr(photo, "vision_available", lambda: False)
    response = mt_table.post("/round/photo", data={"image": (io.BytesIO(b"\x89PNG"), "a.png")},
                             content_type="multipart/form-data")
    assert response.status_code == 503
    assert "vision not available" in response.get_json()["message"]


def test_photo_too_large_is_413(app, mt_table):
    app.config["PHOTO_MAX_BYTES"] = 1000
    response = mt_table.post("/round/photo", data={"image": (io.BytesIO(b"x" * 5000), "a.jpg")},
                             content_type="multipart/form-data")
    assert response.status_code == 413 and "1000" in response.get_json()["message"]


def test_photo_proposes_tiles(mt_table):
    vision = pytest.importorskip("vision")
    cv2 = pytest.importorskip("cv2")
    if not photo.vision_available():
        pytest.skip("vision has no scan/decode_image")
    image, _truth = vision.render_table(vision.RenderSpec(tiles=[(6, 4), (12, 3), (0, 0)],
                                                         set_size=12, seed=3))
    _ok, png = cv2.imencode(".png", image)
    response = mt_table.post("/round/photo", data={"image": (io.BytesIO(png.tobytes()), "h.png")},
                             content_type="multipart/form-data")
    body = response.get_json()
    assert response.status_code == 200, body
    assert body["width"] == image.shape[1] and body["height"] == image.shape[0]
    for tile in body["tiles"]:
        assert len(tile["corners"]) == 4 and 0 <= tile["confidence"] <= 1
    assert {t["tile"] for t in body["tiles"] if t["confident"]} <= {"6-4", "12-3", "0-0"}
    bad = mt_table.post("/round/photo", data={"image": (io.BytesIO(b"not an image"), "x.png")},
                        content_type="multipart/form-data")
    assert bad.status_code == 422 and bad.get_json()["error"] == "bad_image"
