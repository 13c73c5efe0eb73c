"""The player's records as the API answers them (app.results.records)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.results.records import Record


class BestOut(BaseModel):
    seconds: float
    finished_at: float
    bbbv: int | None
    bbbv_per_second: float | None
    accuracy: float | None = Field(description="the game's accuracy, 0 to 1; null when it has none")


class RecordOut(BaseModel):
    mode: str
    width: int
    height: int
    mines: int
    kind: str = Field(
        "", description='boards kept apart from the mode\'s usual ones: "no guessing" (classic and help), or ""'
    )
    games: int
    wins: int
    win_rate: float
    streak: int = Field(description="wins in a row up to the latest game")
    best_streak: int
    accuracy: float | None = Field(
        description="the mean accuracy of its graded games, 0 to 1 (a game's accuracy: the share of its moves that "
        "bet on something that were proven or the best guess); null when none is graded"
    )
    graded: int = Field(
        description="its games with an accuracy: graded at their end (a game too long to grade then, one where no "
        "move bet on anything, or one that ended before grading, has none)"
    )
    races: int = Field(description="its games played in a race (a room where each plays the same board)")
    firsts: int = Field(description="the races it cleared first")
    best_times: list[BestOut] = Field(description="the ten fastest wins, fastest first")

    @classmethod
    def of(cls, record: Record) -> RecordOut:
        return cls(
            mode=record.mode,
            width=record.width,
            height=record.height,
            mines=record.mines,
            kind=record.kind,
            games=record.games,
            wins=record.wins,
            win_rate=record.win_rate,
            streak=record.streak,
            best_streak=record.best_streak,
            accuracy=record.accuracy,
            graded=record.graded,
            races=record.races,
            firsts=record.firsts,
            best_times=[
                BestOut(
                    seconds=best.seconds,
                    finished_at=best.finished_at,
                    bbbv=best.bbbv,
                    bbbv_per_second=best.bbbv_per_second,
                    accuracy=best.accuracy,
                )
                for best in record.best
            ],
        )
