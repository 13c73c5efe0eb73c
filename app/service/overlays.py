"""What the overlays show over a game's covered cells (the debug overlay's statuses, the chances of a mine),
and what could have been known when a game was lost: the solver's answers, within what the request may spend."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app import modes
from app.core.errors import KaboomError
from app.core.game import Game, LossReview
from solver import Analyzer, Budget, Chances, Interrupted, Limits
from solver.position import Cell


class TooComplex(KaboomError):
    """The solver could not finish within the time a request may take."""

    def __init__(
        self,
        message: str = "The position is too complex to analyse within the server's time limit; play on and ask again.",
    ):
        super().__init__(message)


@dataclass
class Overlay:
    """What the player's overlays show over the covered cells, as far as the request's time allowed."""

    statuses: dict | None = None  # the debug overlay: cell -> Status
    probabilities: Mapping[Cell, float] | None = None  # cell -> chance of a mine (exact ones are not shown)
    too_complex: bool = False  # probabilities were asked for, and counting ran over its budget


def counted(analyzer: Analyzer, limits: Limits) -> tuple[Chances[float] | None, bool]:
    """Every covered cell's chance of a mine, and whether counting ran over its budget."""
    answer = analyzer.probabilities(Budget(deadline=limits.deadline))
    return answer.floats, answer.budget_exceeded


def overlay(analyzer: Analyzer, game: Game, limits: Limits, everything: bool = False) -> Overlay:
    """The overlays the game has turned on (`everything`: both); a part past the request's time is left
    out (the page then shows the cells plain, or says counting was too complex)."""
    shown = Overlay()
    if game.status != "playing":
        return shown
    probabilities = everything or game.options.probabilities
    try:
        with analyzer.limits(limits.timed()):
            if everything or game.options.debug_overlay:
                shown.statuses = analyzer.classify()
            if probabilities:
                shown.probabilities, shown.too_complex = counted(analyzer, limits)
    except Interrupted:
        shown.too_complex = probabilities
    return shown


def overlay_shown(analyzer: Analyzer, game: Game, limits: Limits) -> Overlay:
    """What the page shows before a move: it came with the previous answer, so it is what the analyzer
    has already worked out; nothing is reasoned anew (an analyzer not yet asked shows nothing)."""
    shown = Overlay()
    if game.status != "playing":
        return shown
    if game.options.debug_overlay:
        shown.statuses = analyzer.proven_statuses()
    if game.options.probabilities and not analyzer.pristine and not analyzer.interrupted:
        try:
            with analyzer.limits(limits.timed()):
                shown.probabilities, shown.too_complex = counted(analyzer, limits)
        except Interrupted:
            pass
    return shown


def overlay_after_loss(game: Game, review: LossReview | None) -> Overlay:
    """After a loss the debug overlay shows what was proven just before the losing click: the moment
    the player wants to see it. The layout is public by then, so it reveals nothing."""
    return Overlay(statuses=review.statuses if review is not None and game.options.debug_overlay else None)


def loss_review(game: Game, limits: Limits) -> LossReview | None:
    """What could have been known when the game was lost; None if not lost, or past the request's time."""
    if game.status != "lost":
        return None
    try:
        return modes.get_mode(game.mode).review_loss(game, limits.timed())
    except Interrupted:
        return None
