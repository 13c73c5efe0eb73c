"""The operations of games of several seats: taking an invitation's seat, giving back one nobody took, who is
present, waiting for a game to change, and the computer's turns played at a human pace."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING

import anyio

from app import modes
from app.core.game import Game
from app.core.seats import COMPUTER, computers, held_by, watcher
from app.service.changes import ChangeFeed, StreamSlots
from app.service.context import Context
from app.service.hooks import GameEnd
from app.service.runner import operation

if TYPE_CHECKING:
    from app.service.rooms import RoomView

log = logging.getLogger("kaboom")


class SeatOperations:
    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.runner = context.runner
        # Live streams wait on one follower of the store's changes (app.service.changes), within their caps.
        self.changes = ChangeFeed(context.store)
        self.streams = StreamSlots(context.settings.live_streams_per_client, context.settings.live_streams)
        self.computers: dict[str, asyncio.Task] = {}  # games whose computer turns this process plays
        context.hooks.seen.append(self.computer_if_due)

    def stop(self) -> None:
        """The server is stopping: live streams end now (their pages reconnect to whichever server answers
        next), and the computer stops between turns (any worker that sees its turn due plays it later)."""
        self.changes.close()
        for task in list(self.computers.values()):
            task.cancel()

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
        _, version, present = await self.looked_at_live(game_id, player, asker)
        return version, present

    async def looked_at_live(
        self, game_id: str, player: str, asker: str | None = None
    ) -> tuple[Game, int, frozenset[int]]:
        """The game as `live` reads it, with its version and who is present."""
        context = self.context
        game, version, present = await context.offload(self._live, game_id, player, asker, limiter=context.live_limiter)
        # A live page asks every few seconds: after a restart cut the computer's turn short, this plays it.
        self.computer_if_due(game_id, game)
        return game, version, present

    def _live(self, game_id: str, player: str, asker: str | None = None) -> tuple[Game, int, frozenset[int]]:
        game = self.context.hooks.shown_by_link(game_id, self.store.load(game_id, player), player, asker)
        if game.status == "playing":
            for seat in held_by(game.seats, player):
                self.context.mark_present(game_id, seat)
        present = frozenset(self.store.present(game_id)) | computers(game.seats)
        return game, game.version, present

    async def wait_for_change(self, game_id: str, version: int, timeout: float, room: RoomView | None = None) -> bool:
        """Whether the game's stored version moved from `version` within `timeout` seconds (False at once
        once the server is stopping): one follower of the store's changes per worker wakes every stream. A
        game in a room waits on the room and the room's games too (`room`, as the viewer saw it)."""
        versions = {game_id: version, **(room.versions if room is not None else {})}
        return await self.changes.wait_any(versions, timeout)

    def computer_if_due(self, game_id: str, game: Game) -> None:
        if modes.get_mode(game.mode).computer_to_move(game):
            self.start_computer(game_id)

    def start_computer(self, game_id: str) -> None:
        """Play the computer's turns of the game in the background, at a human pace, unless they already are
        here. Whichever worker sees the turn due starts it: a turn cut short by a restart is played at the
        next look at the game (a page, its live stream or poll, an API read); two workers that both start it
        play one move, as the store's version check lets only one through."""
        if game_id in self.computers or self.changes.closed:
            return
        task = asyncio.get_running_loop().create_task(self._computer_turns(game_id))
        self.computers[game_id] = task
        task.add_done_callback(lambda _: self.computers.pop(game_id, None))

    async def _computer_turns(self, game_id: str) -> None:
        context = self.context
        while True:
            await anyio.sleep(context.settings.computer_pause)
            try:
                again = await self.runner.run("computer-move", game_id, context.deals.next(), context.clock())
            except Exception:
                # The game waits on the computer; opening its page starts the turn again.
                log.exception("the computer could not move in game %s", game_id)
                return
            if not again:
                return

    @operation("computer-move")
    def _computer_move(self, game_id: str, rng: random.Random, now: float) -> bool:
        """One move of the computer's, if it is its turn; True when it is its turn again."""
        context = self.context
        before = self.store.load(game_id, COMPUTER)
        rules = modes.get_mode(before.mode)
        if not rules.computer_to_move(before):
            return False
        limits = context.limits()
        move = rules.computer_move(before, rng, limits)
        analyzer = context.analyzer(game_id, before)
        after, outcome = modes.apply_move(before, move, rng=rng, now=now, analyzer=analyzer, limits=limits)
        if before.status == "playing" and after.status != "playing":
            context.hooks.game_ending(GameEnd(game_id, COMPUTER, before, after))
        self.store.save(game_id, COMPUTER, after, before.version)
        context.analyzers.put(game_id, after, outcome.analyzer)
        return rules.computer_to_move(after)
