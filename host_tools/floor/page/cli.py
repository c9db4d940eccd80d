"""`python -m host_tools floor page`: the pit page on uvicorn, fed by the floor's broker."""

import asyncio
import os
import signal
import socket

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor import EXIT_NO_BROKER
from host_tools.floor.alerts import book as alerts
from host_tools.floor.base import floordir, metrics
from host_tools.floor.page.sessions import DEFAULT_IDLE, DEFAULT_LIFETIME, Sessions

DEFAULT_HTTP_PORT = 8080


def add_arguments(parser):
    parser.add_argument("--dir", help="the floor's directory (default $CRAPSFLOOR_DIR or %s)" % floordir.DEFAULT_DIR)
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    parser.add_argument("--http-port", type=int, default=DEFAULT_HTTP_PORT, help="default %d" % DEFAULT_HTTP_PORT)
    parser.add_argument(
        "--escalate-after",
        type=float,
        default=alerts.DEFAULT_ESCALATE_AFTER,
        help="seconds before an unacknowledged alert escalates (default %g)" % alerts.DEFAULT_ESCALATE_AFTER,
    )
    parser.add_argument("--idle", type=float, default=DEFAULT_IDLE, help="seconds a session lasts unused")
    parser.add_argument("--lifetime", type=float, default=DEFAULT_LIFETIME, help="seconds a session lasts at most")
    parser.add_argument("--db", help="the recorder's SQLite file or a postgresql:// URL (default DIR/recorder.sqlite)")
    metrics.add_option(parser)
    parser.add_argument("--cert-file", help="serve HTTPS with this certificate (PEM, its chain after it)")
    parser.add_argument("--key-file", help="the certificate's private key (PEM); goes with --cert-file")


def tls_files(cert_file, key_file):
    """(cert, key) when both are given and load as a certificate and its key, None when neither
    is; HostToolError (one line, exit 2) otherwise."""
    import ssl

    if not cert_file and not key_file:
        return None
    if not cert_file or not key_file:
        raise HostToolError("page: --cert-file and --key-file go together", EXIT_USAGE)
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert_file, key_file)
    except (OSError, ssl.SSLError) as e:
        reason = getattr(e, "strerror", None) or getattr(e, "reason", None) or e
        raise HostToolError("page: cannot serve HTTPS with %s and %s: %s" % (cert_file, key_file, reason), EXIT_USAGE)
    return cert_file, key_file


def run(args):
    import uvicorn

    from host_tools.floor.page.app import make_app
    from host_tools.floor.page.bus import BrokerRefused, ServiceBus
    from host_tools.floor.page.floorview import FloorView
    from host_tools.floor.page.recorded import PeopleLog, RecordedCopy
    from host_tools.floor.pg import schema
    from host_tools.floor.pg.copy import PgRecordedCopy

    if args.escalate_after <= 0 or args.idle <= 0 or args.lifetime <= 0:
        raise HostToolError("--escalate-after, --idle and --lifetime must be positive", EXIT_USAGE)
    tls = tls_files(args.cert_file, args.key_file)
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:  # bound here, before anything starts: a port in use is one line, not uvicorn's exit
        listening.bind((args.host, args.http_port))
    except (OSError, OverflowError) as e:
        listening.close()
        reason = getattr(e, "strerror", None) or e
        raise HostToolError("page: cannot serve on %s:%d: %s" % (args.host, args.http_port, reason), EXIT_USAGE)
    directory = floordir.floor_dir(args.dir)
    floor = floordir.read_floor(directory)
    if schema.is_url(args.db):
        copy = PgRecordedCopy(args.db)
    else:
        copy = RecordedCopy(args.db or os.path.join(directory, "recorder.sqlite"))
    log = PeopleLog(os.path.join(directory, "page.sqlite"))
    view = FloorView(floor["floor"], floor["tables"], args.escalate_after, copy=copy, log=log, keys_dir=directory)
    try:
        service = ServiceBus(floor, floordir.password(directory, "page"), view).start()
    except BrokerRefused as e:
        raise HostToolError("page: %s" % e, EXIT_NO_BROKER)
    sessions = Sessions(view.clock, args.idle, args.lifetime)
    from host_tools.floor.page.metrics import PageFigures

    metrics.expose(args.metrics_port, PageFigures(view, sessions, service).read)
    app = make_app(view, floor, directory, sessions, secure=tls is not None)
    ssl_files = {"ssl_certfile": tls[0], "ssl_keyfile": tls[1]} if tls else {}
    config = uvicorn.Config(app, host=args.host, port=args.http_port, log_level="warning", lifespan="off", **ssl_files)
    server = uvicorn.Server(config)

    async def serve():
        async def clock():
            while not server.should_exit:
                view.tick()
                sessions.sweep()
                await asyncio.sleep(1.0)

        task = asyncio.ensure_future(clock())
        print("pit page: %s://%s:%d/" % ("https" if tls else "http", args.host, args.http_port), flush=True)
        try:
            await server.serve(sockets=[listening])
        finally:
            task.cancel()

    def stop(signum, frame):  # also what uvicorn re-raises after its graceful stop: exit 0, not by the signal
        server.should_exit = True

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    try:
        asyncio.run(serve())
    finally:
        sessions.close_all()
        service.stop()
        copy.close()
        log.close()
