"""How the boards of the day look: a day's boards with their ladders, the calendar, what the rules page says of
them.

They read what GET /api/daily and its ladder read (app.service.daily); words about an entry are written
here, for the pages alone.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from app.core.game import AIDS
from app.core.languages import day_text, decimal_text, gettext, lowered, month_text, ngettext, number_text, separated
from app.core.names import NAME_LENGTH
from app.modes import MODES, get_mode
from app.results.daily import Entry
from app.service import GameService
from app.service.daily import Day, DayBoard, Ladder, LadderLine
from app.web.render import page_context
from app.web.views.game import accuracy_text, clock_text


@dataclass(frozen=True)
class DailyRules:
    """What the rules page says of the boards of the day, read from the code that decides it."""

    boards: list[str]  # each day's boards, as their pages call them
    aids: list[str]  # what makes a win not clean, as the ladders call it
    settings: list[str]  # the settings that help, on any board of the day
    name_length: int


def daily_rules() -> DailyRules:
    modes = [mode for mode in MODES.values() if mode.daily is not None]
    settings = {mode.options_class.label(name) for mode in modes for name in mode.options_class.helping()}
    return DailyRules(
        boards=[gettext(mode.daily_title) for mode in modes],
        aids=[gettext(aid) for aid in AIDS.values()],
        settings=sorted(lowered(gettext(label)) for label in settings),
        name_length=NAME_LENGTH,
    )


@dataclass(frozen=True)
class Mark:
    """How the calendar shows a player's part in one board of a day."""

    symbol: str
    kind: str  # a CSS class: clean, helped, lost, playing, none
    text: str  # what a screen reader says and the tip shows


@dataclass(frozen=True)
class Line:
    """A ladder's line as the page shows it."""

    place: str
    name: str
    named: bool
    own: bool
    time: str
    rate: str
    accuracy: str
    helped: str  # what helped a win that is not clean; "" for a clean win and for a loss (its time says "lost")
    replay: str | None


def line_of(line: LadderLine, mode: str) -> Line:
    entry = line.entry
    return Line(
        place=number_text(line.place) if line.place is not None else "–",
        name=line.name,
        named=line.named,
        own=line.own,
        time=clock_text(entry["seconds"], tenths=True) if entry["won"] else gettext("lost"),
        rate=decimal_text(entry["bbbv_per_second"], 2)
        if entry["won"] and entry["bbbv_per_second"] is not None
        else "–",
        accuracy=accuracy_text(entry["accuracy"]),
        helped=help_text(entry, mode) if entry["won"] and not entry["clean"] else "",
        replay=line.replay,
    )


def help_text(entry: Entry, mode: str) -> str:
    """Why an entry is not a clean win, in words."""
    options = type(get_mode(mode).options())
    helped = [gettext(AIDS[aid]) if aid in AIDS else lowered(gettext(options.label(aid))) for aid in entry["aids"]]
    if entry["deaths"]:
        helped.append(ngettext("%(num)s mine hit", "%(num)s mines hit", entry["deaths"]))
    # Won, not clean, with no aid kept and no death: hints counted before hints were kept as an aid.
    return separated(helped) if helped else gettext(AIDS["hint"])


def mark_of(part: DayBoard) -> Mark:
    entry = part.entry
    if entry is None:
        if part.game_id is not None:
            return Mark("▶", "playing", gettext("in play"))
        return Mark("·", "none", gettext("not played"))
    if entry["clean"]:
        return Mark("★", "clean", gettext("won in %(clock)s", clock=clock_text(entry["seconds"], tenths=True)))
    if entry["won"]:
        clock = clock_text(entry["seconds"], tenths=True)
        return Mark("☆", "helped", gettext("won with help in %(clock)s", clock=clock))
    return Mark("✕", "lost", gettext("lost"))


@dataclass(frozen=True)
class CalendarDay:
    day: Day
    # The month's short name on the first day shown and on a month's first day, "" on the others. Shown over the
    # day's link, outside it: the link's name says the whole date, and must hold every word the link shows ("Oct"
    # is not in "October").
    month: str
    marks: list[tuple[DayBoard, Mark]]


def weeks_of(days: list[Day]) -> list[list[CalendarDay | None]]:
    """The calendar's rows: weeks from Monday, oldest first, with gaps before the first day and after today."""
    ordered = sorted(days, key=lambda day: day.date)
    if not ordered:
        return []
    cells: list[CalendarDay | None] = [None] * ordered[0].date.weekday()
    for day in ordered:
        month = month_text(day.date) if day is ordered[0] or day.date.day == 1 else ""
        cells.append(CalendarDay(day, month, [(part, mark_of(part)) for part in day.boards]))
    cells += [None] * (-len(cells) % 7)
    return [cells[start : start + 7] for start in range(0, len(cells), 7)]


async def day_context(service: GameService, player: str, date: str | None, **extra: Any) -> dict:
    """A day's page: its boards with their ladders and, on today's, the player's game of each, name and streak."""
    today = service.daily.today()
    day, ladders = await service.daily.ladders(date or today.isoformat(), player)
    context = page_context(
        None,
        day=day,
        today=day == today,
        day_title=day_text(day, year=True),
        before=(day - datetime.timedelta(days=1)).isoformat(),
        after=(day + datetime.timedelta(days=1)).isoformat() if day < today else None,
        ladders=[_board_view(ladder) for ladder in ladders],
        rules=daily_rules(),
        clock=clock_text,
        **extra,
    )
    if day == today:
        mine = await service.daily.daily(player)
        context.update(
            parts={part.board.key: part for part in mine.day.boards},
            name=mine.name,
            anonymous=mine.anonymous,
            streak=(mine.streak, mine.best_streak),
        )
    return context


@dataclass(frozen=True)
class BoardView:
    ladder: Ladder
    lines: list[Line]
    own: Line | None  # the viewer's line when the ladder's lines leave it out


def _board_view(ladder: Ladder) -> BoardView:
    mode = ladder.board.mode
    lines = [line_of(line, mode) for line in ladder.lines]
    shown = any(line.own for line in ladder.lines)
    own = line_of(ladder.own, mode) if ladder.own is not None and not shown else None
    return BoardView(ladder, lines, own)
