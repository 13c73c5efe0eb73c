"""Store faults recover by themselves: a read-only or full disk under SQLite, Redis killed, hung or
restarted, a host killed mid-move.

Every fault is a real one: a file the kernel refuses to write (chattr +i,
which stops root too), a small tmpfs filled to the last byte, a redis-server
sent SIGKILL or SIGSTOP and started again on its port and its append-only
file, a process killed while it holds a lease. A fault answers 503 with a
message and changes nothing; once it is gone the same store, or the same
server, plays on.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import redis

from app.service import Deals
from app.service.kept import KEPT
from app.store import SQLiteStore, StoreUnavailable
from app.store.redis import UNREACHABLE, Lease, RedisStore
from tests.live import live_server, seconds, wait_until
from tests.redis_server import controlled_redis_server
from tests.test_store import game_for, moved

pytestmark = [pytest.mark.server, pytest.mark.subprocess, pytest.mark.redis]

NEW_GAME = {"width": 9, "height": 9, "mines": 10, "mode": "cruel"}


def as_stored(game: dict) -> dict:
    """An API answer less what the clock changes."""
    return {name: value for name, value in game.items() if name != "elapsed"}


# ----- SQLite: a read-only episode ------------------------------------------------------


@contextmanager
def read_only(*files: Path):
    """The kernel refuses to write these files (root included) until the block ends.

    New opens for writing fail, so SQLite opens the database read-only, and
    writes through handles already open fail with EPERM: both of what a disk
    gone read-only does to a running server. The -shm file is left alone:
    SQLite maps it into memory, and a mapping the kernel refuses to write is
    a SIGBUS, not an error."""
    try:
        subprocess.run(["chattr", "+i", *map(str, files)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"cannot make files immutable here (chattr needs root and a file system that supports it): {error}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, files)], check=True)


def test_writes_work_again_on_the_same_store_once_a_read_only_episode_ends(tmp_path):
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path, kept=KEPT)
    game_id = store.create(game_for("alice"))
    game = store.load(game_id, "alice")
    flagged = moved(game, "flag", 0, 0)
    with read_only(path, path.with_name(path.name + "-wal")):
        # The pooled connection's write fails at the disk...
        with pytest.raises(StoreUnavailable, match="nothing was changed") as refused:
            store.save(game_id, "alice", flagged, game.version)
        assert refused.value.part == "sqlite"
        # ...so does one on a connection opened now, which SQLite opens read-only...
        with pytest.raises(StoreUnavailable, match="read-only"):
            store.save(game_id, "alice", flagged, game.version)
        # ...and reads go on, on such a connection, which would stay read-only for good if it were kept.
        assert store.load(game_id, "alice") == game
    # No connection that failed, or that was opened read-only, is used again: the first write goes through.
    store.save(game_id, "alice", flagged, game.version)
    assert store.load(game_id, "alice") == flagged
    assert SQLiteStore(path, kept=KEPT).load(game_id, "alice") == flagged
    store.close()


@pytest.mark.parametrize("failure", ["FAIL", "ROLLBACK"])
def test_a_save_that_fails_between_the_undo_record_and_the_game_keeps_neither(tmp_path, failure):
    """FAIL stops the statement and leaves the transaction open; ROLLBACK is SQLite undoing it by itself,
    as it does on a full disk: either way the store reports the failure itself and keeps nothing of the move."""
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path, kept=KEPT)
    game_id = store.create(game_for("alice"))
    game = store.load(game_id, "alice")
    revealed = moved(game, "reveal", 4, 4)
    assert len(revealed.history) == 1  # the record is written before the game's row
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TRIGGER fail_between BEFORE UPDATE ON games "
            f"BEGIN SELECT RAISE({failure}, 'failed between the writes'); END"
        )
    with pytest.raises(sqlite3.Error, match="failed between the writes"):
        store.save(game_id, "alice", revealed, game.version)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM history WHERE game_id = ?", (game_id,)).fetchone() == (0,)
        connection.execute("DROP TRIGGER fail_between")
    assert SQLiteStore(path, kept=KEPT).load(game_id, "alice") == game
    store.save(game_id, "alice", revealed, game.version)
    assert SQLiteStore(path, kept=KEPT).load(game_id, "alice") == revealed
    store.close()


# ----- SQLite: a full disk, through the HTTP API ------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs: a disk a test can fill to the last byte (root's reserve on ext4 would not run out)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "kaboom-test", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (it needs root): {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        if subprocess.run(["umount", str(disk)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "--lazy", str(disk)], check=True)


@contextmanager
def filled(disk: Path):
    """Every free byte of `disk` taken by one file, given back when the block ends."""
    filler = disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        block = b"\0" * 65536
        while True:
            try:
                os.write(descriptor, block)
            except OSError:
                if len(block) == 1:
                    break
                block = block[: len(block) // 2]
    finally:
        os.close(descriptor)
    try:
        yield
    finally:
        filler.unlink()


def test_a_full_disk_answers_503_changes_nothing_and_the_game_plays_on_once_space_is_back(small_disk):
    with (
        live_server(small_disk / "games.sqlite3", deals=Deals(seed=0)) as url,
        httpx.Client(base_url=url, timeout=seconds(30)) as client,
    ):
        game = client.post("/api/games", json=NEW_GAME).json()
        moves = f"/api/games/{game['id']}/moves"
        first = client.post(moves, json={"action": "flag", "x": 0, "y": 0})
        assert first.status_code == 200, first.text
        with filled(small_disk):
            refused = client.post(moves, json={"action": "flag", "x": 1, "y": 0})
            assert refused.status_code == 503
            assert "disk is full" in refused.json()["detail"] and "nothing was changed" in refused.json()["detail"]
            assert as_stored(client.get(f"/api/games/{game['id']}").json()) == as_stored(first.json())
            # The page's click hears it in the status panel, over the game as it is.
            panel = client.post(
                f"/games/{game['id']}/moves",
                data={"action": "flag", "x": "1", "y": "0", "version": str(first.json()["version"])},
                headers={"HX-Request": "true"},
            )
            assert (
                panel.status_code == 409
                and "disk is full" in panel.text
                and 'id="message" class="message refused" role="alert"' in panel.text
            )
            health = client.get("/healthz")
            assert (health.status_code, health.json()["status"], health.json()["store"]) == (503, "down", "sqlite")
        assert client.get("/healthz").json() == {"status": "ok"}
        played = client.post(moves, json={"action": "flag", "x": 1, "y": 0})
        assert played.status_code == 200, played.text
        assert played.json()["version"] == first.json()["version"] + 1
        assert played.json()["board"][0][:2] == "FF"


# ----- Redis: killed, hung, restarted --------------------------------------------------------


def test_redis_down_answers_503_everywhere_and_the_same_game_plays_on_after_a_restart(tmp_path):
    with (
        controlled_redis_server(keep_data=True) as server,
        live_server(tmp_path / "unused.sqlite3", deals=Deals(seed=0), store=server.url) as url,
        httpx.Client(base_url=url, timeout=seconds(30)) as client,
    ):
        game = client.post("/api/games", json=NEW_GAME).json()
        moves = f"/api/games/{game['id']}/moves"
        first = client.post(moves, json={"action": "flag", "x": 0, "y": 0})
        assert first.status_code == 200, first.text

        server.kill()
        for method, path, body in [
            ("GET", f"/api/games/{game['id']}", None),
            ("POST", moves, {"action": "flag", "x": 1, "y": 0}),
            ("POST", "/api/games", NEW_GAME),
        ]:
            answer = client.request(method, path, json=body)
            expected = {"detail": UNREACHABLE, "message": UNREACHABLE}
            assert (answer.status_code, answer.json()) == (503, expected), path
        page = client.get(f"/games/{game['id']}")
        assert page.status_code == 503 and "cannot be reached" in page.text
        click = client.post(
            f"/games/{game['id']}/moves", data={"action": "flag", "x": "1", "y": "0"}, headers={"HX-Request": "true"}
        )
        assert click.status_code == 503 and "cannot be reached" in click.text
        health = client.get("/healthz")
        assert (health.status_code, health.json()["status"], health.json()["store"]) == (503, "down", "redis")

        server.start()  # the same port, the same append-only file
        assert client.get("/healthz").json() == {"status": "ok"}
        assert as_stored(client.get(f"/api/games/{game['id']}").json()) == as_stored(first.json())
        played = client.post(moves, json={"action": "flag", "x": 1, "y": 0})
        assert played.status_code == 200, played.text
        assert played.json()["board"][0][:2] == "FF"

        server.hang()
        try:
            # Within httpx's 30 s: the store gives up after its socket timeout, it does not wait for Redis.
            hung = client.post(moves, json={"action": "flag", "x": 2, "y": 0})
            assert (hung.status_code, hung.json()) == (503, {"detail": UNREACHABLE, "message": UNREACHABLE})
        finally:
            server.go_on()
        again = client.post(moves, json={"action": "flag", "x": 2, "y": 0})
        assert again.status_code == 200, again.text
        assert again.json()["board"][0][:3] == "FFF"


@pytest.fixture
def redis_alone():
    """A redis-server of the test's own, so the test can see when every other client has gone."""
    with controlled_redis_server() as server:
        observer = redis.Redis.from_url(server.url)
        yield server, observer
        observer.close()


def test_a_redis_that_refuses_writes_answers_503_and_saves_again_once_it_can(redis_alone):
    server, observer = redis_alone
    store = RedisStore(server.url, kept=KEPT)
    game_id = store.create(game_for("alice"))
    game = store.load(game_id, "alice")
    observer.config_set("maxmemory", 1)  # as full as Redis gets: every write is refused with OOM
    try:
        with pytest.raises(StoreUnavailable, match="cannot save games") as refused:
            store.save(game_id, "alice", moved(game, "flag", 0, 0), game.version)
        assert refused.value.part == "redis"
        with pytest.raises(StoreUnavailable, match="cannot save games"):
            store.create(game_for("alice"))
        assert store.load(game_id, "alice") == game
    finally:
        observer.config_set("maxmemory", 0)
    store.save(game_id, "alice", moved(game, "flag", 0, 0), game.version)
    assert store.load(game_id, "alice").version == game.version + 1
    store.close()


def test_a_lease_request_that_timed_out_is_never_applied_later(redis_alone):
    server, observer = redis_alone
    store = RedisStore(server.url, socket_seconds=0.5, kept=KEPT)
    # Connected before the hang, so the lease request itself is what waits
    # (a new connection would stop at its handshake, before any lease request is sent).
    game_id = store.create(game_for("alice"))
    server.hang()
    try:
        with pytest.raises(StoreUnavailable, match="cannot be reached"), store.lease(game_id):
            pass
    finally:
        store.close()
        server.go_on()
    # Redis frees a client once it has read all it sent: with only the observer left, nothing is still on its way.
    wait_until(
        lambda: len(observer.client_list()) == 1, 10, "the timed-out client's departure did not happen within 10 s"
    )
    assert not observer.exists(f"kaboom:lease:{game_id}")
    with RedisStore(server.url, kept=KEPT).lease(game_id):
        pass


def test_a_lease_request_reaching_redis_after_its_deadline_takes_nothing(redis_alone):
    """A request that left before Redis hung and arrives after it: Redis's clock decides, whatever the hosts' say."""
    _, observer = redis_alone
    lease = Lease(observer, "kaboom:lease:late", timeout=2, answer_within=1, thread_local=False)
    seconds, microseconds = observer.time()
    now_ms = seconds * 1000 + microseconds // 1000
    assert lease.acquire_before(b"late", now_ms - 1) == Lease.LATE
    assert not observer.exists("kaboom:lease:late")
    assert lease.acquire_before(b"in time", now_ms + 60_000) == 1
    assert observer.get("kaboom:lease:late") == b"in time"
    assert 0 < observer.pttl("kaboom:lease:late") <= 2000


def held_past_its_timeout(observer: redis.Redis, key: str, lease_seconds: float) -> bytes:
    """The lease's token, seen unchanged all along 2.5 lease timeouts: so renewed, not merely long."""
    token = observer.get(key)
    started = time.monotonic()
    while time.monotonic() - started < 2.5 * lease_seconds:
        assert observer.get(key) == token
        time.sleep(0.01)
    return token


def test_a_lease_is_renewed_while_its_move_runs_and_no_longer(redis_alone):
    server, observer = redis_alone
    lease_seconds = 1.0
    store = RedisStore(server.url, lease_seconds=lease_seconds, kept=KEPT)
    game_id = store.create(game_for("alice"))
    key = f"kaboom:lease:{game_id}"
    with store.lease(game_id):
        held_past_its_timeout(observer, key, lease_seconds)
    assert not observer.exists(key)
    assert not [thread for thread in threading.enumerate() if thread.name == f"renew {key}"]
    store.close()


HOLDER = """
import sys, time
from app.store.redis import RedisStore
from app.service.kept import KEPT
store = RedisStore(sys.argv[1], lease_seconds=float(sys.argv[3]), kept=KEPT)
with store.lease(sys.argv[2]):
    print("held", flush=True)
    time.sleep(3600)
"""


def test_a_host_killed_mid_move_holds_its_game_up_for_one_lease_timeout_at_most(redis_alone):
    server, observer = redis_alone
    lease_seconds = 1.0
    store = RedisStore(server.url, lease_seconds=lease_seconds, kept=KEPT)
    game_id = store.create(game_for("alice"))
    key = f"kaboom:lease:{game_id}"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, server.url, game_id, str(lease_seconds)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        token = held_past_its_timeout(observer, key, lease_seconds)  # a live holder keeps it
    finally:
        holder.kill()
        holder.wait()
    left = observer.pttl(key)  # no renewal from a dead host: it runs out (-2: already gone)
    assert left == -2 or 0 < left <= lease_seconds * 1000
    with store.lease(game_id):  # the next move gets the game once it does
        assert observer.get(key) != token
    store.close()


def test_opening_a_connection_keeps_the_locks_other_connections_hold(tmp_path):
    """POSIX locks belong to the process: closing any descriptor of the database file drops
    them all. Another process then believes it holds the last connection, and on closing it
    checkpoints and deletes the write-ahead log under this process's feet (a corrupt file)."""
    path = tmp_path / "games.sqlite3"
    store = SQLiteStore(path, kept=KEPT)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("SELECT count(*) FROM games").fetchall()  # this process has the database open
        connection, writable = store._open()  # a connection a request opens meanwhile
        connection.close()
        assert writable
        other = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                "c.execute('SELECT count(*) FROM games').fetchall(); c.close()",
                str(path),
            ],
            capture_output=True,
            text=True,
            timeout=seconds(60),
        )
        assert other.returncode == 0, other.stderr
        # This process still has the database open: the other one must have left its log alone.
        assert Path(f"{path}-wal").exists()
    finally:
        holder.close()
        store.close()
