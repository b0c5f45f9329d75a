"""The command line, the evaluator's scoring rules, and the library's purity."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import cv2
import pytest

from vision import RenderSpec, render_table
from vision.evaluate import score_image, uncertain_count

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    folder = tmp_path_factory.mktemp("frames")
    records = []
    for seed in range(2):
        image, truth = render_table(RenderSpec(n_tiles=5, set_size=6, seed=seed, width=640,
                                               height=480))
        name = f"frame{seed}.png"
        cv2.imwrite(str(folder / name), image)
        records.append({"file": name, "tiles": [list(t.pair) for t in truth], "uncertain": []})
    (folder / "labels.json").write_text(json.dumps(records))
    return folder, records


def test_scan_json_output(frames, tmp_path):
    folder, records = frames
    out = run_cli("scan", str(folder / "frame0.png"), "--json", "--set", "double-6",
                  "--annotate", str(tmp_path))
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout.splitlines()[0])
    assert set(record) >= {"file", "tiles", "total", "ms"}
    assert sorted(sorted(t["pips"]) for t in record["tiles"]) == sorted(records[0]["tiles"])
    assert record["total"] == sum(map(sum, records[0]["tiles"]))
    for tile in record["tiles"]:
        assert len(tile["corners"]) == 4 and all(len(p) == 2 for p in tile["corners"])
        assert 0.0 <= tile["confidence"] <= 1.0
    assert (tmp_path / "frame0.png").exists()


def test_scan_reports_bad_files_and_continues(frames, tmp_path):
    folder, _ = frames
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"")
    out = run_cli("scan", str(bad), str(folder / "frame1.png"), "--json")
    assert out.returncode == 2
    assert "empty" in out.stderr
    assert len(out.stdout.splitlines()) == 1


def test_scan_rejects_unknown_set(frames):
    folder, _ = frames
    out = run_cli("scan", str(folder / "frame0.png"), "--set", "double-7")
    assert out.returncode != 0


def test_evaluate_json_keys_and_perfect_synthetic_score(frames):
    folder, _ = frames
    out = run_cli("evaluate", str(folder / "labels.json"), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    for key in ("half_accuracy", "tile_recall", "tile_precision", "total_exact_rate", "ms_median",
                "ms_max", "images"):
        assert key in result
    assert result["tile_recall"] == 1.0 and result["tile_precision"] == 1.0
    assert result["half_accuracy"] == 1.0 and result["total_exact_rate"] == 1.0
    assert len(result["images"]) == 2


def test_evaluate_text_report(frames):
    folder, _ = frames
    out = run_cli("evaluate", str(folder / "labels.json"))
    assert out.returncode == 0
    assert "per-half accuracy" in out.stdout and "exact-tile recall" in out.stdout


def test_bench_runs_small():
    out = run_cli("bench", "--repeat", "1", "--frames", "1", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert {(r["width"], r["height"], r["tiles"]) for r in rows} == {
        (1280, 720, 20), (1280, 720, 60), (1920, 1080, 20), (1920, 1080, 60)}
    assert all(r["ms_median"] > 0 for r in rows)


def test_score_image_exact_halves_and_uncertain():
    exact, halves, excused, missed, extra = score_image([(1, 2), (3, 4), (5, 6)],
                                                        [(2, 1), (3, 5), (0, 0)], 0)
    assert exact == 1 and halves == 3 and excused == 0
    assert missed == [(3, 4), (5, 6)] and sorted(extra) == [(0, 0), (3, 5)]
    assert score_image([(1, 1)], [(1, 1), (6, 6)], 1)[2] == 1


def test_uncertain_count_reads_numbers():
    notes = ["4 face-down tiles (black backs)", "tile at the left border", "two tiles cut off",
             "[3,4] tile (magenta 3 | brown 4): glare"]
    assert uncertain_count(notes) == 4 + 1 + 2 + 1


def test_library_imports_no_io_frameworks():
    banned = {"flask", "sqlite3", "paho", "companion", "firmware_bridge", "requests"}
    vision_dir = os.path.join(REPO, "vision")
    for name in os.listdir(vision_dir):
        if not name.endswith(".py") or name in ("__main__.py", "camera.py"):
            continue
        with open(os.path.join(vision_dir, name), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                mods = [node.module]
            for mod in mods:
                assert mod.split(".")[0] not in banned, f"{name} imports {mod}"
            if isinstance(node, ast.Attribute) and node.attr in ("imwrite", "imshow"):
                pytest.fail(f"{name} calls cv2.{node.attr} (library code writes no files)")


def test_stages_writes_one_picture_per_stage(frames, tmp_path):
    folder, _ = frames
    out = run_cli("stages", str(folder / "frame0.png"), "--out", str(tmp_path), "--width", "320")
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"frame0-{s}.jpg" for s in ("1-ink", "2-bars", "3-tiles", "4-halves",
                                                 "5-result")]
    assert all(cv2.imread(str(tmp_path / n)).shape[1] <= 320 for n in names)


def test_evaluate_with_a_transform_and_a_bad_one(frames):
    folder, _ = frames
    out = run_cli("evaluate", str(folder / "labels.json"), "--json", "--transform", "rot90")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["tile_recall"] == 1.0
    bad = run_cli("evaluate", str(folder / "labels.json"), "--transform", "sepia")
    assert bad.returncode == 2 and "transform must be one of" in bad.stderr
