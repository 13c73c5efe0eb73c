"""How a finished game's story looks: its replay's frames, each move's grade in words, the summary.

The board is drawn once as it stood before the first move; each step sends only the cells whose look it
changed, as app.web.views.game draws them (kaboom.js plays them forward and back). Words about a grade are
written here once, for the page and for nothing else: the JSON answer gives the grades as figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from markupsafe import Markup

from app.core.game import Game
from app.core.languages import (
    N_,
    Text,
    decimal_text,
    gettext,
    grouped_text,
    lazy_gettext,
    ngettext,
    number_text,
    pgettext,
)
from app.modes import get_mode
from app.results.daily import DailyBoard
from app.results.records import accuracy_of
from app.results.review import BEST_GUESS_MARGIN, Grade, Review, Step, walk
from app.service.overlays import Overlay
from app.web.views.game import Look, accuracy_text, changed_cells, clock_text, isolated, percent, probability_legend
from solver.position import Cell

# What a move that is not a bet was, after the caption has named it.
NOTED = {
    "flag": N_("Mark changed."),
    "undo": N_("The action before it is taken back."),
}
NOT_A_BET = N_("Not a bet: nothing to grade.")


@dataclass(frozen=True)
class Frame:
    """One step as the page plays it."""

    cell: Cell | None  # the cell the move named, marked on the board
    kind: str  # its grade's kind ("" for a step with no move kept)
    caption: str
    taken_back: bool
    death: bool
    changes: list[list[str]]  # [cell id, classes, label, text, tip] of each cell whose look the step changed
    proof: list[Cell]  # a mistake's proven cell and the numbers that prove it, ringed
    example: Cell | None

    def to_json(self) -> dict[str, Any]:
        return {
            "cell": self.cell,
            "kind": self.kind,
            "caption": self.caption,
            "back": self.taken_back,
            "death": self.death,
            "changes": self.changes,
            "proof": self.proof,
            "example": self.example,
        }


def frames(game: Game, review: Review) -> tuple[Game, list[Frame]]:
    """The board before the first step, and each step as the page plays it."""
    start = game
    played = []
    for index, (step, graded) in enumerate(zip(walk(game), review.grades, strict=True)):
        if index == 0:
            start = step.before
        played.append(
            Frame(
                cell=_cell_of(step),
                kind=graded.kind if step.move is not None else "",
                caption=caption(step, graded, index + 1, len(review.grades)),
                taken_back=step.taken_back,
                death=step.played.death,
                changes=_changes(step),
                proof=list(graded.proof),
                example=graded.example,
            )
        )
    return start, played


def _cell_of(step: Step) -> Cell | None:
    move = step.move
    return (move.x, move.y) if move is not None and move.x is not None and move.y is not None else None


def _changes(step: Step) -> list[list[str]]:
    before, after = Look(step.before, None), Look(step.after, None)
    return [[f"c-{x}-{y}", *look] for (x, y), look in changed_cells(before, after, set(step.changed)) or []]


def overlay_changes(frame: Game, overlay: Overlay) -> list[list[str]]:
    """The cells whose look the overlay changes on a frame of the replay."""
    plain, shown = Look(frame, None), Look(frame, overlay)
    changes = []
    for index in range(len(frame.cells)):
        look = shown.cell(index)
        if look != plain.cell(index):
            x, y = frame.cell(index)
            changes.append([f"c-{x}-{y}", *look])
    return changes


def caption(step: Step, graded: Grade, number: int, steps: int) -> str:
    """What the page says of a step: where it was, what it was, and its grade."""
    move = step.move
    if move is None:
        return gettext(
            "Step %(number)s of %(steps)s: a move kept before moves were recorded.", number=number, steps=steps
        )
    rules = get_mode(step.before.mode)
    text = gettext(
        "Step %(number)s of %(steps)s · %(move)s. %(grade)s",
        number=number,
        steps=steps,
        move=rules.move_words(move),
        grade=grade_text(graded, step, rules.mines_score),
    )
    if step.played.death:
        text += " " + gettext("It was a mine.")
    if step.taken_back and not step.played.undo:
        text += " " + gettext("(Taken back with undo.)")
    return text


def grade_text(graded: Grade, step: Step, scores: bool) -> str:
    kind = graded.kind
    move = step.move
    assert move is not None
    if kind == "first":
        return gettext("The first click: safe by the rules.")
    if kind == "proven":
        if move.action == "flag":
            return gettext("Proven: a flag on a proven mine.")
        if scores:
            return gettext("Proven: a proven mine, taken.")
        if move.action == "chord":
            return gettext("Proven: every cell it opened was proven safe.")
        return gettext("Proven safe.")
    if kind == "too_complex":
        return gettext("Too complex to grade in the time a grade may take.")
    if kind == "noted":
        if scores and move.action == "reveal":
            return gettext("No proven mine to take: an empty cell opened, and the turn passed.")
        return gettext(NOTED.get(move.action, NOT_A_BET))
    if kind == "mistake" and not graded.guessed:
        return gettext("Mistake: a flag on a cell that could be safe.")
    if kind == "mistake":
        assert graded.example is not None
        x, y = graded.example[0] + 1, graded.example[1] + 1
        if scores:
            return gettext("Mistake: column %(x)s, row %(y)s was a proven mine, left for the opponent.", x=x, y=y)
        if graded.chance is None:
            return gettext(
                "Mistake: a risky reveal while column %(x)s, row %(y)s was proven safe (by the ringed numbers).",
                x=x,
                y=y,
            )
        chance = percent(graded.chance)
        if graded.uses_count:
            return gettext(
                "Mistake: a %(chance)s chance of a mine while column %(x)s, row %(y)s was proven safe (by the "
                "ringed numbers and the count of mines left).",
                chance=chance,
                x=x,
                y=y,
            )
        return gettext(
            "Mistake: a %(chance)s chance of a mine while column %(x)s, row %(y)s was proven safe (by the ringed "
            "numbers).",
            chance=chance,
            x=x,
            y=y,
        )
    assert graded.chance is not None and graded.best is not None
    chance, best = percent(graded.chance), percent(graded.best)
    if kind == "best":
        if scores:
            return gettext(
                "Best guess: a %(chance)s chance of a mine; the best was %(best)s.", chance=chance, best=best
            )
        return gettext("Best guess: a %(chance)s chance of a mine; the lowest was %(best)s.", chance=chance, best=best)
    if scores:
        return gettext(
            "Inaccuracy: a %(chance)s chance of a mine; the best was %(best)s (%(points)s more risk than needed).",
            chance=chance,
            best=best,
            points=points(graded),
        )
    return gettext(
        "Inaccuracy: a %(chance)s chance of a mine; the lowest was %(best)s (%(points)s more risk than needed).",
        chance=chance,
        best=best,
        points=points(graded),
    )


def points(graded: Grade) -> str:
    """How much more a guess risked than the best one, in percentage points."""
    assert graded.chance is not None and graded.best is not None
    gap = float(abs(graded.chance - graded.best) * 100)
    if gap >= 1:
        return ngettext("%(points)s point", "%(points)s points", round(gap), points=decimal_text(gap, 0))
    return pgettext("a share of one percentage point", "%(points)s points", points=decimal_text(gap, 1))


@dataclass(frozen=True)
class SummaryLine:
    label: str
    value: str
    title: str = ""


def summary(review: Review, game: Game, seat: int | None = None) -> list[SummaryLine]:
    """The summary a player reads first: moves, the share proven, guesses, inaccuracies, mistakes, accuracy."""
    judged = review.judged(seat)
    proven = review.proven_share(seat)
    accuracy = review.accuracy(seat)
    lines = [
        SummaryLine(
            gettext("Moves"),
            number_text(len(judged)),
            gettext("The reveals, chords and flags graded (not the first click or marks)"),
        ),
        SummaryLine(
            gettext("Proven"),
            gettext(
                "%(count)s (%(share)s)", count=number_text(review.count("proven", seat)), share=accuracy_text(proven)
            ),
            gettext("Moves the numbers proved"),
        ),
        SummaryLine(
            gettext("Guesses"),
            number_text(review.guesses(seat)),
            gettext("Reveals when no cell was proven safe, and risky reveals while one was"),
        ),
        SummaryLine(gettext("Best guesses"), number_text(review.count("best", seat))),
        SummaryLine(gettext("Inaccuracies"), number_text(review.count("inaccuracy", seat))),
        SummaryLine(gettext("Mistakes"), number_text(review.count("mistake", seat))),
        SummaryLine(
            gettext("Accuracy"), accuracy_text(accuracy), gettext("The share of the moves proven or the best guess")
        ),
    ]
    if review.count("too_complex", seat):
        lines.append(SummaryLine(gettext("Too complex"), number_text(review.count("too_complex", seat))))
    if seat is None and (review.deaths or get_mode(game.mode).luck_free):
        lines.append(
            SummaryLine(
                gettext("Deaths"),
                number_text(review.deaths),
                gettext("Clicks on a mine, taken back with undo or not"),
            )
        )
    return lines


def kept_accuracy(game: Game) -> str:
    """A graded game's accuracy as its page shows it; "" before it is graded."""
    return accuracy_text(accuracy_of(game)) if game.review else ""


def luck_text(review: Review, game: Game) -> str:
    """The luck the game took, in words: "1 in N" beside the best guesses' chance, or why there is none."""
    rules = get_mode(game.mode)
    if rules.luck_free and rules.mines_score:
        return gettext(
            "Luck takes no part in this mode: only a proven mine scores, and any other cell is empty. The summary "
            "counts the proven mines each player took, and those they left to the other."
        )
    if rules.luck_free:
        return gettext(
            "Luck takes no part in this mode: a cell that could be safe is safe when you open it, "
            "so the summary counts deaths instead."
        )
    if rules.mines_score:
        return gettext(
            "Here a mine is a point, so luck is not a survival: the summary counts each player's guesses, "
            "and the proven mines they left to the other."
        )
    luck = review.luck
    assert luck is not None
    if luck.survived == 1:
        return gettext("No luck needed: every move that stands was proven (or the first click).")
    if luck.survived == 0:
        return gettext("A move that stands opened a proven mine: no luck could have saved it.")
    if luck.with_best == 1:
        return gettext(
            "The chance that all your guesses would survive: %(chance)s; the best move each time would have left "
            "nothing to luck.",
            chance=one_in(luck.survived),
        )
    return gettext(
        "The chance that all your guesses would survive: %(chance)s; with the best guess each time it would have "
        "been %(best)s.",
        chance=one_in(luck.survived),
        best=one_in(luck.with_best),
    )


def one_in(chance: Fraction) -> str:
    """ "1 in 12" for a chance of a twelfth; "1 in 1.3" for better than even."""
    ratio = float(1 / chance)
    return gettext("1 in %(ratio)s", ratio=decimal_text(ratio, 1) if ratio < 10 else grouped_text(round(ratio)))


MARGIN_TEXT = lazy_gettext(
    "A guess is the best guess when its chance of a mine is within %(points)s points of the lowest on the board "
    "at that moment; more than that is an inaccuracy. A risky reveal while a cell was proven safe is a mistake, "
    "as is a flag on a cell that could be safe.",
    points=round(float(BEST_GUESS_MARGIN) * 100),
)


@dataclass(frozen=True)
class ReplayView:
    """Everything the replay page shows of one finished game."""

    game_id: str
    game: Game
    look: Look  # the board before the first step
    result: Markup  # the headline: the result, naming the player to whoever else opens it
    frames: list[dict[str, Any]]
    summary: list[SummaryLine]
    seats: list[tuple[int, str, list[SummaryLine]]]  # each seat's summary, in games of several seats
    luck: str
    moments: list[tuple[int, str, str]]  # (step, kind, caption) of the steps worth a look: not proven
    base: str  # the replay's own path (its overlay is below it)
    owner: bool  # the game's maker: may share and withdraw
    share: str | None  # the shared link, while shared
    ladder: DailyBoard | None = None  # the board of the day whose ladder links to it (its maker's entry): it stays
    margin: Text = MARGIN_TEXT
    legend: list[tuple[int, str]] = field(default_factory=probability_legend)  # the overlay's chance steps


# The grades a player wants to find again: the moves that were not plain proofs.
MOMENTS = ("best", "inaccuracy", "mistake", "too_complex")


def replay_view(
    game_id: str,
    game: Game,
    review: Review,
    now: float,
    *,
    owner: bool,
    share: str | None,
    key: str | None,
    ladder: DailyBoard | None = None,
    player: str | None = None,
) -> ReplayView:
    """`player`: the name of the game's player, for a viewer who is someone else (None: the player)."""
    rules = get_mode(game.mode)
    start, played = frames(game, review)
    clock = clock_text(game.elapsed(now), tenths=game.status == "won")
    text = rules.result_text(game, clock, player) if player is not None else rules.result_text(game, clock)
    result = text or (
        gettext("Won in %(time)s", time=clock) if game.status == "won" else gettext("Lost after %(time)s", time=clock)
    )
    return ReplayView(
        game_id=game_id,
        game=game,
        look=Look(start, None),
        result=isolated(result, player),
        frames=[frame.to_json() for frame in played],
        summary=summary(review, game),
        seats=[(seat, rules.seat_name(seat), summary(review, game, seat)) for seat in range(rules.seat_count)]
        if rules.seat_count > 1
        else [],
        luck=luck_text(review, game),
        moments=[
            (number, frame.kind if not frame.death else "death", frame.caption)
            for number, frame in enumerate(played, start=1)
            if frame.kind in MOMENTS or frame.death
        ],
        base=f"/replays/{game_id}/{key}" if key else f"/games/{game_id}/replay",
        owner=owner,
        share=share,
        ladder=ladder,
    )
