"""The operations every game has: make one (or the same board again), look at it, move, change its settings,
delete it, and a player's list and records. What a feature does around them — a room's place, a ladder's entry,
a grade, a seal on a board — it does through the hooks (app/service/hooks.py); nothing here names a feature.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from app import modes
from app.core.errors import KaboomError
from app.core.game import BotChoice, Busy, Game, Invalid, LossReview, Move, Outcome, Refused, set_options
from app.core.languages import N_, Text, lazy_gettext
from app.results.records import Records, counts_in_records, result_of, tallied
from app.service.aids import bot_off_cheap_threads, choose
from app.service.context import Context
from app.service.hooks import GameEnd
from app.service.overlays import Overlay, TooComplex, loss_review, overlay, overlay_after_loss, overlay_shown
from app.service.runner import SlowGame, operation
from app.store import Corrupt, Listing
from solver import Analyzer
from solver.generate import slow_search


class RateLimited(KaboomError):
    """Too many new games from one client address in the current window."""

    def __init__(self, limit: int, window: float):
        # The numbers as the arguments: an error raised in the slow lane comes back pickled, rebuilt from them.
        Exception.__init__(self, limit, window)
        self.message = self.said(limit, window)

    @staticmethod
    def said(limit: int, window: float) -> Text:
        return lazy_gettext(
            "Too many new games from your address: at most %(limit)s every %(window)s seconds. Wait a little.",
            limit=limit,
            window=format(window, "g"),
        )

    def __str__(self) -> str:
        return str(self.message)


class NoGuessLimited(RateLimited):
    """Too many no-guess boards dealt for one client address in the current window: each is a search."""

    @staticmethod
    def said(limit: int, window: float) -> Text:
        return lazy_gettext(
            "Too many no-guess boards from your address: at most %(limit)s every %(window)s seconds. "
            "Wait a little, or turn off No guessing.",
            limit=limit,
            window=format(window, "g"),
        )


@dataclass
class MoveResult:
    before: Game
    after: Game
    outcome: Outcome
    overlay_before: Overlay
    overlay_after: Overlay
    review: LossReview | None = None  # when the move lost: what could have been known
    bot: BotChoice | None = None  # the bot's move: the cell it chose, and why


class GameOperations:
    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.hooks = context.hooks
        self.runner = context.runner
        # A game's end is its result first: whatever else listens reads the result as kept.
        self.hooks.ended.append(self._record_end)

    async def create(
        self,
        player: str,
        client: str,
        mode: str,
        width: int | None,
        height: int | None,
        mines: int | None,
        settings: dict[str, bool],
        board_id: str | None = None,
        opponent: str | None = None,
        level: str | None = None,
    ) -> tuple[str, Game]:
        """A new game with the player in seat 0; with `board_id`, of the board it names (its size wins: none
        need be given); in a two-player mode, against `opponent` (on the same screen, through an invitation,
        or the computer at `level`).

        Invalid for a bad size, mode, setting, id, opponent or level; RateLimited past the creation limit of
        the client's address."""
        context = self.context
        rules = modes.get_mode(mode)
        options = rules.options(**settings)
        if board_id is None:
            if width is None or height is None or mines is None:
                raise Invalid(lazy_gettext("width, height and mines are required unless board_id is given"))
            game = rules.new_game(width, height, mines, options, rng=context.deals.next(), secret=context.board_secret)
        else:
            game = rules.from_board(board_id, options, context.board_secret)
            board = rules.board_id(game)
            assert board is not None  # a game made from a board id has it
            await context.offload(self._check_seals, player, board)
            if await context.offload(self.store.board_seen_in, player, board) is not None:
                # Known from the start: the page says so all along (app.results.records.counts_in_records).
                rules.see_layout(game)
        rules.seat(game, player, opponent, level)
        limit, window = context.settings.create_limit, context.settings.create_window
        if not await context.offload(self.store.allow, f"create:{client}", limit, window):
            raise RateLimited(limit, window)
        game_id = await context.offload(self.store.create, game, context.settings.games_per_player)
        return game_id, game

    def _check_seals(self, player: str, board_id: str) -> None:
        """Refuse another game of a board players compete on (a race's while it runs; a board of the day's until
        the player's entry is in): it would show them its layout. Each feature says why its own boards are sealed."""
        refusal = self.hooks.first_refusal(self.hooks.board_seals, player, board_id)
        if refusal is not None:
            raise Refused(refusal)

    async def restart(self, game_id: str, player: str, client: str) -> tuple[str, Game]:
        """The same board again, as a new game of the same mode with the same settings."""
        game = await self.load(game_id, player)
        board_id = modes.get_mode(game.mode).board_id(game)
        if board_id is None:
            raise Refused(
                lazy_gettext("this board is dealt at the first click: make it, then the board can be played again")
            )
        return await self.create(
            player, client, game.mode, game.width, game.height, game.mines, game.options.as_dict(), board_id
        )

    async def records(self, player: str) -> Records:
        """What the store's tallies say: the same cost however many results the player has."""
        records = tallied(await self.context.offload(self.store.tallies_of, player))
        if records is None:
            # A tally that does not read back: counted again from the results, which stay.
            records = tallied(await self.context.offload(self.store.retally, player))
        return records or Records([], 0)

    async def games_of(self, player: str) -> list[Listing]:
        return await self.context.offload(self.store.games_of, player)

    async def delete(self, game_id: str, player: str) -> bool:
        """Delete a game for everyone when its maker asks (the one player of a one-player game); anyone
        else only leaves it: it goes from their list, and their seat stays as played. True when the game
        is gone. After any move on it in flight here."""
        return await self.runner.run("delete", game_id, player)

    @operation("delete")
    def _delete(self, game_id: str, player: str) -> bool:
        try:
            game = self.store.load(game_id, player)
            maker, in_room = game.maker, game.room is not None
        except Corrupt:
            # A damaged game cannot say who made it; the store lets only a seated player take it away.
            maker, in_room = player, False
        # A room's game is the room's: deleting it would pull it from under the others (or the race).
        if player != maker or in_room:
            self.store.leave(game_id, player)
            return False
        self.store.delete(game_id, player)
        self.context.forget(game_id)
        return True

    async def expire_idle(self) -> int:
        context = self.context
        return await context.offload(self.store.expire, context.clock() - context.settings.idle_days * 86400)

    async def load(self, game_id: str, player: str) -> Game:
        """The game as stored, its settings as `player` sees them (Game.seen_by); one whose turn is due (the
        computer's) is played on (Hooks.seen)."""
        game = await self.context.offload(self.store.load, game_id, player)
        self.hooks.game_seen(game_id, game)
        return game.seen_by(player)

    async def look(
        self, game_id: str, player: str, asker: str | None = None
    ) -> tuple[Game, Overlay, LossReview | None]:
        """The game; the overlays it has turned on; when it is lost, what could have been known.
        A game waiting on the computer (its process stopped mid-turn, say) has the computer move now.
        `asker`: whose cookie asks, when `player` is a link's credential (Hooks.shown_by_link)."""
        looked = await self.runner.run("look", game_id, player, asker)
        self.hooks.game_seen(game_id, looked[0])
        return looked

    @operation("look")
    def _look(self, game_id: str, player: str, asker: str | None = None) -> tuple[Game, Overlay, LossReview | None]:
        limits = self.context.limits()
        game = self.hooks.shown_by_link(game_id, self.store.load(game_id, player), player, asker).seen_by(player)
        if game.status == "lost":
            review = loss_review(game, limits)
            return game, overlay_after_loss(game, review), review
        analyzer = self.context.analyzer(game_id, game)
        shown = overlay(analyzer, game, limits)
        self.context.analyzers.put(game_id, game, analyzer)
        return game, shown, None

    async def move(self, game_id: str, player: str, move: Move, client: str | None = None) -> MoveResult:
        """Apply a move; `client` (the address key) is what no-guess deals are limited by (None: not limited)."""
        context = self.context
        result = await self.runner.run("move", game_id, player, move, context.deals.next(), context.clock(), client)
        self.hooks.game_seen(game_id, result.after)
        return result

    async def bot_move(self, game_id: str, player: str, client: str | None = None) -> MoveResult:
        """The bot's next cell (bot_choice) revealed, as a move of the player's: the same turn, checks and answer."""
        context = self.context
        return await self.runner.run("move", game_id, player, None, context.deals.next(), context.clock(), client)

    @operation("move")
    def _move(
        self, game_id: str, player: str, move: Move | None, rng: random.Random, now: float, client: str | None = None
    ) -> MoveResult:
        """Apply `move`, or with None the bot's choice on the game as loaded."""
        context = self.context
        limits = context.limits()
        before = self.store.load(game_id, player)
        if (move is None or move.action == "reveal") and modes.get_mode(before.mode).no_guess_deal(before):
            self._before_no_guess_deal(game_id, before, client)
        if move is None:
            self.hooks.check_aid(before, N_("bot"))
            bot_off_cheap_threads(self.runner, game_id, before)
        analyzer = context.analyzer(game_id, before)
        seen_before = before.seen_by(player)
        overlay_before = overlay_shown(analyzer, seen_before, limits)
        choice = None
        try:
            if move is not None:
                # In a game of two, the seat is the player's, never the request's to say.
                move = dataclasses.replace(move, seat=modes.get_mode(before.mode).moving_seat(before, player))
            if move is None:
                choice = choose(game_id, before, analyzer, limits)
                move = Move(choice.action, *choice.cell, bot=True)
            after, outcome = modes.apply_move(before, move, rng=rng, now=now, analyzer=analyzer, limits=limits)
        except (Refused, TooComplex, Busy):
            # A refused move changed nothing, not even the analyzer.
            context.analyzers.put(game_id, before, analyzer)
            raise
        end = None
        if before.status == "playing" and after.status != "playing":
            end = GameEnd(game_id, player, before, after)
            if end.one_player:
                end.board = modes.get_mode(after.mode).board_id(after)
                self._board_seen_elsewhere(end)
            self.hooks.game_ending(end)
        self.store.save(game_id, player, after, before.version)
        if end is not None and end.one_player:
            self.hooks.game_ended(end)
        if move.action == "undo" or move.action in modes.get_mode(before.mode).extra_actions:
            self.hooks.game_acted(after, player, move.action)
        fresh = outcome.analyzer or Analyzer(after.position())
        context.analyzers.put(game_id, after, fresh)
        before, after = seen_before, after.seen_by(player)
        overlay_after = overlay(fresh, after, limits)
        review = loss_review(after, limits)
        if review is not None:
            overlay_after = overlay_after_loss(after, review)
        return MoveResult(before, after, outcome, overlay_before, overlay_after, review, choice)

    def _board_seen_elsewhere(self, end: GameEnd) -> None:
        """Another game of this board ended first, since this one started: no result, and the page says why.
        (Two ending at the same moment are told apart by the store alone, and the page may not say.)"""
        after = end.after
        rules = modes.get_mode(after.mode)
        if end.board is None or rules.layout_seen(after):
            return
        if self.store.board_seen_in(after.maker, end.board) not in (None, end.game_id):
            rules.see_layout(after)

    def _record_end(self, end: GameEnd) -> None:
        """The game's first end is its result (the store keeps only the first): a loss undone and played on to a
        win is still a loss in the records. A game that is no result still shows its board."""
        after = end.after
        if not (end.board or counts_in_records(after)):
            return
        result = result_of(after) if counts_in_records(after) else None
        if result is not None:
            for part in self.hooks.result_parts:
                kept = part(after, end.player)
                if kept is not None:
                    result[kept[0]] = kept[1]
        self.store.record_result(after.maker, end.game_id, result, end.board)

    def _before_no_guess_deal(self, game_id: str, game: Game, client: str | None) -> None:
        """A no-guess deal is a search of up to the request's whole allowance. A big board's leaves the cheap
        threads before it starts (SlowGame: the lane, or the slow thread), by a rule of size alone, so a
        board that happens to be quick goes the same way; and each client address may have so many dealt
        per window, counted where the search runs (once, unless a conflicting write makes it run again)."""
        if self.runner.on_cheap_thread() and slow_search(game.width, game.height, game.mines):
            raise SlowGame(game_id)
        if client is not None:
            limit, window = self.context.settings.no_guess_limit, self.context.settings.no_guess_window
            if not self.store.allow(f"no-guess:{client}", limit, window):
                raise NoGuessLimited(limit, window)

    async def set_options(self, game_id: str, player: str, changes: dict[str, bool]) -> Game:
        return await self.runner.run("set-options", game_id, player, changes)

    @operation("set-options")
    def _set_options(self, game_id: str, player: str, changes: dict[str, bool]) -> Game:
        before = self.store.load(game_id, player)
        modes.get_mode(before.mode).check_options(before, changes)
        self.hooks.check_settings(before, changes)
        helping = [name for name in type(before.options).helping() if changes.get(name)]
        if helping:
            self.hooks.check_aid(before, type(before.options).label(helping[0]))
        after = set_options(before, changes, modes.get_mode(before.mode).moving_seat(before, player))
        if after.options == before.options and after.views == before.views:
            # Nothing to write, and no live page to wake for nothing (the checks above still refuse a bad name).
            return before.seen_by(player)
        self.store.save(game_id, player, after, before.version)
        return after.seen_by(player)
