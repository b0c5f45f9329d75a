"""The photo seam: image bytes of a revealed hand -> proposed tiles, via ``vision`` when present.

Vision proposes, people confirm: the tablet shows the proposals on the photo and the player
confirms or fixes them before the round is finished. Without the vision package the route
answers 503 "vision not available".
"""

from __future__ import annotations

from .session import CommandError


def vision_available() -> bool:
    try:
        import vision
    except Exception:  # noqa: BLE001 (a missing or half-built vision is "not available")
        return False
    return hasattr(vision, "scan") and hasattr(vision, "decode_image")


def read_photo(data: bytes, set_size: int | None = None) -> dict:
    """Proposed tiles ``{"tiles": [{"tile", "pips", "corners", "confidence", "confident"}],
    "width", "height", "total", "low_confidence"}``; CommandError on bad input."""
    if not data:
        raise CommandError("no_image", "Send the photo as the multipart field 'image' "
                           "(JPEG or PNG).", status=400)
    if not vision_available():
        raise CommandError("vision_unavailable", "vision not available: enter the tiles or "
                           "the pip sum instead.", status=503)
    import vision

    try:
        image = vision.decode_image(data, "image")
        observation = vision.scan(image, set_size=set_size) if set_size else vision.scan(image)
    except ValueError as exc:
        raise CommandError("bad_image", str(exc)) from None
    height, width = image.shape[:2]
    threshold = observation.min_confidence
    tiles = []
    for reading in observation.tiles:
        item = reading.to_dict()
        item["tile"] = reading.text
        item["confident"] = reading.confidence >= threshold
        tiles.append(item)
    return {"tiles": tiles, "width": int(width), "height": int(height),
            "total": observation.total, "low_confidence": observation.low_confidence}
