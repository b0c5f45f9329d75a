"""Scoring observations against a labels file (format of ../shared/photos/labels.json).

Definitions (also in docs/vision.md):
- exact-tile recall/precision: multiset match of unordered pairs between the confident
  predicted tiles and the labelled tiles. Unmatched predictions up to the number of objects
  an image's ``uncertain`` notes describe are neither counted nor penalised.
- per-half accuracy: after the exact matches, each remaining labelled tile is paired with a
  remaining prediction sharing one half (1 correct half) if any; a missed tile scores 0.
  Accuracy = correct halves / (2 x labelled tiles).
- exact image-total rate: images whose predicted total equals the labelled pip sum.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from .imageio import load_image
from .params import Params
from .pipeline import scan

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9}


def uncertain_count(notes: list) -> int:
    """How many objects the free-text ``uncertain`` notes describe ("4 face-down tiles" -> 4)."""
    total = 0
    for note in notes:
        if isinstance(note, list):
            total += 1
            continue
        m = re.match(r"\s*(\d+|one|two|three|four|five|six|seven|eight|nine)\b", str(note).lower())
        total += (int(m.group(1)) if m.group(1).isdigit() else _NUMBER_WORDS[m.group(1)]) if m else 1
    return total


@dataclass
class ImageScore:
    file: str
    expected: list[tuple[int, int]]
    predicted: list[tuple[int, int]]
    exact: int
    halves: int
    excused: int
    total_expected: int
    total_predicted: int
    low_confidence: int
    ms: float
    error: str | None = None
    missed: list = field(default_factory=list)
    extra: list = field(default_factory=list)

    @property
    def false_positives(self) -> int:
        return max(0, len(self.predicted) - self.exact - self.excused)


def score_image(expected: list, predicted: list, n_uncertain: int) -> tuple[int, int, int, list, list]:
    """Exact matches, correct halves, excused extras, missed and extra tiles."""
    exp = Counter(tuple(sorted(t)) for t in expected)
    pred = Counter(tuple(sorted(t)) for t in predicted)
    exact_c = exp & pred
    exact = sum(exact_c.values())
    rest_e = list((exp - exact_c).elements())
    rest_p = list((pred - exact_c).elements())
    halves = 2 * exact
    unpaired_p = list(rest_p)
    for e in rest_e:
        for i, p in enumerate(unpaired_p):
            if set(e) & set(p):
                halves += 1
                unpaired_p.pop(i)
                break
    excused = min(len(rest_p), n_uncertain)
    return exact, halves, excused, rest_e, rest_p


def _jpeg50(image: np.ndarray) -> np.ndarray:
    _ok, data = cv2.imencode(".jpg", cv2.convertScaleAbs(image, alpha=0.8, beta=30),
                             [cv2.IMWRITE_JPEG_QUALITY, 50])
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


#: named image transforms for robustness checks (``evaluate --transform NAME``).
TRANSFORMS = {
    "rot90": lambda im: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE),
    "warm": lambda im: np.clip(im * np.array([0.75, 0.95, 1.15]), 0, 255).astype(np.uint8),
    "jpeg50": _jpeg50,
    "scale60": lambda im: cv2.resize(im, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA),
    "scale40": lambda im: cv2.resize(im, None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA),
    "dim": lambda im: (255 * (im / 255.0) ** 2.0).astype(np.uint8),
    "blur": lambda im: cv2.GaussianBlur(im, (0, 0), 1.5),
}


def evaluate(labels_path: str, params: Params | None = None, transform: str | None = None
             ) -> dict:
    """Run ``scan`` on every labelled image (optionally transformed first, see
    ``TRANSFORMS``) and return the figures as one dict."""
    if transform is not None and transform not in TRANSFORMS:
        raise ValueError(f"transform must be one of {sorted(TRANSFORMS)}, got {transform!r}")
    params = params or Params()
    with open(labels_path, encoding="utf-8") as fh:
        records = json.load(fh)
    base = os.path.dirname(os.path.abspath(labels_path))
    scores: list[ImageScore] = []
    for rec in records:
        expected = [tuple(sorted(t)) for t in rec.get("tiles", [])]
        n_unc = uncertain_count(rec.get("uncertain", []))
        path = os.path.join(base, rec["file"])
        try:
            image = load_image(path)
            if transform is not None:
                image = TRANSFORMS[transform](image)
            t0 = time.perf_counter()
            obs = scan(image, params)
            ms = (time.perf_counter() - t0) * 1000
        except ValueError as exc:
            scores.append(ImageScore(rec["file"], expected, [], 0, 0, 0, sum(map(sum, expected)),
                                     -1, 0, 0.0, str(exc), expected, []))
            continue
        predicted = [t.pair for t in obs.confident]
        exact, halves, excused, missed, extra = score_image(expected, predicted, n_unc)
        scores.append(ImageScore(rec["file"], expected, predicted, exact, halves, excused,
                                 sum(map(sum, expected)), obs.total, obs.low_confidence, ms,
                                 None, missed, extra))
    return summarise(scores)


def summarise(scores: list[ImageScore]) -> dict:
    n_exp = sum(len(s.expected) for s in scores)
    n_exact = sum(s.exact for s in scores)
    n_pred_counted = sum(s.exact + s.false_positives for s in scores)
    ms = [s.ms for s in scores if s.error is None]

    def block(group: list[ImageScore]) -> dict:
        ne = sum(len(s.expected) for s in group)
        nx = sum(s.exact for s in group)
        npc = sum(s.exact + s.false_positives for s in group)
        return {
            "images": len(group),
            "tiles": ne,
            "half_accuracy": round(sum(s.halves for s in group) / max(1, 2 * ne), 4),
            "tile_recall": round(nx / max(1, ne), 4),
            "tile_precision": round(nx / npc, 4) if npc else 1.0,
            "total_exact_rate": round(sum(s.total_expected == s.total_predicted for s in group)
                                      / max(1, len(group)), 4),
        }

    folders: dict[str, list[ImageScore]] = {}
    for s in scores:
        folders.setdefault(s.file.split("/")[0] if "/" in s.file else ".", []).append(s)
    return {
        "half_accuracy": round(sum(s.halves for s in scores) / max(1, 2 * n_exp), 4),
        "tile_recall": round(n_exact / max(1, n_exp), 4),
        "tile_precision": round(n_exact / n_pred_counted, 4) if n_pred_counted else 1.0,
        "total_exact_rate": round(sum(s.total_expected == s.total_predicted for s in scores)
                                  / max(1, len(scores)), 4),
        "ms_median": round(statistics.median(ms), 1) if ms else None,
        "ms_max": round(max(ms), 1) if ms else None,
        "folders": {k: block(v) for k, v in sorted(folders.items())},
        "images": [
            {"file": s.file, "expected": len(s.expected), "exact": s.exact,
             "false_positives": s.false_positives, "low_confidence": s.low_confidence,
             "total_expected": s.total_expected, "total_predicted": s.total_predicted,
             "missed": [list(t) for t in s.missed], "extra": [list(t) for t in s.extra],
             "ms": round(s.ms, 1), "error": s.error}
            for s in scores
        ],
    }


def format_report(result: dict) -> str:
    """Human-readable form of :func:`evaluate`'s dict."""
    lines = [
        f"per-half accuracy   {result['half_accuracy']:.3f}",
        f"exact-tile recall   {result['tile_recall']:.3f}",
        f"exact-tile precision {result['tile_precision']:.3f}",
        f"exact total rate    {result['total_exact_rate']:.3f}",
        f"ms per image        median {result['ms_median']}  max {result['ms_max']}",
        "",
        f"{'folder':24} {'imgs':>4} {'tiles':>5} {'half':>6} {'recall':>6} {'prec':>6} {'total':>6}",
    ]
    for name, b in result["folders"].items():
        lines.append(f"{name:24} {b['images']:4d} {b['tiles']:5d} {b['half_accuracy']:6.3f} "
                     f"{b['tile_recall']:6.3f} {b['tile_precision']:6.3f} {b['total_exact_rate']:6.3f}")
    lines += ["", "misses (file: exact/expected, false positives, total expected/predicted):"]
    for img in result["images"]:
        if img["exact"] == img["expected"] and not img["false_positives"] and \
                img["total_expected"] == img["total_predicted"]:
            continue
        lines.append(f"  {img['file']}: {img['exact']}/{img['expected']} fp={img['false_positives']} "
                     f"total {img['total_expected']}/{img['total_predicted']} "
                     f"missed={img['missed']} extra={img['extra']}"
                     + (f" error={img['error']}" if img["error"] else ""))
    return "\n".join(lines)
