"""A player's whole keeping (app/store/base.py: holdings, forget, merge), on every store.

The same tests run against memory, SQLite and Redis (the fixtures of tests/test_store.py, in conftest.py). Each
backend can scan what it holds for a string without the store's methods (Backend.scan): what `holdings` lists
is checked against that scan, and so are `forget` (nothing of the player left) and `merge` (nothing of the
source left, nothing of either lost or counted twice).
"""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest

from app.core.seats import Invitation, Player, people
from app.results.records import tallied
from app.store import NotFound, Store
from tests.live import seconds
from tests.test_records import result
from tests.test_store import game_for, game_in, room_for

# Ids as the cookies hold them: long random tokens, so no other text holds one by chance.
ALICE = "aLiCe0000000000000000A"
BOB = "b0b00000000000000000Bb"
CAROL = "cArOl000000000000000Cc"
STAND_IN = "sTaNdIn0000000000000Ss"
DAY = "daily:2025-06-01:classic"
OTHER_DAY = "daily:2025-06-02:cruel"


def player_of_everything(store: Store, player: str, rival: str) -> dict[str, str]:
    """`player` with something of every kind a store keeps for a player: games alone, one left, one shared with
    `rival` through an invitation, a race room with its game, a co-op room alone; results (one of a board),
    tallies, a name, a ladder entry and claims. The ids of what was made, by what they are."""
    made: dict[str, str] = {}
    made["alone"] = store.create(game_for(player))
    made["left"] = store.create(game_for(player))
    store.leave(made["left"], player)
    shared = game_for(player)
    shared.seats = [Player(player), Invitation("invitation-of-" + player[:3], rival)]
    made["shared"] = store.create(shared)
    room = room_for(player, rival)
    made["room"] = room_id = store.create_room(room)
    made["race"] = store.create(game_in(room_id, room, player))
    stored = store.load_room(room_id)
    after = stored.copy()
    after.state["games"] = {player: made["race"]}
    after.version += 1
    store.save_room(room_id, after, stored.version)
    made["coop"] = store.create_room(room_for(player, kind="coop"))
    store.record_result(player, made["alone"], json.loads(result(True, 30.0, 10)), board="board-1")
    store.record_result(player, made["shared"], json.loads(result(False, 4.0, 11)))
    store.set_name(player, "Name of " + player[:3])
    store.enter_ladder(DAY, player, 0, 30_000, json.dumps({"by": player[:3]}))
    assert store.claim(f"daily-game:{DAY}:{player}", made["alone"])
    assert store.claim("name:look-of-" + player[:3], player)
    assert store.keep_passkey(player, "credential-of-" + player[:3], json.dumps({"name": "phone"}))
    assert store.put_token("link:code-of-" + player[:3], player, store.clock() + 600)
    return made


def played(store: Store, player: str):
    records = tallied(store.tallies_of(player))
    assert records is not None
    return records.records


def listed(holdings) -> set[str]:
    """Every id and key the holdings name: a place a scan finds is the player's if it is located by one."""
    named = {*holdings.games, *holdings.rooms, *holdings.results, *holdings.tallies, *holdings.boards}
    named |= {*holdings.ladders, *holdings.claims, *holdings.passkeys, *holdings.tokens}
    return named | ({holdings.name} if holdings.name else set())


def bare(place: tuple[str, ...], player: str) -> bool:
    """A place that holds the player's id and nothing else but a figure (when they chose their name): theirs, and
    nothing else's to list."""
    return all(part == player or part.replace(".", "", 1).isdigit() for part in place[1:])


def located(place: tuple[str, ...]) -> set[str]:
    """The strings that locate a place a scan found, a Redis key's every tail included (a ladder key has colons)."""
    parts = place[0].split(":")
    return {*place, *(":".join(parts[start:]) for start in range(len(parts)))}


def test_holdings_list_everything_a_scan_finds_and_only_the_players(backend):
    store = backend.store
    mine = player_of_everything(store, ALICE, BOB)
    theirs = player_of_everything(store, BOB, CAROL)
    holdings = store.holdings(ALICE)

    assert set(holdings.games) == {mine[name] for name in ("alone", "left", "shared", "race")}
    assert holdings.left == [mine["left"]]
    assert set(holdings.rooms) == {mine["room"], mine["coop"]}
    assert set(holdings.results) == {mine["alone"], mine["shared"]}
    assert holdings.boards == {"board-1": mine["alone"]}
    assert holdings.name == "Name of aLi"
    assert holdings.ladders == {DAY: json.dumps({"by": ALICE[:3]})}
    assert holdings.claims == {f"daily-game:{DAY}:{ALICE}": mine["alone"], "name:look-of-aLi": ALICE}
    assert holdings.passkeys == {"credential-of-aLi": json.dumps({"name": "phone"})}
    assert holdings.tokens == {"link:code-of-aLi": ALICE}
    assert theirs["alone"] not in holdings.games
    places = backend.scan(ALICE)
    assert places, "the scan finds the player"
    unlisted = [place for place in places if not located(place) & listed(holdings) and not bare(place, ALICE)]
    assert not unlisted, f"kept for the player but not in their holdings: {unlisted}"
    assert not store.holdings(STAND_IN)


def test_forget_leaves_nothing_of_the_player_and_the_others_games_go_on(backend):
    store = backend.store
    mine = player_of_everything(store, ALICE, BOB)
    player_of_everything(store, BOB, CAROL)
    bob_before = store.holdings(BOB)

    store.forget(ALICE, STAND_IN)

    for reader in (store, backend.reopened()):
        assert backend.scan(ALICE) == []
        assert not reader.holdings(ALICE)
        assert reader.games_of(ALICE) == [] and reader.rooms_of(ALICE) == []
        # Bob's game with her goes on, her seat held by the stand-in; the race room goes on without her name.
        shared = reader.load(mine["shared"], BOB)
        assert people(shared.seats) == {STAND_IN, BOB}
        room = reader.load_room(mine["room"])
        assert room.players() == [STAND_IN, BOB] and room.members[0].name == "Player"
        assert room.state["games"] == {STAND_IN: mine["race"]}
        assert reader.load(mine["race"], STAND_IN).seats == [Player(STAND_IN)]
        assert reader.ladder(DAY, 10).counts == (1, 0, 0) and reader.ladder(DAY, 10).top[0].player == BOB
        # What was hers alone is gone; Bob keeps all he had.
        for alone in ("alone", "left"):
            assert reader.peek([mine[alone]])[mine[alone]] is None
        with pytest.raises(NotFound):
            reader.load_room(mine["coop"])
        bob_after = reader.holdings(BOB)
        assert bob_after.results == bob_before.results and bob_after.ladders == bob_before.ladders
        assert set(bob_after.games) == set(bob_before.games) and bob_after.name == bob_before.name
    # Her name's look is free again; her passkey signs nobody in, her link code links nobody.
    assert store.claim("name:look-of-aLi", CAROL)
    assert store.passkey("credential-of-aLi") is None and store.take_token("link:code-of-aLi") is None
    assert store.passkey("credential-of-b0b") == (BOB, json.dumps({"name": "phone"}))


def test_merge_makes_two_players_one_without_loss_or_double_counting(backend):
    store = backend.store
    alice = player_of_everything(store, ALICE, BOB)
    bob = player_of_everything(store, BOB, CAROL)
    # Bob entered the day's ladder after Alice, and another day's alone; each saw a board the other did not.
    store.enter_ladder(OTHER_DAY, BOB, 1, 50_000, json.dumps({"by": BOB[:3], "day": 2}))
    store.record_result(BOB, "bob-extra", json.loads(result(True, 20.0, 12)), board="board-2")
    # Both have a result of the game they shared (one each, as a two-player game gives).
    store.record_result(BOB, alice["shared"], json.loads(result(True, 5.0, 11.5)))
    before = {player: store.holdings(player) for player in (ALICE, BOB)}

    store.merge(ALICE, BOB)

    for reader in (store, backend.reopened()):
        assert backend.scan(ALICE) == []
        after = reader.holdings(BOB)
        assert set(after.games) == set(before[ALICE].games) | set(before[BOB].games)
        assert set(after.left) == set(before[ALICE].left) | set(before[BOB].left)
        assert set(after.rooms) == set(before[ALICE].rooms) | set(before[BOB].rooms)
        # Alice's shared game was with Bob: it is one game, both seats his, its one result his own (kept first).
        assert people(reader.load(alice["shared"], BOB).seats) == {BOB}
        assert after.results == {**before[ALICE].results, **before[BOB].results}
        assert after.boards == {**before[ALICE].boards, **before[BOB].boards}
        # The day's ladder keeps Alice's entry (kept first) as Bob's; the other day's stays.
        assert after.ladders == {DAY: json.dumps({"by": ALICE[:3]}), OTHER_DAY: json.dumps({"by": BOB[:3], "day": 2})}
        page = reader.ladder(DAY, 10, BOB)
        assert [row.player for row in page.top] == [BOB] and page.own.place == 1
        assert after.name == "Name of b0b"
        # Her passkey signs in as Bob now, and so does her link code.
        assert set(after.passkeys) == {"credential-of-aLi", "credential-of-b0b"}
        assert reader.passkey("credential-of-aLi") == (BOB, json.dumps({"name": "phone"}))
        assert after.tokens == {"link:code-of-aLi": BOB, "link:code-of-b0b": BOB}
        # The race room both were in holds Bob once.
        assert reader.load_room(alice["room"]).players() == [BOB]
        assert reader.rooms_of(BOB) and set(reader.rooms_of(BOB)) == set(after.rooms)
        # Listed as they were: the game Alice left stays off the list.
        listed_games = {listing.game_id for listing in reader.games_of(BOB)}
        assert alice["alone"] in listed_games and alice["left"] not in listed_games
        # The tallies count each result once: Bob's and Alice's together, the game they shared once.
        assert after.results[alice["shared"]] == before[BOB].results[alice["shared"]]
        assert len(after.results) == len(before[ALICE].results) + len(before[BOB].results) - 1
        assert sum(record.games for record in played(reader, BOB)) == len(after.results)
    assert bob["alone"] in store.holdings(BOB).games


@pytest.mark.subprocess
def test_a_merge_killed_midway_leaves_both_players_whole(backend):
    if backend.name == "memory":
        pytest.skip("a memory store dies with its process: there is nothing for a killed merge to leave")
    store = backend.store
    player_of_everything(store, ALICE, BOB)
    player_of_everything(store, BOB, CAROL)
    before = {player: store.holdings(player) for player in (ALICE, BOB)}

    def merge_and_die() -> None:
        # The process dies at the second game it recasts, with the first recast and (SQLite) written.
        child = backend.another()
        recast, calls = child._recast_game, []

        def dying(*arguments, **keywords):
            calls.append(1)
            if len(calls) == 2:
                os._exit(9)
            return recast(*arguments, **keywords)

        child._recast_game = dying
        child.merge(ALICE, BOB)
        os._exit(0)

    process = multiprocessing.get_context("fork").Process(target=merge_and_die)
    process.start()
    process.join(seconds(30))
    assert process.exitcode == 9, "the merge died midway"
    reader = backend.reopened()
    for player in (ALICE, BOB):
        assert reader.holdings(player) == before[player]


@pytest.mark.redis
def test_redis_indexes_games_left_before_it_kept_them_by_player_once(redis_url, clock):
    from app.service.kept import KEPT
    from app.store.redis import RedisStore

    store = RedisStore(redis_url, prefix="left-before", clock=clock, kept=KEPT)
    try:
        shared = game_for(ALICE)
        shared.seats = [Player(ALICE), Invitation("invitation-of-ali", BOB)]
        game_id = store.create(shared)
        store.leave(game_id, BOB)
        # As the code before the index left it: no index of Bob's departures, and no mark that they are indexed.
        store.redis.delete(f"left-before:departed:{BOB}", "left-before:departures-indexed")
        assert game_id not in store.holdings(BOB).games
        reopened = RedisStore(redis_url, prefix="left-before", clock=clock, kept=KEPT)
        assert reopened.holdings(BOB).left == [game_id] and reopened.redis.exists("left-before:departures-indexed")
        reopened.forget(BOB, STAND_IN)
        assert reopened.load(game_id, ALICE).seats[1] == Invitation("invitation-of-ali", STAND_IN)
        reopened.close()
    finally:
        for key in store.redis.scan_iter(match="left-before:*"):
            store.redis.delete(key)
        store.close()


def test_a_passkey_is_one_players_and_only_they_change_or_drop_it(backend):
    store = backend.store
    assert store.keep_passkey(ALICE, "key-1", '{"n": 1}')
    assert not store.keep_passkey(BOB, "key-1", '{"n": 2}'), "an id kept already is nobody else's"
    assert store.passkey("key-1") == (ALICE, '{"n": 1}') and store.passkey("key-2") is None
    assert not store.update_passkey(BOB, "key-1", '{"n": 3}') and not store.drop_passkey(BOB, "key-1")
    assert store.update_passkey(ALICE, "key-1", '{"n": 4}')
    assert backend.reopened().passkeys_of(ALICE) == {"key-1": '{"n": 4}'} and store.passkeys_of(BOB) == {}
    assert store.drop_passkey(ALICE, "key-1") and not store.drop_passkey(ALICE, "key-1")
    assert store.passkeys_of(ALICE) == {}


def test_a_token_is_taken_once_and_runs_out_by_the_stores_clock(backend, clock):
    store = backend.store
    assert store.put_token("link:one", ALICE, clock() + 600)
    assert not store.put_token("link:one", BOB, clock() + 600), "a key in use is not written over"
    assert backend.reopened().take_token("link:one") == ALICE
    assert store.take_token("link:one") is None, "taken once"
    assert store.put_token("link:two", ALICE, clock() + 600)
    clock.advance(601)
    assert store.take_token("link:two") is None, "ran out"
    assert store.put_token("link:three", ALICE, clock() + 600)
    clock.advance(599)
    assert store.take_token("link:three") == ALICE


def test_names_are_listed_newest_first_and_dropped_and_entries_taken_off_a_ladder(backend, clock):
    store = backend.store
    for player, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")):
        store.set_name(player, name)
        clock.advance(1)
    store.set_name(ALICE, "Alice Again")
    reader = backend.reopened()
    assert [(player, name) for player, name, _ in reader.recent_names(2)] == [(ALICE, "Alice Again"), (CAROL, "Carol")]
    assert reader.recent_names(10)[0][2] == clock() and len(reader.recent_names(10)) == 3
    assert store.drop_name(BOB) and not store.drop_name(BOB)
    assert reader.names_of([BOB]) == {} and [line[0] for line in reader.recent_names(10)] == [ALICE, CAROL]
    for player, millis in ((ALICE, 30_000), (BOB, 20_000), (CAROL, 40_000)):
        store.enter_ladder(DAY, player, 0, millis, json.dumps({"by": player[:3]}))
    assert store.drop_ladder_entry(DAY, BOB) and not store.drop_ladder_entry(DAY, BOB)
    page = reader.ladder(DAY, 10, BOB)
    assert [(row.place, row.player) for row in page.top] == [(1, ALICE), (2, CAROL)] and page.own is None
    assert reader.ladder_entries_of(BOB) == {} and page.counts == (2, 0, 0)


def test_the_audit_log_keeps_every_line_newest_first(backend):
    store = backend.store
    for number in range(5):
        store.write_audit(json.dumps({"action": "rename", "number": number}))
    assert [json.loads(line)["number"] for line in backend.reopened().audit_log(3)] == [4, 3, 2]
    assert len(store.audit_log(100)) == 5


def test_a_shared_game_the_player_took_off_their_list_keeps_nothing_of_them_once_forgotten(backend):
    store = backend.store
    shared = game_for(BOB)
    shared.seats = [Player(BOB), Invitation("invitation-of-b0b", ALICE)]
    game_id = store.create(shared)
    store.leave(game_id, ALICE)
    store.forget(ALICE, STAND_IN)
    assert backend.scan(ALICE) == []
    assert store.load(game_id, BOB).seats == [Player(BOB), Invitation("invitation-of-b0b", STAND_IN)]
    assert [listing.game_id for listing in store.games_of(BOB)] == [game_id]
