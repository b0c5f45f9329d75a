"""Speed benchmark on rendered frames (median of many runs) plus their exactness."""

from __future__ import annotations

import statistics
import time

from .params import Params
from .pipeline import scan
from .render import RenderSpec, render_table

CASES = ((1280, 720, 20), (1280, 720, 60), (1920, 1080, 20), (1920, 1080, 60))


def bench(repeat: int = 15, frames: int = 3, params: Params | None = None) -> list[dict]:
    """For each (width, height, tiles) case: median/max ms over ``frames`` x ``repeat``
    scans, and how many frames were read exactly."""
    params = params or Params()
    results = []
    for width, height, n in CASES:
        times, exact = [], 0
        for seed in range(frames):
            spec = RenderSpec(width=width, height=height, n_tiles=n, set_size=12,
                              pips="colour" if seed % 2 else "black", seed=seed,
                              background=("cloth", "wood", "marble")[seed % 3])
            image, truth = render_table(spec)
            obs = scan(image, params)
            exact += sorted(t.pair for t in obs.confident) == sorted(t.pair for t in truth)
            for _ in range(repeat):
                t0 = time.perf_counter()
                scan(image, params)
                times.append((time.perf_counter() - t0) * 1000)
        results.append({"width": width, "height": height, "tiles": n,
                        "ms_median": round(statistics.median(times), 1),
                        "ms_max": round(max(times), 1), "frames": frames,
                        "frames_exact": exact})
    return results
