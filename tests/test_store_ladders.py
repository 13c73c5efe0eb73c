"""Players' display names and the boards of the day's ladders (app/store/base.py), on every store.

The same tests run against memory, SQLite and Redis (the fixtures of tests/test_store.py, in
conftest.py); what only one store can meet (an old SQLite file, damage written by hand) has tests of its own.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from app.service.kept import KEPT
from app.store import Corrupt, LadderPage, LadderRow, SQLiteStore, Store
from tests.live import seconds
from tests.test_store import RedisBackend, game_for

DAY = "daily:2025-06-01:classic"
# How long a thread of a race may take at most: far beyond what any of them needs, so only a hang fails.
DEADLINE = seconds(30)


def entry(player: str, **more: Any) -> str:
    # Colons, spacing and a letter beyond ASCII: the store keeps the text as given and never reads it.
    return json.dumps({"player": player, "note": "à: b", **more}, separators=(", ", ":  "))


def enter(store: Store, player: str, group: int, millis: int, ladder: str = DAY) -> bool:
    return store.enter_ladder(ladder, player, group, millis, entry(player))


def order(page: LadderPage) -> list[tuple[int, str]]:
    return [(row.place, row.player) for row in page.top]


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Each call in a thread of its own, all let go together; their answers, in order. Every wait has a deadline."""
    barrier = threading.Barrier(len(calls), timeout=DEADLINE)
    answers: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(number: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            answers[number] = call()
        except BaseException as error:  # handed to the test's thread, which fails with it
            errors.append(error)

    threads = [threading.Thread(target=run, args=(number, call)) for number, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    assert not any(thread.is_alive() for thread in threads), "a thread of the race hung"
    if errors:
        raise errors[0]
    return answers


class TestLadderContract:
    def test_a_players_first_entry_is_kept_and_a_later_one_refused(self, backend):
        store = backend.store
        first = entry("alice", won=True)
        assert store.enter_ladder(DAY, "alice", 1, 41_000, first) is True
        assert store.enter_ladder(DAY, "alice", 0, 1_000, entry("alice", better=True)) is False
        assert store.enter_ladder(DAY, "alice", 1, 41_000, first) is False
        for process in (store, backend.reopened()):
            assert process.ladder(DAY, 10, "alice") == LadderPage(
                [LadderRow(1, "alice", 1, 41_000, first)], LadderRow(1, "alice", 1, 41_000, first), (0, 1, 0)
            )
            assert process.ladder_entries_of("alice") == {DAY: first}

    def test_entries_rank_by_group_then_time_then_the_order_they_were_kept(self, store):
        enter(store, "slow", 0, 9_000)
        enter(store, "lost", 2, 100)
        enter(store, "helped", 1, 10)
        enter(store, "fast", 0, 3_000)
        # Twelve ties, come in the reverse of their names' order, and a player id with a colon: the order kept
        # decides, whatever the ids (10 before 9, as numbers, not as text).
        tied = [f"tie-{number:02d}" for number in reversed(range(11))] + ["a:colon"]
        for player in tied:
            enter(store, player, 0, 5_000)
        page = store.ladder(DAY, 100)
        expected = ["fast", *tied, "slow", "helped"]
        assert order(page) == list(enumerate(expected, 1))
        assert [(row.group, row.millis) for row in page.top] == [(0, 3_000), *[(0, 5_000)] * 12, (0, 9_000), (1, 10)]
        assert page.top[1].entry == entry("tie-10") and page.own is None
        assert page.counts == (14, 1, 1)

    def test_the_limit_cuts_the_top_and_the_own_entry_keeps_its_true_place(self, backend):
        store = backend.store
        players = [f"player-{place:03d}" for place in range(1, 151)]
        arrivals = players[:]
        random.Random(0).shuffle(arrivals)  # kept in any order: the time alone ranks them
        for player in arrivals:
            enter(store, player, 0, 60_000 + int(player[-3:]))
        for process in (store, backend.reopened()):
            page = process.ladder(DAY, 100, "player-123")
            assert order(page) == list(enumerate(players[:100], 1))
            assert page.own == LadderRow(123, "player-123", 0, 60_123, entry("player-123"))
            assert page.counts == (150, 0, 0)
            assert process.ladder(DAY, 3, "player-002").own == LadderRow(
                2, "player-002", 0, 60_002, entry("player-002")
            )
            assert order(process.ladder(DAY, 1)) == [(1, "player-001")]

    def test_a_loss_is_never_in_the_top_but_shows_as_its_players_own_with_its_place(self, store):
        enter(store, "clean", 0, 80_000)
        enter(store, "late-loss", 2, 9_000)
        enter(store, "helped", 1, 70_000)
        enter(store, "early-loss", 2, 2_000)
        for limit in (1, 2, 10):
            page = store.ladder(DAY, limit, "late-loss")
            assert order(page) == [(1, "clean"), (2, "helped")][:limit]
            assert page.own == LadderRow(4, "late-loss", 2, 9_000, entry("late-loss"))
            assert page.counts == (1, 1, 2)
        assert store.ladder(DAY, 10, "early-loss").own == LadderRow(3, "early-loss", 2, 2_000, entry("early-loss"))
        assert store.ladder(DAY, 10, "no-entry").own is None
        assert store.ladder(DAY, 10).own is None

    def test_each_ladder_is_its_own_and_an_empty_one_is_an_empty_page(self, store):
        enter(store, "alice", 0, 5_000)
        assert store.ladder("daily:2025-06-02:classic", 10, "alice") == LadderPage([], None, (0, 0, 0))
        assert enter(store, "alice", 2, 1_000, ladder="daily:2025-06-02:classic")
        assert enter(store, "bob", 1, 1_000, ladder="daily:2025-06-02:classic")
        assert store.ladder(DAY, 10).counts == (1, 0, 0)
        assert order(store.ladder("daily:2025-06-02:classic", 10, "alice")) == [(1, "bob")]
        assert store.ladder("daily:2025-06-02:classic", 10, "alice").own is not None

    def test_a_players_entries_are_listed_by_ladder(self, backend):
        store = backend.store
        enter(store, "alice", 0, 5_000)
        store.enter_ladder("daily:2025-06-02:cruel", "alice", 2, 1_000, entry("alice", lost=True))
        enter(store, "alice", 1, 3_000)  # refused: the first is listed
        enter(store, "bob", 1, 3_000)
        for process in (store, backend.reopened()):
            assert process.ladder_entries_of("alice") == {
                DAY: entry("alice"),
                "daily:2025-06-02:cruel": entry("alice", lost=True),
            }
            assert process.ladder_entries_of("bob") == {DAY: entry("bob")}
            assert process.ladder_entries_of("carol") == {}

    def test_names_are_kept_replaced_and_absent_for_players_who_chose_none(self, backend):
        store = backend.store
        store.set_name("alice", "Alice")
        store.set_name("bob", "Bob the Brave")
        store.set_name("alice", "Alicia ✓")
        for process in (store, backend.reopened()):
            assert process.names_of(["alice", "bob", "carol"]) == {"alice": "Alicia ✓", "bob": "Bob the Brave"}
            assert process.names_of([]) == {} and process.names_of(["carol"]) == {}
        many = [f"player-{number}" for number in range(620)]  # more than one query's worth of parameters
        for player in many[::3]:
            store.set_name(player, player.upper())
        assert backend.reopened().names_of(many) == {player: player.upper() for player in many[::3]}

    def test_entries_of_one_player_at_once_keep_exactly_one_and_of_different_players_all(self, backend):
        # Two stores on the same data (two processes; the memory store is one), two threads on each.
        other = backend.reopened()
        stores = [backend.store, other, backend.store, other]
        for round_ in range(15):
            ladder = f"daily:race-{round_}"
            answers = at_once(
                *(
                    partial(
                        process.enter_ladder,
                        ladder,
                        "alice",
                        number % 3,
                        1_000 * (number + 1),
                        entry("alice", thread=number),
                    )
                    for number, process in enumerate(stores)
                )
            )
            assert answers.count(True) == 1, answers
            winner = answers.index(True)
            page = backend.store.ladder(ladder, 10, "alice")
            assert page.own == LadderRow(1, "alice", winner % 3, 1_000 * (winner + 1), entry("alice", thread=winner))
            assert sum(page.counts) == 1
            assert other.ladder_entries_of("alice")[ladder] == entry("alice", thread=winner)
        players = [f"racer-{number}" for number in range(len(stores))]
        answers = at_once(
            *(
                partial(enter, process, player, 0, 7_000, ladder="daily:together")
                for process, player in zip(stores, players, strict=True)
            )
        )
        assert answers == [True] * len(players)
        page = other.ladder("daily:together", 10)
        assert sorted(row.player for row in page.top) == players
        assert [row.place for row in page.top] == [1, 2, 3, 4] and page.counts == (4, 0, 0)

    @pytest.mark.parametrize(
        "call, message",
        [
            (lambda store: store.ladder(DAY, 0), "at least 1"),
            (lambda store: store.ladder(DAY, -5, "alice"), "at least 1"),
            (lambda store: store.ladder(DAY, True), "whole number"),
            (lambda store: store.enter_ladder(DAY, "alice", 0, -1, "{}"), "millis"),
            (lambda store: store.enter_ladder(DAY, "alice", 0, 1.5, "{}"), "whole number"),
            (lambda store: store.enter_ladder(DAY, "alice", 0, 2**40, "{}"), "millis"),
            (lambda store: store.enter_ladder(DAY, "alice", 3, 1_000, "{}"), "groups 0 to 2"),
            (lambda store: store.enter_ladder(DAY, "alice", -1, 1_000, "{}"), "groups 0 to 2"),
            (lambda store: store.enter_ladder(DAY, "alice", "0", 1_000, "{}"), "whole number"),
        ],
    )
    def test_arguments_only_a_bug_would_pass_are_refused_and_nothing_is_kept(self, store, call, message):
        with pytest.raises(ValueError, match=message):
            call(store)
        assert store.ladder(DAY, 10, "alice") == LadderPage([], None, (0, 0, 0))
        assert store.ladder_entries_of("alice") == {}


def test_a_sqlite_file_from_before_ladders_opens_and_gains_them(tmp_path, clock):
    """Names' and ladders' tables are made when a file from before them is opened; its games stay as they were."""
    path = tmp_path / "old.sqlite3"
    store = SQLiteStore(path, clock=clock, kept=KEPT)
    game_id = store.create(game_for("alice"))
    store.close()
    with sqlite3.connect(path) as connection:
        for table in ("ladders", "names"):
            connection.execute(f"DROP TABLE {table}")
        indexes = connection.execute("SELECT name FROM sqlite_master WHERE name LIKE 'ladders_%'").fetchall()
        assert indexes == []  # they went with their table: the old file had none
    reopened = SQLiteStore(path, clock=clock, kept=KEPT)
    assert enter(reopened, "alice", 0, 5_000)
    reopened.set_name("alice", "Alice")
    assert reopened.ladder(DAY, 10, "alice").own == LadderRow(1, "alice", 0, 5_000, entry("alice"))
    assert reopened.names_of(["alice"]) == {"alice": "Alice"}
    assert reopened.load(game_id, "alice").version == 0
    reopened.close()
    with sqlite3.connect(path) as connection:
        made = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE name LIKE 'ladders_%'")}
    assert made == {"ladders_by_rank", "ladders_by_player"}


def test_sqlite_ladder_rows_that_do_not_read_are_left_off_the_page(tmp_path, clock):
    store = SQLiteStore(tmp_path / "games.sqlite3", clock=clock, kept=KEPT)
    try:
        for number, player in enumerate(["first", "broken", "third", "fourth"]):
            enter(store, player, 0, 1_000 * (number + 1))
        with sqlite3.connect(store.path) as connection:
            connection.execute("UPDATE ladders SET data = x'00ff' WHERE player = 'broken'")  # a blob, not text
            connection.execute("UPDATE ladders SET grp = 1.5 WHERE player = 'fourth'")
        page = store.ladder(DAY, 10, "broken")
        assert order(page) == [(1, "first"), (3, "third")]
        assert page.own is None and store.ladder(DAY, 10, "first").own is not None
        assert enter(store, "fifth", 1, 500)
        assert (4, "fifth") in order(store.ladder(DAY, 10))
    finally:
        store.close()


def test_redis_ladder_data_that_does_not_read_is_left_off_the_page_and_never_raises(redis_url, clock):
    backend = RedisBackend(clock, redis_url)
    store, client = backend.store, backend.store.redis
    try:
        for number, player in enumerate(["first", "broken", "third", "fourth"]):
            enter(store, player, 0, 1_000 * (number + 1))
        client.hset(f"kaboom:ladder:{DAY}", "broken", "not an entry")
        client.zadd(f"kaboom:ladder-rank:{DAY}", {"no seq here": 3_500, "000000000099:gone": 3_600})
        page = store.ladder(DAY, 10, "broken")
        # Every member ranks, read or not: the places are the true ones.
        assert order(page) == [(1, "first"), (3, "third"), (6, "fourth")]
        assert page.own is None and page.counts == (6, 0, 0)
        assert store.ladder(DAY, 10, "fourth").own == LadderRow(6, "fourth", 0, 4_000, entry("fourth"))

        # Keys of another type: the page is empty where they are, and an entry over them is Corrupt, not a crash.
        client.delete(f"kaboom:ladder-rank:{DAY}")
        client.set(f"kaboom:ladder-rank:{DAY}", "a string where a sorted set belongs")
        assert store.ladder(DAY, 10, "first") == LadderPage([], None, (0, 0, 0))
        with pytest.raises(Corrupt):
            enter(store, "fifth", 0, 1)
        assert store.ladder_entries_of("fifth") == {}
        client.delete(f"kaboom:ladder:{DAY}")
        client.rpush(f"kaboom:ladder:{DAY}", "a list where a hash belongs")
        assert store.ladder(DAY, 10, "first") == LadderPage([], None, (0, 0, 0))
        client.set("kaboom:ladder-kept:daily:other", "not a count")
        with pytest.raises(Corrupt):
            enter(store, "alice", 0, 1, ladder="daily:other")
        assert store.ladder("daily:other", 10, "alice") == LadderPage([], None, (0, 0, 0))
        client.set("kaboom:ladders:first", "a string where a hash belongs")
        assert store.ladder_entries_of("first") == {}
        client.set("kaboom:names", "a string where a hash belongs")
        assert store.names_of(["alice"]) == {}
        with pytest.raises(Corrupt):
            store.set_name("alice", "Alice")
    finally:
        backend.close()
