"""Claims (app/store/base.py: claim, claimed, release), on every store: compare and set across processes and
hosts, what a player's one game of a board of the day, a race's sealed board and a name's look rest on."""

from __future__ import annotations

from functools import partial

from tests.test_store_ladders import at_once


def test_a_claim_is_set_only_over_the_value_read_and_let_go_only_by_its_holder(backend):
    store = backend.store
    assert store.claimed("board:a") is None
    assert store.claim("board:a", "game-1")
    assert not store.claim("board:a", "game-2"), "a key held is not claimed as if it were free"
    assert not store.claim("board:a", "game-2", expected="game-9"), "nor over a value it does not hold"
    other = backend.reopened()
    assert other.claimed("board:a") == "game-1"
    assert other.claim("board:a", "game-2", expected="game-1")
    assert store.claimed("board:a") == "game-2"
    store.release("board:a", "game-1")
    assert other.claimed("board:a") == "game-2", "only the value held is let go"
    other.release("board:a", "game-2")
    assert store.claimed("board:a") is None
    assert store.claim("board:a", "game-3")
    assert store.claimed("board:b") is None, "keys are apart"


def test_of_claims_made_at_once_from_several_processes_one_wins(backend):
    stores = [backend.store, *(backend.reopened() for _ in range(3))]
    for key in ("race:1", "race:2", "race:3"):
        won = at_once(*(partial(store.claim, key, f"v{n}") for n, store in enumerate(stores * 2)))
        assert won.count(True) == 1, won
        winner = f"v{won.index(True)}"
        assert [store.claimed(key) for store in stores] == [winner] * len(stores)
        moved = at_once(*(partial(store.claim, key, f"w{n}", winner) for n, store in enumerate(stores)))
        assert moved.count(True) == 1, moved


def test_a_redis_claim_key_of_another_type_holds_nothing_and_refuses_claims(redis_url, clock):
    from tests.test_store import RedisBackend

    backend = RedisBackend(clock, redis_url)
    try:
        store = backend.store
        store.redis.rpush(store._key("claim", "odd"), "x")
        assert store.claimed("odd") is None
        assert not store.claim("odd", "mine")
        store.release("odd", "x")
        assert store.redis.type(store._key("claim", "odd")) == b"list", "nothing of another kind is touched"
    finally:
        backend.close()
