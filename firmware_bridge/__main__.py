"""Command line: `python -m firmware_bridge {mosquitto-config,broker,bench,simulator}`."""

from __future__ import annotations

import argparse
import logging
import sys
import threading


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m firmware_bridge")
    sub = ap.add_subparsers(dest="command", required=True)
    cfg = sub.add_parser("mosquitto-config",
                         help="write a venue Mosquitto config: passwords, ACL, persistence")
    cfg.add_argument("--hubs", required=True, help="comma-separated hub ids, e.g. h-1,h-2")
    cfg.add_argument("--out", required=True, help="folder for mosquitto.conf, passwd, acl")
    cfg.add_argument("--port", type=int, default=1883)
    cfg.add_argument("--bind", default="0.0.0.0")
    brk = sub.add_parser("broker", help="run the default local broker until Ctrl-C")
    brk.add_argument("--dir", default=None)
    bench = sub.add_parser("bench", help="command->ack latency and events/s via Mosquitto")
    bench.add_argument("--hubs", default="1,200", help="hub counts, e.g. 1,200")
    bench.add_argument("--seconds", type=float, default=4.0)
    bench.add_argument("--rate", type=float, default=200.0, help="scenes per second in all")
    bench.add_argument("--burst", type=int, default=50, help="marker events per hub")
    bench.add_argument("--url", default=None, help="an existing broker (default: spawn one)")
    bench.add_argument("--json", action="store_true")
    sub.add_parser("simulator", help="same as python -m firmware_bridge.simulator",
                   add_help=False)
    args, rest = ap.parse_known_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    if args.command == "simulator":
        from .simulator import main as simulator_main
        return simulator_main(rest)
    if rest:
        ap.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "mosquitto-config":
        from .broker import write_venue_config
        hubs = [h.strip() for h in args.hubs.split(",") if h.strip()]
        try:
            creds = write_venue_config(hubs, args.out, args.port, args.bind)
        except ValueError as exc:
            ap.error(str(exc))
        print(f"wrote {args.out}/mosquitto.conf, passwd, acl, credentials.json "
              f"({len(creds) - 1} hubs + companion); run: mosquitto -c {args.out}/mosquitto.conf")
        return 0
    if args.command == "broker":
        import signal

        from .broker import start_local_broker
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
        broker = start_local_broker(args.dir)
        print(f"broker on {broker.url}; Ctrl-C stops", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        finally:
            broker.close()
        return 0
    if args.command == "bench":
        from .bench import main as bench_main
        counts = [int(n) for n in args.hubs.split(",")]
        return bench_main(counts, args.seconds, args.rate, args.burst, args.json, args.url)
    return 2


if __name__ == "__main__":
    sys.exit(main())
