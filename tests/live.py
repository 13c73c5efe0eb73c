"""A real uvicorn server in a thread, for the API, restart and browser tests."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from app.config import Settings
from app.web import create_app


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def live_server(database: Path, **settings):
    app = create_app(Settings(database=database, **settings))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def kaboom_process(**env: str):
    """`kaboom serve` as its own process (workers are processes too), on a free port."""
    import os
    import subprocess
    import sys

    import httpx

    port = free_port()
    environment = {**os.environ, "KABOOM_HOST": "127.0.0.1", "KABOOM_PORT": str(port), **env}
    command = [str(Path(sys.executable).with_name("kaboom")), "serve"]
    process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"kaboom serve exited: {process.stderr.read()}")
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("kaboom serve did not answer /healthz")
            time.sleep(0.1)
        yield process, url
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
