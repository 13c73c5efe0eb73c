"""Bounded memory: the caches hold at most the bytes they may, by an estimate that follows the real size."""

from __future__ import annotations

import gc
import random
import tracemalloc

import pytest

from app.core.game import Move
from app.core.seats import Player
from app.modes import apply_move, new_game
from app.service.context import AnalyzerCache
from app.service.kept import KEPT
from app.store.base import history_footprint
from app.store.memory import MemoryStore
from solver import Analyzer, Budget
from tests.test_rules import scattered_game


def analysed(seed: int, side: int = 30, mines: int = 150, shown: int = 250):
    game, _ = scattered_game(seed=seed, side=side, mines=mines, shown=shown)
    analyzer = Analyzer(game.position())
    analyzer.classify()
    return game, analyzer


@pytest.mark.parametrize("side, mines, shown", [(30, 150, 250), (50, 400, 600)])
def test_the_footprint_follows_the_real_size(side, mines, shown):
    """The cache trusts footprint(): it must follow what an analyzer really holds, as the server leaves it."""
    game, _ = scattered_game(seed=side, side=side, mines=mines, shown=shown)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        analyzer = Analyzer(game.position())
        analyzer.classify()
        analyzer.sample_layout(random.Random(1), budget=Budget())
        gc.collect()
        real = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert abs(analyzer.footprint() - real) <= 0.3 * real, (analyzer.footprint(), real)


def test_the_analyzer_cache_holds_no_more_bytes_than_it_may():
    games = [analysed(seed) for seed in range(6)]
    each = max(analyzer.footprint() for _, analyzer in games)
    cache = AnalyzerCache(max_bytes=3 * each)
    for number, (game, analyzer) in enumerate(games):
        cache.put(f"g{number}", game, analyzer)
        assert cache.bytes_held <= 3 * each
    # The least recently used went first; the newest are there, for their own version only.
    assert cache.take("g0", games[0][0]) is None
    newest, analyzer = games[-1]
    newest.version += 1
    assert cache.take("g5", newest) is None
    newest.version -= 1
    cache.put("g5", newest, analyzer)
    assert cache.take("g5", newest) is analyzer


def test_an_analyzer_larger_than_the_whole_cache_is_not_kept():
    game, analyzer = analysed(1)
    cache = AnalyzerCache(max_bytes=analyzer.footprint() // 2)
    cache.put("big", game, analyzer)
    assert cache.bytes_held == 0 and cache.take("big", game) is None


def test_a_finished_game_leaves_the_analyzer_cache():
    game, analyzer = analysed(2)
    cache = AnalyzerCache(max_bytes=10 * analyzer.footprint())
    cache.put("g", game, analyzer)
    assert cache.bytes_held > 0
    game.status = "won"
    cache.put("g", game, analyzer)
    assert cache.bytes_held == 0


def test_the_history_cache_holds_no_more_bytes_than_it_may():
    store = MemoryStore(kept=KEPT)
    limit = 40_000
    store.bound_history_cache(limit)
    for seat in range(8):
        game = new_game(16, 16, 40, seats=[Player(f"player{seat}")], rng=random.Random(seat))
        game_id = store.create(game)
        rng = random.Random(seat)
        for flag in range(12):
            before = store.load(game_id, f"player{seat}")
            # An undo now and then: a history that shrinks is counted again, one that grows only for its growth.
            move = Move("undo") if flag % 5 == 4 else Move("flag", flag, seat)
            after, _ = apply_move(before, move, rng=rng, now=1.0)
            store.save(game_id, f"player{seat}", after, before.version)
        assert 0 < store._histories.currsize <= limit
    counted = [(history_footprint(history), footprint) for _, history, footprint in store._histories.values()]
    assert all(whole == footprint for whole, footprint in counted), counted
    assert sum(whole for whole, _ in counted) == store._histories.currsize <= limit


def test_a_worker_says_what_it_holds_each_against_its_bound(tmp_path):
    """The line a worker logs every ten minutes: the caches that grow with use, with their bounds, and what
    SQLite itself holds (its page caches), which no Python tool sees."""
    import re

    from app.core.config import Settings
    from app.service import GameService
    from app.store.sqlite import SQLiteStore, sqlite_memory

    store = SQLiteStore(tmp_path / "games.sqlite3", kept=KEPT)
    service = GameService(store, Settings(database=tmp_path / "games.sqlite3", cache_megabytes=32))
    game_id = store.create(new_game(30, 16, 99, seats=[Player("alice")], rng=random.Random(1)))
    store.load(game_id, "alice")
    line = service.held()
    assert "analyzers 0.0 of 32 MB" in line and "undo histories" in line and "of 8 MB" in line
    assert "live streams 0 (waiting 0)" in line
    used = sqlite_memory()
    assert used is not None and used > 0, "asked of the library Python's sqlite3 uses"
    assert re.search(r"SQLite memory \d+\.\d MB", line), line
    # And the C heap, which the host adds to the line (app.host.worker): memory freed to the allocator but kept in
    # its arenas shows nowhere else.
    from app.host import allocator

    heap = allocator.described()
    assert re.search(r"C heap \d+\.\d MB in use, \d+\.\d MB free in its arenas", heap), heap
