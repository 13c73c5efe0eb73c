"""The operations that tell a player about covered cells: a hint (and Show me), the bot's advice, the chances of a
mine, the debug analysis. Each is an aid (app.core.game.AIDS): once given, the game keeps it, and a ladder ranks
only games without one; a feature may refuse them outright (Hooks.aid_refusals: a race).
"""

from __future__ import annotations

import random
from typing import Any

from app import modes
from app.core.game import BotChoice, Game, Hint, Refused, count_hint
from app.core.languages import N_
from app.service.context import Context
from app.service.overlays import TooComplex, counted
from app.service.runner import Runner, SlowGame, operation
from solver import Analyzer, Chances, Interrupted, Limits
from solver.counting import BudgetExceeded

# The bot's requests on a board of this many cells or more go where slow work runs (bot_off_cheap_threads).
BOT_SLOW_CELLS = 1000


def bot_off_cheap_threads(runner: Runner, game_id: str, game: Game) -> None:
    """The bot on a big board plays where slow work runs. Each of its requests there stays under the slow
    mark (SLOW_OPERATION_CPU_SECONDS), but one client asking for them without a pause kept a worker's
    processor busy: another player's p95 went from 6 ms to 144 ms (bench/hammer.py --hammer bot)."""
    if runner.on_cheap_thread() and game.width * game.height >= BOT_SLOW_CELLS:
        raise SlowGame(game_id)


def choose(game_id: str, game: Game, analyzer: Analyzer, limits: Limits) -> BotChoice:
    """The bot's next move on what the player sees."""
    # Seeded by the game and the actions played, so that asking again names the same cell, and the move
    # that follows opens the cell that was named (the version moves with what asking itself notes: Game.aids).
    rng = random.Random(f"{game_id}:{len(game.history)}")
    try:
        with analyzer.limits(limits.timed()):
            return modes.bot_choice(game, analyzer, rng)
    except (Interrupted, BudgetExceeded):
        raise TooComplex from None


class AidOperations:
    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.hooks = context.hooks
        self.runner = context.runner

    async def hint(self, game_id: str, player: str, shown: bool = False) -> tuple[Game, Hint]:
        """A hint from what the player sees (`shown`: a cell shown with its proof, as Show me asks)."""
        return await self.runner.run("hint", game_id, player, shown)

    @operation("hint")
    def _hint(self, game_id: str, player: str, shown: bool = False) -> tuple[Game, Hint]:
        context = self.context
        limits = context.limits()
        before = self.store.load(game_id, player)
        self.hooks.check_aid(before, N_("hints"))
        analyzer = context.analyzer(game_id, before)
        try:
            with analyzer.limits(limits.timed()):
                advice = modes.hint(before, analyzer)
        except (Interrupted, Refused) as error:
            # What was proven so far stays useful for the next request.
            context.analyzers.put(game_id, before, analyzer)
            if isinstance(error, Interrupted):
                raise TooComplex from None
            raise
        after = count_hint(before)
        self.store.save(game_id, player, after, before.version)
        context.analyzers.put(game_id, after, analyzer)
        self.hooks.game_acted(after, player, "show" if shown else "hint")
        return after, advice

    async def bot_choice(self, game_id: str, player: str) -> tuple[Game, BotChoice]:
        """The cell the bot would open next, from what the player sees; asking changes nothing."""
        return await self.runner.run("bot-choice", game_id, player)

    @operation("bot-choice")
    def _bot_choice(self, game_id: str, player: str) -> tuple[Game, BotChoice]:
        limits = self.context.limits()
        game = self.store.load(game_id, player)
        self.hooks.check_aid(game, N_("bot"))
        bot_off_cheap_threads(self.runner, game_id, game)
        analyzer = self.context.analyzer(game_id, game)
        try:
            choice = choose(game_id, game, analyzer, limits)
            # The advice names a cell it may have proven safe, as Show me does: an aid, once it is given.
            game = self._note_aid(game_id, player, game, "bot")
            return game, choice
        finally:
            self.context.analyzers.put(game_id, game, analyzer)

    async def probabilities(self, game_id: str, player: str) -> tuple[Game, Chances[float] | None]:
        """Every covered cell's exact mine probability from what the player sees; None over the counting budget."""
        return await self.runner.run("probabilities", game_id, player)

    @operation("probabilities")
    def _probabilities(self, game_id: str, player: str) -> tuple[Game, Chances[float] | None]:
        def probabilities(analyzer: Analyzer, limits: Limits) -> Chances[float] | None:
            return counted(analyzer, limits)[0]

        return self._analysed(game_id, player, "probabilities", N_("mine probabilities"), probabilities)

    async def analysis(self, game_id: str, player: str) -> list[str]:
        return await self.runner.run("analysis", game_id, player)

    @operation("analysis")
    def _analysis(self, game_id: str, player: str) -> list[str]:
        def rows(analyzer: Analyzer, limits: Limits) -> list[str]:
            return analyzer.status_rows()

        return self._analysed(game_id, player, "debug_overlay", N_("analysis"), rows)[1]

    def _analysed(self, game_id: str, player: str, overlay: str, what: str, work: Any) -> tuple[Game, Any]:
        """The game and what `work` reads of the analyzer, within the request's time: an overlay's answer asked
        outright, an aid the game keeps (under the name "analysis")."""
        limits = self.context.limits()
        game = self.store.load(game_id, player)
        modes.get_mode(game.mode).check_overlay(game, overlay)
        self.hooks.check_aid(game, what)
        analyzer = self.context.analyzer(game_id, game)
        try:
            with analyzer.limits(limits.timed()):
                answer = work(analyzer, limits)
            game = self._note_aid(game_id, player, game, "analysis")
            return game, answer
        except Interrupted:
            raise TooComplex from None
        finally:
            self.context.analyzers.put(game_id, game, analyzer)

    def _note_aid(self, game_id: str, player: str, game: Game, aid: str) -> Game:
        """The game with `aid` kept among what helped in it (Game.aids), saved if it was not yet: a ladder ranks
        games without aids. (A write meeting another's makes the runner work the operation out again.)"""
        if game.status != "playing" or aid in game.aids:
            return game
        aided = game.copy()
        aided.aided(aid)
        aided.version += 1
        self.store.save(game_id, player, aided, game.version)
        return aided
