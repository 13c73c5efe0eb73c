"""A player's progress as the page draws it: charts as SVG made here (their colours the stylesheet's, so they read in
either scheme), each with the table of its figures for screen readers, and the finished games' rows."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from markupsafe import Markup, escape

from app.core.languages import day_text, decimal_text, gettext, number_text, percent_text
from app.modes import MODES
from app.results.progress import Finished, Progress
from app.web.views.game import board_size, clock_text, moment_texts

# The drawing's own units: the SVG scales to the width of the page, its words with it.
WIDTH, HEIGHT = 600, 200
LEFT, RIGHT, TOP, BOTTOM = 24, 8, 34, 30


@dataclass(frozen=True)
class Series:
    name: str
    values: list[float | None]  # one per column; None: nothing that week
    style: str  # the stylesheet's class of its colour: "first" or "second"


@dataclass(frozen=True)
class Chart:
    title: str
    columns: list[str]  # each column's name (its week), for the table
    series: list[Series]
    shown: list[list[str]]  # the table's cells, one row per column, a cell per series
    svg: Markup
    kind: str  # "bars", "lines" or "days": its key's colours are the stylesheet's for it
    key: list[tuple[str, str]]  # what each colour means: (words, its class), when there is more than one


def _y(value: float, top: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / top) if top else HEIGHT - BOTTOM


def _frame(columns: list[str], top: float, top_text: str) -> list[str]:
    """The axes, the highest value's line and the first and last columns' names."""
    bottom = HEIGHT - BOTTOM
    parts = [
        f'<line class="axis" x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}"/>',
        f'<line class="grid" x1="{LEFT}" y1="{TOP}" x2="{WIDTH - RIGHT}" y2="{TOP}"/>',
        # Above its line, from the left: a long figure (an hour's time) runs along the chart, not out of it.
        f'<text class="tick" x="{LEFT}" y="{TOP - 8}" text-anchor="start">{escape(top_text)}</text>',
        f'<text class="tick" x="{LEFT - 4}" y="{bottom}" text-anchor="end">0</text>',
    ]
    if columns:
        parts.append(f'<text class="tick" x="{LEFT}" y="{HEIGHT - 8}" text-anchor="start">{escape(columns[0])}</text>')
    if len(columns) > 1:
        end = WIDTH - RIGHT
        parts.append(f'<text class="tick" x="{end}" y="{HEIGHT - 8}" text-anchor="end">{escape(columns[-1])}</text>')
    return parts


def _svg(parts: list[str], width: int = WIDTH, height: int = HEIGHT) -> Markup:
    # Hidden from screen readers: the table beside it says the same.
    head = f'<svg class="chart" viewBox="0 0 {width} {height}" aria-hidden="true" focusable="false">'
    return Markup(head + "".join(parts) + "</svg>")  # noqa: S704 - every text in it is escaped above


def whole_number_text(value: float) -> str:
    return number_text(round(value))


def bar_chart(title: str, columns: list[str], series: list[Series], text=whole_number_text) -> Chart:
    """Bars per column, the later series drawn inside the earlier (wins inside games)."""
    top = max((value for one in series for value in one.values if value is not None), default=0.0)
    parts = _frame(columns, top, text(top))
    slot = (WIDTH - LEFT - RIGHT) / max(len(columns), 1)
    for depth, one in enumerate(series):
        width = slot * (0.8 - 0.3 * depth)
        for number, value in enumerate(one.values):
            if value:
                x = LEFT + slot * number + (slot - width) / 2
                y = _y(value, top)
                height = HEIGHT - BOTTOM - y
                parts.append(
                    f'<rect class="{one.style}" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}"/>'
                )
    return Chart(title, columns, series, _table(columns, series, text), _svg(parts), "bars", _key(series))


def line_chart(title: str, columns: list[str], series: list[Series], text=number_text) -> Chart:
    """A line per series through its columns' values, a dot on each (a gap where a column has none)."""
    top = max((value for one in series for value in one.values if value is not None), default=0.0) * 1.1
    parts = _frame(columns, top, text(top))
    slot = (WIDTH - LEFT - RIGHT) / max(len(columns), 1)
    for one in series:
        points = [
            (LEFT + slot * (number + 0.5), _y(value, top))
            for number, value in enumerate(one.values)
            if value is not None
        ]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            parts.append(f'<polyline class="{one.style}" points="{path}"/>')
        parts += [f'<circle class="{one.style}" cx="{x:.1f}" cy="{y:.1f}" r="3"/>' for x, y in points]
    return Chart(title, columns, series, _table(columns, series, text), _svg(parts), "lines", _key(series))


def calendar_chart(title: str, days: list[tuple[datetime.date, str]], words: dict[str, str]) -> Chart:
    """Days in weeks, as a calendar (a column a week, Monday on top), each day marked by its outcome: "won" (a
    board of the day won), "played" (entered, not won) or "none"."""
    days = sorted(days)
    first = days[0][0] - datetime.timedelta(days=days[0][0].weekday()) if days else datetime.date.today()
    size, gap, margin = 20, 4, 4
    parts = []
    for date, outcome in days:
        column, row = (date - first).days // 7, date.weekday()
        x, y = margin + column * (size + gap), margin + row * (size + gap)
        parts.append(f'<rect class="day {outcome}" x="{x}" y="{y}" width="{size}" height="{size}" rx="3"/>')
    weeks = (days[-1][0] - first).days // 7 + 1 if days else 0
    width, height = max(2 * margin + weeks * (size + gap), 160), 2 * margin + 7 * (size + gap) + 20
    if days:
        label = escape(day_text(days[0][0]))
        parts.append(f'<text class="tick" x="{margin}" y="{height - 6}">{label}</text>')
    columns = [day_text(date) for date, outcome in days if outcome != "none"]
    series = [Series(gettext("Boards of the day"), [1.0 for _ in columns], "first")]
    shown = [[words[outcome]] for _, outcome in days if outcome != "none"]
    key = [(words["won"], "won"), (words["played"], "played")]
    return Chart(title, columns, series, shown, _svg(parts, width, height), "days", key)


def _key(series: list[Series]) -> list[tuple[str, str]]:
    return [(one.name, one.style) for one in series] if len(series) > 1 else []


def _table(columns: list[str], series: list[Series], text) -> list[list[str]]:
    return [
        [text(one.values[row]) if one.values[row] is not None else "–" for one in series] for row in range(len(columns))
    ]


@dataclass(frozen=True)
class FinishedRow:
    game_id: str
    when: float
    when_text: str  # the same in words, UTC, to the second (its replay's link is named by it)
    what: str
    won: bool
    time: str
    rate: str
    accuracy: str


def progress_charts(progress: Progress, days: list[tuple[datetime.date, str]] | None = None) -> list[Chart]:
    """The progress page's charts (the boards of the day's calendar among them, from `days`)."""
    weeks = progress.weeks
    columns = [day_text(week.start) for week in weeks]
    charts = []
    if weeks:
        charts.append(
            bar_chart(
                gettext("Games and wins per week"),
                columns,
                [
                    Series(gettext("Games"), [float(week.games) for week in weeks], "first"),
                    Series(gettext("Wins"), [float(week.wins) for week in weeks], "second"),
                ],
            )
        )
        if any(week.bbbv_per_second is not None for week in weeks):
            rates = [week.bbbv_per_second for week in weeks]
            charts.append(
                line_chart(
                    gettext("3BV per second, the week's mean"),
                    columns,
                    [Series(gettext("3BV/s"), rates, "first")],
                    lambda value: decimal_text(value, 2),
                )
            )
        if any(week.accuracy is not None for week in weeks):
            charts.append(
                line_chart(
                    gettext("Accuracy, the week's mean"),
                    columns,
                    [Series(gettext("Accuracy"), [week.accuracy for week in weeks], "first")],
                    percent_text,
                )
            )
    if days and any(outcome != "none" for _, outcome in days):
        words = {"won": gettext("won"), "played": gettext("played, not won")}
        charts.append(calendar_chart(gettext("Boards of the day, the last eight weeks"), days, words))
    for group in progress.groups:
        group_columns = [day_text(week.start) for week in group.weeks]
        mode = MODES.get(group.mode)
        size = board_size(group.width, group.height, group.mines, group.kind)
        what = f"{gettext(mode.title) if mode else group.mode} · {size}"
        charts.append(
            line_chart(
                gettext("Winning times, %(what)s", what=what),
                group_columns,
                [
                    Series(gettext("Best"), [week.best for week in group.weeks], "second"),
                    Series(gettext("Median"), [week.median for week in group.weeks], "first"),
                ],
                lambda value: clock_text(value, tenths=True),
            )
        )
    return charts


def finished_rows(finished: list[Finished]) -> list[FinishedRow]:
    """The rows of these finished games, as the progress page lists them."""
    rows = []
    for game in finished:
        result = game.result
        mode = MODES.get(result["mode"])
        rate = result["bbbv"] / result["seconds"] if result["won"] and result["bbbv"] and result["seconds"] else None
        accuracy = result.get("accuracy")
        size = board_size(result["width"], result["height"], result["mines"], result.get("kind", ""))
        rows.append(
            FinishedRow(
                game.game_id,
                result["finished_at"],
                moment_texts(result["finished_at"], to_the_second=True)[0],
                f"{gettext(mode.title) if mode else result['mode']} · {size}",
                result["won"],
                clock_text(result["seconds"], tenths=True),
                decimal_text(rate, 2) if rate is not None else "–",
                percent_text(accuracy) if accuracy is not None else "–",
            )
        )
    return rows
