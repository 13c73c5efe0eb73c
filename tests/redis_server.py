"""A real redis-server on a free loopback port, for the Redis store tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis

from tests.live import free_port


@contextmanager
def redis_server() -> Iterator[str]:
    """Yields the server's URL; skips the test without redis-server, unless KABOOM_REQUIRE_REDIS is set."""
    binary = shutil.which("redis-server")
    if binary is None:
        # `make test` installs redis-server and sets KABOOM_REQUIRE_REDIS: there a missing server is a failure.
        if os.environ.get("KABOOM_REQUIRE_REDIS"):
            raise RuntimeError("no redis-server on PATH: install Debian's redis-server package")
        pytest.skip("no redis-server on PATH (make test installs it)")
    port = free_port()
    # No snapshots, no append-only file: nothing of the tests is written to disk.
    command = [binary, *f"--port {port} --bind 127.0.0.1 --appendonly no --daemonize no".split(), "--save", ""]
    # A file, not a pipe, takes the log: nobody drains a pipe, and a full one would stall the server.
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_until_it_answers(port, server, log)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _wait_until_it_answers(port: int, server: subprocess.Popen, log) -> None:
    client = redis.Redis(port=port, socket_connect_timeout=1)
    deadline = time.monotonic() + 10
    try:
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"redis-server did not start on port {port}:\n{log.read().decode()}") from None
                time.sleep(0.02)
    finally:
        client.close()
