"""The store contract: games by an unguessable id, for the players who hold a seat in them.

Every store (memory, SQLite, Redis) keeps the same promises, checked by one
set of tests run against each (tests/test_store.py):
- `create` keeps a new game; the player in seat 0 made it, and a player keeps
  at most `keep` games they made (finished ones go first, then the longest idle).
- `load` answers only a player with a seat (NotFound otherwise, the same as
  for a game that does not exist); a stored game that does not pass every
  check of its schema (app.core.stored), undo records included, or whose stored
  version disagrees with its data, is Corrupt, and only that game is.
- `save` writes all of a game or nothing, and only over the version it was
  read at (Conflict otherwise); its credentials (Game.credentials: the
  strings that open it) are stored as the game has them: a new player is
  indexed with it, and one whose seat went to another (an invitation's seat
  freed) no longer gets in. A game that would not read
  back is not written (Corrupt).
- `games_of` lists the games a player holds a seat in and has not left, the
  most recently played first, damaged ones included (without their game);
  `delete` takes a game and its history away, for a player with a seat only;
  `leave` takes it off one player's list for good, their seat kept as played.
- `stored_versions` says the versions stored now, and `changes` follows which
  games were saved (app.service.changes: one follower per worker for all live pages).
- `allow` counts events per key in fixed windows of the store's clock, shared
  by every process using the store.
- `mark_present` notes that a seat of a game is watching it until a time of the
  store's clock; `present` names the seats noted for now (live Flags games show
  whether the other player is connected, whichever process serves them).
- `lease` keeps other processes off a game while a move is worked out.
- Rooms (app.rooms) are kept as games are, by an id of the same space: `save_room`
  writes all or nothing over the version read (Conflict otherwise), a room that
  does not read back is Corrupt, and only that room is; `rooms_of` lists a
  member's rooms, the most recently active first. A room is active when it or
  one of its games (Game.room) is saved, and expires once idle like a game;
  deleting a room leaves its games. `peek` reads games for a room's page,
  without a seat check and without history.
- `record_result` keeps a game's first end for its player's records, in one
  write with the player's tallies (what the records show, app.results.records), and
  notes the board it showed; only the player's first game of a board to end
  is a result. `tallies_of` reads the tallies without the results, however
  many; results kept before tallies are counted once, when next needed.
- `set_name` keeps the display name a player chose, `names_of` reads many at once.
- Ladders (a board of the day's, by its key) keep each player's first entry only: `enter_ladder` refuses
  a later one, atomically across processes. `ladder` ranks the entries by (group, time, the order they
  were kept) and pages the top with the player's own place; `ladder_entries_of` lists a player's entries.
  Damaged entries are left off the page, never raised.
- `holdings` lists everything the store keeps about one player (their export holds it); `forget` takes it all
  away at once (a game or room others share stays theirs, with the player's seat or place held by a stand-in
  id), and `merge` makes two players one at once (nothing lost, nothing counted twice). Neither is ever half
  applied: a process killed midway leaves both players as they were.
- Passkeys are kept by their credential id, each for one player (`keep_passkey` refuses an id kept already),
  their data the app's JSON; one-time tokens (`put_token`, `take_token`) hold a value until a time of the
  store's clock, and are taken once: two takers at once, one gets it.
- A store that cannot be reached, or cannot write (a full or read-only disk),
  raises StoreUnavailable, and works again once the fault is gone, without a restart.
Times (last update, expiry, rate windows) come from `clock`, so tests can
move time instead of sleeping.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
from collections.abc import Callable, Container, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from app.core.errors import KaboomError
from app.core.game import Game
from app.core.seats import Player, people, recast
from app.core.stored import dump, read_records, read_state

Clock = Callable[[], float]
# How many of a player's games the list shows: as many as a player may keep (create's `keep`).
GAMES_LISTED = 100


@dataclass(frozen=True)
class Listing:
    """One of a player's games in their list: the game without its history (None when its data is
    damaged: it can still be deleted), and when it was last played (the store clock's seconds)."""

    game_id: str
    game: Game | None
    updated_at: float


class NotFound(KaboomError):
    """No such game for this player (a game they hold no seat in is not found either); the argument is its id."""

    def __init__(self, game_id: str):
        super().__init__(game_id)
        self.message = "no such game"


class Corrupt(KaboomError):
    """A stored game that cannot be read back; other games are unaffected."""


class Conflict(KaboomError):
    """The game changed since it was read: the write was not applied; the argument is its id."""

    def __init__(self, game_id: str):
        super().__init__(game_id)
        self.message = "the game changed through another request at the same moment"


# How long a move waits for another process's move on the same game (Store.lease) before it gives up.
LEASE_WAIT_SECONDS = 30


class StoreUnavailable(KaboomError):
    """The store cannot read or write just now (a full or read-only disk, Redis unreachable); it recovers by itself.

    `message` is for the player; `part` names the store that is down, for /healthz."""

    def __init__(self, message: str, part: str):
        super().__init__(message)
        self.part = part

    def __reduce__(self):
        # Raised in the slow lane's process too, and sent back whole.
        return type(self), (self.message, self.part)


def new_game_id() -> str:
    # 128 bits from the OS, URL-safe.
    return secrets.token_urlsafe(16)


def window_start(now: float, window: float) -> float:
    """The start of the fixed rate window `now` falls in."""
    return now - now % window


# Ladder groups, the first ranked first: a clean win, an assisted win, anything else (a loss).
LADDER_GROUPS = 3
# The groups a ladder's top lists (the wins, clean or assisted): a loss shows as its player's own entry only.
LADDER_LISTED_GROUPS = 2
# The longest time an entry may take (about 35 years): the Redis store ranks group and time by one exact score.
LADDER_MILLIS = 2**40


@dataclass(frozen=True)
class LadderRow:
    """One entry of a ladder, where it ranks."""

    place: int  # 1-based place among all the ladder's entries in rank order (group, millis, order kept)
    player: str
    group: int
    millis: int
    entry: str  # the JSON text as kept


@dataclass(frozen=True)
class LadderPage:
    """What a ladder's page shows (Store.ladder)."""

    top: list[LadderRow]  # groups 0 and 1 only, at most `limit`, in rank order
    own: LadderRow | None  # the player's, whatever its group; None without a player or an entry
    counts: tuple[int, int, int]  # entries in groups 0, 1, 2


def check_ladder_arguments(*, group: int = 0, millis: int = 0, limit: int = 1) -> None:
    """Refuse what only a bug of the caller asks, the same for every store: ValueError naming it."""
    for name, value in (("group", group), ("millis", millis), ("limit", limit)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"a ladder's {name} is a whole number, not {value!r}")
    if not 0 <= group < LADDER_GROUPS:
        raise ValueError(f"a ladder has groups 0 to {LADDER_GROUPS - 1}, not {group}")
    if not 0 <= millis < LADDER_MILLIS:
        raise ValueError(f"an entry's millis is from 0 to {LADDER_MILLIS - 1}, not {millis}")
    if limit < 1:
        raise ValueError(f"a ladder's page shows at least 1 entry, not {limit}")


def ladder_row(place: int, player: Any, group: Any, millis: Any, entry: Any) -> LadderRow | None:
    """A ladder's row as read back, or None when what the store holds does not read (damage, a write by
    hand): the page leaves that row out rather than fail for every player."""
    if not (
        isinstance(player, str)
        and type(group) is int
        and 0 <= group < LADDER_GROUPS
        and type(millis) is int
        and 0 <= millis < LADDER_MILLIS
        and isinstance(entry, str)
    ):
        return None
    return LadderRow(place, player, group, millis, entry)


# Decoded undo histories each worker keeps (a 100x100 game's reaches about 2 MiB).
HISTORY_CACHE_BYTES = 16 * 2**20
# Keys a process remembers as over their limit (a few dozen bytes each): far more than the addresses that flood it.
REFUSALS_KEPT = 65536


def history_footprint(history: list[dict[str, Any]]) -> int:
    """About how many bytes a decoded history holds: a dict per record, an entry per cell or mark it restores."""
    return sum(600 + 150 * (len(record.get("cells", ())) + len(record.get("marks", ()))) for record in history)


def grown_footprint(known: tuple[int, list[dict[str, Any]], int] | None, history: list[dict[str, Any]]) -> int:
    """The footprint of `history`, from that of the `known` cache entry when `history` grew from its history: a
    move adds records and leaves the ones before it as they were, the same objects."""
    if known is not None:
        _, before, footprint = known
        if len(before) <= len(history) and (not before or before[-1] is history[len(before) - 1]):
            return footprint + history_footprint(history[len(before) :])
    return history_footprint(history)


@dataclass(frozen=True)
class Holdings:
    """Everything a store keeps about one player (Store.holdings), as stored: the app reads the texts."""

    games: list[str]  # the games the player holds a seat in or left one of, listed or taken off their list
    left: list[str]  # of those, the ones they took off their list
    rooms: list[str]  # the rooms they are a member of
    results: dict[str, str]  # game id -> the result kept for the records (JSON), in the order kept
    tallies: dict[str, str]  # what the results add up to (app.results.records)
    boards: dict[str, str]  # board id -> the game whose end first showed the player that board
    name: str | None  # the display name they chose
    ladders: dict[str, str]  # ladder key -> their entry (JSON)
    claims: dict[str, str]  # the claims that name the player, in their key or as their value
    passkeys: dict[str, str]  # credential id -> the passkey as kept (JSON)
    tokens: dict[str, str]  # the one-time tokens in play that name the player (a link code): key -> value

    def __bool__(self) -> bool:
        return any(getattr(self, field.name) for field in dataclasses.fields(self))


def names_player(key: str, value: str, player: str) -> bool:
    """Whether a claim is about `player`: it holds their id, or its key names it (ids are long random tokens,
    so no other key holds one by chance)."""
    return value == player or player in key


@dataclass(frozen=True)
class Kept:
    """What the layers above hand the store so that it can read and write what it keeps without depending on them:
    the modes (a game's state reads back through its mode's schema, app.core.stored), the rooms' codec, and the
    records' tallies (kept in the same write as the result they count). app.service.kept builds the one every
    server uses."""

    modes: Mapping[str, Any]
    encode_room: Callable[[Any], str]
    decode_room: Callable[[str | bytes], Any]  # a room as the rooms read it: its `version` and `players`
    # (room, source, target, forget): Room.recast, naming `target` wherever the room names `source`
    recast_room: Callable[[Any, str, str, bool], None]
    room_seats: int  # presence marks a room may have: one per member's colour
    tallied: str  # the key of a player's tally of everything
    tally_key: Callable[[str], str | None]  # the tally a result counts in beside it, if any
    tally: Callable[[dict[str, str], str, bool], dict[str, str] | None]  # (rows, result, alone) -> rows changed
    recount: Callable[[list[str]], dict[str, str]]  # every tally again from all of a player's results


class Store:
    """What every store offers. Histories of recently used games stay decoded in memory,
    keyed by version: a given version of a game always has the same history."""

    # Whether another process can open the same games from the same settings (the slow lane does).
    shared_by_processes = False

    def __init__(self, clock: Clock, kept: Kept) -> None:
        self.clock = clock
        self.kept = kept
        self._cache_lock = threading.Lock()
        self.bound_history_cache(HISTORY_CACHE_BYTES)
        # Keys found over their limit, and when their window ends (by `clock`): see allow.
        self._over: dict[tuple[str, int, float], float] = {}
        self._over_lock = threading.Lock()

    def bound_history_cache(self, max_bytes: int) -> None:
        """Keep at most about this many bytes of decoded histories (least recently used go first)."""
        with self._cache_lock:
            # An entry is (version, history, its footprint): counted once as the history grows, not again at
            # each move (a 100x100 game's 4,000 records cost a millisecond a move to count whole, twice).
            self._histories: LRUCache[str, tuple[int, list[dict[str, Any]], int]] = LRUCache(
                max_bytes, getsizeof=lambda entry: entry[2]
            )

    def held(self) -> str:
        """What the store itself keeps in this process beyond the histories, in words for the log; "" for nothing."""
        return ""

    @property
    def history_bytes(self) -> int:
        """About how many bytes the decoded histories kept in memory hold now."""
        with self._cache_lock:
            return int(self._histories.currsize)

    def create(self, game: Game, keep: int = 100) -> str:
        raise NotImplementedError

    def load(self, game_id: str, player: str) -> Game:
        raise NotImplementedError

    def save(self, game_id: str, player: str, game: Game, read_version: int) -> None:
        raise NotImplementedError

    def latest(self, player: str) -> str | None:
        """The id of the most recently played game the player holds a seat in."""
        newest = self.games_of(player, limit=1)
        return newest[0].game_id if newest else None

    def games_of(self, player: str, limit: int = GAMES_LISTED) -> list[Listing]:
        """The games the player holds a seat in, the most recently played first (at most `limit`)."""
        raise NotImplementedError

    def delete(self, game_id: str, player: str) -> None:
        """Delete a game the player holds a seat in, with its history; NotFound otherwise."""
        raise NotImplementedError

    def leave(self, game_id: str, player: str) -> None:
        """Take a game off the player's list (games_of, latest) for good, however it goes on; their seat stays
        as played, so its address still opens it for them. NotFound unless they hold a seat."""
        raise NotImplementedError

    def _listing(self, game_id: str, version: Any, data: str | bytes | None, updated_at: Any) -> Listing:
        """A game as the list shows it; a game that does not read back is listed as damaged (game None)."""
        game = self._glance(version, data)
        return Listing(game_id, game, float(updated_at) if isinstance(updated_at, (int, float, str, bytes)) else 0.0)

    def _glance(self, version: Any, data: str | bytes | None) -> Game | None:
        """A game's state without its history, as the list and `peek` read it; None when it is gone, does not
        read back, or its stored version disagrees with its data."""
        try:
            game = read_state(data, self.kept.modes) if data is not None else None
        except ValueError:
            return None
        return game if game is not None and version == game.version else None

    def expire(self, idle_before: float) -> int:
        """Delete games nobody touched since `idle_before` (the store clock's seconds); returns how many."""
        raise NotImplementedError

    def record_result(self, player: str, game_id: str, result: dict[str, Any] | None, board: str | None = None) -> None:
        """Keep a finished game's result for the player's records, once: a game's first end counts, and a
        result outlives its game (deleted, expired or pushed out by newer ones). The player's tallies
        (app.results.records.tally) take it in the same write, all or nothing.

        `board` names the layout the game showed at its end (a board id; None for a game that is its own
        board): once a game of a board ended, the player has seen its layout, and the end of any other game
        of that board is no result, whenever that game started. `result` None: the game ended but is not the
        player's (the bot played in it); its board is seen all the same."""
        raise NotImplementedError

    def board_seen_in(self, player: str, board: str) -> str | None:
        """The game whose end first showed the player this board's layout; None while none has ended."""
        raise NotImplementedError

    def results_of(self, player: str) -> list[str]:
        """The player's results as stored (JSON text, app.results.records reads them), in the order they were kept."""
        raise NotImplementedError

    def results_by_game(self, player: str) -> dict[str, str]:
        """The player's results as stored, by the id of the game each ended (the game may be gone since)."""
        raise NotImplementedError

    def tallies_of(self, player: str) -> dict[str, str]:
        """The player's tallies as stored (key: JSON text, app.results.records.tallied reads them), {} for a player
        without results; a player whose results were kept before tallies has them counted now, once."""
        raise NotImplementedError

    def retally(self, player: str) -> dict[str, str]:
        """Count the player's tallies again from all their results (one that does not read back), and keep them."""
        raise NotImplementedError

    def allow(self, key: str, limit: int, window: float) -> bool:
        """Count one event for `key`; False when it is over `limit` in the current `window` seconds.

        A count never goes down within its window, so a key once refused is refused from this process's memory
        until the window ends: a client flooding past a limit costs no write (SQLite's is under the lock every
        move's write needs) and no round trip to Redis."""
        now = self.clock()
        remembered = (key, limit, window)
        with self._over_lock:
            if self._over.get(remembered, now) > now:
                return False
        if self.count_event(key, limit, window):
            return True
        with self._over_lock:
            if len(self._over) >= REFUSALS_KEPT:
                for ended in [other for other, until in self._over.items() if until <= now]:
                    del self._over[ended]
                while len(self._over) >= REFUSALS_KEPT:
                    del self._over[next(iter(self._over))]  # the longest remembered
            # The window `now` falls in ends no later than the one the store counted in (its clock read later).
            self._over[remembered] = window_start(now, window) + window
        return False

    def count_event(self, key: str, limit: int, window: float) -> bool:
        """allow as the store keeps it: count one event for `key` in the current window, shared by every process."""
        raise NotImplementedError

    def stored_version(self, game_id: str) -> int | None:
        """The version stored now, or None when there is no such game (no seat check: it reveals nothing)."""
        raise NotImplementedError

    def mark_present(self, game_id: str, seat: int, until: float) -> None:
        """The player of `seat` is connected to the game until `until` (the store clock's seconds)."""
        raise NotImplementedError

    def present(self, game_id: str) -> set[int]:
        """The seats of the game whose players are connected now."""
        raise NotImplementedError

    def stored_versions(self, game_ids: list[str]) -> dict[str, int | None]:
        """stored_version of each game, in as few reads as the store allows."""
        return {game_id: self.stored_version(game_id) for game_id in game_ids}

    def changes(self) -> Changes:
        """Where one follower (app.service.changes) hears which games were saved. Without a push channel it
        hears "any of them" every CHANGES_POLL_SECONDS, and looks at all it watches in one read."""
        return PolledChanges(CHANGES_POLL_SECONDS)

    # ----- passkeys and one-time tokens ---------------------------------------------------------------
    # A passkey's data and a token's value are the app's words; the store never reads them.

    def keep_passkey(self, player: str, credential_id: str, data: str) -> bool:
        """Keep a passkey of `player`'s under its credential id; False (nothing kept) when that id is kept already,
        whoever's it is."""
        raise NotImplementedError

    def passkey(self, credential_id: str) -> tuple[str, str] | None:
        """The player a credential id is kept for, and its data; None for an id not kept."""
        raise NotImplementedError

    def passkeys_of(self, player: str) -> dict[str, str]:
        """The player's passkeys: credential id -> data."""
        raise NotImplementedError

    def update_passkey(self, player: str, credential_id: str, data: str) -> bool:
        """Replace the data of one of `player`'s passkeys; False when it is not theirs (or gone)."""
        raise NotImplementedError

    def drop_passkey(self, player: str, credential_id: str) -> bool:
        """Take away one of `player`'s passkeys; False when it is not theirs (or gone already)."""
        raise NotImplementedError

    def put_token(self, key: str, value: str, until: float) -> bool:
        """Keep `value` under `key` until `until` (the store clock's seconds); False when the key is in use."""
        raise NotImplementedError

    def take_token(self, key: str) -> str | None:
        """The value under `key`, taken away: of two takers at once one gets it. None when there is none, or it
        ran out (its time is past)."""
        raise NotImplementedError

    # ----- a player's whole keeping -------------------------------------------------------------------

    def holdings(self, player: str) -> Holdings:
        """Everything the store keeps about `player`."""
        raise NotImplementedError

    def forget(self, player: str, stand_in: str) -> None:
        """Take away everything kept about `player`, all at once: their results, tallies, boards seen, name,
        ladder entries, claims, passkeys and tokens; their games and rooms where nobody else plays; in a game or
        room others share, their seat or place goes to `stand_in` (an id nobody holds), so that the others' game
        goes on."""
        raise NotImplementedError

    def merge(self, source: str, target: str) -> None:
        """Make `source` `target`, all at once: their games, rooms, results, boards seen, passkeys and tokens
        become `target`'s (where both kept one, `target`'s stays), each ladder keeps the entry kept first,
        `target`'s name stays if they chose one, and the tallies are counted again from the results together."""
        raise NotImplementedError

    def _recast_game(
        self, data: str | bytes, source: str, target: str, *, rooms_kept: Container[str] | None = None
    ) -> Game | None:
        """A stored game's state with `target` in `source`'s seats and its version one on (a page open on it
        hears of the change, and a save read before it cannot write the old seats back). Forgetting `source`
        (`rooms_kept` given: the rooms that go on), None for a game nobody else plays, unless it is played in a
        room that goes on (its others see it), and for one that does not read back (it opens for nobody: it goes
        with the player). A merge meeting a game that does not read back is Corrupt: nothing is merged."""
        try:
            game = read_state(data, self.kept.modes)
        except ValueError as error:
            if rooms_kept is not None:
                return None
            raise Corrupt(f"a game of the player: {error}") from None
        if rooms_kept is not None and people(game.seats) <= {source}:
            if game.room is None or game.room["id"] not in rooms_kept:
                return None
        game.seats = recast(game.seats, source, target)
        game.version += 1
        return game

    def _forget_histories(self, game_ids: list[str] | dict[str, Any]) -> None:
        """Drop these games' decoded histories: their versions moved on (or they are gone)."""
        with self._cache_lock:
            for game_id in game_ids:
                self._histories.pop(game_id, None)

    def _recast_room(self, data: str | bytes, source: str, target: str, *, forget: bool) -> Any | None:
        """A stored room with `target` wherever it names `source` (Room.recast); None where `forget` and
        nobody else is in it. Corrupt where the room does not read back."""
        try:
            room = self.kept.decode_room(data)
        except ValueError as error:
            raise Corrupt(f"a room of the player: {error}") from None
        if forget and set(room.players()) <= {source}:
            return None
        self.kept.recast_room(room, source, target, forget)
        return room

    # ----- rooms (app.rooms) ---------------------------------------------------------------------
    # A room is one JSON object (app.rooms.encode) with its version beside it, and its members' ids indexed.
    # The store lets anyone load a room by id: what a room admits is the service's to check (Room.admits).
    # Rooms and games share one space of ids: stored_version, stored_versions and changes speak of both.

    def create_room(self, room: Any) -> str:
        """Keep a new room; its id, as hard to guess as a game's."""
        raise NotImplementedError

    def load_room(self, room_id: str) -> Any:
        """The room as stored; NotFound for none, Corrupt when it does not read back (or its stored version
        disagrees with its data)."""
        raise NotImplementedError

    def save_room(self, room_id: str, room: Any, read_version: int) -> None:
        """Write all of the room or nothing, over the version it was read at (Conflict otherwise, NotFound
        once it is gone); its members are indexed as it has them, and its live pages hear of it."""
        raise NotImplementedError

    def delete_room(self, room_id: str) -> None:
        """Take the room away (its games stay, each by its own rules); nothing when it is gone already."""
        raise NotImplementedError

    def rooms_of(self, player: str) -> list[str]:
        """The ids of the rooms `player` is a member of, the most recently active first."""
        raise NotImplementedError

    def peek(self, game_ids: list[str]) -> dict[str, Game | None]:
        """Games as stored now, without their history and without a seat check (None for one gone or
        damaged): what a room shows of its games (a race's scoreboard), never what a page draws of them."""
        raise NotImplementedError

    # ----- players' names and the boards of the day's ladders ---------------------------------------
    # The store keeps what the app hands it: names checked by the caller, entries as JSON it never reads.

    def set_name(self, player: str, name: str) -> None:
        """Keep the display name a player chose (already checked by the caller); replaces the one before."""
        raise NotImplementedError

    def names_of(self, players: list[str]) -> dict[str, str]:
        """The names these players chose; a player who chose none is absent."""
        raise NotImplementedError

    def recent_names(self, limit: int) -> list[tuple[str, str, float]]:
        """The names chosen last, newest first: (player, name, when it was chosen by the store's clock; 0 for a
        name kept before the time was)."""
        raise NotImplementedError

    def drop_name(self, player: str) -> bool:
        """Take away the name a player chose (they are anonymous again); False when they had none."""
        raise NotImplementedError

    def drop_ladder_entry(self, ladder: str, player: str) -> bool:
        """Take a player's entry off a ladder (the places below move up); False when they had none there."""
        raise NotImplementedError

    # ----- the host's audit log -------------------------------------------------------------------------------

    def write_audit(self, entry: str) -> None:
        """Keep one line of the audit log (the app's JSON): what the host did, kept for good."""
        raise NotImplementedError

    def audit_log(self, limit: int) -> list[str]:
        """The audit log's last `limit` lines, newest first."""
        raise NotImplementedError

    def enter_ladder(self, ladder: str, player: str, group: int, millis: int, entry: str) -> bool:
        """Keep the player's entry (JSON text, app-level; the store does not read it) on a ladder (a board of the
        day's, by its key), unless the player has one there already: the first kept counts, later ones are
        refused (False). Entries rank by (group, millis, the order they were kept): group 0 a clean win,
        1 an assisted win, 2 anything else (a loss); millis the time the game took. Atomic: two entries of the
        same player arriving at once keep one; entries of different players arriving at once both get a place.
        A group or a time out of range is the caller's bug: ValueError."""
        raise NotImplementedError

    def ladder(self, ladder: str, limit: int, player: str | None = None) -> LadderPage:
        """The first `limit` entries of groups 0 and 1 in rank order, the player's own entry with its place (also
        when it is beyond `limit`, or in group 2), and how many entries each group has. A `limit` below 1 is
        the caller's bug (ValueError); an entry stored damaged is left off rather than failing the page."""
        raise NotImplementedError

    def ladder_entries_of(self, player: str) -> dict[str, str]:
        """Every ladder the player has an entry on: ladder key -> entry JSON."""
        raise NotImplementedError

    # ----- claims -------------------------------------------------------------------------------------------
    # One value per key, set only over the value the caller read (compare and set): what must hold for all
    # processes and hosts at once (a player's one game of a board of the day in play, a race's board sealed
    # while it runs, a name's look held by one player). Keys and values are the app's; the store never reads them.

    def claim(self, key: str, value: str, expected: str | None = None) -> bool:
        """Set `key` to `value` if it holds `expected` now (None: if it holds nothing), atomically across
        processes and hosts; whether it was set. `value` is never empty."""
        raise NotImplementedError

    def claimed(self, key: str) -> str | None:
        """What `key` holds; None for nothing."""
        raise NotImplementedError

    def release(self, key: str, value: str) -> None:
        """Let go of `key` if it holds `value` (another value stays, as the claim it is)."""
        raise NotImplementedError

    def check(self) -> None:
        """Raise StoreUnavailable when games could not be read or saved right now (for /healthz)."""

    def close(self) -> None:
        pass

    @contextmanager
    def lease(self, game_id: str) -> Iterator[None]:
        """Keep other processes off this game while a move is worked out.

        The version check in save() already makes a lost update impossible;
        a store that several hosts share also takes a lease, so that a game
        played from many places at once queues its moves instead of retrying
        them. Processes on one SQLite file retry (see app.service).
        """
        yield

    def _cached_history(self, game_id: str, version: int) -> list[dict[str, Any]] | None:
        with self._cache_lock:
            entry = self._histories.get(game_id)
            if entry is None or entry[0] != version:
                return None
            return entry[1]

    def _remember_history(self, game_id: str, game: Game) -> None:
        with self._cache_lock:
            if game.status != "playing":
                # Finished games are rarely touched again: read them from the store if they are.
                self._histories.pop(game_id, None)
                return
            history = list(game.history)
            try:
                self._histories[game_id] = (
                    game.version,
                    history,
                    grown_footprint(self._histories.get(game_id), history),
                )
            except ValueError:
                # Larger than the whole cache: read from the store when next needed.
                self._histories.pop(game_id, None)

    def _decode(
        self,
        game_id: str,
        player: str,
        version: Any,
        data: str | bytes,
        records: list[str | bytes] | None,
        cached: list[dict[str, Any]] | None = None,
        history_length: Any = None,
    ) -> Game:
        """A stored game back, every field checked (app.core.stored); anything wrong is Corrupt, naming game and field.

        `version` is the store's own copy beside the data, the one its writes
        check: if the two disagree, no write could ever pass that check, so
        the game is damaged rather than "changed, try again" forever.
        `records` are the undo records as stored, checked here, and
        `history_length` how many the store counted; or `cached` is this
        version's history, checked when it was read or written.
        """
        try:
            game = read_state(data, self.kept.modes)
            if type(version) is not int or version != game.version:
                raise ValueError(f"version: the store holds version {version!r}, the game's data {game.version}")
            if records is None:
                assert cached is not None, "the undo records, or this version's history from the cache"
                game.history = list(cached)
            else:
                if history_length is not None and history_length != len(records):
                    raise ValueError(f"history: {len(records)} undo records where the store counts {history_length!r}")
                game.history = read_records(game, records, self.kept.modes)
        except ValueError as error:
            raise Corrupt(f"game {game_id}: {error}") from None
        if not game.seats:
            # Written before games had seats: its one player is the one the store let in.
            game.seats = [Player(player)]
        self._remember_history(game_id, game)
        return game

    def _encode(self, game: Game, game_id: str = "new") -> str:
        """A game's state as stored. A state that would not read back is not written at all: Corrupt
        (an undo record that does not fit its game, say, undone into an impossible board)."""
        try:
            return dump(game, self.kept.modes)
        except ValueError as error:
            raise Corrupt(f"game {game_id}: not stored, as it would not read back: {error}") from None

    def _room_data(self, room: Any, room_id: str = "new") -> str:
        """A room as stored. One that would not read back is not written at all: Corrupt."""
        try:
            return self.kept.encode_room(room)
        except ValueError as error:
            raise Corrupt(f"room {room_id}: not stored, as it would not read back: {error}") from None

    def _read_room(self, room_id: str, version: Any, data: str | bytes) -> Any:
        """A stored room back, every field checked; Corrupt naming the room and what is wrong.

        `version` is the store's own copy beside the data, the one save_room
        checks: if the two disagree no save could ever pass, so the room is
        damaged rather than "changed, try again" forever.
        """
        try:
            room = self.kept.decode_room(data)
            if type(version) is not int or version != room.version:
                raise ValueError(f"version: the store holds version {version!r}, the room's data {room.version}")
        except ValueError as error:
            raise Corrupt(f"room {room_id}: {error}") from None
        return room


# How often a store without a push channel is asked for the versions of the watched games: one read for
# all of them, so a live page hears of a move within this (plus its own round trip for the fragment).
CHANGES_POLL_SECONDS = 0.05


class Changes:
    """The saves a store reports, for one follower thread."""

    def next(self) -> set[str] | None:
        """Block a moment (a fraction of a second), then the ids of the games saved meanwhile; None when
        the store cannot say which (look at every watched game). StoreUnavailable when it cannot be reached."""
        raise NotImplementedError

    def close(self) -> None:
        pass


class PolledChanges(Changes):
    def __init__(self, every: float):
        self.every = every
        self._closed = threading.Event()

    def next(self) -> set[str] | None:
        self._closed.wait(self.every)
        return None

    def close(self) -> None:
        self._closed.set()


def creator(game: Game) -> str:
    return game.maker
