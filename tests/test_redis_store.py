"""What sharing Redis between processes adds to the store contract (tests/test_store.py runs the contract on
Redis too)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.core.config import ConfigurationError
from app.core.game import Game
from app.service.kept import KEPT
from app.store import Conflict, Corrupt, NotFound
from app.store.redis import RedisStore
from tests.live import free_port, seconds
from tests.redis_server import redis_server
from tests.test_store import game_for, moved


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as url:
        yield url


@pytest.fixture
def store(redis_url):
    store = RedisStore(redis_url, kept=KEPT)
    yield store
    store.redis.flushdb()
    store.close()


def test_of_two_processes_saving_over_the_same_version_exactly_one_wins(store, redis_url):
    processes = [RedisStore(redis_url, kept=KEPT), RedisStore(redis_url, kept=KEPT)]
    game_id = store.create(game_for("alice"))

    def save(process: RedisStore, game: Game, read_version: int, start: threading.Barrier) -> Game | None:
        start.wait()
        try:
            process.save(game_id, "alice", game, read_version)
            return game
        except Conflict:
            return None

    for _ in range(20):
        base = store.load(game_id, "alice")
        start = threading.Barrier(6, timeout=seconds(10))
        with ThreadPoolExecutor(6) as pool:
            saves = [
                pool.submit(save, processes[i % 2], moved(base, "flag", i, 0), base.version, start) for i in range(6)
            ]
        winners = [game for game in (done.result() for done in saves) if game]
        assert len(winners) == 1
        assert store.load(game_id, "alice") == winners[0]
    for process in processes:
        process.close()


def test_a_lease_queues_hosts_and_a_lost_lease_is_not_an_error(store, redis_url):
    other = RedisStore(redis_url, kept=KEPT)
    game_id = store.create(game_for("alice"))
    order: list[str] = []

    def take_turn() -> None:
        with other.lease(game_id):
            order.append("other")

    with store.lease(game_id):
        waiter = threading.Thread(target=take_turn)
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive() and order == []  # the other host waits its turn
        order.append("first")
    waiter.join(seconds(10))
    assert order == ["first", "other"]
    with store.lease(game_id):
        store.redis.delete(f"kaboom:lease:{game_id}")  # the lease ran out under its holder
    other.close()


def test_a_key_of_the_wrong_type_is_damage_not_a_crash(store):
    game_id = store.create(game_for("alice"))
    other = store.create(game_for("alice"))
    store.redis.delete(f"kaboom:game:{game_id}")
    store.redis.set(f"kaboom:game:{game_id}", "a string where a hash belongs")
    with pytest.raises(Corrupt):
        store.load(game_id, "alice")
    store.load(other, "alice")
    with pytest.raises(NotFound):
        store.load("no-such-game", "alice")


def test_an_unreachable_redis_stops_the_start_without_showing_its_password():
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    with pytest.raises(ConfigurationError, match=r"cannot reach Redis at redis://:\*\*\*@127\.0\.0\.1") as error:
        RedisStore(url, kept=KEPT)
    assert "hunter2" not in str(error.value)


def test_a_missing_redis_server_skips_unless_required(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    monkeypatch.delenv("KABOOM_REQUIRE_REDIS", raising=False)
    with pytest.raises(pytest.skip.Exception), redis_server():
        pass
    monkeypatch.setenv("KABOOM_REQUIRE_REDIS", "1")
    with pytest.raises(RuntimeError, match="redis-server"), redis_server():
        pass
