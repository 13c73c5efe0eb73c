"""Games in this process's memory: for tests and for trying things out; gone on a restart."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from typing import Any

from app.core.game import Game
from app.core.seats import vacated
from app.store.base import (
    GAMES_LISTED,
    LADDER_LISTED_GROUPS,
    Clock,
    Conflict,
    Holdings,
    Kept,
    LadderPage,
    Listing,
    NotFound,
    Store,
    check_ladder_arguments,
    creator,
    ladder_row,
    names_player,
    new_game_id,
    window_start,
)


class MemoryStore(Store):
    def __init__(self, clock: Clock = time.time, *, kept: Kept) -> None:
        super().__init__(clock, kept)
        self._games: dict[str, dict[str, Any]] = {}
        self._counters: dict[str, tuple[float, int]] = {}
        self._results: dict[str, dict[str, str]] = {}  # player -> game id -> result, in the order kept
        self._tallies: dict[str, dict[str, str]] = {}  # player -> app.results.records tally key -> JSON
        self._boards: dict[str, dict[str, str]] = {}  # player -> board id -> the game whose end first showed it
        self._presence: dict[tuple[str, int], float] = {}  # (game id, seat) -> connected until
        self._rooms: dict[str, dict[str, Any]] = {}  # room id -> data, version, members, updated
        self._names: dict[str, str] = {}  # player -> the display name they chose
        self._named_at: dict[str, float] = {}  # player -> when they chose it
        self._audit: list[str] = []  # the host's audit log, oldest first
        # ladder key -> player -> (group, millis, the order kept, entry JSON), and player -> ladder key -> entry JSON
        self._ladders: dict[str, dict[str, tuple[int, int, int, str]]] = {}
        self._entered: dict[str, dict[str, str]] = {}
        self._ladder_kept: dict[str, int] = {}  # ladder key -> entries it ever kept (the next one's order)
        self._claims: dict[str, str] = {}
        self._passkeys: dict[str, tuple[str, str]] = {}  # credential id -> (player, data)
        self._tokens: dict[str, tuple[str, float]] = {}  # key -> (value, until)
        # Every change notifies waiters; one lock keeps reads and writes whole across threads.
        self._changed = threading.Condition()

    def create(self, game: Game, keep: int = 100) -> str:
        maker = creator(game)
        with self._changed:
            mine = [
                (row["status"] == "playing", row["updated"], game_id)
                for game_id, row in self._games.items()
                if row["creator"] == maker
            ]
            for _, _, old in sorted(mine)[: max(0, len(mine) - keep + 1)]:
                del self._games[old]
            game_id = new_game_id()
            self._games[game_id] = {
                "creator": maker,
                "seats": game.credentials(),
                "data": self._encode(game),
                "history": [],
                "updated": self.clock(),
                "status": game.status,
                "version": game.version,
            }
        return game_id

    def _row(self, game_id: str, player: str) -> dict[str, Any]:
        row = self._games.get(game_id)
        if row is None or player not in row["seats"]:
            raise NotFound(game_id)
        return row

    def load(self, game_id: str, player: str) -> Game:
        with self._changed:
            row = self._row(game_id, player)
            version, data, records = row["version"], row["data"], list(row["history"])
        return self._decode(game_id, player, version, data, records)

    def save(self, game_id: str, player: str, game: Game, read_version: int) -> None:
        data = self._encode(game, game_id)
        records = [json.dumps(record) for record in game.history]
        with self._changed:
            row = self._row(game_id, player)
            if row["version"] != read_version:
                raise Conflict(game_id)
            row.update(
                data=data,
                history=records,
                updated=self.clock(),
                status=game.status,
                version=game.version,
                seats=game.credentials() or row["seats"],
            )
            room = self._rooms.get(game.room["id"]) if game.room else None
            if room is not None:
                room["updated"] = row["updated"]
            self._changed.notify_all()
        self._remember_history(game_id, game)

    def games_of(self, player: str, limit: int = GAMES_LISTED) -> list[Listing]:
        with self._changed:
            mine = [
                (row["updated"], game_id, row["version"], row["data"])
                for game_id, row in self._games.items()
                if player in row["seats"] and player not in row.get("departed", ())
            ]
        mine.sort(reverse=True)
        return [self._listing(game_id, version, data, updated) for updated, game_id, version, data in mine[:limit]]

    def delete(self, game_id: str, player: str) -> None:
        with self._changed:
            self._row(game_id, player)
            del self._games[game_id]
            self._changed.notify_all()
        with self._cache_lock:
            self._histories.pop(game_id, None)

    def leave(self, game_id: str, player: str) -> None:
        with self._changed:
            self._row(game_id, player).setdefault("departed", set()).add(player)

    def expire(self, idle_before: float) -> int:
        with self._changed:
            old = [game_id for game_id, row in self._games.items() if row["updated"] < idle_before]
            for game_id in old:
                del self._games[game_id]
            idle = [room_id for room_id, row in self._rooms.items() if row["updated"] < idle_before]
            for room_id in idle:
                del self._rooms[room_id]
            now = self.clock()
            self._tokens = {key: held for key, held in self._tokens.items() if held[1] > now}
            self._changed.notify_all()
        return len(old) + len(idle)

    def record_result(self, player: str, game_id: str, result: dict[str, Any] | None, board: str | None = None) -> None:
        with self._changed:
            if board is not None and self._boards.setdefault(player, {}).setdefault(board, game_id) != game_id:
                return
            results = self._results.setdefault(player, {})
            if result is None or game_id in results:
                return
            text = results[game_id] = json.dumps(result)
            tallies = self._tallies.setdefault(player, {})
            key = self.kept.tally_key(text)
            rows = {name: tallies[name] for name in (self.kept.tallied, key) if name in tallies}
            changes = self.kept.tally(rows, text, len(results) == 1)
            if changes is None:
                tallies.clear()  # counted again from every result when next read, as the other stores do
            else:
                tallies.update(changes)

    def board_seen_in(self, player: str, board: str) -> str | None:
        with self._changed:
            return self._boards.get(player, {}).get(board)

    def results_of(self, player: str) -> list[str]:
        with self._changed:
            return list(self._results.get(player, {}).values())

    def results_by_game(self, player: str) -> dict[str, str]:
        with self._changed:
            return dict(self._results.get(player, {}))

    def tallies_of(self, player: str) -> dict[str, str]:
        with self._changed:
            tallies = dict(self._tallies.get(player, {}))
            return tallies if self.kept.tallied in tallies else self._retally(player)

    def retally(self, player: str) -> dict[str, str]:
        with self._changed:
            return self._retally(player)

    def _retally(self, player: str) -> dict[str, str]:
        results = list(self._results.get(player, {}).values())
        self._tallies[player] = self.kept.recount(results) if results else {}
        return dict(self._tallies[player])

    def count_event(self, key: str, limit: int, window: float) -> bool:
        start = window_start(self.clock(), window)
        with self._changed:
            started, count = self._counters.get(key, (start, 0))
            if started != start:
                count = 0
            self._counters[key] = (start, count + 1)
        return count + 1 <= limit

    def stored_version(self, game_id: str) -> int | None:
        with self._changed:
            row = self._games.get(game_id) or self._rooms.get(game_id)
            return None if row is None else row["version"]

    def mark_present(self, game_id: str, seat: int, until: float) -> None:
        with self._changed:
            self._presence[(game_id, seat)] = until

    def present(self, game_id: str) -> set[int]:
        now = self.clock()
        with self._changed:
            return {seat for (game, seat), until in self._presence.items() if game == game_id and until > now}

    def create_room(self, room: Any) -> str:
        room_id = new_game_id()
        data = self._room_data(room, room_id)
        with self._changed:
            self._rooms[room_id] = {
                "data": data,
                "version": room.version,
                "members": room.players(),
                "updated": self.clock(),
            }
        return room_id

    def load_room(self, room_id: str) -> Any:
        with self._changed:
            row = self._rooms.get(room_id)
            if row is None:
                raise NotFound(room_id)
            version, data = row["version"], row["data"]
        return self._read_room(room_id, version, data)

    def save_room(self, room_id: str, room: Any, read_version: int) -> None:
        data = self._room_data(room, room_id)
        with self._changed:
            row = self._rooms.get(room_id)
            if row is None:
                raise NotFound(room_id)
            if row["version"] != read_version:
                raise Conflict(room_id)
            row.update(data=data, version=room.version, members=room.players(), updated=self.clock())
            self._changed.notify_all()

    def delete_room(self, room_id: str) -> None:
        with self._changed:
            self._rooms.pop(room_id, None)
            self._changed.notify_all()

    def rooms_of(self, player: str) -> list[str]:
        with self._changed:
            mine = [(row["updated"], room_id) for room_id, row in self._rooms.items() if player in row["members"]]
        return [room_id for _, room_id in sorted(mine, reverse=True)]

    def peek(self, game_ids: list[str]) -> dict[str, Game | None]:
        with self._changed:
            rows = {game_id: self._games.get(game_id) for game_id in game_ids}
            stored = {game_id: (row["version"], row["data"]) if row else None for game_id, row in rows.items()}
        return {game_id: self._glance(*found) if found else None for game_id, found in stored.items()}

    def set_name(self, player: str, name: str) -> None:
        with self._changed:
            self._names[player] = name
            self._named_at[player] = self.clock()

    def recent_names(self, limit: int) -> list[tuple[str, str, float]]:
        with self._changed:
            named = [(player, name, self._named_at.get(player, 0.0)) for player, name in self._names.items()]
        return sorted(named, key=lambda line: line[2], reverse=True)[:limit]

    def drop_name(self, player: str) -> bool:
        with self._changed:
            self._named_at.pop(player, None)
            return self._names.pop(player, None) is not None

    def drop_ladder_entry(self, ladder: str, player: str) -> bool:
        with self._changed:
            self._entered.get(player, {}).pop(ladder, None)
            return self._ladders.get(ladder, {}).pop(player, None) is not None

    def write_audit(self, entry: str) -> None:
        with self._changed:
            self._audit.append(entry)

    def audit_log(self, limit: int) -> list[str]:
        with self._changed:
            return self._audit[::-1][:limit]

    def names_of(self, players: list[str]) -> dict[str, str]:
        with self._changed:
            return {player: self._names[player] for player in players if player in self._names}

    def enter_ladder(self, ladder: str, player: str, group: int, millis: int, entry: str) -> bool:
        check_ladder_arguments(group=group, millis=millis)
        with self._changed:
            entries = self._ladders.setdefault(ladder, {})
            if player in entries:
                return False
            kept = self._ladder_kept[ladder] = self._ladder_kept.get(ladder, 0) + 1
            entries[player] = (group, millis, kept, entry)
            self._entered.setdefault(player, {})[ladder] = entry
            return True

    def ladder(self, ladder: str, limit: int, player: str | None = None) -> LadderPage:
        check_ladder_arguments(limit=limit)
        with self._changed:
            stored = self._ladders.get(ladder, {})
            ranked = sorted((group, millis, kept, who, entry) for who, (group, millis, kept, entry) in stored.items())
        rows = [
            ladder_row(place, who, group, millis, entry)
            for place, (group, millis, _, who, entry) in enumerate(ranked, 1)
        ]
        top = [row for row in rows if row is not None and row.group < LADDER_LISTED_GROUPS][:limit]
        own = next((row for row in rows if row is not None and row.player == player), None)
        counts = Counter(group for group, *_ in ranked)
        return LadderPage(top, own, (counts[0], counts[1], counts[2]))

    def ladder_entries_of(self, player: str) -> dict[str, str]:
        with self._changed:
            return dict(self._entered.get(player, {}))

    def claim(self, key: str, value: str, expected: str | None = None) -> bool:
        with self._changed:
            if self._claims.get(key) != expected:
                return False
            self._claims[key] = value
            return True

    def claimed(self, key: str) -> str | None:
        with self._changed:
            return self._claims.get(key)

    def release(self, key: str, value: str) -> None:
        with self._changed:
            if self._claims.get(key) == value:
                del self._claims[key]

    # ----- passkeys and one-time tokens ---------------------------------------------------------------

    def keep_passkey(self, player: str, credential_id: str, data: str) -> bool:
        with self._changed:
            if credential_id in self._passkeys:
                return False
            self._passkeys[credential_id] = (player, data)
            return True

    def passkey(self, credential_id: str) -> tuple[str, str] | None:
        with self._changed:
            return self._passkeys.get(credential_id)

    def passkeys_of(self, player: str) -> dict[str, str]:
        with self._changed:
            return {key: data for key, (owner, data) in self._passkeys.items() if owner == player}

    def update_passkey(self, player: str, credential_id: str, data: str) -> bool:
        with self._changed:
            if self._passkeys.get(credential_id, ("", ""))[0] != player:
                return False
            self._passkeys[credential_id] = (player, data)
            return True

    def drop_passkey(self, player: str, credential_id: str) -> bool:
        with self._changed:
            if self._passkeys.get(credential_id, ("", ""))[0] != player:
                return False
            del self._passkeys[credential_id]
            return True

    def put_token(self, key: str, value: str, until: float) -> bool:
        with self._changed:
            held = self._tokens.get(key)
            if held is not None and held[1] > self.clock():
                return False
            self._tokens[key] = (value, until)
            return True

    def take_token(self, key: str) -> str | None:
        with self._changed:
            value, until = self._tokens.pop(key, (None, 0.0))
            return value if until > self.clock() else None

    # ----- a player's whole keeping -------------------------------------------------------------------

    def holdings(self, player: str) -> Holdings:
        with self._changed:
            games = [game_id for game_id, row in self._games.items() if self._names_in(row["seats"], player)]
            return Holdings(
                games=games,
                left=[game_id for game_id in games if player in self._games[game_id].get("departed", ())],
                rooms=[room_id for room_id, row in self._rooms.items() if player in row["members"]],
                results=self.results_by_game(player),
                tallies=dict(self._tallies.get(player, {})),
                boards=dict(self._boards.get(player, {})),
                name=self._names.get(player),
                ladders=dict(self._entered.get(player, {})),
                claims={key: value for key, value in self._claims.items() if names_player(key, value, player)},
                passkeys=self.passkeys_of(player),
                tokens={key: value for key, (value, _) in self._tokens.items() if names_player(key, value, player)},
            )

    @staticmethod
    def _names_in(credentials: list[str], player: str) -> bool:
        return player in credentials or vacated(player).id in credentials

    def forget(self, player: str, stand_in: str) -> None:
        with self._changed:
            games, rooms = self._recast_all(player, stand_in, forget=True)
            _apply(self._games, games)
            _apply(self._rooms, rooms)
            for kept in (self._results, self._tallies, self._boards, self._names, self._named_at):
                kept.pop(player, None)
            for ladder in self._entered.pop(player, {}):
                self._ladders[ladder].pop(player, None)
            for key in [key for key, value in self._claims.items() if names_player(key, value, player)]:
                del self._claims[key]
            for key in [key for key, (owner, _) in self._passkeys.items() if owner == player]:
                del self._passkeys[key]
            for key in [key for key, (value, _) in self._tokens.items() if names_player(key, value, player)]:
                del self._tokens[key]
            self._changed.notify_all()
        self._forget_histories(games)

    def merge(self, source: str, target: str) -> None:
        if source == target:
            return
        with self._changed:
            games, rooms = self._recast_all(source, target, forget=False)
            results = self._results.pop(source, {})
            self._results[target] = {**results, **self._results.get(target, {})}
            self._boards[target] = {**self._boards.pop(source, {}), **self._boards.get(target, {})}
            name, named_at = self._names.pop(source, None), self._named_at.pop(source, 0.0)
            if name is not None and target not in self._names:
                self._names[target], self._named_at[target] = name, named_at
            for ladder in self._entered.pop(source, {}):
                entries = self._ladders[ladder]
                mine, theirs = entries.pop(source), entries.get(target)
                first = mine if theirs is None or mine[2] < theirs[2] else theirs  # the one kept first
                entries[target] = first
                self._entered.setdefault(target, {})[ladder] = first[3]
            for key, value in [(key, value) for key, value in self._claims.items() if names_player(key, value, source)]:
                del self._claims[key]
                self._claims.setdefault(key.replace(source, target), target if value == source else value)
            for key, (owner, data) in list(self._passkeys.items()):
                if owner == source:
                    self._passkeys[key] = (target, data)
            for key, (value, until) in list(self._tokens.items()):
                if names_player(key, value, source):
                    del self._tokens[key]
                    self._tokens[key.replace(source, target)] = (target if value == source else value, until)
            _apply(self._games, games)
            _apply(self._rooms, rooms)
            # Counted again from the results together when next read (tallies_of).
            self._tallies.pop(source, None)
            self._tallies.pop(target, None)
            self._changed.notify_all()
        self._forget_histories(games)

    def _recast_all(
        self, source: str, target: str, *, forget: bool
    ) -> tuple[dict[str, dict[str, Any] | None], dict[str, dict[str, Any] | None]]:
        """The rows of `source`'s games and rooms as they will be (None: gone), computed before any is changed, so
        that a game that does not read back leaves everything as it was."""
        rooms: dict[str, dict[str, Any] | None] = {}
        for room_id, row in self._rooms.items():
            if source in row["members"]:
                room = self._recast_room(row["data"], source, target, forget=forget)
                rooms[room_id] = (
                    None
                    if room is None
                    else {
                        **row,
                        "data": self._room_data(room, room_id),
                        "version": room.version,
                        "members": room.players(),
                    }
                )
        rooms_kept = {room_id for room_id, row in rooms.items() if row is not None} if forget else None
        games: dict[str, dict[str, Any] | None] = {}
        for game_id, row in self._games.items():
            if not self._names_in(row["seats"], source):
                continue
            game = self._recast_game(row["data"], source, target, rooms_kept=rooms_kept)
            games[game_id] = (
                None
                if game is None
                else {
                    **row,
                    "creator": game.maker,
                    "seats": game.credentials(),
                    "data": self._encode(game, game_id),
                    "version": game.version,
                    # Taken off the source's list: off the target's too, or off nobody's when forgotten.
                    "departed": {target if who == source else who for who in row.get("departed", ())}
                    - ({target} if forget else set()),
                }
            )
        return games, rooms


def _apply(kept: dict[str, dict[str, Any]], rows: dict[str, dict[str, Any] | None]) -> None:
    """Put these rows in place of those of the same id; None: take the row away."""
    for row_id, row in rows.items():
        if row is None:
            kept.pop(row_id, None)
        else:
            kept[row_id] = row
