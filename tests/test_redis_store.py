"""The Redis store against a real redis-server: what every store does, and what sharing it between processes adds."""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.config import ConfigurationError
from app.game import Game
from app.redis_store import RedisStore
from app.store import Conflict, Corrupt, NotFound
from tests.live import free_port
from tests.redis_server import redis_server

# The behaviours every store shares, collected here again to run against the `store` below.
from tests.test_store import (  # noqa: F401
    moved,
    test_a_write_over_a_newer_version_is_refused,
    test_games_round_trip_with_their_history,
    test_only_the_owner_finds_a_game,
)


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as url:
        yield url


@pytest.fixture
def store(redis_url):
    store = RedisStore(redis_url)
    yield store
    store.redis.flushdb()
    store.close()


def finish(store: RedisStore, game_id: str) -> None:
    game = store.load(game_id, "alice")
    store.save(game_id, "alice", dataclasses.replace(game, status="won", moves=game.moves + 1), game.moves)


def test_a_damaged_game_is_reported_and_other_games_keep_working(store, redis_url):
    damaged_state = store.create("alice", Game.new(9, 9, 10))
    damaged_record = store.create("alice", Game.new(9, 9, 10))
    healthy = store.create("alice", Game.new(9, 9, 10))
    game = store.load(damaged_record, "alice")
    store.save(damaged_record, "alice", moved(game, "flag", 0, 0), game.moves)
    store.redis.hset(f"kaboom:game:{damaged_state}", "data", '{"width": 9}')
    store.redis.lset(f"kaboom:history:{damaged_record}", 0, b"\xff not JSON")
    fresh = RedisStore(redis_url)  # no cached copy
    for damaged in (damaged_state, damaged_record):
        with pytest.raises(Corrupt):
            fresh.load(damaged, "alice")
    game = fresh.load(healthy, "alice")
    fresh.save(healthy, "alice", moved(game, "reveal", 4, 4), game.moves)
    fresh.close()


def test_a_failed_save_leaves_the_stored_game_whole(store, redis_url):
    game_id = store.create("alice", Game.new(9, 9, 10))
    game = store.load(game_id, "alice")
    after = moved(game, "reveal", 4, 4)
    after.history[-1]["unserialisable"] = object()
    with pytest.raises(TypeError):
        store.save(game_id, "alice", after, game.moves)
    fresh = RedisStore(redis_url)
    assert fresh.load(game_id, "alice") == game
    assert fresh.redis.llen(f"kaboom:history:{game_id}") == 0
    fresh.close()


def test_past_the_cap_finished_games_go_first_then_the_longest_idle(store):
    bobs = store.create("bob", Game.new(9, 9, 10))
    oldest, finished, recent = [store.create("alice", Game.new(9, 9, 10), keep=3) for _ in range(3)]
    finish(store, finished)  # now the most recently played, yet the first to go
    store.create("alice", Game.new(9, 9, 10), keep=3)
    with pytest.raises(NotFound):
        store.load(finished, "alice")
    store.load(oldest, "alice")
    newest = store.create("alice", Game.new(9, 9, 10), keep=3)
    with pytest.raises(NotFound):
        store.load(oldest, "alice")
    store.load(recent, "alice")
    store.load(bobs, "bob")
    assert store.latest("alice") == newest
    assert store.redis.zcard("kaboom:owner:alice") == 3
    assert not store.redis.exists(f"kaboom:history:{finished}", f"kaboom:game:{oldest}")


def test_games_idle_since_the_cutoff_expire(store):
    idle = store.create("alice", Game.new(9, 9, 10))
    time.sleep(0.01)
    cutoff = time.time()
    played = store.create("alice", Game.new(9, 9, 10))
    assert store.expire(cutoff) == 1
    with pytest.raises(NotFound):
        store.load(idle, "alice")
    store.load(played, "alice")
    assert store.latest("alice") == played
    assert store.expire(cutoff) == 0
    assert store.expire(time.time() + 1) == 1
    assert store.latest("alice") is None and store.redis.dbsize() == 0


def test_the_rate_counter_is_shared_and_resets_with_its_window(store, redis_url):
    other_process = RedisStore(redis_url)
    answers = [process.allow("create:1.2.3.4", 3, 0.3) for process in (store, other_process, store, other_process)]
    assert answers == [True, True, True, False]
    assert store.allow("create:5.6.7.8", 3, 0.3)
    time.sleep(0.35)
    assert other_process.allow("create:1.2.3.4", 3, 0.3)
    other_process.close()


def test_of_two_processes_saving_over_the_same_version_exactly_one_wins(store, redis_url):
    processes = [RedisStore(redis_url), RedisStore(redis_url)]
    game_id = store.create("alice", Game.new(9, 9, 10))

    def save(process: RedisStore, game: Game, read_version: int, start: threading.Barrier) -> Game | None:
        start.wait()
        try:
            process.save(game_id, "alice", game, read_version)
            return game
        except Conflict:
            return None

    for _ in range(20):
        base = store.load(game_id, "alice")
        start = threading.Barrier(6)
        with ThreadPoolExecutor(6) as pool:
            saves = [
                pool.submit(save, processes[i % 2], moved(base, "flag", i, 0), base.moves, start) for i in range(6)
            ]
        winners = [game for game in (done.result() for done in saves) if game]
        assert len(winners) == 1
        assert store.load(game_id, "alice") == winners[0]
    for process in processes:
        process.close()


def test_an_unreachable_redis_stops_the_start_without_showing_its_password():
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    with pytest.raises(ConfigurationError, match=r"cannot reach Redis at redis://:\*\*\*@127\.0\.0\.1") as error:
        RedisStore(url)
    assert "hunter2" not in str(error.value)


def test_a_missing_redis_server_skips_unless_required(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    monkeypatch.delenv("KABOOM_REQUIRE_REDIS", raising=False)
    with pytest.raises(pytest.skip.Exception), redis_server():
        pass
    monkeypatch.setenv("KABOOM_REQUIRE_REDIS", "1")
    with pytest.raises(RuntimeError, match="redis-server"), redis_server():
        pass
