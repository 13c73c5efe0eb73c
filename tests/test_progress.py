"""A player's progress over time (issue 45 #4): the weeks' figures from results (app/results/progress.py), the
charts and tables the page draws of them, the finished games with their replays, and the API's answer."""

from __future__ import annotations

import datetime
import itertools
import json
import re

import httpx
import pytest

from app.results.progress import WEEKS_SHOWN, progress_of, week_of
from app.service.kept import KEPT
from app.store import SQLiteStore
from tests.live import live_server, put_layout, seconds
from tests.test_records import result

# A Thursday, noon UTC.
NOW = datetime.datetime(2026, 11, 26, 12, tzinfo=datetime.UTC).timestamp()
DAY = 86400.0


def test_weeks_count_games_wins_rates_and_accuracy_and_groups_keep_best_and_median_times():
    stored = {
        "a": result(True, 20.0, NOW - 1 * DAY, accuracy=0.5),
        "b": result(True, 10.0, NOW - 2 * DAY, accuracy=1.0),
        "c": result(False, 5.0, NOW - 2 * DAY),
        "d": result(True, 30.0, NOW - 8 * DAY, mode="cruel"),
        "e": result(True, 40.0, NOW - 9 * DAY),
        "x": "not JSON",
    }
    progress = progress_of(stored, NOW)
    assert progress.unreadable == 1 and [game.game_id for game in progress.finished] == ["a", "b", "c", "d", "e"]
    assert [week.start for week in progress.weeks] == [week_of(NOW - 9 * DAY), week_of(NOW)]
    last_week, this_week = progress.weeks
    assert (this_week.games, this_week.wins, last_week.games, last_week.wins) == (3, 2, 2, 2)
    assert this_week.accuracy == 0.75 and last_week.accuracy is None
    bbbv = json.loads(stored["a"])["bbbv"]
    assert this_week.bbbv_per_second == pytest.approx((bbbv / 20.0 + json.loads(stored["b"])["bbbv"] / 10.0) / 2)
    classic, cruel = progress.groups
    assert (classic.mode, cruel.mode) == ("classic", "cruel")
    assert [(week.best, week.median, week.wins) for week in classic.weeks] == [(40.0, 40.0, 1), (10.0, 15.0, 2)]


def test_the_weeks_run_without_gaps_to_now_and_a_year_back_at_most():
    stored = {"old": result(True, 9.0, NOW - 400 * DAY), "new": result(False, 9.0, NOW - 20 * DAY)}
    weeks = progress_of(stored, NOW).weeks
    assert len(weeks) == WEEKS_SHOWN and weeks[-1].start == week_of(NOW)
    week = datetime.timedelta(weeks=1)
    assert all(later.start - earlier.start == week for earlier, later in itertools.pairwise(weeks))
    assert sum(week.games for week in weeks) == 1, "the game of more than a year ago is in no week shown"
    assert progress_of({}, NOW).weeks == []


@pytest.mark.server
def test_the_page_draws_each_chart_with_its_table_and_lists_finished_games_with_their_replays(tmp_path):
    database = tmp_path / "games.sqlite3"
    with live_server(database) as url, httpx.Client(base_url=url, timeout=seconds(30)) as client:
        empty = client.get("/progress")
        assert empty.status_code == 200 and "No finished games yet" in empty.text
        game = client.post("/api/games", json={"mode": "classic", "width": 9, "height": 9, "mines": 10}).json()["id"]
        put_layout(database, game, ["o*.", "*..", "..."])
        assert (
            client.post(f"/api/games/{game}/moves", json={"action": "reveal", "x": 1, "y": 0}).json()["status"]
            == "lost"
        )
        player = client.get("/api/player/export").json()["player"]
        # Results of games no longer kept, over several weeks: counted, without a replay to open.
        store = SQLiteStore(database, kept=KEPT)
        now = datetime.datetime.now(datetime.UTC).timestamp()
        for number in range(60):
            kept = json.loads(result(number % 3 != 0, 30.0 + number, now - number * DAY / 2, accuracy=0.8))
            store.record_result(player, f"gone-{number}", kept)
        store.close()
        page = client.get("/progress").text
        charts = re.findall(r'<figure class="chart-part (\w+)".*?</figure>', page, re.S)
        assert charts == ["bars", "lines", "lines", "lines"], charts
        for figure in re.findall(r'<figure class="chart-part.*?</figure>', page, re.S):
            assert '<svg class="chart"' in figure and 'aria-hidden="true"' in figure
            assert '<div class="visually-hidden"><table>' in figure and "<caption>" in figure
        assert f'href="/games/{game}/replay"' in page
        assert page.count("<tr class=") == 50 and "Page 1 of 2" in page and 'href="/progress?page=2"' in page
        older = client.get("/progress", params={"page": 2}).text
        assert older.count("<tr class=") == 11 and "Page 2 of 2" in older
        assert client.get("/progress", params={"page": "x"}).status_code == 422
        answer = client.get("/api/player/progress").json()
        assert answer["finished"] == 61 and sum(week["games"] for week in answer["weeks"]) == 61
        assert answer["groups"][0]["mode"] == "classic" and answer["groups"][0]["weeks"]
