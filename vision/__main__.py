"""``python -m vision scan|evaluate|bench`` (the only place in vision/ that writes files)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import cv2

from .annotate import annotate
from .bench import bench
from .evaluate import evaluate, format_report
from .imageio import load_image
from .params import Params, parse_set
from .pipeline import scan


def _cmd_scan(args: argparse.Namespace) -> int:
    params = Params(set_size=parse_set(args.set))
    if args.annotate:
        os.makedirs(args.annotate, exist_ok=True)
    status = 0
    for path in args.images:
        try:
            image = load_image(path, params.max_pixels)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 2
            continue
        t0 = time.perf_counter()
        obs = scan(image, params)
        ms = (time.perf_counter() - t0) * 1000
        record = {"file": path, **obs.to_dict(), "ms": round(ms, 1)}
        if args.json:
            print(json.dumps(record))
        else:
            tiles = " ".join(t.text + ("" if t.confidence >= params.min_confidence else "?")
                             for t in obs.tiles)
            print(f"{path}: {len(obs.tiles)} tiles, total {obs.total}  [{tiles}]  {ms:.1f} ms")
        if args.annotate:
            name = os.path.splitext(os.path.basename(path))[0] + ".png"
            cv2.imwrite(os.path.join(args.annotate, name), annotate(image, obs))
    return status


def _cmd_evaluate(args: argparse.Namespace) -> int:
    try:
        result = evaluate(args.labels, Params(set_size=parse_set(args.set)), args.transform)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1) if args.json else format_report(result))
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    results = bench(repeat=args.repeat, frames=args.frames)
    if args.synthetic:
        from .bench import synthetic_exactness

        rows = synthetic_exactness(seeds=args.frames)
        if args.json:
            print(json.dumps({"speed": results, "synthetic": rows}, indent=1))
            return 0
        for r in rows:
            print(f"{r['set']:10} {r['pips']:6} on {r['face']:5} {r['layout']:8}: frames exact "
                  f"{r['frames_exact']}/{r['frames']}  tiles exact {r['tiles_exact']}/{r['tiles']}")
        total = sum(r["tiles_exact"] for r in rows), sum(r["tiles"] for r in rows)
        print(f"synthetic tiles exact: {total[0]}/{total[1]}")
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            print(f"{r['width']}x{r['height']} {r['tiles']:3d} tiles: median {r['ms_median']:6.1f} ms"
                  f"  max {r['ms_max']:6.1f} ms  (cpu median {r['cpu_ms_median']:6.1f} ms)"
                  f"  exact frames {r['frames_exact']}/{r['frames']}")
    return 0


def _cmd_stages(args: argparse.Namespace) -> int:
    from .stages import stage_images

    try:
        image = load_image(args.image)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.image))[0]
    for name, picture in stage_images(image, Params(set_size=parse_set(args.set)),
                                      args.width).items():
        path = os.path.join(args.out, f"{stem}-{name}.jpg")
        cv2.imwrite(path, picture, [cv2.IMWRITE_JPEG_QUALITY, 60 if name.endswith("ink") else 75])
        print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("scan", help="read the tiles of images")
    p.add_argument("images", nargs="+")
    p.add_argument("--set", default="auto", help="double-6 .. double-18, or auto")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.add_argument("--annotate", metavar="DIR", help="write an annotated PNG per image")
    p.set_defaults(func=_cmd_scan)
    p = sub.add_parser("evaluate", help="score against a labels.json")
    p.add_argument("labels")
    p.add_argument("--set", default="auto")
    p.add_argument("--transform", help="rot90, warm, jpeg50, scale60, scale40, dim or blur: "
                   "score transformed copies of the photos (robustness)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_evaluate)
    p = sub.add_parser("bench", help="ms per rendered frame")
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--frames", type=int, default=3)
    p.add_argument("--synthetic", action="store_true",
                   help="also report exactness on clean rendered frames per set and palette")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_bench)
    p = sub.add_parser("stages", help="write a picture of each pipeline stage for one image")
    p.add_argument("image")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--set", default="auto")
    p.add_argument("--width", type=int, default=640)
    p.set_defaults(func=_cmd_stages)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
