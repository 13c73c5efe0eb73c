"""The bot (DESIGN.md §1.4): classic games played by a strategy (solver.strategy) through the game's
own rules (app.modes), with no HTTP in between, and the figures that judge it.

A strategy sees what a player sees: the visible cells and an Analyzer of
them. The layout stays inside the game, as on the server.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass, field

from app.core.game import Game, Move
from app.modes import Classic, ClassicOptions, apply_move, get_mode, new_game
from solver import Analyzer
from solver.strategy import STRATEGIES, Choice, progress_cell

PRESET_SIZES = {"beginner": (9, 9, 10), "intermediate": (16, 16, 40), "expert": (30, 16, 99)}


@dataclass(frozen=True)
class GameSetup:
    """What one game is: its size, the first click and what it promises, and a layout when one is given."""

    width: int
    height: int
    mines: int
    first: tuple[int, int]
    opening: bool  # the first click's neighbours are empty ("modern"); else only the cell is safe ("classic")
    layout: frozenset[int] | None = None  # mine indices (y * width + x); None: dealt from the seed
    mode: str = "classic"  # or "cruel": no fixed layout, and a guess the rules force is safe


@dataclass
class GameResult:
    won: bool
    guesses: int
    seconds: float
    move_seconds: list[float] = field(default_factory=list)  # the strategy's time per decision
    guessed: list[tuple[float, bool]] = field(default_factory=list)  # (predicted chance of a mine, was one)
    forced_guesses: int = 0  # cruel mode: guesses its rules counted as forced
    game: Game | None = None  # the game as it ended, its history with every move (a review grades them)

    def as_json(self) -> dict:
        return {"won": self.won, "guesses": self.guesses, "seconds": round(self.seconds, 4)}


def play(board: GameSetup, strategy: str, seed: int) -> GameResult:
    """One game to its end, the same for the same board, strategy and seed."""
    choose = STRATEGIES[strategy]
    rng = random.Random(seed)
    started = time.perf_counter()
    if board.mode == "cruel":
        game = new_game(board.width, board.height, board.mines, "cruel", rng=random.Random(rng.getrandbits(64)))
    elif board.layout is None:
        options = ClassicOptions(first_click_safe_only=not board.opening)
        game = new_game(
            board.width, board.height, board.mines, "classic", options, rng=random.Random(rng.getrandbits(64))
        )
    else:
        options = ClassicOptions(first_click_safe_only=not board.opening)
        classic = get_mode("classic")
        assert isinstance(classic, Classic)
        game = classic.from_layout(board.width, board.height, board.layout, board.first, options)
    game, outcome = apply_move(game, Move("reveal", *board.first), rng=rng, now=0.0)
    analyzer = outcome.analyzer
    result = GameResult(won=False, guesses=0, seconds=0.0)
    while game.status == "playing":
        assert analyzer is not None, "a reveal that leaves the game playing comes with its analysis"
        thinking = time.perf_counter()
        choice = choose(game.width, game.height, game.cells, analyzer, rng)
        if board.mode == "cruel" and choice.guess:
            choice = cruel_guess(choice, analyzer, rng)
        result.move_seconds.append(time.perf_counter() - thinking)
        for cell in choice.cells:
            if game.cells[game.index(*cell)] != ".":
                continue  # opened by an earlier cell's flood
            game, outcome = apply_move(game, Move("reveal", *cell), rng=rng, now=0.0, analyzer=analyzer)
            analyzer = outcome.analyzer
            if game.status != "playing":
                break
        if choice.guess:
            result.guesses += 1
            if choice.mine_probability is not None:
                result.guessed.append((choice.mine_probability, game.status == "lost"))
    result.won = game.status == "won"
    result.game = game
    result.forced_guesses = game.state.get("forced_guesses", 0)
    result.seconds = time.perf_counter() - started
    return result


def cruel_guess(choice: Choice, analyzer: Analyzer, rng: random.Random) -> Choice:
    """Under cruel rules a guess next to a number is safe when no cell is (DESIGN.md §1.1) and one away
    from every number is not: the strategy's guess, moved next to a number when it was away from them."""
    cell = choice.cells[0]
    if not analyzer.is_outside(cell) or not analyzer.frontier_exists():
        return choice
    moved = progress_cell(analyzer, rng)
    assert moved is not None, "a guess was to be made, so a covered cell is not a proven mine"
    return Choice((moved,), guess=True, mine_probability=None)


@dataclass(frozen=True)
class CalibrationBin:
    """Guesses whose predicted chance of a mine fell in [low, high): what was predicted, what happened."""

    low: float
    high: float
    guesses: int
    predicted: float  # the mean predicted chance
    observed: float  # the share that were mines
    interval: tuple[float, float]  # 95 % (Wilson) for `observed`

    def as_json(self) -> dict:
        return {
            "low": self.low,
            "high": self.high,
            "guesses": self.guesses,
            "predicted": round(self.predicted, 4),
            "observed": round(self.observed, 4),
            "interval": [round(bound, 4) for bound in self.interval],
        }


# Most guesses are below one in three; the last bin holds the rare worse ones.
CALIBRATION_EDGES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 1.0001)


def calibration(results: list[GameResult], edges: tuple[float, ...] = CALIBRATION_EDGES) -> list[CalibrationBin]:
    """The strategy's predicted mine chances against what its guesses met, bin by bin (empty bins left out)."""
    bins = []
    guessed = [guess for result in results for guess in result.guessed]
    for low, high in itertools.pairwise(edges):
        inside = [(chance, mine) for chance, mine in guessed if low <= chance < high]
        if inside:
            mines = sum(mine for _, mine in inside)
            bins.append(
                CalibrationBin(
                    low,
                    min(high, 1.0),
                    len(inside),
                    sum(chance for chance, _ in inside) / len(inside),
                    mines / len(inside),
                    wilson_interval(mines, len(inside)),
                )
            )
    return bins


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % interval of a win rate (Wilson's, sound near 0 and 1 and for few games); a draw may count
    as half a win."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    # The interval holds the rate itself; rounding must not leave a 100 % rate just outside it.
    return max(0.0, min(rate, (centre - spread) / scale)), min(1.0, max(rate, (centre + spread) / scale))
