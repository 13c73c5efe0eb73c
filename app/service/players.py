"""A player's own keeping as a whole: everything the server holds about them, to download, and deleting it all.

The store lists what it keeps about a player and takes it away at once (Store.holdings, Store.forget); this part
reads their games and rooms for the export, and keeps both operations within a client address's limit. What the
download looks like is the web layer's (app/web/schemas/players.py).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from app.core.errors import KaboomError
from app.core.game import Game
from app.core.languages import lazy_gettext
from app.service.context import Context
from app.store import Corrupt, Holdings, NotFound


class PlayerLimited(KaboomError):
    """Too many exports or deletions from one client address in the current window."""

    @classmethod
    def of(cls, limit: int, window: float) -> PlayerLimited:
        return cls(
            lazy_gettext(
                "Too many downloads or deletions of a player's data from your address: at most %(limit)s every "
                "%(window)s seconds. Wait a little.",
                limit=limit,
                window=format(window, "g"),
            )
        )


@dataclass(frozen=True)
class Export:
    """Everything the server holds about a player: what the store keeps, with their games and rooms read
    (None for one that does not read back: its id is all there is to give)."""

    player: str
    holdings: Holdings
    games: dict[str, Game]  # as the player's page shows them (Game.seen_by)
    damaged: list[str]  # games that do not read back
    closed: list[str]  # games of a room they left: their seat keeps its moves, and no longer opens the game
    rooms: dict[str, Any]


class PlayerOperations:
    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.settings = context.settings

    def _within_limit(self, client: str) -> None:
        limit, window = self.settings.player_limit, self.settings.player_window
        if not self.store.allow(f"player:{client}", limit, window):
            raise PlayerLimited.of(limit, window)

    async def export(self, player: str, client: str) -> Export:
        """Everything the server holds about `player`; PlayerLimited past the client's limit."""
        return await self.context.offload(self._export, player, client)

    def _export(self, player: str, client: str) -> Export:
        self._within_limit(client)
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
        return Export(player, holdings, games, damaged, closed, rooms)

    async def forget(self, player: str, client: str) -> None:
        """Delete everything held about `player`, at once: games and rooms of theirs alone go; in one others
        share, their seat or place is kept by a new id nobody holds (Store.forget). PlayerLimited past the
        client's limit."""
        await self.context.offload(self._forget, player, client)

    def _forget(self, player: str, client: str) -> None:
        self._within_limit(client)
        holdings = self.store.holdings(player)
        self.store.forget(player, secrets.token_urlsafe(16))
        for game_id in holdings.games:
            self.context.forget(game_id)
