"""The service's operations on boards of the day (app.results.daily): the day's boards with the player's part in them,
a game of one, its ladder, the calendar of past days, and display names."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any

from app.core.errors import KaboomError
from app.core.game import LAYOUT_SEEN, Game, Invalid, Refused
from app.core.languages import N_, lazy_gettext
from app.core.names import NAME_TAKEN, checked_name, name_claim
from app.core.seats import Player, new_share_key
from app.modes import get_mode
from app.results.daily import (
    HISTORY_DAYS,
    LADDER_LENGTH,
    DailyBoard,
    Entry,
    anonymous_name,
    board_named,
    boards_of,
    day_of,
    days_won,
    entry_of,
    group_of,
    millis_of,
    parse_date,
    read_entry,
    stored_board,
    streaks,
)
from app.service.context import Context
from app.service.hooks import GameEnd, Refusal
from app.store import Conflict, Corrupt, Holdings, NotFound

# A ladder links to each entry's replay (shared at the game's end: DailyOperations._entry_ending).
LADDER_REPLAY_STAYS = N_(
    "this game is your entry on its board of the day's ladder, which links to its replay: "
    "a board of the day is played in public, so the link stays"
)


# Requests for a player's game of a board of the day that lose this many claims in a row give up (each loses
# only to another request of the same player's that made the game it answers).
CLAIM_ATTEMPTS = 5
# Why a board of the day's replay waits for the viewer (its ladder shows replays on the same terms).
DAILY_REPLAY_SEALED = N_(
    "this replay shows a board of the day: it opens to you once your own game of that board has ended, "
    "or once the day is over"
)
# Why a board of the day is played from nowhere but its own game until the player's entry is in.
DAILY_SEALED = N_(
    "this is a board of the day: play it from Today, where your first game of it is your entry on its ladder; "
    "other games of it can be made once your entry is in"
)


class DailyLimited(KaboomError):
    """Too many new names or games of the day from one client address in the current window."""

    @classmethod
    def of(cls, what: str, limit: int, window: float) -> DailyLimited:
        """`what` (a key of DAILY_LIMITS) asked too often from one address."""
        return cls(lazy_gettext(DAILY_LIMITS[what], limit=limit, window=format(window, "g")))


# What DailyLimited says of each thing a client address may ask only so often.
DAILY_LIMITS = {
    "name changes": N_(
        "Too many name changes from your address: at most %(limit)s every %(window)s seconds. Wait a little."
    ),
    "new games": N_("Too many new games from your address: at most %(limit)s every %(window)s seconds. Wait a little."),
}


@dataclass(frozen=True)
class LadderLine:
    place: int | None  # among the clean wins; None for a win with help (listed after, marked) or any other end
    name: str
    named: bool  # whether the player chose the name (an anonymous one is shown apart)
    own: bool  # the viewer's line
    entry: Entry
    replay: str | None  # the replay's path, when the viewer may follow it


@dataclass(frozen=True)
class Ladder:
    board: DailyBoard
    lines: list[LadderLine]  # at most LADDER_LENGTH, best first
    own: LadderLine | None  # the viewer's, also when it is not among `lines`
    counts: tuple[int, int, int]  # clean wins, wins with help, other ends
    unreadable: int  # entries that did not read back: left out


@dataclass(frozen=True)
class DayBoard:
    board: DailyBoard
    game_id: str | None  # the viewer's game of it still in play
    entry: Entry | None  # the viewer's entry on its ladder


@dataclass(frozen=True)
class Day:
    date: datetime.date
    today: bool
    boards: list[DayBoard]


@dataclass(frozen=True)
class Today:
    day: Day
    name: str | None  # the name the player chose
    anonymous: str  # what the ladders call them without one
    streak: int
    best_streak: int


@dataclass(frozen=True)
class History:
    today: datetime.date
    days: list[Day]  # newest first, HISTORY_DAYS of them
    streak: int
    best_streak: int


class DailyOperations:
    """The day's boards, their ladders and the players' names; and what boards of the day do to every game: a
    board sealed until the player's entry is in, its replays kept from those still to play it, an entry's replay
    shared for good, and the entry itself kept on the ladder when the game ends."""

    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.settings = context.settings
        self.clock = context.clock
        hooks = context.hooks
        hooks.board_seals.append(self.daily_seal)
        hooks.replay_seals.append(self.daily_replay_seal)
        hooks.share_keepers.append(self._entry_replay_stays)
        hooks.ending.append(self._entry_ending)
        hooks.ended.append(self._enter)
        hooks.merged.append(self._names_merged)

    def today(self) -> datetime.date:
        return day_of(self.clock())

    # ----- names -----------------------------------------------------------------------------------------

    async def name_of(self, player: str) -> str | None:
        """The name the player chose; None while they have not."""
        return (await self.context.offload(self.store.names_of, [player])).get(player)

    async def set_name(self, player: str, client: str, name: Any) -> str:
        """Keep the player's display name: Invalid when malformed, NameLimited past the client's pace."""
        name = checked_name(name)
        return await self.context.offload(self._set_name, player, client, name)

    def _set_name(self, player: str, client: str, name: str) -> str:
        refusal = self.context.hooks.first_refusal(self.context.hooks.name_refusals, player, client)
        if refusal is not None:
            raise Refused(refusal)
        limit, window = self.settings.create_limit, self.settings.create_window
        if not self.store.allow(f"name:{client}", limit, window):
            raise DailyLimited.of("name changes", limit, window)
        return self.keep_name(player, name)

    def keep_name(self, player: str, name: str) -> str:
        """Keep a checked name as the player's, if no other player goes by its look (Refused otherwise)."""
        # One player at a time goes by a look (Alice, alice, Аlice): taken before the name is kept, and the look
        # of the name before let go after, so that a request failing between leaves the player holding both.
        claim = name_claim(name)
        holder = self.store.claimed(claim)
        if holder != player and (holder is not None or not self.store.claim(claim, player)):
            raise Refused(lazy_gettext(NAME_TAKEN))
        before = self.store.names_of([player]).get(player)
        self.store.set_name(player, name)
        if before is not None and name_claim(before) != claim:
            self.store.release(name_claim(before), player)
        return name

    def _names_merged(self, source: str, target: str, kept: Holdings) -> None:
        """Two players made one: the target keeps their own name where they chose one, so the look of the
        source's name, which the merge handed to the target, is let go."""
        if kept.name is None:
            return
        name = self.store.names_of([target]).get(target)
        if name is not None and name_claim(name) != name_claim(kept.name):
            self.store.release(name_claim(kept.name), target)

    async def shown_name(self, player: str) -> str:
        """What others see a player called: the name they chose for the ladders, else their anonymous tag."""
        return await self.context.offload(lambda: self._names([player])[player][0])

    def _names(self, players: list[str]) -> dict[str, tuple[str, bool]]:
        chosen = self.store.names_of(players)
        return {
            player: (chosen[player], True)
            if player in chosen
            else (anonymous_name(player, self.context.board_secret), False)
            for player in players
        }

    # ----- the day's boards ------------------------------------------------------------------------------

    async def daily(self, player: str) -> Today:
        """Today's boards with the player's game of each still in play and their entry on each ladder; their
        name and streak."""
        return await self.context.offload(self._daily, player)

    def _daily(self, player: str) -> Today:
        today = self.today()
        entries = self.store.ladder_entries_of(player)
        in_play = self._daily_games_in_play(player)
        current, best = streaks(days_won(entries), today)
        name = self.store.names_of([player]).get(player)
        anonymous = anonymous_name(player, self.context.board_secret)
        return Today(_day(today, today, entries, in_play), name, anonymous, current, best)

    def _daily_games_in_play(self, player: str) -> dict[str, str]:
        """The player's games of boards of the day still in play, by ladder key (the newest of each)."""
        found: dict[str, str] = {}
        for listing in self.store.games_of(player):
            game = listing.game
            if game is not None and game.daily and game.status == "playing" and game.maker == player:
                found.setdefault(game.daily, listing.game_id)
        return found

    async def play_daily(self, player: str, client: str, key: str) -> tuple[str, Game]:
        """The player's game of today's board `key`: the one they have in play, or a new one (through the same
        creation limit as any new game). Invalid for a board that is not today's: a past board's ladder is
        closed, and its replays are open to all."""
        board = board_named(key, self.today())
        if board.date != self.today():
            raise Invalid(
                lazy_gettext(
                    "the board of %(date)s is closed: only today's boards are played for the ladder",
                    date=board.date.isoformat(),
                )
            )
        return await self.context.offload(self._play_daily, player, client, board)

    def _play_daily(self, player: str, client: str, board: DailyBoard) -> tuple[str, Game]:
        # One game of a board at a time, for every process and host at once: a second could learn the board for
        # the first to be quick on. The player's game of it is a claim (Store.claim); a new game is kept only if
        # its claim wins over the game read, and another request's game that won is the one answered.
        key = f"daily-game:{board.key}:{player}"
        for _ in range(CLAIM_ATTEMPTS):
            claimed = self.store.claimed(key)
            current = claimed or self._daily_games_in_play(player).get(board.key)  # one kept before claims
            game = self._still_in_play(current, player)
            if game is not None and current is not None:
                if claimed is not None or self.store.claim(key, current):
                    return current, game
                continue  # another request's game won the claim meanwhile: that one is the player's

            limit, window = self.settings.create_limit, self.settings.create_window
            if not self.store.allow(f"create:{client}", limit, window):
                raise DailyLimited.of("new games", limit, window)
            game = board.game(self.context.board_secret)
            game.seats = [Player(player)]
            rules = get_mode(game.mode)
            board_id = rules.board_id(game)
            if board_id is not None and self.store.board_seen_in(player, board_id) is not None:
                rules.see_layout(game)  # as for any board played again from its id (app.results.records)
            if claimed is not None and board.key not in self.store.ladder_entries_of(player):
                # An earlier game of the board, deleted or expired before it ended, showed some of it.
                game.aided(LAYOUT_SEEN)
            try:
                game_id = self.store.create(game, self.settings.games_per_player)
            except Conflict:
                continue  # the player's list changed under the write: another request's game, most likely
            # Claimed by this request, or by another that found it listed first (one kept before claims).
            if self.store.claim(key, game_id, expected=claimed) or self.store.claimed(key) == game_id:
                return game_id, game
            self.store.delete(game_id, player)
        raise Conflict(key)

    def _still_in_play(self, game_id: str | None, player: str) -> Game | None:
        if game_id is None:
            return None
        try:
            game = self.store.load(game_id, player)
        except (NotFound, Corrupt):
            return None
        return game if game.status == "playing" else None

    def daily_seal(self, player: str, board_id: str) -> Refusal:
        """Why the player may not make another game of `board_id` now: it is the board of a day whose entry of
        theirs is not in yet (today's, or yesterday's while their game of it plays on). None when they may."""
        today = self.today()
        entries = self.store.ladder_entries_of(player)
        for date in (today, today - datetime.timedelta(days=1)):
            for board in boards_of(date):
                if (
                    board.key in entries
                    or get_mode(board.mode).board_id(board.game(self.context.board_secret)) != board_id
                ):
                    continue
                if date == today or board.key in self._daily_games_in_play(player):
                    return lazy_gettext(DAILY_SEALED)
        return None

    def becomes_entry(self, game: Game) -> bool:
        """Whether the game, ending now, is its maker's entry on its board of the day's ladder (their first end)."""
        return game.daily is not None and game.daily not in self.store.ladder_entries_of(game.maker)

    def daily_replay_seal(self, game: Game, viewer: str) -> Refusal:
        """Why `viewer` may not replay a finished game of a board of the day now: the day's ladder is open and
        their own entry is not in, or (a day gone by) their game of it still plays on. None when they may."""
        board = stored_board(game.daily) if game.daily is not None else None
        if board is None or board.key in self.store.ladder_entries_of(viewer):
            return None
        if board.date < self.today() and board.key not in self._daily_games_in_play(viewer):
            return None
        return lazy_gettext(DAILY_REPLAY_SEALED)

    def _entry_ending(self, end: GameEnd) -> None:
        """A game of a board of the day ending: a ladder links to each entry's replay (a board of the day is played
        in public), and the entry is this end, so no undo may take it back."""
        game = end.after
        if not end.one_player or game.daily is None:
            return
        if game.share is None:
            game.share = new_share_key()
        if self.becomes_entry(game):
            game.options.undo = False

    def _enter(self, end: GameEnd) -> None:
        """A game of a board of the day that just ended: its maker's entry on the ladder, unless they have one
        (their first finished game counts)."""
        game_id, game = end.game_id, end.after
        if game.daily is None:
            return
        entry = entry_of(game_id, game)
        self.store.enter_ladder(game.daily, game.maker, group_of(entry), millis_of(entry), json.dumps(entry))

    async def on_ladder(self, game_id: str, game: Game) -> bool:
        """Whether the game is its maker's entry on the ladder of its board of the day, which links to its replay."""
        if game.daily is None:
            return False
        return await self.context.offload(self.is_ladder_entry, game_id, game)

    def _entry_replay_stays(self, game_id: str, game: Game) -> Refusal:
        return lazy_gettext(LADDER_REPLAY_STAYS) if self.is_ladder_entry(game_id, game) else None

    def is_ladder_entry(self, game_id: str, game: Game) -> bool:
        if game.daily is None:
            return False
        text = self.store.ladder_entries_of(game.maker).get(game.daily)
        entry = read_entry(text) if text is not None else None
        return entry is not None and entry["game_id"] == game_id

    # ----- ladders and the calendar ----------------------------------------------------------------------

    async def ladders(self, date: str, viewer: str) -> tuple[datetime.date, list[Ladder]]:
        """The ladders of a day's boards (YYYY-MM-DD, no later than today; Invalid otherwise)."""
        day = parse_date(date, self.today())

        def ladders() -> list[Ladder]:
            in_play = self._daily_games_in_play(viewer) if day < self.today() else {}
            return [self._ladder(board, viewer, board.key in in_play) for board in boards_of(day)]

        return day, await self.context.offload(ladders)

    def _ladder(self, board: DailyBoard, viewer: str, playing: bool = False) -> Ladder:
        page = self.store.ladder(board.key, LADDER_LENGTH, viewer)
        rows = [*page.top, *([page.own] if page.own is not None else [])]
        names = self._names(sorted({row.player for row in rows}))
        # Replays show the board: while the day's ladder is open, only to those whose own entry is in, and to
        # nobody whose game of it still plays on past its day (daily_replay_seal).
        replays_open = page.own is not None or (board.date < self.today() and not playing)
        lines, unreadable = [], 0
        own_line = None
        for row in rows:
            entry = read_entry(row.entry)
            if entry is None:
                unreadable += row is not page.own
                continue
            name, named = names[row.player]
            line = LadderLine(
                row.place if group_of(entry) == 0 else None,
                name,
                named,
                row.player == viewer,
                entry,
                f"/replays/{entry['game_id']}/{entry['replay']}" if replays_open and entry["replay"] else None,
            )
            if row is page.own:
                own_line = line
            else:
                lines.append(line)
        return Ladder(board, lines, own_line, page.counts, unreadable)

    async def history(self, player: str) -> History:
        return await self.context.offload(self._history, player)

    def _history(self, player: str) -> History:
        today = self.today()
        entries = self.store.ladder_entries_of(player)
        in_play = self._daily_games_in_play(player)
        days = [_day(today - datetime.timedelta(days=back), today, entries, in_play) for back in range(HISTORY_DAYS)]
        current, best = streaks(days_won(entries), today)
        return History(today, days, current, best)


def _day(date: datetime.date, today: datetime.date, entries: dict[str, str], in_play: dict[str, str]) -> Day:
    boards = [
        DayBoard(board, in_play.get(board.key), read_entry(entries[board.key]) if board.key in entries else None)
        for board in boards_of(date)
    ]
    return Day(date, date == today, boards)
