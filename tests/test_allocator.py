"""A worker asks glibc for two arenas at most (app/host/allocator.py): with one per thread, memory freed by
one request thread stayed in that thread's arena, and a worker's resident size crept up by about
1.5 MB a minute over a soak (bench/load.py --sample)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.host import allocator
from tests.live import seconds

pytestmark = [
    pytest.mark.skipif(allocator.heap() is None, reason="the C library is not glibc: nothing to limit"),
    pytest.mark.subprocess,
]

# In a fresh interpreter: maybe limit the arenas as a worker does as it loads, then let eight threads
# allocate at once, and count the arenas glibc's malloc_stats prints (on standard error).
ARENAS_AFTER_THREADS = textwrap.dedent("""
    import ctypes, sys, threading
    if sys.argv[1] == "worker":
        from app.host.server import KaboomConfig
        KaboomConfig("app.host.worker:worker_app", factory=True, read_timeout=5, connections_per_client=8).load()
    start = threading.Barrier(8)
    def allocate():
        start.wait()
        kept = [bytearray(4096) for _ in range(200)]  # past pymalloc's small objects: malloc's own
        start.wait()
    threads = [threading.Thread(target=allocate) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sys.stderr.flush()
    ctypes.CDLL(None).malloc_stats()
""")


def arenas_after_threads(how: str, data: Path, **environment: str) -> int:
    # The worker's app opens its database and cookie secret: in the test's own folder, not the working tree.
    env = {key: value for key, value in os.environ.items() if key != "MALLOC_ARENA_MAX"} | {
        "KABOOM_DATABASE": str(data / "games.sqlite3"),
        "KABOOM_SECRET_KEY": "a-long-test-secret-of-32-characters!",
        **environment,
    }
    done = subprocess.run(
        [sys.executable, "-c", ARENAS_AFTER_THREADS, how], capture_output=True, text=True, env=env, timeout=seconds(60)
    )
    assert done.returncode == 0, done.stderr
    return sum(1 for line in done.stderr.splitlines() if line.startswith("Arena "))


def test_a_worker_keeps_two_arenas_however_many_threads_allocate(tmp_path):
    control = arenas_after_threads("plain", tmp_path)
    assert control > 2, "the control: glibc's default gives the threads arenas of their own"
    assert 1 <= arenas_after_threads("worker", tmp_path) <= allocator.ARENAS


def test_a_self_hoster_who_sets_malloc_arena_max_is_not_overruled(monkeypatch, tmp_path):
    assert arenas_after_threads("worker", tmp_path, MALLOC_ARENA_MAX="4") > allocator.ARENAS
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert allocator.limit_arenas() is False


def test_the_heap_is_read_as_bytes_in_use_and_bytes_kept_free():
    before = allocator.heap()
    kept = [bytearray(100_000) for _ in range(20)]  # 2 MB
    during = allocator.heap()
    assert before is not None and during is not None
    assert during[0] - before[0] >= 1_900_000
    del kept
