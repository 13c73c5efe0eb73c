"""A player as a whole: everything the server holds about them, to download or delete; two players made one when
a device that has games of its own signs in as another (app/service/devices.py: how it signs in); their progress
over time.

The store lists what it keeps about a player, takes it away and merges two players, each at once (Store.holdings,
Store.forget, Store.merge); this part reads their games and rooms for the export, and keeps an export and a deletion
within a client address's limit (a merge follows a sign-in, which has its own). What the download looks like, and
the pages, are the web layer's.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from app.core.game import Game
from app.results.progress import Progress, progress_of
from app.service.context import Context
from app.service.devices import Passkey, passkeys_in, within_limit
from app.store import Corrupt, Holdings, NotFound


@dataclass(frozen=True)
class Export:
    """Everything the server holds about a player: what the store keeps, with their games and rooms read (a game
    that does not read back, or that they no longer open, by its id alone; a room that does not, None)."""

    player: str
    holdings: Holdings
    games: dict[str, Game]  # as the player's page shows them (Game.seen_by)
    damaged: list[str]  # games that do not read back
    closed: list[str]  # games of a room they left: their seat keeps its moves, and no longer opens the game
    rooms: dict[str, Any]
    passkeys: list[Passkey]


class PlayerOperations:
    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.settings = context.settings

    async def export(self, player: str, client: str) -> Export:
        """Everything the server holds about `player`; PlayerLimited past the client's limit."""
        return await self.context.offload(self._export, player, client)

    def _export(self, player: str, client: str) -> Export:
        within_limit(self.context, client)
        holdings = self.store.holdings(player)
        games: dict[str, Game] = {}
        damaged, closed = [], []
        for game_id in holdings.games:
            try:
                games[game_id] = self.store.load(game_id, player).seen_by(player)
            except NotFound:
                closed.append(game_id)
            except Corrupt:
                damaged.append(game_id)
        rooms: dict[str, Any] = {}
        for room_id in holdings.rooms:
            try:
                rooms[room_id] = self.store.load_room(room_id)
            except (NotFound, Corrupt):
                rooms[room_id] = None
        return Export(player, holdings, games, damaged, closed, rooms, passkeys_in(holdings.passkeys))

    async def forget(self, player: str, client: str) -> None:
        """Delete everything held about `player`, at once: games and rooms of theirs alone go; in one others
        share, their seat or place is kept by a new id nobody holds (Store.forget). PlayerLimited past the
        client's limit."""
        await self.context.offload(self._forget, player, client)

    def _forget(self, player: str, client: str) -> None:
        within_limit(self.context, client)
        holdings = self.store.holdings(player)
        self.store.forget(player, secrets.token_urlsafe(16))
        for game_id in holdings.games:
            self.context.forget(game_id)

    # ----- two players made one -------------------------------------------------------------------------------

    async def has_keeping(self, player: str) -> bool:
        """Whether the server keeps anything of `player`'s a sign-in as another would leave behind."""
        return await self.context.offload(self._has_keeping, player)

    def _has_keeping(self, player: str) -> bool:
        store = self.store
        return bool(
            store.games_of(player, limit=1)
            or store.results_of(player)
            or store.ladder_entries_of(player)
            or store.rooms_of(player)
            or store.names_of([player])
            or store.passkeys_of(player)
        )

    async def merge(self, source: str, target: str) -> None:
        """Make `source` `target`, at once (Store.merge): a device that had games of its own signed in as
        `target` and brings them along."""
        await self.context.offload(self._merge, source, target)

    def _merge(self, source: str, target: str) -> None:
        if source == target:
            return
        kept = self.store.holdings(source)
        self.store.merge(source, target)
        for game_id in kept.games:
            self.context.forget(game_id)
        for listener in self.context.hooks.merged:
            listener(source, target, kept)

    # ----- progress over time ---------------------------------------------------------------------------------

    async def progress(self, player: str) -> Progress:
        """The player's progress from their results."""
        return await self.context.offload(lambda: progress_of(self.store.results_by_game(player), self.context.clock()))

    async def kept(self, game_ids: list[str]) -> set[str]:
        """Which of these games are still kept (a finished one's replay opens)."""
        versions = await self.context.offload(self.store.stored_versions, game_ids)
        return {game_id for game_id, version in versions.items() if version is not None}
