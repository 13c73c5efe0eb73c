"""The records kept up to date as results arrive (issue 23 #10), and a board counted once (#4), on every store.

The same tests run against memory, SQLite and Redis (the fixtures of
tests/test_store.py, in conftest.py). The golden rule: what the tallies say is what
app.results.records.records_of says when it counts every result the store kept.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading

from app.results.records import TALLIED, records_of, tallied, tally_key
from app.service.kept import KEPT
from app.store import Store
from tests.live import seconds
from tests.test_records import result

# Ends out of order (a game that ended earlier, written later), at the same moment, of several groups, and
# one result that does not read: each goes its own way through the tallies. Some were graded (an accuracy), some
# kept before grades or graded with no move that bet on anything (none); some were raced (a place in a room).
HISTORY = [
    result(True, 30.0, 10),
    result(False, 4.0, 11, accuracy=0.25),
    result(True, 20.0, 12, accuracy=0.9),
    result(True, 25.0, 12, accuracy=None),
    result(True, 10.0, 13, mode="cruel", accuracy=1.0),
    result(False, 9.0, 14, size=(30, 16, 99)),
    result(True, 15.0, 11.5, accuracy=1 / 3),
    "not JSON",
    result(True, 12.0, 9, accuracy=0.1),
    result(True, 8.0, 20, room={"kind": "race", "rank": 1, "of": 3}),
    result(False, 3.0, 21, mode="cruel", accuracy=0.5, room={"kind": "race", "rank": None, "of": 2}),
    result(True, 8.5, 22, room={"kind": "race", "rank": 2, "of": 2}),
    *(result(seconds % 3 != 0, float(seconds), 30 + seconds, accuracy=seconds / 16) for seconds in range(1, 16)),
]


def keep(store: Store, player: str, game_id: str, text: str, board: str | None = None) -> None:
    # A stored result is what record_result was given, as JSON: "not JSON" stands for one written by hand.
    store.record_result(player, game_id, json.loads(text) if text != "not JSON" else {"won": "not JSON"}, board)


def records(store: Store, player: str = "alice"):
    return tallied(store.tallies_of(player))


def put_old_results(backend, player: str, stored: list[str]) -> Store:
    """Results as the code before tallies kept them, without tallies or boards; the store that opens them."""
    rows = {f"old-{number}": text for number, text in enumerate(stored)}
    if backend.name == "memory":
        backend.store._results.setdefault(player, {}).update(rows)
        backend.store._tallies.pop(player, None)
        return backend.store
    if backend.name == "sqlite":
        with sqlite3.connect(backend.path) as connection:
            # The file as that code left it: no tables for tallies or boards at all.
            connection.execute("DROP TABLE tallies")
            connection.execute("DROP TABLE boards")
            connection.executemany(
                "INSERT INTO results (player, game_id, kept_at, data) VALUES (?, ?, ?, ?)",
                [(player, game_id, number, text) for number, (game_id, text) in enumerate(rows.items())],
            )
        return backend.reopened()
    backend.store.redis.hset(f"kaboom:results:{player}", mapping=rows)
    return backend.reopened()


def damage_tally(backend, player: str, key: str, text: str = "not JSON") -> None:
    """Write over one of a player's tallies (with `text`: as an older release wrote it)."""
    if backend.name == "memory":
        backend.store._tallies[player][key] = text
    elif backend.name == "sqlite":
        with sqlite3.connect(backend.path) as connection:
            connection.execute("UPDATE tallies SET data = ? WHERE player = ? AND key = ?", (text, player, key))
    else:
        backend.store.redis.hset(f"kaboom:tallies:{player}", key, text)


class TestTallies:
    def test_the_tallies_answer_what_counting_every_result_answers_after_each_result(self, backend):
        store = backend.store
        assert records(store) == records_of([]) and store.tallies_of("alice") == {}
        for number, text in enumerate(HISTORY):
            keep(store, "alice", f"game-{number}", text)
            assert records(store) == records_of(store.results_of("alice")), number
        # Another process reads the same, and nothing of it is another player's.
        assert records(backend.reopened()) == records_of(store.results_of("alice"))
        assert records(store).unreadable == 1 and records(store, "bob") == records_of([])
        assert [(record.races, record.firsts) for record in records(store).records[:2]] == [(2, 1), (1, 0)]

    def test_a_games_second_end_changes_nothing(self, backend):
        store = backend.store
        keep(store, "alice", "game", result(False, 3.0, 1))
        before = store.tallies_of("alice")
        keep(store, "alice", "game", result(True, 2.0, 2))  # played on after an undo
        assert store.tallies_of("alice") == before and len(store.results_of("alice")) == 1

    def test_only_the_first_game_of_a_board_to_end_is_a_result(self, backend):
        store = backend.store
        assert store.board_seen_in("alice", "board-x") is None
        keep(store, "alice", "lost", result(False, 3.0, 1), board="board-x")
        keep(store, "alice", "replayed", result(True, 2.0, 2), board="board-x")
        keep(
            store, "alice", "lost", result(True, 2.0, 3), board="board-x"
        )  # the first, won after an undo: still its loss
        assert store.board_seen_in("alice", "board-x") == "lost"
        (record,) = records(store).records
        assert (record.games, record.wins, record.best) == (1, 0, [])
        assert len(store.results_of("alice")) == 1
        # A game the bot played in is no result, but its end showed the board all the same.
        store.record_result("alice", "bot", None, "board-y")
        keep(store, "alice", "after-the-bot", result(True, 2.0, 4), board="board-y")
        assert store.board_seen_in("alice", "board-y") == "bot" and len(store.results_of("alice")) == 1
        # Each player's boards are their own; a game without a board is its own.
        keep(store, "bob", "bobs", result(True, 5.0, 5), board="board-x")
        keep(store, "alice", "cruel", result(True, 5.0, 6, mode="cruel"))
        assert [record.wins for record in records(store, "bob").records] == [1]
        assert [(record.mode, record.games) for record in records(store).records] == [("classic", 1), ("cruel", 1)]

    def test_results_kept_before_tallies_are_counted_once_then_kept_up_to_date(self, backend):
        old = HISTORY[:12]
        store = put_old_results(backend, "alice", old)
        assert records(store) == records_of(old)
        assert TALLIED in store.tallies_of("alice")  # counted and kept: not counted again on every read
        keep(store, "alice", "new", result(True, 0.5, 100))
        assert records(store) == records_of(store.results_of("alice"))
        assert records(store).records[0].best[0].seconds == 0.5

    def test_tallies_kept_before_grades_read_and_count_only_the_accuracy_of_results_graded(self, backend, monkeypatch):
        store = backend.store
        old = [result(True, 30.0, 1), result(False, 3.0, 2), result(True, 20.0, 3)]
        for number, text in enumerate(old):
            keep(store, "alice", f"old-{number}", text)
        # The group's tally as it was written before grades: no accuracy, and best times of three figures.
        key = tally_key(old[0])
        group = json.loads(store.tallies_of("alice")[key])
        del group["graded"], group["accuracy_sum"]
        group["best"] = [best[:3] for best in group["best"]]
        damage_tally(backend, "alice", key, json.dumps(group))
        assert records(store) == records_of(old)

        def refused(stored):
            raise AssertionError("counted every result again")

        monkeypatch.setattr(store, "kept", dataclasses.replace(store.kept, recount=refused))
        keep(store, "alice", "graded", result(True, 10.0, 4, accuracy=0.5))
        keep(store, "alice", "graded-too", result(False, 2.0, 5, accuracy=1.0))
        keep(store, "alice", "none-bet", result(False, 2.0, 6, accuracy=None))
        assert records(store) == records_of(store.results_of("alice"))
        (record,) = records(store).records
        assert (record.games, record.graded, record.accuracy) == (6, 2, 0.75)
        assert [best.accuracy for best in record.best] == [0.5, None, None]

    def test_a_tally_that_does_not_read_back_is_counted_again(self, backend):
        store = backend.store
        for number, text in enumerate(HISTORY[:6]):
            keep(store, "alice", f"game-{number}", text)
        damage_tally(backend, "alice", tally_key(HISTORY[0]))
        assert records(store) is None
        assert tallied(store.retally("alice")) == records_of(store.results_of("alice"))
        # A result arriving over a damaged tally counts them all again too.
        damage_tally(backend, "alice", tally_key(HISTORY[0]))
        keep(store, "alice", "next", result(True, 7.0, 50))
        assert records(store) == records_of(store.results_of("alice"))

    def test_results_written_at_once_by_many_threads_and_processes_all_count(self, backend):
        # Each thread ends its games in order, the threads interleave: the store sees ends out of order.
        stores = [backend.store, backend.reopened()]

        def player(thread: int) -> None:
            for number in range(15):
                text = result(number % 4 != thread % 4, float(number + 1), number * 4 + thread)
                keep(stores[thread % 2], "alice", f"game-{thread}-{number}", text)

        threads = [threading.Thread(target=player, args=(thread,)) for thread in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(seconds(60))
        assert not any(thread.is_alive() for thread in threads), "a player's keeping did not end"
        assert len(backend.store.results_of("alice")) == 60
        assert records(backend.store) == records_of(backend.store.results_of("alice"))

    def test_results_kept_in_order_are_tallied_as_they_come_and_never_counted_again(self, backend, monkeypatch):
        def refused(stored):
            raise AssertionError("counted every result again")

        store = backend.store
        monkeypatch.setattr(store, "kept", dataclasses.replace(store.kept, recount=refused))
        kept = [text for text in HISTORY if text != "not JSON"]
        kept.sort(key=lambda text: json.loads(text)["finished_at"])
        for number, text in enumerate(kept):
            keep(store, "alice", f"game-{number}", text)
            assert records(store) == records_of(store.results_of("alice"))


def test_a_tallies_key_of_another_type_in_redis_is_written_over(redis_url, clock):
    from app.store.redis import RedisStore

    store = RedisStore(redis_url, clock=clock, kept=KEPT)
    try:
        store.redis.set("kaboom:tallies:alice", "a string")
        keep(store, "alice", "game", result(True, 3.0, 1))
        assert records(store) == records_of(store.results_of("alice"))
        store.redis.set("kaboom:tallies:alice", "a string")
        keep(store, "alice", "next", result(False, 3.0, 2))
        assert records(store) == records_of(store.results_of("alice"))
    finally:
        store.redis.flushdb()
        store.close()
