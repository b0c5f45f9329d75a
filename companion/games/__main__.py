"""Command line of the rules core: ``simulate`` a whole match, ``bench`` the engines.

    python -m companion.games simulate GAME --players N --seed S [--option KEY=VALUE]... [--json]
    python -m companion.games bench
"""

from __future__ import annotations

import argparse
import json
import sys

from .bench import run_bench
from .match import play_random_match
from .registry import game_names, get_rules


def parse_option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: write an option as KEY=VALUE")
    return key.strip(), value.strip()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m companion.games", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    simulate = sub.add_parser("simulate", help="play a whole match with random legal moves")
    simulate.add_argument("game", help=f"one of {', '.join(game_names())} or an alias")
    simulate.add_argument("--players", type=int, default=4)
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--option", type=parse_option, action="append", default=[],
                          metavar="KEY=VALUE")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_parser("bench", help="checked plays per second and full-match time")
    return parser


def simulate(args: argparse.Namespace) -> int:
    try:
        rules = get_rules(args.game)
        options = rules.resolve_options(args.players, dict(args.option))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    record = play_random_match(rules, args.players, options, seed=args.seed)
    result = record.to_json(rules)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{rules.title}, {args.players} players, seed {args.seed}")
    for number, played in enumerate(result["rounds"], 1):
        scores = " ".join(f"{s:4d}" for s in played["scores"])
        print(f"round {number:2d} engine {played['engine']:>5}  {played['ended']:8s} {scores}")
    print(f"totals{' ' * 24}{' '.join(f'{t:4d}' for t in result['totals'])}")
    print("winners: " + ", ".join(f"p{w + 1}" for w in result["winners"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "simulate":
        return simulate(args)
    return run_bench()


if __name__ == "__main__":
    sys.exit(main())
