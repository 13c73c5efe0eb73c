"""`kaboom serve`: check the settings, then start uvicorn with the app factory."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from app.cli.errors import settings_checked


def serve(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:

    from app.core.config import Settings
    from app.host.server import listening_socket, trusted_networks
    from app.host.server import serve as run_server
    from app.service.kept import KEPT
    from app.store import open_store

    # Workers are separate processes that read their settings from the
    # environment, so command-line overrides travel there too.
    for name in ("host", "port", "database", "workers"):
        if (value := getattr(args, name)) is not None:
            os.environ[f"KABOOM_{name.upper()}"] = str(value)
    with settings_checked():
        settings = Settings()
        trusted_networks(settings.forwarded_allow_ips)
        # Opening the store and reading the secret here, once, makes a bad setting (an unwritable database, a
        # missing secret) stop the server with its message. The app itself is left to the workers: with several,
        # this process only watches them, and loading the web layer here cost each start 0.6 s of processor time
        # and kept it in the watcher's memory for nothing.
        settings.signing_key()
        open_store(settings, KEPT).close()
        listener = listening_socket(settings)
    where = settings.store or settings.database
    print(
        f"Kaboom on http://{settings.host}:{settings.port}, {settings.workers} worker(s), games in {where}",
        file=sys.stderr,
    )
    run_server(settings, listener)


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "serve",
        help="start the web server",
        description=(
            "Starts the game server. Settings come from KABOOM_ environment variables; these options override them."
        ),
    )
    parser.add_argument("--host", help="address to listen on (KABOOM_HOST, default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (KABOOM_PORT, default 8000)")
    parser.add_argument(
        "--database", type=Path, help="SQLite file for the games (KABOOM_DATABASE, default data/kaboom.sqlite3)"
    )
    parser.add_argument("--workers", type=int, help="server processes sharing the games (KABOOM_WORKERS, default 1)")
    parser.set_defaults(handler=serve)
