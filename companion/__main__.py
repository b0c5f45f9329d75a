"""Command line: ``python -m companion serve [--host] [--port] [--demo] [--threads]``,
``python -m companion bench``, ``python -m companion admin-password``."""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys


def serve(args: argparse.Namespace) -> int:
    from waitress import serve as waitress_serve

    from .demo import seed_demo

    app = _app(args.instance)
    tables = app.extensions["companion.tables"]
    if args.demo:
        table_id = seed_demo(tables)
        print(f"demo table {table_id}: http://{args.host}:{args.port}/t/{table_id}", flush=True)
    password = app.config.get("GENERATED_ADMIN_PASSWORD")
    if password:
        print(f"first start: staff sign in on http://{args.host}:{args.port}/admin with the "
              f"admin password {password}", flush=True)
    if args.demo or args.camera:
        from .camera.adapter import start_demo_camera

        camera_table = start_demo_camera(app, args.camera or "demo")
        print(f"camera table {camera_table}: http://{args.host}:{args.port}/t/{camera_table}",
              flush=True)
    hubs = None
    if not args.no_hubs:
        from .hubs import parse_buttons, start_hubs

        hubs = start_hubs(tables, url=args.mqtt_url, buttons=parse_buttons(args.hub_buttons))
        app.extensions["companion.hubs"] = hubs
        print(f"hub link: {hubs.link.url or 'local broker'} (pair hubs on /admin)", flush=True)
        if args.demo:
            demo_hub = start_demo_hub(hubs, table_id)
            print(f"demo hub {DEMO_HUB} (simulated firmware) shows table {table_id}", flush=True)
    print(f"serving on http://{args.host}:{args.port} ({args.threads} threads)", flush=True)
    try:
        waitress_serve(app, host=args.host, port=args.port, threads=args.threads,
                       connection_limit=max(1000, args.threads * 4), channel_timeout=120,
                       ident="companion", _quiet=True)
    finally:
        app.extensions["companion.broker"].shutdown()
        if hubs is not None:
            if args.demo:
                demo_hub.stop()
            hubs.stop()
    return 0


DEMO_HUB = "h-demo"


def start_demo_hub(hubs, table_id: int):
    """A simulated hub (the real firmware on CPython) on the hub link's broker, paired with
    the demo table, so the tablet's hub chip and the scenes can be seen without hardware."""
    from firmware_bridge.simulator import Fleet

    hubs.link.wait_connected(10)
    fleet = Fleet(hubs.link.url, [DEMO_HUB]).start()
    hubs.pair(table_id, DEMO_HUB)
    return fleet


def _app(instance: str | None):
    from . import create_app

    if instance:
        os.environ["COMPANION_INSTANCE_PATH"] = instance
    return create_app()


def admin_password(args: argparse.Namespace) -> int:
    from .auth import set_admin_password

    app = _app(args.instance)
    password = args.password or getpass.getpass("new admin password: ")
    with app.app_context():
        try:
            set_admin_password(password)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
    print("admin password changed")
    return 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(prog="python -m companion",
                                     description="Domino Table Companion scorekeeper")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="run the scorekeeper (waitress)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8042)
    p.add_argument("--threads", type=int, default=int(os.environ.get("COMPANION_THREADS", "96")),
                   help="worker threads; each SSE tablet holds one (default 96)")
    p.add_argument("--demo", action="store_true", help="seed a demo table with a match")
    p.add_argument("--instance", help="instance folder (database, secret key)")
    p.add_argument("--mqtt-url", default=os.environ.get("MQTT_URL"),
                   help="hub broker (default $MQTT_URL, else a local broker is started)")
    p.add_argument("--no-hubs", action="store_true", help="run without the hub link")
    p.add_argument("--hub-buttons", default=os.environ.get("COMPANION_HUB_BUTTONS"),
                   help="hub buttons to moves (default done=pass,draw=draw)")
    p.add_argument("--camera", help="camera for the camera table: an index, a video or "
                   "image folder, an MJPEG/RTSP URL, or 'demo' (the default with --demo)")
    p.set_defaults(run=serve)
    p = sub.add_parser("bench", help="POST -> SSE latency on N clients, actions/s")
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--actions", type=int, default=600)
    p.add_argument("--tables", type=int, default=4, help="tables posted to in parallel "
                   "for the throughput run")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=lambda a: __import__("companion.bench", fromlist=["run"]).run(a))
    from . import camera_bench
    camera_bench.add_arguments(sub.add_parser(
        "camera-bench", help="camera gate frames/s and still -> move ms")).set_defaults(
        run=camera_bench.run)
    p = sub.add_parser("admin-password", help="set the staff password")
    p.add_argument("--password")
    p.add_argument("--instance")
    p.set_defaults(run=admin_password)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
