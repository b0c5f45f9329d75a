"""Speed benchmark on rendered frames (median of many runs) plus their exactness."""

from __future__ import annotations

import statistics
import time

from .params import Params
from .pipeline import scan
from .render import RenderSpec, render_table

CASES = ((1280, 720, 20), (1280, 720, 60), (1920, 1080, 20), (1920, 1080, 60))


def bench(repeat: int = 15, frames: int = 3, params: Params | None = None) -> list[dict]:
    """For each (width, height, tiles) case: median/max wall ms over ``frames`` x ``repeat``
    scans, median CPU ms of this process (less disturbed by other load on the machine;
    above wall time when OpenCV runs threads), and how many frames were read exactly."""
    params = params or Params()
    results = []
    for width, height, n in CASES:
        times, cpu, exact = [], [], 0
        for seed in range(frames):
            spec = RenderSpec(width=width, height=height, n_tiles=n, set_size=12,
                              pips="colour" if seed % 2 else "black", seed=seed,
                              background=("cloth", "wood", "marble")[seed % 3])
            image, truth = render_table(spec)
            obs = scan(image, params)
            exact += sorted(t.pair for t in obs.confident) == sorted(t.pair for t in truth)
            for _ in range(repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                scan(image, params)
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
        results.append({"width": width, "height": height, "tiles": n,
                        "ms_median": round(statistics.median(times), 1),
                        "ms_max": round(max(times), 1),
                        "cpu_ms_median": round(statistics.median(cpu), 1), "frames": frames,
                        "frames_exact": exact})
    return results


def synthetic_exactness(seeds: int = 2, params: Params | None = None) -> list[dict]:
    """Exact-frame and exact-tile rates on clean top-down rendered frames, per set and
    palette (12 tiles a frame, scattered, rotated, 1280x720; double-15/18 with 110 px tiles,
    which 16-18 pip halves need)."""
    params = params or Params()
    rows = []
    cases = [(6, "black", "white"), (6, "colour", "white"), (6, "light", "black"),
             (9, "colour", "white"), (12, "colour", "white"), (12, "black", "ivory"),
             (12, "light", "black"), (15, "colour", "white"), (18, "colour", "white"),
             (18, "light", "black")]
    for set_size, pips, face in cases:
        for layout in ("scatter", "touching"):
            frames = exact = tiles = tiles_ok = 0
            for seed in range(seeds):
                big = set_size >= 15
                spec = RenderSpec(n_tiles=6 if big else 12, set_size=set_size, pips=pips,
                                  face=face, layout=layout, seed=seed,
                                  tile_width=110 if big else None,
                                  background=("cloth", "wood", "marble", "white")[seed % 4]
                                  if face != "white" or seed % 4 != 3 else "cloth")
                image, truth = render_table(spec)
                obs = scan(image, params)
                got = sorted(t.pair for t in obs.confident)
                want = sorted(t.pair for t in truth)
                frames += 1
                exact += got == want
                tiles += len(want)
                remaining = list(got)
                for t in want:
                    if t in remaining:
                        remaining.remove(t)
                        tiles_ok += 1
            rows.append({"set": f"double-{set_size}", "pips": pips, "face": face, "layout": layout,
                         "frames": frames, "frames_exact": exact, "tiles": tiles,
                         "tiles_exact": tiles_ok})
    return rows
