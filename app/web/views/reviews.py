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
from app.modes import get_mode
from app.results.daily import DailyBoard
from app.results.records import accuracy_of
from app.results.review import BEST_GUESS_MARGIN, Grade, Review, Step, walk
from app.service.overlays import Overlay
from app.web.views.game import Look, accuracy_text, changed_cells, clock_text, isolated, percent, probability_legend
from solver.position import Cell, describe

# What a move that is not a bet was, after the caption has named it.
NOTED = {
    "flag": "Mark changed.",
    "undo": "The action before it is taken back.",
}


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
    head = f"Step {number} of {steps}"
    move = step.move
    if move is None:
        return f"{head}: a move kept before moves were recorded."
    rules = get_mode(step.before.mode)
    who = f"{rules.seat_name(move.seat)}: " if move.seat is not None and rules.seat_count > 1 else ""
    where = f" {describe((move.x, move.y))}" if move.x is not None and move.y is not None else ""
    what = {"reveal": "reveal", "chord": "chord", "flag": "flag"}.get(move.action, move.action)
    text = f"{head} · {who}{what.capitalize()}{where}. {grade_text(graded, step, rules.mines_score)}"
    if step.played.death:
        text += " It was a mine."
    if step.taken_back and not step.played.undo:
        text += " (Taken back with undo.)"
    return text


def grade_text(graded: Grade, step: Step, scores: bool) -> str:
    kind = graded.kind
    move = step.move
    assert move is not None
    if kind == "first":
        return "The first click: safe by the rules."
    if kind == "proven":
        if move.action == "flag":
            return "Proven: a flag on a proven mine."
        if scores:
            return "Proven: a proven mine, taken."
        if move.action == "chord":
            return "Proven: every cell it opened was proven safe."
        return "Proven safe."
    if kind == "too_complex":
        return "Too complex to grade in the time a grade may take."
    if kind == "noted":
        if scores and move.action == "reveal":
            return "No proven mine to take: an empty cell opened, and the turn passed."
        return NOTED.get(move.action, "Not a bet: nothing to grade.")
    if kind == "mistake" and not graded.guessed:
        return "Mistake: a flag on a cell that could be safe."
    if kind == "mistake" and scores:
        assert graded.example is not None
        return f"Mistake: {describe(graded.example)} was a proven mine, left for the opponent."
    if kind == "mistake" and graded.chance is None:
        assert graded.example is not None
        return f"Mistake: a risky reveal while {describe(graded.example)} was proven safe (by the ringed numbers)."
    assert graded.chance is not None and graded.best is not None
    chance, best = percent(graded.chance), percent(graded.best)
    if kind == "mistake":
        assert graded.example is not None
        count = " and the count of mines left" if graded.uses_count else ""
        return (
            f"Mistake: a {chance} chance of a mine while {describe(graded.example)} was proven safe "
            f"(by the ringed numbers{count})."
        )
    if scores:
        lead = f"a {chance} chance of a mine; the best was {best}"
    else:
        lead = f"a {chance} chance of a mine; the lowest was {best}"
    if kind == "best":
        return f"Best guess: {lead}."
    return f"Inaccuracy: {lead} ({points(graded)} more risk than needed)."


def points(graded: Grade) -> str:
    """How much more a guess risked than the best one, in percentage points."""
    assert graded.chance is not None and graded.best is not None
    gap = abs(graded.chance - graded.best) * 100
    return f"{float(gap):.0f} points" if gap >= 1 else f"{float(gap):.1f} points"


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
        SummaryLine("Moves", str(len(judged)), "The reveals, chords and flags graded (not the first click or marks)"),
        SummaryLine("Proven", f"{review.count('proven', seat)} ({accuracy_text(proven)})", "Moves the numbers proved"),
        SummaryLine(
            "Guesses",
            str(review.guesses(seat)),
            "Reveals when no cell was proven safe, and risky reveals while one was",
        ),
        SummaryLine("Best guesses", str(review.count("best", seat))),
        SummaryLine("Inaccuracies", str(review.count("inaccuracy", seat))),
        SummaryLine("Mistakes", str(review.count("mistake", seat))),
        SummaryLine("Accuracy", accuracy_text(accuracy), "The share of the moves proven or the best guess"),
    ]
    if review.count("too_complex", seat):
        lines.append(SummaryLine("Too complex", str(review.count("too_complex", seat))))
    if seat is None and (review.deaths or get_mode(game.mode).luck_free):
        lines.append(SummaryLine("Deaths", str(review.deaths), "Clicks on a mine, taken back with undo or not"))
    return lines


def kept_accuracy(game: Game) -> str:
    """A graded game's accuracy as its page shows it; "" before it is graded."""
    return accuracy_text(accuracy_of(game)) if game.review else ""


def luck_text(review: Review, game: Game) -> str:
    """The luck the game took, in words: "1 in N" beside the best guesses' chance, or why there is none."""
    rules = get_mode(game.mode)
    if rules.luck_free and rules.mines_score:
        return (
            "Luck takes no part in this mode: only a proven mine scores, and any other cell is empty. The summary "
            "counts the proven mines each player took, and those they left to the other."
        )
    if rules.luck_free:
        return (
            "Luck takes no part in this mode: a cell that could be safe is safe when you open it, "
            "so the summary counts deaths instead."
        )
    if rules.mines_score:
        return (
            "Here a mine is a point, so luck is not a survival: the summary counts each player's guesses, "
            "and the proven mines they left to the other."
        )
    luck = review.luck
    assert luck is not None
    if luck.survived == 1:
        return "No luck needed: every move that stands was proven (or the first click)."
    if luck.survived == 0:
        return "A move that stands opened a proven mine: no luck could have saved it."
    best = (
        "the best move each time would have left nothing to luck"
        if luck.with_best == 1
        else f"with the best guess each time it would have been {one_in(luck.with_best)}"
    )
    return f"The chance that all your guesses would survive: {one_in(luck.survived)}; {best}."


def one_in(chance: Fraction) -> str:
    """ "1 in 12" for a chance of a twelfth; "1 in 1.3" for better than even."""
    ratio = float(1 / chance)
    return f"1 in {ratio:.1f}" if ratio < 10 else f"1 in {round(ratio):,}"


MARGIN_TEXT = (
    f"A guess is the best guess when its chance of a mine is within {float(BEST_GUESS_MARGIN) * 100:.0f} points "
    "of the lowest on the board at that moment; more than that is an inaccuracy. A risky reveal while a "
    "cell was proven safe is a mistake, as is a flag on a cell that could be safe."
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
    margin: str = MARGIN_TEXT
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
    result = text or ("Won in " if game.status == "won" else "Lost after ") + clock
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
