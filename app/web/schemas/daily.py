"""The boards of the day as the API answers them (app.results.daily, app.service.daily): a day's boards, their
ladders, the player's name."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class DailyEntryOut(BaseModel):
    won: bool
    clean: bool = Field(description="won with no hint, Show me, overlay, assist, bot move or undo, and no death")
    aids: list[str] = Field(description="what helped: hint, undo, bot, analysis, or the name of a setting that helps")
    deaths: int
    seconds: float
    bbbv: int | None = Field(description="the board's 3BV (the fewest clicks that clear it): fixed layouts only")
    bbbv_per_second: float | None
    accuracy: float | None = Field(description="the game's accuracy, 0 to 1, once graded")
    finished_at: float

    @classmethod
    def of(cls, entry: Any) -> DailyEntryOut:
        return cls(**{name: entry[name] for name in cls.model_fields})


class LadderLineOut(BaseModel):
    place: int | None = Field(description="the place among the clean wins; null for a win with help or a loss")
    name: str = Field(description='the name the player chose, or "anonymous" and a tag that stays the same')
    named: bool
    own: bool = Field(description="the line of the player asking")
    replay: str | None = Field(
        description="the path of the game's replay: on today's ladder only once the player asking has finished "
        "their own game of the board (a replay shows the board)"
    )
    entry: DailyEntryOut

    @classmethod
    def of(cls, line: Any) -> LadderLineOut:
        return cls(
            place=line.place,
            name=line.name,
            named=line.named,
            own=line.own,
            replay=line.replay,
            entry=DailyEntryOut.of(line.entry),
        )


class DailyBoardOut(BaseModel):
    key: str = Field(description='the board\'s ladder: its date and mode, "2026-11-26/cruel"')
    date: str
    mode: str
    title: str
    width: int
    height: int
    mines: int
    game_id: str | None = Field(description="the player's game of this board still in play")
    entry: DailyEntryOut | None = Field(description="the player's entry on its ladder: their first finished game")
    play: str | None = Field(description="where to POST to play it (today's boards only)")
    ladder: str


class DailyOut(BaseModel):
    date: str = Field(description="today, UTC: the boards change at 00:00 UTC")
    boards: list[DailyBoardOut]
    name: str | None = Field(description="the display name the player chose; null while they have not")
    streak: int = Field(description="days won in a row, up to today or yesterday")
    best_streak: int


class LadderBoardOut(BaseModel):
    key: str
    mode: str
    title: str
    clean_wins: int
    assisted_wins: int
    other: int = Field(description="finished games that were not won")
    unreadable: int = Field(description="stored entries that did not read back: left out")
    lines: list[LadderLineOut] = Field(description="the clean wins by time, then the wins with help: the best 100")
    own: LadderLineOut | None = Field(description="the line of the player asking, wherever it stands")


class LadderOut(BaseModel):
    date: str
    boards: list[LadderBoardOut]


class NameIn(BaseModel):
    name: str = Field(
        description="1 to 24 characters: letters of any script, digits, spaces, '-' and '_'; trimmed",
        max_length=200,
    )


class NameOut(BaseModel):
    name: str


def daily_out(today: Any) -> DailyOut:
    """GET /api/daily's answer from DailyOperations.daily."""
    day = today.day
    boards = []
    for part in day.boards:
        board = part.board
        boards.append(
            DailyBoardOut(
                key=board.key,
                date=board.date.isoformat(),
                mode=board.mode,
                title=board.title,
                width=board.size[0],
                height=board.size[1],
                mines=board.size[2],
                game_id=part.game_id,
                entry=DailyEntryOut.of(part.entry) if part.entry is not None else None,
                play=f"/api/daily/{board.key}/games" if day.today else None,
                ladder=f"/api/daily/{board.date.isoformat()}/ladder",
            )
        )
    return DailyOut(
        date=day.date.isoformat(), boards=boards, name=today.name, streak=today.streak, best_streak=today.best_streak
    )


def ladder_out(ladders: Any) -> LadderOut:
    """GET /api/daily/{date}/ladder's answer from DailyOperations.ladders."""
    date, boards = ladders
    return LadderOut(
        date=date.isoformat(),
        boards=[
            LadderBoardOut(
                key=ladder.board.key,
                mode=ladder.board.mode,
                title=ladder.board.title,
                clean_wins=ladder.counts[0],
                assisted_wins=ladder.counts[1],
                other=ladder.counts[2],
                unreadable=ladder.unreadable,
                lines=[LadderLineOut.of(line) for line in ladder.lines],
                own=LadderLineOut.of(ladder.own) if ladder.own is not None else None,
            )
            for ladder in boards
        ],
    )
