"""A real redis-server on a free loopback port, for the Redis store tests; the fault tests kill, hang and restart it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from tests import kinds
from tests.live import free_port, seconds, wait_until


class RedisServer:
    """One redis-server, which a test may kill, hang and start again on the same port.

    With a `data` folder it keeps every write in an append-only file, synced
    before it answers, so a server killed and started again has every game it
    acknowledged; without one nothing of the tests is written to disk.
    """

    def __init__(self, binary: str, log, data: Path | None = None):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = log
        keep = ["--appendonly", "no"]
        if data:
            keep = ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(data)]
        self.command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--daemonize", "no", "--save", ""]
        self.command += keep
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        # A file, not a pipe, takes the log: nobody drains a pipe, and a full one would stall the server.
        with kinds.starting("redis"):
            self.process = subprocess.Popen(self.command, stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_until_it_answers()

    def kill(self) -> None:
        """Gone at once, as in a crash: SIGKILL."""
        self.process.kill()
        self.process.wait()

    def hang(self) -> None:
        """Still listening, answering nothing: SIGSTOP."""
        self.process.send_signal(signal.SIGSTOP)

    def go_on(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.go_on()  # a hung server cannot hear SIGTERM
        self.process.terminate()
        try:
            self.process.wait(seconds(10))
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _wait_until_it_answers(self) -> None:
        client = redis.Redis(port=self.port, socket_connect_timeout=seconds(1))

        def answers() -> bool:
            try:
                client.ping()  # a server still loading its append-only file answers LOADING: not yet
                return True
            except redis.ConnectionError:
                if self.process.poll() is not None:
                    raise RuntimeError(self._did_not_start()) from None
                return False

        try:
            wait_until(answers, 10, self._did_not_start, every=0.02)
        finally:
            client.close()

    def _did_not_start(self) -> str:
        self.log.seek(0)
        return f"redis-server did not start on port {self.port}:\n{self.log.read().decode()}"


@contextmanager
def controlled_redis_server(keep_data: bool = False) -> Iterator[RedisServer]:
    """A started RedisServer; skips the test without redis-server, unless KABOOM_REQUIRE_REDIS is set."""
    binary = shutil.which("redis-server")
    if binary is None:
        # `make test` installs redis-server and sets KABOOM_REQUIRE_REDIS: there a missing server is a failure.
        if os.environ.get("KABOOM_REQUIRE_REDIS"):
            raise RuntimeError("no redis-server on PATH: install Debian's redis-server package")
        pytest.skip("no redis-server on PATH (make test installs it)")
    with tempfile.TemporaryFile() as log, tempfile.TemporaryDirectory() as data:
        server = RedisServer(binary, log, Path(data) if keep_data else None)
        try:
            server.start()
            yield server
        finally:
            server.stop()


@contextmanager
def redis_server() -> Iterator[str]:
    """Yields the server's URL; skips the test without redis-server, unless KABOOM_REQUIRE_REDIS is set."""
    with controlled_redis_server() as server:
        yield server.url
