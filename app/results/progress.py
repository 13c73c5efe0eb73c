"""A player's progress over time, from their results (app.results.records reads the same): games and wins per week,
the best and median winning time per week of each mode and size, 3BV per second and accuracy per week, and their
finished games, newest first. Weeks are ISO weeks (from Monday, UTC)."""

from __future__ import annotations

import datetime
import json
import statistics
from dataclasses import dataclass, field

from pydantic import ValidationError

from app.results.records import RESULT, Result

# The weeks the charts show at most: a year.
WEEKS_SHOWN = 52


def week_of(seconds: float) -> datetime.date:
    """The Monday (UTC) of the week a moment falls in."""
    day = datetime.datetime.fromtimestamp(seconds, datetime.UTC).date()
    return day - datetime.timedelta(days=day.weekday())


@dataclass
class Week:
    start: datetime.date
    games: int = 0
    wins: int = 0
    rates: list[float] = field(default_factory=list)  # 3BV per second of the week's wins that have it
    accuracies: list[float] = field(default_factory=list)  # of its graded games

    @property
    def bbbv_per_second(self) -> float | None:
        return statistics.fmean(self.rates) if self.rates else None

    @property
    def accuracy(self) -> float | None:
        return statistics.fmean(self.accuracies) if self.accuracies else None


@dataclass(frozen=True)
class WeekTimes:
    start: datetime.date
    best: float
    median: float
    wins: int


@dataclass
class GroupTimes:
    """One mode and size (and kind of board): the winning times of each week it was won in."""

    mode: str
    width: int
    height: int
    mines: int
    kind: str
    weeks: list[WeekTimes] = field(default_factory=list)


@dataclass(frozen=True)
class Finished:
    game_id: str
    result: Result


@dataclass
class Progress:
    weeks: list[Week]  # every week from the first shown to the latest, games or none, oldest first
    groups: list[GroupTimes]  # the modes and sizes won in, in the order of their first win
    finished: list[Finished]  # every readable result, the latest first
    unreadable: int


def progress_of(stored: dict[str, str], now: float) -> Progress:
    """The progress of a player with these results (game id -> result JSON), up to the week of `now`."""
    finished, unreadable = [], 0
    for game_id, text in stored.items():
        try:
            finished.append(Finished(game_id, RESULT.validate_python(json.loads(text))))
        except (ValueError, ValidationError):
            unreadable += 1
    finished.sort(key=lambda game: game.result["finished_at"], reverse=True)
    return Progress(_weeks(finished, now), _groups(finished), finished, unreadable)


def _weeks(finished: list[Finished], now: float) -> list[Week]:
    if not finished:
        return []
    last = week_of(now)
    first = max(week_of(finished[-1].result["finished_at"]), last - datetime.timedelta(weeks=WEEKS_SHOWN - 1))
    starts = [first + datetime.timedelta(weeks=number) for number in range((last - first).days // 7 + 1)]
    shown = {start: Week(start) for start in starts}
    for game in finished:
        week = shown.get(week_of(game.result["finished_at"]))
        if week is None:
            continue
        result = game.result
        week.games += 1
        week.wins += result["won"]
        if result["won"] and result["bbbv"] is not None and result["seconds"] > 0:
            week.rates.append(result["bbbv"] / result["seconds"])
        accuracy = result.get("accuracy")
        if accuracy is not None:
            week.accuracies.append(float(accuracy))
    return list(shown.values())


def _groups(finished: list[Finished]) -> list[GroupTimes]:
    times: dict[tuple[str, int, int, int, str], dict[datetime.date, list[float]]] = {}
    for game in reversed(finished):  # oldest first: the groups in the order of their first win
        result = game.result
        if result["won"]:
            key = (result["mode"], result["width"], result["height"], result["mines"], result.get("kind", ""))
            times.setdefault(key, {}).setdefault(week_of(result["finished_at"]), []).append(result["seconds"])
    return [
        GroupTimes(
            *key,
            weeks=[
                WeekTimes(start, min(seconds), statistics.median(seconds), len(seconds))
                for start, seconds in sorted(weeks.items())
            ],
        )
        for key, weeks in times.items()
    ]
