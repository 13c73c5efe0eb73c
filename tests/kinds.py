"""What a test starts beyond the code it calls: a server, a browser, a Redis server, another process.

Each kind is a marker (pyproject.toml), and `make check` runs the tests marked with none: the edit loop's tier,
which must stay quick. The fixtures that start one mark the tests that use them (conftest.py); a test or module
that starts one itself carries the marker. So that the markers stay true, whatever a test starts is noted here
as it starts, and conftest.py fails a test that started a kind it is not marked with.
"""

from __future__ import annotations

import _posixsubprocess
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

KINDS = ("server", "browser", "redis", "subprocess")

# The kinds started since conftest.py last looked (a test's setup, or its call).
started: set[str] = set()
# While above 0, a starter of another kind is making its own processes (redis-server, Playwright's driver and
# Chromium): those are its kind's, not "subprocess".
_owned = 0


def start(kind: str) -> None:
    started.add(kind)


@contextmanager
def starting(kind: str) -> Iterator[None]:
    """Notes `kind`, and counts the processes made inside as that kind's."""
    global _owned
    start(kind)
    _owned += 1
    try:
        yield
    finally:
        _owned -= 1


def _a_process_is_made() -> None:
    if not _owned:
        start("subprocess")


def watch_processes() -> None:
    """From now on, every process this one makes is noted: forks, posix_spawn and os.system (audited), and
    subprocess's and multiprocessing's children, which go through _posixsubprocess.fork_exec: before Python
    3.13 it raises no audit event, so it is wrapped where each module holds it."""
    os.register_at_fork(before=_a_process_is_made)
    sys.addaudithook(lambda event, _: event in ("os.posix_spawn", "os.system") and _a_process_is_made())
    fork_exec = _posixsubprocess.fork_exec

    def noted_fork_exec(*args, **kwargs):
        _a_process_is_made()
        return fork_exec(*args, **kwargs)

    _posixsubprocess.fork_exec = noted_fork_exec
    if hasattr(subprocess, "_fork_exec"):
        subprocess._fork_exec = noted_fork_exec
