"""Game operations for every front end: the pages, the JSON API, and later the bot and the computer seat.

One operation = load, apply the mode's rules, save; the service adds what
makes that safe and quick with many requests at once:
- a turn lock per game in this process, and the store's lease across
  processes; a write that finds the game moved on (Conflict) is worked out
  again on the new state, so moves apply one after the other;
- solver work in a few threads, never on the event loop;
- a cache of live analyzers, so a click costs only its change;
- the deal's randomness and the clock, both injectable: tests deal seeded boards
  and move time instead of sleeping.
Nothing here knows about HTTP.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import hmac
import logging
import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from cachetools import LRUCache, TTLCache

from app import modes
from app.core.config import Settings
from app.core.errors import KaboomError
from app.core.game import (
    LAYOUT_SEEN,
    BotChoice,
    Busy,
    Game,
    Hint,
    Invalid,
    LossReview,
    Move,
    Outcome,
    Refused,
    count_hint,
    set_options,
)
from app.core.seats import COMPUTER, computers, held_by, new_share_key, watcher
from app.host import allocator
from app.host.lane import Lane
from app.results.records import Records, counts_in_records, result_of, tallied
from app.results.review import Review, frame_at, kept_review, review, steps_in
from app.rooms import RoomNotFound, get_kind
from app.service.changes import ChangeFeed, StreamSlots
from app.service.daily import LADDER_REPLAY_STAYS, DailyOperations
from app.service.rooms import RoomOperations, RoomView
from app.service.runner import SOLVER_THREADS, Runner, SlowGame, operation
from app.store import Corrupt, Listing, NotFound, Store
from solver import Analyzer, Budget, Interrupted, Limits
from solver.counting import BudgetExceeded
from solver.generate import slow_search

# A game no thread here has analysed is sent to the slow lane before its first
# analysis when this many covered cells touch its numbers. Measured with a
# fresh Analyzer classifying (2-core machine): games played to the end stay
# under 2,100 such cells and 75 ms on boards up to 100x100; numbers scattered
# at random over 100x100 give 3,900 (140 ms) to 6,500 (0.9 s).
SLOW_FRONTIER_CELLS = 3000
# The bot's requests on a board of this many cells or more go where slow work runs (_bot_off_cheap_threads).
BOT_SLOW_CELLS = 1000
# A live page marks its seat present for this long, and renews the mark well before it runs out.
PRESENCE_SECONDS = 15.0
PRESENCE_RENEW_SECONDS = 5.0
# How long the move that ends a game may spend grading it (app.results.review), on top of the move: a classic Expert
# game takes about 0.03 s, a 100x100 one 0.7 s (bench/review.py); a longer one is graded when its review is
# first asked for.
REVIEW_AT_END_SECONDS = 1.0
# A finished game of this many cells is graded, and its replay's overlays worked out, where slow work runs:
# the story of a big board is long (a 100x100 game has thousands of steps).
SLOW_REVIEW_CELLS = 2500
# Seats whose marks a worker remembers renewing (a few bytes each): far more than the live pages it may hold.
PRESENCE_KEPT = 65536

log = logging.getLogger("kaboom")


class TooComplex(KaboomError):
    """The solver could not finish within the time a request may take."""

    def __init__(
        self,
        message: str = "The position is too complex to analyse within the server's time limit; play on and ask again.",
    ):
        super().__init__(message)


class RateLimited(KaboomError):
    """Too many new games from one client address in the current window."""

    def __init__(self, limit: int, window: float):
        # The numbers as the arguments: an error raised in the slow lane comes back pickled, rebuilt from them.
        Exception.__init__(self, limit, window)
        self.message = self.said(limit, window)

    @staticmethod
    def said(limit: int, window: float) -> str:
        return f"Too many new games from your address: at most {limit} every {window:g} seconds. Wait a little."

    def __str__(self) -> str:
        return self.message


class NoGuessLimited(RateLimited):
    """Too many no-guess boards dealt for one client address in the current window: each is a search."""

    @staticmethod
    def said(limit: int, window: float) -> str:
        return (
            f"Too many no-guess boards from your address: at most {limit} every {window:g} seconds. "
            "Wait a little, or turn off No guessing."
        )


class InPlay(NotFound):
    """A finished game's story asked of a game still in play, by someone who may open the game: nothing of it
    shows before its end (the API answers as for no such game); the page says when the replay opens."""


def check_assists(game: Game, what: str) -> None:
    """Refuse `what` (a hint, an overlay, the bot) in a game whose room is played without them (a race)."""
    if game.room is not None and not get_kind(game.room["kind"]).assists:
        kind = get_kind(game.room["kind"]).title.lower()
        raise Refused(f"no {what} in a {kind}: everyone plays on what they can see")


def check_room_settings(game: Game, changes: dict[str, bool]) -> None:
    """Refuse a change of a setting the game's room fixes (undo in a race)."""
    if game.room is None:
        return
    for setting, (value, why) in get_kind(game.room["kind"]).fixed_settings.items():
        if changes.get(setting, value) != value:
            raise Refused(why)


class AnalyzerCache:
    """Live analyzers of recently played games, so a click costs only its change.

    Bounded by the memory the analyzers hold (a 100x100 game's grows to about
    5 MiB, an Expert game's to a few hundred KiB), least recently used first out.
    An entry is valid for one version of one game; anything else (undo, a
    move from another process) gets a fresh Analyzer from the position.
    """

    def __init__(self, max_bytes: int):
        self._entries: LRUCache[str, tuple[int, Analyzer]] = LRUCache(
            max_bytes, getsizeof=lambda entry: entry[1].footprint()
        )
        # Different games are worked on in different threads at once.
        self._lock = threading.Lock()

    @property
    def bytes_held(self) -> int:
        return int(self._entries.currsize)

    def take(self, game_id: str, game: Game) -> Analyzer | None:
        """The cached analyzer of this version of the game, taken out of the cache (moves change it); None if none."""
        with self._lock:
            entry = self._entries.pop(game_id, None)
        if entry is not None and entry[0] == game.version:
            return entry[1]
        return None

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._entries.pop(game_id, None)

    def put(self, game_id: str, game: Game, analyzer: Analyzer | None) -> None:
        if analyzer is None or game.status != "playing":
            # A finished game needs no analyzer until an undo, which builds a fresh one;
            # keeping it would only hold memory that live games could use.
            self.drop(game_id)
            return
        entry = (game.version, analyzer)
        with self._lock:
            try:
                self._entries[game_id] = entry
            except ValueError:
                # Larger than the whole cache: rebuilt from the position when next needed.
                self._entries.pop(game_id, None)


class Deals:
    """Where the randomness of layouts comes from: a fresh generator per move.

    Layouts decide games, so no one may predict them: in production every
    generator is seeded with 128 bits from the OS (drawing every number from
    the OS cost a fifth of the server's time under load). A seeded source
    makes every deal of a test repeatable.
    """

    def __init__(self, seed: int | None = None):
        self._source: random.Random = secrets.SystemRandom() if seed is None else random.Random(seed)
        self._lock = threading.Lock()

    def reseed(self, seed: int) -> None:
        with self._lock:
            self._source = random.Random(seed)

    def next(self) -> random.Random:
        with self._lock:
            return random.Random(self._source.getrandbits(128))


@dataclass
class Overlay:
    """What the player's overlays show over the covered cells, as far as the request's time allowed."""

    statuses: dict | None = None  # the debug overlay: cell -> Status
    probabilities: dict | None = None  # cell -> exact mine probability (Fraction)
    too_complex: bool = False  # probabilities were asked for, and counting ran over its budget


@dataclass
class MoveResult:
    before: Game
    after: Game
    outcome: Outcome
    overlay_before: Overlay
    overlay_after: Overlay
    review: LossReview | None = None  # when the move lost: what could have been known
    bot: BotChoice | None = None  # the bot's move: the cell it chose, and why


class GameService(RoomOperations, DailyOperations):
    def __init__(
        self,
        store: Store,
        settings: Settings,
        deals: Deals | None = None,
        clock: Callable[[], float] = time.time,
        slow_lane: bool = False,
    ):
        self.store = store
        self.settings = settings
        self.deals = deals or Deals()
        self.clock = clock
        self.analyzers = AnalyzerCache(settings.cache_megabytes * 2**20)
        # The lane opens the store from the settings, so only a store the settings name can have one.
        lane = Lane(settings) if slow_lane and store.shared_by_processes else None
        self.runner = Runner(self, store, lane, forget=self.analyzers.drop)
        # Live pages ask often and quickly: their store reads never wait behind game work.
        self.live_limiter = anyio.CapacityLimiter(SOLVER_THREADS)
        # Live streams wait on one follower of the store's changes (app.service.changes), within their caps.
        self.changes = ChangeFeed(store)
        self.streams = StreamSlots(settings.live_streams_per_client, settings.live_streams)
        # The seats this worker marked present lately: (game id, seat) -> True, by the service's clock.
        self._marked: TTLCache[tuple[str, int], bool] = TTLCache(
            PRESENCE_KEPT, ttl=PRESENCE_RENEW_SECONDS, timer=self.clock
        )
        self._presence_lock = threading.Lock()
        self._computers: dict[str, asyncio.Task] = {}  # games whose computer turns this process plays

    def stop_live(self) -> None:
        """The server is stopping: live streams end now (their pages reconnect to whichever server answers
        next), and the computer stops between turns (any worker that sees its turn due plays it later)."""
        self.changes.close()
        for task in list(self._computers.values()):
            task.cancel()

    def start(self) -> None:
        """Start the slow lane's process now, in the background (the server is starting): the first slow request
        would otherwise wait out Python and the solver loading in it, beyond its deadline."""
        if self.runner.lane is not None:
            self.runner.lane.start()

    def held(self) -> str:
        """What this worker holds in memory that grows with use, each against its bound, in words for the log."""
        megabytes = self.settings.cache_megabytes
        return (
            f"held in this worker: analyzers {self.analyzers.bytes_held / 2**20:.1f} of {megabytes} MB, "
            f"undo histories {self.store.history_bytes / 2**20:.1f} of {megabytes / 4:g} MB, "
            f"live streams {self.streams.open} (waiting {self.changes.watched}), "
            f"computer turns {len(self._computers)}, "
            f"games known slow {len(self.runner.slow_games)}, presence marks {len(self._marked)}"
            + (f", {self.store.held()}" if self.store.held() else "")
            + f", {allocator.described()}"
        )

    def close(self) -> None:
        self.stop_live()
        if self.runner.lane is not None:
            self.runner.lane.close()
        self.store.close()

    def limits(self) -> Limits:
        """What one request may spend on the solver, from the moment its work starts."""
        return Limits.starting_now(self.settings.solver_seconds, self.settings.solver_work)

    async def offload(self, work: Callable[..., Any], *args: Any, limiter: anyio.CapacityLimiter | None = None) -> Any:
        """Run blocking work (the store, the solver) in one of the few game threads."""
        return await self.runner.offload(work, *args, limiter=limiter)

    def _analyzer(self, game_id: str, game: Game) -> Analyzer:
        """The game's live analyzer: the cached one, else a fresh one, unless a cheap thread would build a slow one."""
        analyzer = self.analyzers.take(game_id, game)
        if analyzer is not None:
            return analyzer
        if (
            self.runner.on_cheap_thread()
            and len(game.cells) >= SLOW_FRONTIER_CELLS
            and game.board.frontier_size(game.cells) >= SLOW_FRONTIER_CELLS
        ):
            raise SlowGame(game_id)
        return Analyzer(game.position())

    # ----- operations without a game ------------------------------------

    @functools.cached_property
    def board_secret(self) -> bytes:
        """The key a board id's layout is derived with: the server's, so that an id shows nothing of its layout
        and every host sharing the key deals the same board for it."""
        return hmac.new(self.settings.signing_key().encode(), b"kaboom board ids", hashlib.sha256).digest()

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
        rules = modes.get_mode(mode)
        options = rules.options(**settings)
        if board_id is None:
            if width is None or height is None or mines is None:
                raise Invalid("width, height and mines are required unless board_id is given")
            game = rules.new_game(width, height, mines, options, rng=self.deals.next(), secret=self.board_secret)
        else:
            game = rules.from_board(board_id, options, self.board_secret)
            board = rules.board_id(game)
            assert board is not None  # a game made from a board id has it
            await self.offload(self._check_seals, player, board)
            if await self.offload(self.store.board_seen_in, player, board) is not None:
                # Known from the start: the page says so all along (app.results.records.counts_in_records).
                game.state["layout_seen"] = True
                game.aided(LAYOUT_SEEN)
        rules.seat(game, player, opponent, level)
        limit, window = self.settings.create_limit, self.settings.create_window
        if not await self.offload(self.store.allow, f"create:{client}", limit, window):
            raise RateLimited(limit, window)
        game_id = await self.offload(self.store.create, game, self.settings.games_per_player)
        return game_id, game

    def _check_seals(self, player: str, board_id: str) -> None:
        """Refuse another game of a board players compete on (a race's while it runs; a board of the day's until
        the player's entry is in): it would show them its layout. Each feature says why its own boards are sealed."""
        for seal in (self.race_seal, self.daily_seal):
            refusal = seal(player, board_id)
            if refusal is not None:
                raise Refused(refusal)

    async def restart(self, game_id: str, player: str, client: str) -> tuple[str, Game]:
        """The same board again, as a new game of the same mode with the same settings."""
        game = await self.load(game_id, player)
        board_id = modes.get_mode(game.mode).board_id(game)
        if board_id is None:
            raise Refused("this board is dealt at the first click: make it, then the board can be played again")
        return await self.create(
            player, client, game.mode, game.width, game.height, game.mines, game.options.as_dict(), board_id
        )

    async def records(self, player: str) -> Records:
        """What the store's tallies say: the same cost however many results the player has."""
        records = tallied(await self.offload(self.store.tallies_of, player))
        if records is None:
            # A tally that does not read back: counted again from the results, which stay.
            records = tallied(await self.offload(self.store.retally, player))
        return records or Records([], 0)

    async def games_of(self, player: str) -> list[Listing]:
        return await self.offload(self.store.games_of, player)

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
        self.analyzers.drop(game_id)
        return True

    async def expire_idle(self) -> int:
        return await self.offload(self.store.expire, self.clock() - self.settings.idle_days * 86400)

    async def load(self, game_id: str, player: str) -> Game:
        """The game as stored, its settings as `player` sees them (Game.seen_by); one whose turn is the
        computer's has it played (see start_computer)."""
        game = await self.offload(self.store.load, game_id, player)
        self._computer_if_due(game_id, game)
        return game.seen_by(player)

    def forget(self, game_id: str) -> None:
        self.analyzers.drop(game_id)

    # ----- operations on one game, one at a time (app.service.runner) -------------

    def _overlay(self, analyzer: Analyzer, game: Game, limits: Limits, everything: bool = False) -> Overlay:
        """The overlays the game has turned on (`everything`: both); a part past the request's time is left
        out (the page then shows the cells plain, or says counting was too complex)."""
        overlay = Overlay()
        if game.status != "playing":
            return overlay
        probabilities = everything or game.options.probabilities
        try:
            with analyzer.limits(limits.timed()):
                if everything or game.options.debug_overlay:
                    overlay.statuses = analyzer.classify()
                if probabilities:
                    overlay.probabilities, overlay.too_complex = self._counted(analyzer, limits)
        except Interrupted:
            overlay.too_complex = probabilities
        return overlay

    @staticmethod
    def _counted(analyzer: Analyzer, limits: Limits) -> tuple[dict | None, bool]:
        counted = analyzer.probabilities(Budget(deadline=limits.deadline))
        return counted.cells, counted.budget_exceeded

    def _overlay_shown(self, analyzer: Analyzer, game: Game, limits: Limits) -> Overlay:
        """What the page shows before a move: it came with the previous answer, so it is what the analyzer
        has already worked out; nothing is reasoned anew (an analyzer not yet asked shows nothing)."""
        overlay = Overlay()
        if game.status != "playing":
            return overlay
        if game.options.debug_overlay:
            overlay.statuses = analyzer.proven_statuses()
        if game.options.probabilities and not analyzer.pristine and not analyzer.interrupted:
            try:
                with analyzer.limits(limits.timed()):
                    overlay.probabilities, overlay.too_complex = self._counted(analyzer, limits)
            except Interrupted:
                pass
        return overlay

    @staticmethod
    def _overlay_after_loss(game: Game, review: LossReview | None) -> Overlay:
        """After a loss the debug overlay shows what was proven just before the losing click: the moment
        the player wants to see it. The layout is public by then, so it reveals nothing."""
        return Overlay(statuses=review.statuses if review is not None and game.options.debug_overlay else None)

    async def look(
        self, game_id: str, player: str, asker: str | None = None
    ) -> tuple[Game, Overlay, LossReview | None]:
        """The game; the overlays it has turned on; when it is lost, what could have been known.
        A game waiting on the computer (its process stopped mid-turn, say) has the computer move now.
        `asker`: whose cookie asks, when `player` is a link's credential (see shown_by_link)."""
        looked = await self.runner.run("look", game_id, player, asker)
        self._computer_if_due(game_id, looked[0])
        return looked

    @operation("look")
    def _look(self, game_id: str, player: str, asker: str | None = None) -> tuple[Game, Overlay, LossReview | None]:
        limits = self.limits()
        game = self.shown_by_link(game_id, self.store.load(game_id, player), player, asker).seen_by(player)
        if game.status == "lost":
            review = self._review(game, limits)
            return game, self._overlay_after_loss(game, review), review
        analyzer = self._analyzer(game_id, game)
        overlay = self._overlay(analyzer, game, limits)
        self.analyzers.put(game_id, game, analyzer)
        return game, overlay, None

    @staticmethod
    def _review(game: Game, limits: Limits) -> LossReview | None:
        """What could have been known when the game was lost; None if not lost, or past the request's time."""
        if game.status != "lost":
            return None
        try:
            return modes.get_mode(game.mode).review_loss(game, limits.timed())
        except Interrupted:
            return None

    async def move(self, game_id: str, player: str, move: Move, client: str | None = None) -> MoveResult:
        """Apply a move; `client` (the address key) is what no-guess deals are limited by (None: not limited)."""
        result = await self.runner.run("move", game_id, player, move, self.deals.next(), self.clock(), client)
        self._computer_if_due(game_id, result.after)
        return result

    async def bot_move(self, game_id: str, player: str, client: str | None = None) -> MoveResult:
        """The bot's next cell (bot_choice) revealed, as a move of the player's: the same turn, checks and answer."""
        return await self.runner.run("move", game_id, player, None, self.deals.next(), self.clock(), client)

    @operation("move")
    def _move(
        self, game_id: str, player: str, move: Move | None, rng: random.Random, now: float, client: str | None = None
    ) -> MoveResult:
        """Apply `move`, or with None the bot's choice on the game as loaded."""
        limits = self.limits()
        before = self.store.load(game_id, player)
        if (move is None or move.action == "reveal") and modes.get_mode(before.mode).no_guess_deal(before):
            self._before_no_guess_deal(game_id, before, client)
        if move is None:
            check_assists(before, "bot")
            self._bot_off_cheap_threads(game_id, before)
        analyzer = self._analyzer(game_id, before)
        seen_before = before.seen_by(player)
        overlay_before = self._overlay_shown(analyzer, seen_before, limits)
        choice = None
        try:
            if move is not None:
                # In a game of two, the seat is the player's, never the request's to say.
                move = dataclasses.replace(move, seat=modes.get_mode(before.mode).moving_seat(before, player))
            if move is None:
                choice = self._choose(game_id, before, analyzer, limits)
                move = Move(choice.action, *choice.cell, bot=True)
            after, outcome = modes.apply_move(before, move, rng=rng, now=now, analyzer=analyzer, limits=limits)
        except (Refused, TooComplex, Busy):
            # A refused move changed nothing, not even the analyzer.
            self.analyzers.put(game_id, before, analyzer)
            raise
        ended = before.status == "playing" and after.status != "playing" and len(after.seats) == 1
        board = modes.get_mode(after.mode).board_id(after) if ended else None
        seen_in = self.store.board_seen_in(after.maker, board) if board and not after.state.get("layout_seen") else None
        if seen_in not in (None, game_id):
            # Another game of this board ended first, since this one started: no result, and the page says
            # why. (Two ending at the same moment are told apart by the store alone, and the page may not say.)
            after.state["layout_seen"] = True
            after.aided(LAYOUT_SEEN)
        self._grade_at_end(before, after)
        if ended and after.daily is not None and after.share is None:
            # A ladder links to each entry's replay: a board of the day is played in public.
            after.share = new_share_key()
        if ended and self.becomes_entry(after):
            # The entry is this end, and its replay the ladder links: an undo would take both back.
            after.options.undo = False
        self.store.save(game_id, player, after, before.version)
        if ended and (board or counts_in_records(after)):
            # The game's first end is its result (the store keeps only the first): a loss undone and
            # played on to a win is still a loss in the records. A game that is no result still shows its board.
            result = result_of(after) if counts_in_records(after) else None
            place = self.place_in_room(after, player) if result is not None else None
            if place is not None:
                result["room"] = place  # type: ignore[index]
            self.store.record_result(after.maker, game_id, result, board)
        if ended and after.daily is not None:
            self.enter_daily(game_id, after)
        if move.action == "undo" or move.action in modes.get_mode(before.mode).extra_actions:
            self.note_in_room(after, player, move.action)
        fresh = outcome.analyzer or Analyzer(after.position())
        self.analyzers.put(game_id, after, fresh)
        before, after = seen_before, after.seen_by(player)
        overlay_after = self._overlay(fresh, after, limits)
        review = self._review(after, limits)
        if review is not None:
            overlay_after = self._overlay_after_loss(after, review)
        return MoveResult(before, after, outcome, overlay_before, overlay_after, review, choice)

    def _before_no_guess_deal(self, game_id: str, game: Game, client: str | None) -> None:
        """A no-guess deal is a search of up to the request's whole allowance. A big board's leaves the cheap
        threads before it starts (SlowGame: the lane, or the slow thread), by a rule of size alone, so a
        board that happens to be quick goes the same way; and each client address may have so many dealt
        per window, counted where the search runs (once, unless a conflicting write makes it run again)."""
        if self.runner.on_cheap_thread() and slow_search(game.width, game.height, game.mines):
            raise SlowGame(game_id)
        if client is not None:
            limit, window = self.settings.no_guess_limit, self.settings.no_guess_window
            if not self.store.allow(f"no-guess:{client}", limit, window):
                raise NoGuessLimited(limit, window)

    def _grade_at_end(self, before: Game, after: Game) -> None:
        """Grade a game that just ended, once, while its last move is saved with it (its result then has its
        accuracy), if that fits in REVIEW_AT_END_SECONDS: a game too long for that is graded when its
        review is first asked for."""
        if before.status != "playing" or after.status == "playing":
            return
        graded = review(after, Limits.starting_now(REVIEW_AT_END_SECONDS, self.settings.solver_work))
        if not graded.cut:
            after.review = graded.kept()

    async def review(self, game_id: str, viewer: str, asker: str | None = None) -> tuple[Game, Review]:
        """A finished game's review: the one it keeps, or graded now within the request's time and kept.
        NotFound for a game in play, as for one the viewer may not open: nothing of it shows before its end.
        `asker`: whose cookie asks, when `viewer` is a link's credential (see _finished)."""
        return await self.runner.run("review", game_id, viewer, asker)

    @operation("review")
    def _review_game(self, game_id: str, viewer: str, asker: str | None = None) -> tuple[Game, Review]:
        game = self._finished(game_id, viewer, asker)
        kept = kept_review(game)
        if kept is not None:
            return game, kept
        if self.runner.on_cheap_thread() and len(game.cells) >= SLOW_REVIEW_CELLS:
            raise SlowGame(game_id)
        graded = review(game, self.limits())
        # Kept even with positions graded too complex in time: a game is graded once.
        game.review = graded.kept()
        game.version += 1
        self.store.save(game_id, viewer, game, game.version - 1)
        return game, graded

    async def replay_overlay(
        self, game_id: str, viewer: str, step: int, asker: str | None = None
    ) -> tuple[Game, Game, Overlay]:
        """What could be known after `step` steps of a finished game's story (0: before the first), as the
        overlays show it: every covered cell's status and chance of a mine. (The game, the frame, its overlay.)"""
        return await self.runner.run("replay-overlay", game_id, viewer, step, asker)

    @operation("replay-overlay")
    def _replay_overlay(
        self, game_id: str, viewer: str, step: int, asker: str | None = None
    ) -> tuple[Game, Game, Overlay]:
        game = self._finished(game_id, viewer, asker)
        frame = frame_at(game, step)
        if frame is None:
            raise Invalid(f"step {step}: this game's story has steps 0 to {steps_in(game)}")
        if self.runner.on_cheap_thread() and len(game.cells) >= SLOW_REVIEW_CELLS:
            raise SlowGame(game_id)
        return game, frame, self._overlay(Analyzer(frame.position()), frame, self.limits(), everything=True)

    def _finished(self, game_id: str, viewer: str, asker: str | None = None) -> Game:
        """The game, once it has ended, for `viewer` (a player, or a link's credential): its story shows its board,
        so a board players still compete on stays hidden from whoever still competes (`asker`, the person behind
        a link, is that person; the game's own player always sees it)."""
        game = self.store.load(game_id, viewer)
        if game.status == "playing":
            raise InPlay(game_id)
        person = asker if asker is not None else viewer
        if person != game.maker:
            for seal in (self.race_replay_seal, self.daily_replay_seal):
                refusal = seal(game, person)
                if refusal is not None:
                    raise Refused(refusal)
        return game

    async def share(self, game_id: str, player: str, shared: bool) -> Game:
        """Share a finished game's replay by a new link (kept while shared), or withdraw it; its maker only."""
        return await self.runner.run("share", game_id, player, shared)

    @operation("share")
    def _share(self, game_id: str, player: str, shared: bool) -> Game:
        game = self.store.load(game_id, player)
        if player != game.maker:
            raise Refused("only the player who made the game may share its replay")
        if game.status == "playing":
            raise Refused("the game is still in play: its replay can be shared once it has ended")
        if (game.share is not None) == shared:
            return game
        if not shared and self.is_ladder_entry(game_id, game):
            raise Refused(LADDER_REPLAY_STAYS)
        new = game.copy()
        new.share = new_share_key() if shared else None
        new.version += 1
        self.store.save(game_id, player, new, game.version)
        return new

    async def set_options(self, game_id: str, player: str, changes: dict[str, bool]) -> Game:
        return await self.runner.run("set-options", game_id, player, changes)

    @operation("set-options")
    def _set_options(self, game_id: str, player: str, changes: dict[str, bool]) -> Game:
        before = self.store.load(game_id, player)
        modes.get_mode(before.mode).check_options(before, changes)
        check_room_settings(before, changes)
        helping = [name for name in type(before.options).helping() if changes.get(name)]
        if helping:
            check_assists(before, type(before.options).label(helping[0]).lower())
        after = set_options(before, changes, modes.get_mode(before.mode).moving_seat(before, player))
        if after.options == before.options and after.views == before.views:
            # Nothing to write, and no live page to wake for nothing (the checks above still refuse a bad name).
            return before.seen_by(player)
        self.store.save(game_id, player, after, before.version)
        return after.seen_by(player)

    async def hint(self, game_id: str, player: str, shown: bool = False) -> tuple[Game, Hint]:
        """A hint from what the player sees (`shown`: a cell shown with its proof, as Show me asks)."""
        return await self.runner.run("hint", game_id, player, shown)

    @operation("hint")
    def _hint(self, game_id: str, player: str, shown: bool = False) -> tuple[Game, Hint]:
        limits = self.limits()
        before = self.store.load(game_id, player)
        check_assists(before, "hints")
        analyzer = self._analyzer(game_id, before)
        try:
            with analyzer.limits(limits.timed()):
                advice = modes.hint(before, analyzer)
        except (Interrupted, Refused) as error:
            # What was proven so far stays useful for the next request.
            self.analyzers.put(game_id, before, analyzer)
            if isinstance(error, Interrupted):
                raise TooComplex from None
            raise
        after = count_hint(before)
        self.store.save(game_id, player, after, before.version)
        self.analyzers.put(game_id, after, analyzer)
        self.note_in_room(after, player, "show" if shown else "hint")
        return after, advice

    async def bot_choice(self, game_id: str, player: str) -> tuple[Game, BotChoice]:
        """The cell the bot would open next, from what the player sees; asking changes nothing."""
        return await self.runner.run("bot-choice", game_id, player)

    @operation("bot-choice")
    def _bot_choice(self, game_id: str, player: str) -> tuple[Game, BotChoice]:
        limits = self.limits()
        game = self.store.load(game_id, player)
        check_assists(game, "bot")
        self._bot_off_cheap_threads(game_id, game)
        analyzer = self._analyzer(game_id, game)
        try:
            choice = self._choose(game_id, game, analyzer, limits)
            # The advice names a cell it may have proven safe, as Show me does: an aid, once it is given.
            game = self._note_aid(game_id, player, game, "bot")
            return game, choice
        finally:
            self.analyzers.put(game_id, game, analyzer)

    def _bot_off_cheap_threads(self, game_id: str, game: Game) -> None:
        """The bot on a big board plays where slow work runs. Each of its requests there stays under the slow
        mark (SLOW_OPERATION_CPU_SECONDS), but one client asking for them without a pause kept a worker's
        processor busy: another player's p95 went from 6 ms to 144 ms (bench/hammer.py --hammer bot)."""
        if self.runner.on_cheap_thread() and game.width * game.height >= BOT_SLOW_CELLS:
            raise SlowGame(game_id)

    @staticmethod
    def _choose(game_id: str, game: Game, analyzer: Analyzer, limits: Limits) -> BotChoice:
        # Seeded by the game and the actions played, so that asking again names the same cell, and the move
        # that follows opens the cell that was named (the version moves with what asking itself notes: Game.aids).
        rng = random.Random(f"{game_id}:{len(game.history)}")
        try:
            with analyzer.limits(limits.timed()):
                return modes.bot_choice(game, analyzer, rng)
        except (Interrupted, BudgetExceeded):
            raise TooComplex from None

    async def probabilities(self, game_id: str, player: str) -> tuple[Game, dict | None]:
        """Every covered cell's exact mine probability from what the player sees; None over the counting budget."""
        return await self.runner.run("probabilities", game_id, player)

    @operation("probabilities")
    def _probabilities(self, game_id: str, player: str) -> tuple[Game, dict | None]:
        limits = self.limits()
        game = self.store.load(game_id, player)
        modes.get_mode(game.mode).check_overlay(game, "probabilities")
        check_assists(game, "mine probabilities")
        analyzer = self._analyzer(game_id, game)
        try:
            with analyzer.limits(limits.timed()):
                cells, _ = self._counted(analyzer, limits)
            game = self._note_aid(game_id, player, game, "analysis")
            return game, cells
        except Interrupted:
            raise TooComplex from None
        finally:
            self.analyzers.put(game_id, game, analyzer)

    async def analysis(self, game_id: str, player: str) -> list[str]:
        return await self.runner.run("analysis", game_id, player)

    @operation("analysis")
    def _analysis(self, game_id: str, player: str) -> list[str]:
        limits = self.limits()
        game = self.store.load(game_id, player)
        modes.get_mode(game.mode).check_overlay(game, "debug_overlay")
        check_assists(game, "analysis")
        analyzer = self._analyzer(game_id, game)
        try:
            with analyzer.limits(limits.timed()):
                rows = analyzer.status_rows()
            game = self._note_aid(game_id, player, game, "analysis")
            return rows
        except Interrupted:
            raise TooComplex from None
        finally:
            self.analyzers.put(game_id, game, analyzer)

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

    # ----- games of two: invitations, watching, presence, the computer's turns -------------

    async def join(self, game_id: str, key: str, player: str) -> bool:
        """Take an invitation's seat, a deliberate act (opening its link only shows the game: a link
        preview must not take the seat): True if the player has it now (also when it was theirs), False
        when another player has it. NotFound when the key is not the game's."""
        return await self.runner.run("join", game_id, key, player)

    @operation("join")
    def _join(self, game_id: str, key: str, player: str) -> bool:
        link = watcher(key)
        game = self.store.load(game_id, link)
        if held_by(game.seats, player):
            return True
        joined = modes.get_mode(game.mode).take_invitation(game, player)
        if joined is None:
            return False
        self.store.save(game_id, link, joined, game.version)
        return True

    async def free_seat(self, game_id: str, player: str) -> Game:
        """The seat an invitation gave to someone who never moved, back to the player who invited, with a
        new link (the old one opens nothing any more); refused otherwise."""
        return await self.runner.run("free-seat", game_id, player)

    @operation("free-seat")
    def _free_seat(self, game_id: str, player: str) -> Game:
        before = self.store.load(game_id, player)
        after = modes.get_mode(before.mode).reclaim_seat(before, player)
        self.store.save(game_id, player, after, before.version)
        return after

    async def live(self, game_id: str, player: str, asker: str | None = None) -> tuple[int, frozenset[int]]:
        """The version stored now and the seats whose players are connected; a seat's player is marked
        present as they ask. NotFound unless `player` may see the game (a seat, or an invitation's key)."""
        _, version, present = await self._looked_at_live(game_id, player, asker)
        return version, present

    async def _looked_at_live(
        self, game_id: str, player: str, asker: str | None = None
    ) -> tuple[Game, int, frozenset[int]]:
        game, version, present = await self.offload(self._live, game_id, player, asker, limiter=self.live_limiter)
        # A live page asks every few seconds: after a restart cut the computer's turn short, this plays it.
        self._computer_if_due(game_id, game)
        return game, version, present

    async def live_with_room(
        self, game_id: str, viewer: str, player: str | None = None
    ) -> tuple[int, frozenset[int], RoomView | None]:
        """`live`, and the game's room as the viewer sees it (None outside a room, or once the room is gone):
        a page of a room's game follows the room too. `player`: who asks by a link (see room_view)."""
        game, version, present = await self._looked_at_live(game_id, viewer, player)
        if game.room is None:
            return version, present, None
        try:
            return version, present, await self.room_view(game.room["id"], viewer, player)
        except RoomNotFound:
            return version, present, None

    def _live(self, game_id: str, player: str, asker: str | None = None) -> tuple[Game, int, frozenset[int]]:
        game = self.shown_by_link(game_id, self.store.load(game_id, player), player, asker)
        if game.status == "playing":
            for seat in held_by(game.seats, player):
                self._mark_present(game_id, seat)
        present = frozenset(self.store.present(game_id)) | computers(game.seats)
        return game, game.version, present

    def _mark_present(self, game_id: str, seat: int) -> None:
        """Renew a seat's mark, at most once every PRESENCE_RENEW_SECONDS from this worker: a page's stream
        and its poll both ask, and with hundreds of live pages these writes were much of a worker's work."""
        with self._presence_lock:
            if (game_id, seat) in self._marked:
                return
        self.store.mark_present(game_id, seat, self.clock() + PRESENCE_SECONDS)
        with self._presence_lock:
            self._marked[(game_id, seat)] = True

    async def wait_for_change(self, game_id: str, version: int, timeout: float, room: RoomView | None = None) -> bool:
        """Whether the game's stored version moved from `version` within `timeout` seconds (False at once
        once the server is stopping): one follower of the store's changes per worker wakes every stream. A
        game in a room waits on the room and the room's games too (`room`, as the viewer saw it)."""
        versions = {game_id: version, **(room.versions if room is not None else {})}
        return await self.changes.wait_any(versions, timeout)

    def _computer_if_due(self, game_id: str, game: Game) -> None:
        if modes.get_mode(game.mode).computer_to_move(game):
            self.start_computer(game_id)

    def start_computer(self, game_id: str) -> None:
        """Play the computer's turns of the game in the background, at a human pace, unless they already are
        here. Whichever worker sees the turn due starts it: a turn cut short by a restart is played at the
        next look at the game (a page, its live stream or poll, an API read); two workers that both start it
        play one move, as the store's version check lets only one through."""
        if game_id in self._computers or self.changes.closed:
            return
        task = asyncio.get_running_loop().create_task(self._computer_turns(game_id))
        self._computers[game_id] = task
        task.add_done_callback(lambda _: self._computers.pop(game_id, None))

    async def _computer_turns(self, game_id: str) -> None:
        while True:
            await anyio.sleep(self.settings.computer_pause)
            try:
                again = await self.runner.run("computer-move", game_id, self.deals.next(), self.clock())
            except Exception:
                # The game waits on the computer; opening its page starts the turn again.
                log.exception("the computer could not move in game %s", game_id)
                return
            if not again:
                return

    @operation("computer-move")
    def _computer_move(self, game_id: str, rng: random.Random, now: float) -> bool:
        """One move of the computer's, if it is its turn; True when it is its turn again."""
        before = self.store.load(game_id, COMPUTER)
        rules = modes.get_mode(before.mode)
        if not rules.computer_to_move(before):
            return False
        limits = self.limits()
        move = rules.computer_move(before, rng, limits)
        analyzer = self._analyzer(game_id, before)
        after, outcome = modes.apply_move(before, move, rng=rng, now=now, analyzer=analyzer, limits=limits)
        self._grade_at_end(before, after)
        self.store.save(game_id, COMPUTER, after, before.version)
        self.analyzers.put(game_id, after, outcome.analyzer)
        return rules.computer_to_move(after)
