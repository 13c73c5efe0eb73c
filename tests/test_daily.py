"""Boards of the day and their ladders (issue 28): the day's boards from the date and the server's key, names,
the ladder's rules, streaks, and the API; time is a FakeClock."""

from __future__ import annotations

import asyncio
import datetime
import json
import random

import httpx
import pytest

from app.core.config import Settings
from app.core.game import Game, Invalid, Move, Refused, count_hint, set_options, undo
from app.core.seats import replay_watcher
from app.modes import apply_move, get_mode, new_game
from app.modes.classic import BoardId
from app.results.daily import (
    DAILY_SIZE,
    DailyBoard,
    anonymous_name,
    board_named,
    boards_of,
    day_of,
    days_won,
    streaks,
)
from app.service import Deals, GameService
from app.service.kept import KEPT
from app.store import MemoryStore, SQLiteStore
from solver import Analyzer
from solver.strategy import progress_cell
from tests.clock import FakeClock
from tests.live import live_server, seconds

# 2026-11-26 00:00 UTC, and a moment before it.
MIDNIGHT = datetime.datetime(2026, 11, 26, tzinfo=datetime.UTC).timestamp()
KEY = "a test key, long enough"


def service_on(store, clock, key: str = KEY, path=None) -> GameService:
    settings = Settings(database=path or "unused.sqlite3", secret_key=key)
    return GameService(store, settings, Deals(seed=0), clock=clock)


@pytest.fixture(params=["memory", "sqlite"])
def service(request, tmp_path):
    clock = FakeClock(MIDNIGHT + 3600)
    store = (
        MemoryStore(clock, kept=KEPT)
        if request.param == "memory"
        else SQLiteStore(tmp_path / "games.sqlite3", clock, kept=KEPT)
    )
    service = service_on(store, clock, path=tmp_path / "games.sqlite3")
    yield service
    service.close()


# ----- the day's boards ------------------------------------------------------------------------------------


def test_the_day_changes_at_midnight_utc():
    assert day_of(MIDNIGHT - 0.001) == datetime.date(2026, 11, 25)
    assert day_of(MIDNIGHT) == datetime.date(2026, 11, 26)


def test_each_day_has_a_cruel_and_a_no_guess_classic_expert_board():
    boards = boards_of(datetime.date(2026, 11, 26))
    assert [board.mode for board in boards] == ["cruel", "classic"]
    assert [board.key for board in boards] == ["2026-11-26/cruel", "2026-11-26/classic"]
    secret = b"k" * 32
    cruel, classic = (board.game(secret) for board in boards)
    assert (cruel.width, cruel.height, cruel.mines) == DAILY_SIZE == (30, 16, 99)
    assert classic.options.no_guess and BoardId.parse(classic.state["board_id"]).no_guess
    assert cruel.daily == "2026-11-26/cruel" and classic.daily == "2026-11-26/classic"
    # Both mark a first click: whoever starts there starts alike.
    assert cruel.state["start"] is not None and classic.state["start"] is not None


def secrets_of(game) -> tuple:
    return (json.dumps(game.hidden, sort_keys=True), json.dumps(game.state, sort_keys=True))


def test_a_board_is_the_same_for_the_same_key_and_day_and_differs_with_either():
    day, next_day = datetime.date(2026, 11, 26), datetime.date(2026, 11, 27)
    for mode in ("cruel", "classic"):
        one = DailyBoard(day, mode).game(b"key one")
        assert secrets_of(one) == secrets_of(DailyBoard(day, mode).game(b"key one"))
        # Unknown the day before: the next day's board, and another server's, share nothing with it.
        assert secrets_of(one) != secrets_of(DailyBoard(next_day, mode).game(b"key one"))
        assert secrets_of(one) != secrets_of(DailyBoard(day, mode).game(b"key two"))


def test_two_players_and_two_hosts_sharing_the_key_get_the_same_board(tmp_path):
    clock = FakeClock(MIDNIGHT + 60)
    one = service_on(MemoryStore(clock, kept=KEPT), clock)
    other = service_on(
        SQLiteStore(tmp_path / "other.sqlite3", clock, kept=KEPT), clock, path=tmp_path / "other.sqlite3"
    )
    try:
        for key in ("2026-11-26/cruel", "2026-11-26/classic"):
            made = [
                asyncio.run(host.daily.play_daily(player, "client", key))[1]
                for host, player in ((one, "alice"), (one, "bob"), (other, "carol"))
            ]
            assert len({secrets_of(game) for game in made}) == 1
            # The same first click deals the same cells: the layout of a classic board, a cruel board's opening.
            first = made[0].cell(made[0].state["start"])
            opened = [
                asyncio.run(host.games.move(game_id, player, Move("reveal", *first))).after.cells
                for host, player, game_id in (
                    (one, "alice", asyncio.run(one.daily.daily("alice")).day.boards[_index(key)].game_id),
                    (other, "carol", asyncio.run(other.daily.daily("carol")).day.boards[_index(key)].game_id),
                )
            ]
            assert opened[0] == opened[1] and opened[0].count(".") < len(opened[0])
    finally:
        one.close()
        other.close()


def _index(key: str) -> int:
    return [board.mode for board in boards_of(datetime.date(2026, 11, 26))].index(key.partition("/")[2])


def test_a_board_still_to_come_or_malformed_is_refused_with_a_message():
    today = datetime.date(2026, 11, 26)
    assert board_named("2026-11-25/cruel", today).date == datetime.date(2026, 11, 25)
    for key, message in (
        ("2026-11-27/cruel", "still to come"),
        ("2026-13-01/cruel", "not a date"),
        ("yesterday/cruel", "not a date"),
        ("2026-11-26/flags", "no board of the day in mode 'flags'"),
        ("2026-11-26/help", "no board of the day in mode 'help'"),
    ):
        with pytest.raises(Invalid, match=message):
            board_named(key, today)


def test_only_todays_board_is_played_and_a_second_play_goes_on_with_the_first_game(service):
    game_id, game = asyncio.run(service.daily.play_daily("alice", "client", "2026-11-26/cruel"))
    assert game.daily == "2026-11-26/cruel" and game.maker == "alice"
    again, _ = asyncio.run(service.daily.play_daily("alice", "client", "2026-11-26/cruel"))
    assert again == game_id
    with pytest.raises(Invalid, match="closed"):
        asyncio.run(service.daily.play_daily("alice", "client", "2026-11-25/cruel"))
    with pytest.raises(Invalid, match="still to come"):
        asyncio.run(service.daily.play_daily("alice", "client", "2026-11-27/cruel"))
    service.clock.advance(86400)  # the next day: a new board
    tomorrow, game = asyncio.run(service.daily.play_daily("alice", "client", "2026-11-27/cruel"))
    assert tomorrow != game_id and game.daily == "2026-11-27/cruel"


# ----- names -----------------------------------------------------------------------------------------------


def test_an_unnamed_player_is_anonymous_with_a_tag_that_stays_and_tells_nothing_of_the_id():
    one = anonymous_name("player-id-one", b"server key")
    assert one == anonymous_name("player-id-one", b"server key")
    assert one.startswith("anonymous ") and "player" not in one
    assert one != anonymous_name("player-id-two", b"server key")


def test_a_name_is_kept_refused_when_malformed_and_limited_per_address(service):
    assert asyncio.run(service.daily.name_of("alice")) is None
    assert asyncio.run(service.daily.set_name("alice", "client", "  Alice B ")) == "Alice B"
    assert asyncio.run(service.daily.name_of("alice")) == "Alice B"
    with pytest.raises(Invalid):
        asyncio.run(service.daily.set_name("alice", "client", "<script>"))
    assert asyncio.run(service.daily.name_of("alice")) == "Alice B"  # a refusal changes nothing


# ----- streaks ---------------------------------------------------------------------------------------------


def entry(won: bool) -> str:
    return json.dumps(
        {
            "won": won,
            "clean": won,
            "aids": [],
            "deaths": 0,
            "seconds": 100.0,
            "finished_at": 1.0,
            "bbbv": None,
            "bbbv_per_second": None,
            "accuracy": None,
            "game_id": "g",
            "replay": None,
        }
    )


def test_streaks_count_days_won_in_a_row_and_the_current_one_holds_until_a_day_is_missed():
    day = datetime.date(2026, 11, 26)
    entries = {
        "2026-11-20/cruel": entry(True),
        "2026-11-21/classic": entry(True),
        "2026-11-22/cruel": entry(True),
        "2026-11-23/cruel": entry(False),  # a loss, and no other board won that day
        "2026-11-24/cruel": entry(False),
        "2026-11-24/classic": entry(True),  # a day is won by either board
        "2026-11-25/cruel": entry(True),
        "not a key": entry(True),
        "2026-11-19/cruel": "damaged",
    }
    won = days_won(entries)
    assert won == {datetime.date(2026, 11, d) for d in (20, 21, 22, 24, 25)}
    assert streaks(won, day) == (2, 3)  # today not yet played: yesterday's run still stands
    assert streaks(won, day + datetime.timedelta(days=1)) == (0, 3)
    assert streaks(set(), day) == (0, 0)


# ----- the ladder ------------------------------------------------------------------------------------------


def cruel_win(service: GameService, player: str, key: str = "2026-11-26/cruel", **aids: bool):
    """Play today's cruel board to a win as a cruel-but-fair player does (solver.strategy: a forced guess by the
    numbers is safe by the rules)."""
    game_id, game = asyncio.run(service.daily.play_daily(player, "client", key))
    first = game.cell(game.state["start"])
    game = asyncio.run(service.games.move(game_id, player, Move("reveal", *first))).after
    if aids.get("hint"):
        asyncio.run(service.aids.hint(game_id, player))
    for _ in range(game.width * game.height):
        if game.status != "playing":
            break
        cell = progress_cell(Analyzer(game.position()))
        assert cell is not None
        service.clock.advance(1.0)
        game = asyncio.run(service.games.move(game_id, player, Move("reveal", *cell))).after
        assert game.status != "lost", f"{cell} lost, though a cruel-but-fair player's move"
    assert game.status == "won"
    return game_id, game


def test_a_clean_win_ranks_by_time_a_helped_one_after_marked_and_only_the_first_finished_game_counts(
    service, small_dailies
):
    asyncio.run(service.daily.set_name("alice", "client", "Alice"))
    service.clock.advance(10)
    _, slow = cruel_win(service, "alice")
    _, helped = cruel_win(service, "bob", hint=True)
    assert helped.aids == ["hint"]
    ((cruel, classic),) = [asyncio.run(service.daily.ladders("2026-11-26", "carol"))[1]]
    assert cruel.counts == (1, 1, 0) and classic.counts == (0, 0, 0)
    assert [(line.place, line.name, line.entry["clean"]) for line in cruel.lines] == [
        (1, "Alice", True),
        (None, anonymous_name("bob", service.context.board_secret), False),
    ]
    assert cruel.own is None
    # Today's replays show the board: carol, who has not played, is shown none.
    assert all(line.replay is None for line in cruel.lines)
    # Alice's later game is practice: her entry stays her first.
    _, again = cruel_win(service, "alice")
    ((cruel, _),) = [asyncio.run(service.daily.ladders("2026-11-26", "alice"))[1]]
    assert (
        cruel.own is not None and cruel.own.place == 1 and cruel.own.entry["seconds"] == slow.elapsed(slow.finished_at)
    )
    assert cruel.own.replay is not None and cruel.own.replay.startswith("/replays/")
    assert cruel.counts == (1, 1, 0)


def test_an_entrys_replay_stays_shared_and_a_practice_games_link_may_be_withdrawn(service, small_dailies):
    """The ladder links to each entry's replay: withdrawing it would leave a dead link there, so it is refused and
    nothing changes; a later game of the board is practice, shared at its end too, and may be withdrawn."""
    entry_id, entry = cruel_win(service, "alice")
    assert entry.share is not None
    with pytest.raises(Refused, match="a board of the day is played in public, so the link stays"):
        asyncio.run(service.reviews.share(entry_id, "alice", False))
    assert service.store.load(entry_id, "alice").share == entry.share
    practice_id, practice = cruel_win(service, "alice")
    assert practice.share is not None
    assert asyncio.run(service.daily.on_ladder(entry_id, entry)) and not asyncio.run(
        service.daily.on_ladder(practice_id, practice)
    )
    assert asyncio.run(service.reviews.share(practice_id, "alice", False)).share is None
    ((cruel, _),) = [asyncio.run(service.daily.ladders("2026-11-26", "alice"))[1]]
    assert cruel.own is not None and cruel.own.replay == f"/replays/{entry_id}/{entry.share}"
    shown, _ = asyncio.run(service.reviews.review(entry_id, replay_watcher(entry.share), "alice"))
    assert shown.status == "won"


# ----- the API ---------------------------------------------------------------------------------------------


@pytest.mark.server
def test_the_api_gives_the_days_boards_plays_one_ranks_it_and_names_the_player(tmp_path):
    clock = FakeClock(MIDNIGHT + 7200)
    with live_server(tmp_path / "games.sqlite3", clock=clock, secret_key=KEY) as url:
        with (
            httpx.Client(base_url=url, timeout=seconds(30)) as alice,
            httpx.Client(base_url=url, timeout=seconds(30)) as bob,
        ):
            today = alice.get("/api/daily").json()
            assert today["date"] == "2026-11-26" and today["name"] is None and today["streak"] == 0
            assert [(b["mode"], b["width"], b["height"], b["mines"]) for b in today["boards"]] == [
                ("cruel", 30, 16, 99),
                ("classic", 30, 16, 99),
            ]
            board = today["boards"][1]
            assert board["play"] == "/api/daily/2026-11-26/classic/games" and board["entry"] is None
            # Names: refused with a message and nothing kept; then kept trimmed, and shown escaped on no page
            # but as data here.
            refused = alice.put("/api/name", json={"name": "<b>me</b>"})
            assert refused.status_code == 422 and "letters, digits" in refused.json()["detail"]
            assert alice.get("/api/daily").json()["name"] is None
            assert alice.put("/api/name", json={"name": " Ada "}).json() == {"name": "Ada"}
            # Play the classic board to a loss (a mine of its layout, known to the test through the server's key).
            created = alice.post(board["play"])
            assert created.status_code == 201, created.text
            game = created.json()
            assert alice.post(board["play"]).json()["id"] == game["id"]  # the game in play again
            mine = a_mine_of(DailyBoard(datetime.date(2026, 11, 26), "classic"), clock)
            opened = alice.post(
                f"/api/games/{game['id']}/moves",
                json={"action": "reveal", "x": game["start"][0], "y": game["start"][1]},
            )
            assert opened.status_code == 200, opened.text
            lost = alice.post(f"/api/games/{game['id']}/moves", json={"action": "reveal", "x": mine[0], "y": mine[1]})
            assert lost.json()["status"] == "lost"
            mine_day = alice.get("/api/daily").json()
            assert mine_day["name"] == "Ada" and mine_day["boards"][1]["entry"]["won"] is False
            ladder = bob.get("/api/daily/2026-11-26/ladder").json()
            classic = ladder["boards"][1]
            assert (classic["clean_wins"], classic["assisted_wins"], classic["other"]) == (0, 0, 1)
            assert classic["lines"] == [] and classic["own"] is None
            own = alice.get("/api/daily/2026-11-26/ladder").json()["boards"][1]["own"]
            assert own["name"] == "Ada" and own["own"] and own["place"] is None
            assert own["replay"].startswith("/replays/")
            for path, status, words in (
                ("/api/daily/2026-11-27/ladder", 422, "still to come"),
                ("/api/daily/26-11-2026/ladder", 422, "not a date"),
            ):
                answer = bob.get(path)
                assert answer.status_code == status and words in answer.json()["detail"], answer.text
            closed = bob.post("/api/daily/2026-11-25/cruel/games")
            assert closed.status_code == 422 and "closed" in closed.json()["detail"]


def a_mine_of(board: DailyBoard, clock) -> tuple[int, int]:
    """A mine of a classic board of the day: its layout follows from the server's key, which the test holds."""
    service = service_on(MemoryStore(clock, kept=KEPT), clock)
    game = board.game(service.context.board_secret)
    service.close()
    board_id = BoardId.parse(game.state["board_id"])
    mines = get_mode("classic").layout(game, game.state["start"], board_id.safe_only, board_id.no_guess)
    return game.cell(min(mines))


def played_out(service: GameService, game_id: str, player: str, game: Game) -> Game:
    """The game played on to its end, each move the cell the solver thinks best from what the player sees (a
    no-guess board of the day is won so)."""
    for _ in range(game.width * game.height):
        if game.status != "playing":
            break
        cell = progress_cell(Analyzer(game.position()))
        assert cell is not None
        game = asyncio.run(service.games.move(game_id, player, Move("reveal", *cell))).after
    return game


def test_every_aid_is_kept_in_the_game_whatever_is_taken_back_after():
    game = new_game(9, 9, 10, "classic", rng=random.Random(0))
    assert game.aids == []
    game = apply_move(game, Move("reveal", 4, 4), rng=random.Random(0), now=1.0)[0]
    assert game.aids == []
    on = set_options(game, {"probabilities": True})
    off = set_options(on, {"probabilities": False})
    assert on.aids == off.aids == ["probabilities"]  # turned off again, it was seen
    assert set_options(game, {"countdown": True}).aids == []  # how numbers show helps nobody
    assert count_hint(game).aids == ["hint"]
    covered = next(game.cell(i) for i, symbol in enumerate(game.cells) if symbol == ".")
    flagged = apply_move(game, Move("flag", *covered), rng=random.Random(0), now=2.0)[0]
    assert undo(flagged)[0].aids == ["undo"]
    assert apply_move(game, Move("flag", *covered, bot=True), rng=random.Random(0), now=2.0)[0].aids == ["bot"]
    options = get_mode("classic").options(debug_overlay=True)
    assert new_game(9, 9, 10, "classic", options, rng=random.Random(0)).aids == ["debug_overlay"]
