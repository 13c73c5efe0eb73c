"""A finished game's review as the API answers it (app.results.review): every step graded, the summaries, the
luck; and a shared replay's link."""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, Field

from app.core.game import Game
from app.modes import get_mode
from app.results.review import BEST_GUESS_MARGIN, Review


class StepOut(BaseModel):
    step: int = Field(description="its place in the game's story, from 1")
    action: str = Field(description="the move: reveal, chord, flag, undo, or an action of the game's mode")
    x: int | None = None
    y: int | None = None
    mark: str | None = Field(None, description="the mark a flag move set, when it named one")
    seat: int | None = Field(None, description="who moved, in games of several seats")
    taken_back: bool = Field(description="undone later, or an undo itself: the replay may skip it")
    death: bool = Field(description="it opened a mine and lost the game (taken back or not)")
    grade: str = Field(description="first, proven, best, inaccuracy, mistake, noted (not a bet) or too_complex")
    chance: float | None = Field(
        None, description="its exact chance of a mine before it (a chord: of its riskiest cell), for a move not proven"
    )
    best: float | None = Field(
        None,
        description="the lowest chance of a mine on the board then (where a mine is a point: the "
        "highest), for a move not proven",
    )
    example: list[int] | None = Field(
        None,
        description="a mistake's proven cell [x, y]: safe (where a mine is a point: a proven mine), or the flag's cell",
    )
    proof: list[list[int]] = Field(default_factory=list, description="the revealed numbers [x, y] that prove it")
    uses_count: bool = Field(False, description="the proof needs the number of mines left too")


class SummaryOut(BaseModel):
    seat: int | None = Field(None, description="the seat it sums up; null for the whole game")
    moves: int = Field(description="moves that bet on something: proven, guesses, mistakes")
    proven: int
    proven_share: float | None
    guesses: int
    best_guesses: int
    inaccuracies: int
    mistakes: int
    too_complex: int
    accuracy: float | None = Field(description="the share of the moves proven or the best guess; null when none")


class LuckOut(BaseModel):
    survived: float = Field(description="the chance that every guess that stands survived")
    survived_one_in: float | None = Field(description="the same as 1 in N; null when it was no chance at all")
    with_best: float = Field(description="the chance with the best guess at each of those moments")
    with_best_one_in: float | None


class ReviewOut(BaseModel):
    id: str
    mode: str
    width: int
    height: int
    mines: int
    status: Literal["won", "lost"]
    best_guess_margin: float = Field(description="a guess this close to the best chance on the board is the best guess")
    luck: LuckOut | None = Field(
        description="null where the rules leave nothing to luck (a cell that can be safe is safe when opened), "
        "or a mine is a point"
    )
    deaths: int = Field(description="clicks on a mine, taken back with undo or not")
    summary: SummaryOut
    seats: list[SummaryOut] = Field(description="each seat's summary, in games of several seats")
    steps: list[StepOut]


class ShareOut(BaseModel):
    url: str = Field(description="the replay's link: whoever holds it sees the finished game's replay, nothing else")


def summary_out(review: Review, seat: int | None = None) -> SummaryOut:
    return SummaryOut(
        seat=seat,
        moves=len(review.judged(seat)),
        proven=review.count("proven", seat),
        proven_share=_float(review.proven_share(seat)),
        guesses=review.guesses(seat),
        best_guesses=review.count("best", seat),
        inaccuracies=review.count("inaccuracy", seat),
        mistakes=review.count("mistake", seat),
        too_complex=review.count("too_complex", seat),
        accuracy=_float(review.accuracy(seat)),
    )


def review_out(game_id: str, game: Game, review: Review) -> ReviewOut:
    rules = get_mode(game.mode)
    luck = review.luck
    steps = []
    for number, (step, graded) in enumerate(zip(review.steps, review.grades, strict=True), start=1):
        move = step.move
        steps.append(
            StepOut(
                step=number,
                action=move.action if move is not None else "unrecorded",
                x=move.x if move is not None else None,
                y=move.y if move is not None else None,
                mark=move.mark if move is not None else None,
                seat=move.seat if move is not None else None,
                taken_back=step.taken_back,
                death=step.death,
                grade=graded.kind,
                chance=_float(graded.chance),
                best=_float(graded.best),
                example=list(graded.example) if graded.example is not None else None,
                proof=[list(cell) for cell in graded.proof],
                uses_count=graded.uses_count,
            )
        )
    return ReviewOut(
        id=game_id,
        mode=game.mode,
        width=game.width,
        height=game.height,
        mines=game.mines,
        status=game.status,
        best_guess_margin=float(BEST_GUESS_MARGIN),
        luck=LuckOut(
            survived=float(luck.survived),
            survived_one_in=float(1 / luck.survived) if luck.survived else None,
            with_best=float(luck.with_best),
            with_best_one_in=float(1 / luck.with_best) if luck.with_best else None,
        )
        if luck is not None
        else None,
        deaths=review.deaths,
        summary=summary_out(review),
        seats=[summary_out(review, seat) for seat in range(rules.seat_count)] if rules.seat_count > 1 else [],
        steps=steps,
    )


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)
