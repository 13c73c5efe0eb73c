"""How a game looks: per-cell classes, labels and text, the status line, and what a move changed.

Cell markup stays small (an id, a class, a label): an Expert board is about
60 KB, and a click sends only the cells whose look changed.
"""

from __future__ import annotations

import re
import time
import weakref
from dataclasses import dataclass
from fractions import Fraction

from markupsafe import Markup, escape

from app.core.game import PRESET_TITLES, PRESETS, QUESTION, BotChoice, Game, Hint, LossReview
from app.core.languages import N_, decimal_text, gettext, ngettext, number_text, percent_text, speaking, unfilled
from app.core.seats import computers, invitation
from app.modes import get_mode
from app.results.records import Record, accuracy_of, fixed_layout_figures
from app.service.overlays import Overlay
from app.store import Listing
from app.web.faces import face_of
from solver import Status
from solver.position import COVERED, FLAG, MINE

OVERLAY_CLASS = {Status.SAFE: "os", Status.MINE: "om", Status.UNKNOWN: "ou"}
OVERLAY_LABEL = {Status.SAFE: N_("proven safe"), Status.MINE: N_("proven mine"), Status.UNKNOWN: N_("unknown")}


class Position:
    """Where a cell is, said after its label: the language's words around the label, the column and the row.
    Filled 10,000 times for a 100x100 board: where a language keeps that order (each so far), by an f-string,
    half the time of a format with a dict (0.3 against 0.55 µs a cell: a tenth of the board's rendering)."""

    def __init__(self, template: str):
        self.template = template
        parts = re.split(r"%\((\w+)\)s", template)
        self.in_order = parts[1::2] == ["label", "x", "y"]
        self.parts = parts[0::2] if self.in_order else []

    def said(self, label: str, x: int, y: int) -> str:
        if self.in_order:
            before, after_label, after_x, after_y = self.parts
            return f"{before}{label}{after_label}{x}{after_x}{y}{after_y}"
        return self.template % {"label": label, "x": x, "y": y}


class BoardWords:
    """What a screen reader hears of the board's cells, in the language spoken now: looked up once per answer
    (a 100x100 board has 10,000 cells), escaped once (a label goes in an attribute)."""

    def __init__(self) -> None:
        def said(message: str) -> str:
            return str(escape(unfilled(message)))

        self.position = Position(said(N_("%(label)s, column %(x)s, row %(y)s")))
        self.found_by = said(N_("mine found by %(seat)s"))
        self.help_found = said(N_("flag on a mine that help found"))
        self.opened_by_a_player = said(N_("%(number)s, opened by the last move of a player"))
        self.uncovered_last = said(N_("%(number)s, uncovered by the last move"))
        self.over_flagged = said(N_("%(missing)s: more flags than mines around"))
        self.missing = said(N_("%(missing)s more"))
        self.exploded = said(N_("exploded mine"))
        self.wrong_flag = said(N_("wrong flag"))
        self.mine = said(N_("mine"))
        self.covered = said(N_("covered"))
        self.start_here = said(N_("covered, start here"))
        self.flag = said(N_("flag"))
        self.question = said(N_("question mark"))
        self.status = {status: said(words) for status, words in OVERLAY_LABEL.items()}
        self.with_status = said(N_("%(label)s, %(status)s"))
        self.chance = said(N_("%(chance)s mine"))
        self.with_chance = said(N_("%(label)s, %(chance)s"))
        self.with_safest_chance = said(N_("%(label)s, %(chance)s, among the safest"))

    @staticmethod
    def of(translations: object) -> BoardWords:
        # One set per language's translations, kept while they are (a server's for as long as it runs).
        words = _BOARD_WORDS.get(translations)
        if words is None:
            words = _BOARD_WORDS[translations] = BoardWords()
        return words


_BOARD_WORDS: weakref.WeakKeyDictionary[object, BoardWords] = weakref.WeakKeyDictionary()


CellView = tuple[str, str, str, str]  # classes, aria-label, text, the tip shown over it (a mine probability)
# A ripple stays short however far an assist reached: later waves all start with this one.
RIPPLE_WAVES = 12


class Look:
    """How every cell of one game looks, with the player's overlays if shown."""

    def __init__(self, game: Game, overlay: Overlay | None):
        self.game = game
        overlay = overlay or Overlay()
        self.statuses = overlay.statuses  # after a loss: those of the position before the losing click
        self.probabilities = overlay.probabilities
        # The safest cells a player could open: the least chance of a mine among unflagged covered cells.
        flagged = {game.cell(index) for index, mark in game.marks.items() if mark == FLAG}
        openable = [chance for cell, chance in (self.probabilities or {}).items() if cell not in flagged]
        self.safest = min(openable) if openable and min(openable) < 1 else None
        self._chance_looks: dict[float, tuple[str, str]] = {}
        self.over = game.status != "playing"
        self.mines = frozenset(game.shown_mines or ())
        # Whose each found mine is, and what the last move uncovered (marked while the game goes on), in
        # the modes whose faces show them.
        face = face_of(game.mode)
        self.seat_name = get_mode(game.mode).seat_name
        self.owners = face.owners(game)
        last = face.last_move(game)
        self.last = last if last is not None and not self.over else frozenset()
        self.movers = last_moves(game) if not self.over else {}
        self.words = BoardWords.of(speaking().translations)

    def cell(self, index: int) -> CellView:
        game, words = self.game, self.words
        symbol = game.cells[index]
        mark = game.marks.get(index, "")
        if symbol == MINE:
            owner = self.owners.get(index)
            if owner is not None:
                last = " last" if index in self.last else ""
                return f"c f s{owner}{last}", words.found_by % {"seat": escape(self.seat_name(owner))}, "", ""
            return "c f h", words.help_found, "", ""
        if symbol != COVERED:
            number = int(symbol)
            mover = self.movers.get(index)
            if mover is not None:
                return (
                    f"c n{symbol} by b{mover}",
                    words.opened_by_a_player % {"number": symbol},
                    symbol if number else "",
                    "",
                )
            if index in self.last:
                label = words.uncovered_last % {"number": symbol}
                return f"c n{symbol} last", label, symbol if number else "", ""
            if not (game.options.countdown and number):
                return f"c n{symbol}", symbol, symbol if number else "", ""
            # Countdown mode shows, and says, the mines still missing around a number. The class keeps
            # the number itself (kaboom.js reads it to chord); below zero it turns to the danger colour.
            missing = number - game.board.flags_around(index, game.cells, game.marks)
            if missing < 0:
                return f"c n{symbol} over", words.over_flagged % {"missing": missing}, str(missing), ""
            return f"c n{symbol}", words.missing % {"missing": missing}, str(missing), ""
        if index == game.exploded:
            return "c x", words.exploded, "", ""
        mine = index in self.mines
        if mark == FLAG and self.over and not mine:
            return "c f w", words.wrong_flag, "", ""
        if mine and mark != FLAG:
            return "c m", words.mine, "", ""
        classes, label = "c u", words.covered
        if index == start_cell(game):
            # A board played from its id: its layout was dealt for this first click.
            classes, label = "c u start", words.start_here
        if mark == FLAG:
            classes, label = "c f", words.flag
            if index in self.movers:
                classes += f" by b{self.movers[index]}"
        elif mark == QUESTION:
            classes, label = "c u q", words.question
        # In every mode: a flag on a cell proven safe is a mistake the overlay is there to show.
        status = self.statuses.get(game.cell(index)) if self.statuses is not None else None
        if status is not None:
            classes += " " + OVERLAY_CLASS[status]
            label = words.with_status % {"label": label, "status": words.status[status]}
        chance = self.probabilities.get(game.cell(index)) if self.probabilities is not None else None
        tip = ""
        if chance is not None:
            tip, step = self.chance_look(chance)
            safest = chance == self.safest and mark != FLAG
            classes += step + (" best" if safest else "")
            label = (words.with_safest_chance if safest else words.with_chance) % {"label": label, "chance": tip}
        return classes, label, "", tip

    def chance_look(self, chance: float) -> tuple[str, str]:
        """The tip and colour step of a chance. A board has few distinct chances and many cells: each is
        worded once per answer."""
        look = self._chance_looks.get(chance)
        if look is None:
            tip = self.words.chance % {"chance": percent(chance)}
            look = self._chance_looks[chance] = (tip, f" p{probability_step(chance)}")
        return look

    def row_html(self, y: int) -> Markup:
        """Row y's cells as HTML: a 100x100 grid is 10,000 of them, too many for a template macro each
        (the macro took 220 ms a grid, on the worker's event loop)."""
        width, position = self.game.width, self.words.position
        return Markup("".join(cell_html((x, y), self.cell(y * width + x), position=position) for x in range(width)))


def start_cell(game: Game) -> int | None:
    """The cell a board dealt for its first click (one played from its id, a race's, a board of the day's) is
    marked to start on, until play starts; None otherwise."""
    return get_mode(game.mode).start_cell(game) if game.started_at is None else None


# How far back a board played by several looks for each one's last move: the moves of the others since.
MOVERS_LOOK_BACK = 200


def last_moves(game: Game) -> dict[int, int]:
    """On a board several people play (a co-op room), the cells each one's last move opened or flagged, in
    their colour (cell -> colour); {} for a board one person plays."""
    if game.room is None or len(game.seats) < 2:
        return {}
    colours = game.room.get("colours", "")
    marked: dict[int, int] = {}
    seen: set[int] = set()
    for record in reversed(game.history[-MOVERS_LOOK_BACK:]):
        seat = record.get("move", {}).get("seat")
        if seat is None or seat in seen or seat >= len(colours):
            continue
        seen.add(seat)
        for key in (*record["cells"], *record["marks"]):
            marked.setdefault(int(key), int(colours[seat]))
        if len(seen) == len(game.seats):
            break
    return marked


# The colour steps of the probability overlay: proven safe, up to 15 %, 30 %, 50 %, below certain, a mine.
PROBABILITY_STEPS = (0.0, 0.15, 0.30, 0.5)


def probability_legend() -> list[tuple[int, str]]:
    """What each colour step of the probability overlay means, for the legend beside the board."""
    tops = PROBABILITY_STEPS
    return [
        (0, "0 %"),
        *((step, f"≤ {percent(tops[step])}") for step in range(1, len(tops))),
        (len(tops), f"> {percent(tops[-1])}"),
        (len(tops) + 1, "100 %"),
    ]


def probability_step(chance: float) -> int:
    if chance == 1:
        return 5
    return next((step for step, top in enumerate(PROBABILITY_STEPS) if chance <= top), 4)


def cell_html(
    cell: tuple[int, int], look: CellView, oob: bool = False, wave: int | None = None, position: Position | None = None
) -> Markup:
    """One cell's element; its label says where it is, for a screen reader moving over the board.
    `wave`: an assist changed it, so many steps from the action (it joins the ripple, later the further).
    `position`: BoardWords.position, when the caller has it at hand. Not escaped: classes, and a label of
    BoardWords (escaped there), numbers and a digit."""
    (x, y), (classes, label, text, tip) = cell, look
    swap = ' hx-swap-oob="true"' if oob else ""
    # Shown over the cell under the pointer and under the keyboard's cursor (kaboom.css).
    shown = f' data-p="{tip}"' if tip else ""
    ripple = f' style="--wave: {min(wave, RIPPLE_WAVES)}"' if wave is not None else ""
    classes += " rip" if wave is not None else ""
    said = (position or BoardWords.of(speaking().translations).position).said(label, x + 1, y + 1)
    return Markup(
        f'<div id="c-{x}-{y}" class="{classes}" role="gridcell" aria-label="{said}"{swap}{ripple}{shown}>{text}</div>'
    )


def changed_cells(
    before: Look, after: Look, touched: set[int], max_rows: int | None = None
) -> list[tuple[tuple[int, int], CellView]] | None:
    """The cells that look different after a move, with their new look; None when the cells that may have
    changed span more than `max_rows` rows (the caller sends the whole grid without comparing them)."""
    game = after.game
    candidates = set(touched)
    for index in touched:
        candidates.update(game.neighbours(index))  # countdown numbers around a flag
    candidates.update(before.mines ^ after.mines)
    candidates.update(before.last ^ after.last)  # the last move's mark (where the face marks it) moves on
    candidates.update(before.movers.keys() | after.movers.keys())  # each player's last move, on a shared board
    start = get_mode(game.mode).start_cell(game)
    if start is not None and (before.game.started_at is None) != (game.started_at is None):
        candidates.add(start)  # the mark on a shared board's first click comes off once play starts
    if before.over != after.over:
        # The end crosses out wrong flags (and an undo of it takes the crosses back).
        candidates.update(before.game.marks.keys() | game.marks.keys())
    candidates.update(i for i in (before.game.exploded, game.exploded) if i is not None)
    old, new = before.statuses or {}, after.statuses or {}
    candidates.update(game.index(*cell) for cell in old.keys() | new.keys() if old.get(cell) is not new.get(cell))
    old_chances, new_chances = before.probabilities or {}, after.probabilities or {}
    # A chance shown differently (most move by less than the percent shown), or a cell ringed as one
    # of the safest before or after.
    safest = [chance for chance in (before.safest, after.safest) if chance is not None]
    candidates.update(
        game.index(*cell)
        for cell in old_chances.keys() | new_chances.keys()
        if (old_chance := old_chances.get(cell)) is None
        or (new_chance := new_chances.get(cell)) is None
        or (old_chance != new_chance and before.chance_look(old_chance) != after.chance_look(new_chance))
        or any(new_chance == chance or old_chance == chance for chance in safest)
    )
    if max_rows is not None and len({index // game.width for index in candidates}) > max_rows:
        return None
    changed = []
    for index in sorted(candidates):
        look = after.cell(index)
        if look != before.cell(index):
            changed.append((game.cell(index), look))
    return changed


@dataclass
class Panel:
    """The status line: what a player glances at."""

    mines_left: int
    elapsed: int
    running: bool
    state: str
    counters: list[tuple[str, str, int, str]]  # the mode's own: (id, label, value, title)
    hints: int
    clock: str  # the time as shown: tenths once the game is won
    result: str
    undo_offered: bool  # a loss the player may take back (the page says how)
    undoable: bool  # there is an action to take back, and the rules allow it (the Undo button is enabled)
    win_figures: list[tuple[str, str, str]]  # a won fixed board's statistics: (label, value, what it means)
    starts_in: float | None = None  # seconds until the board opens (a race's countdown): the clock starts then
    start_note: str = ""  # where to start, on a board dealt for its first click, until play starts


def panel(game: Game, now: float) -> Panel:
    mode = get_mode(game.mode)
    elapsed = int(game.elapsed(now))
    clock = clock_text(game.elapsed(now), tenths=game.status == "won")
    if game.status == "playing":
        state = gettext("Playing") if game.started_at is not None else gettext("Ready")
    else:
        state = gettext("Won") if game.status == "won" else gettext("Lost")
    return Panel(
        mines_left=game.mines - game.flags(),
        elapsed=elapsed,
        running=game.status == "playing" and (game.started_at is not None or game.opens_at is not None),
        starts_in=game.opens_at - now if game.opens_at is not None and game.opens_at > now else None,
        state=state,
        counters=mode.counters(game)
        + ([("deaths", gettext("Deaths"), game.deaths, gettext("Losses taken back with undo"))] if game.deaths else []),
        hints=game.hints,
        clock=clock,
        result=mode.result_text(game, clock),
        undo_offered=game.status == "lost" and game.options.undo,
        undoable=bool(game.options.undo and game.history and game.status != "won"),
        win_figures=win_figures(game, clock),
        start_note=str(mode.first_click_hint(game)) if start_cell(game) is not None else "",
    )


def win_figures(game: Game, clock: str) -> list[tuple[str, str, str]]:
    """What a win on a fixed board shows, as minesweeper.online does: time, 3BV, 3BV/s, clicks, efficiency.
    Nothing for a cruel-but-fair win: its board took shape as it was played, so it has no 3BV to measure."""
    figures = fixed_layout_figures(game)
    if figures is None:
        return []
    bbbv, per_second, clicks = figures
    return [
        (gettext("Time"), clock, gettext("From the first click to the last")),
        ("3BV", number_text(bbbv), gettext("The board's value: the fewest clicks that clear it")),
        (gettext("3BV/s"), decimal_text(per_second, 2), gettext("3BV per second")),
        (gettext("Clicks"), number_text(clicks), gettext("The reveals, chords and flags you used")),
        (
            gettext("Efficiency"),
            percent_text(bbbv / clicks) if clicks else "–",
            gettext("3BV per click: 100 %% clears the board in as few clicks as it can be"),
        ),
    ]


def proof_words(numbers: int, uses_count: bool) -> str:
    """What proves a cell safe, as a hint and a loss's review say it after "proven": the numbers outlined in amber,
    the number of mines left, or both; "" for neither."""
    if numbers and uses_count:
        return ngettext(
            "by the number outlined in amber and the number of mines left",
            "by the numbers outlined in amber and the number of mines left",
            numbers,
        )
    if numbers:
        return ngettext("by the number outlined in amber", "by the numbers outlined in amber", numbers)
    return gettext("by the number of mines left") if uses_count else ""


def hint_text(hint: Hint, shown: bool) -> str:
    """A hint as the panel says it: its news, and when it shows a cell, which one and what proves it."""
    message = str(hint.message)
    if not shown:
        return gettext("%(news)s.", news=message)
    if hint.cell is None:
        return message
    x, y = hint.cell[0] + 1, hint.cell[1] + 1
    if hint.kind == "wrong_flag":
        return gettext("%(news)s: column %(x)s, row %(y)s.", news=message, x=x, y=y)
    if hint.kind != "safe":
        return message
    proof = proof_words(len(hint.proof), hint.uses_count)
    if proof:
        return gettext(
            "%(news)s: the highlighted cell at column %(x)s, row %(y)s is safe, proven %(proof)s.",
            news=message,
            x=x,
            y=y,
            proof=proof,
        )
    return gettext("%(news)s: the highlighted cell at column %(x)s, row %(y)s is safe.", news=message, x=x, y=y)


@dataclass(frozen=True)
class Seating:
    """A game of two as one viewer sees it: their seat, the invitation, who is connected, where live updates
    come from."""

    seat: int | None  # the viewer's seat; None on one screen (both are theirs) and for whoever watches
    held: frozenset[int]  # the seats the viewer plays: both on one screen, none for whoever watches
    watching: bool
    waiting: bool  # an invitation nobody has taken yet
    invite: str | None  # its link, for the player who invited
    present: frozenset[int]  # seats whose players are connected
    live_path: str  # the page's live updates: its stream, its poll
    join: str | None = None  # where a spectator takes the free seat (a POST: opening the link does not)
    invited: str = ""  # the name of the seat the invitation offers
    reclaimable: bool = False  # the viewer may free the seat of someone who took it and never moved

    @property
    def presence(self) -> str:
        """The connected seats as the page sends them back with its poll ("", "0", "01")."""
        return "".join(str(seat) for seat in sorted(self.present))


@dataclass(frozen=True)
class SeatLine:
    """What the page says of the game's turn and seats, in the colour of the seat it is about."""

    seat: int | None
    text: str


NUMBER_WORDS = {
    2: N_("two"),
    3: N_("three"),
    4: N_("four"),
    5: N_("five"),
    6: N_("six"),
    7: N_("seven"),
    8: N_("eight"),
}


def seat_lines(game: Game, seating: Seating) -> list[SeatLine]:
    """Whose turn it is, or who won; then whether the other players are there."""
    mode = get_mode(game.mode)
    lines = []
    if game.status != "playing":
        winner = mode.winner(game)
        result = mode.result_text(game, "")
        if seating.seat is not None and winner is not None:
            # The player's own seat first: whether they won, then the score as everyone reads it.
            if winner == seating.seat:
                result = gettext("You win: %(result)s", result=result)
            else:
                result = gettext("You lose: %(result)s", result=result)
        lines.append(SeatLine(winner, result))
    else:
        turn = mode.seat_to_move(game)
        mover = mode.seat_name(turn)
        if seating.seat == turn:
            text = gettext("Your turn (%(seat)s)", seat=mover)
        elif turn in computers(game.seats):
            text = gettext("The computer (%(seat)s) is moving", seat=mover)
        elif seating.seat is not None:
            text = gettext("%(seat)s's turn: wait for their move", seat=mover)
        else:
            text = gettext("%(seat)s to move", seat=mover)
        lines.append(SeatLine(turn, text))
    invited = invitation(game.seats)
    if invited is not None and not seating.watching and game.status == "playing":
        others = (
            [seat for seat in range(len(game.seats)) if seat != seating.seat] if seating.seat is not None else [invited]
        )
        for other in others:
            name = mode.seat_name(other)
            if seating.waiting:
                lines.append(
                    SeatLine(other, gettext("%(seat)s has not joined yet: send them the link below.", seat=name))
                )
            elif other in seating.present:
                lines.append(SeatLine(other, gettext("%(seat)s is connected.", seat=name)))
            else:
                said = gettext("%(seat)s is not connected: they can come back by the same link.", seat=name)
                lines.append(SeatLine(other, said))
    if seating.join:
        name = mode.seat_name(invited) if invited is not None else ""
        said = gettext("%(seat)s's seat is free: Play as %(seat)s, above the board, takes it.", seat=name)
        lines.append(SeatLine(invited, said))
    elif seating.watching:
        players = len(game.seats)
        # Two to eight seats, each named in words.
        said = gettext(
            "You are watching: the %(players)s players' moves appear here as they play.",
            players=gettext(NUMBER_WORDS[players]) if players in NUMBER_WORDS else number_text(players),
        )
        lines.append(SeatLine(None, said))
    return lines


def where(cell: tuple[int, int]) -> str:
    """A cell as the panel names it: "column 5, row 3", counted from 1."""
    return gettext("column %(x)s, row %(y)s", x=cell[0] + 1, y=cell[1] + 1)


def review_text(review: LossReview, game: Game) -> str:
    """Why the game was lost, in words: the chance the click had, and what could have been proven instead."""
    x, y = review.clicked
    parts = []
    if review.mine_probability is not None:
        chance = percent(review.mine_probability)
        if review.by_bot:
            said = gettext(
                "When the bot clicked column %(x)s, row %(y)s, it was a mine in %(chance)s of the layouts that fit "
                "what it saw.",
                x=x + 1,
                y=y + 1,
                chance=chance,
            )
        else:
            said = gettext(
                "When you clicked column %(x)s, row %(y)s, it was a mine in %(chance)s of the layouts that fit what "
                "you saw.",
                x=x + 1,
                y=y + 1,
                chance=chance,
            )
        parts.append(said)
    if review.example is not None:
        count = len(review.safe)
        ex, ey = review.example
        proof = proof_words(len(review.proof), review.uses_count)
        if proof:
            said = ngettext(
                "%(num)s cell could be proven safe (outlined in green): column %(x)s, row %(y)s, for one, is proven "
                "%(proof)s.",
                "%(num)s cells could be proven safe (outlined in green): column %(x)s, row %(y)s, for one, is proven "
                "%(proof)s.",
                count,
                x=ex + 1,
                y=ey + 1,
                proof=proof,
            )
        else:
            said = ngettext(
                "%(num)s cell could be proven safe (outlined in green): column %(x)s, row %(y)s, for one, is proven.",
                "%(num)s cells could be proven safe (outlined in green): column %(x)s, row %(y)s, for one, is proven.",
                count,
                x=ex + 1,
                y=ey + 1,
            )
        parts.append(said)
    elif review.outside and not getattr(game.options, "allow_outside", True):
        parts.append(
            gettext(
                "No cell could be proven safe, but a guess away from the numbers is a mine under the strict rule: "
                "guess next to a number, or turn on Allow guessing anywhere."
            )
        )
    else:
        parts.append(gettext("No cell could be proven safe."))
    return " ".join(parts)


def bot_text(choice: BotChoice, played: bool, mode: str) -> str:
    """The bot's move in words, before (What would the bot do?) or after it played it: the cell, and whether
    it is proven safe or a guess with its chance; an action of the mode's own in the mode's words."""
    cell = where(choice.cell)
    guess = (
        gettext("%(cell)s, %(chance)s chance of a mine", cell=cell, chance=percent(choice.mine_probability))
        if choice.mine_probability is not None
        else cell
    )
    own = get_mode(mode).bot_words(choice, played, guess)
    if own is not None:
        return own
    opened = (
        gettext("The bot opened %(cell)s", cell=cell) if played else gettext("The bot would open %(cell)s", cell=cell)
    )
    if choice.helped:
        return gettext("%(opened)s: a guess, opened safely under the help granted.", opened=opened)
    if choice.safe:
        if choice.first_click:
            return gettext("%(opened)s: the first click, safe by the rules.", opened=opened)
        return gettext("%(opened)s: proven safe.", opened=opened)
    if choice.mine_probability is None:
        return gettext("%(opened)s: a guess (its chance of a mine could not be counted in time).", opened=opened)
    return gettext(
        "%(opened)s: a guess, %(chance)s chance of a mine.", opened=opened, chance=percent(choice.mine_probability)
    )


def percent(chance: Fraction | float) -> str:
    """A probability for people: whole percents, with a decimal only where rounding would hide the difference."""
    value = float(chance) * 100
    return percent_text(float(chance), 1 if 0 < value < 1 or 99 < value < 100 else 0)


ACCURACY_TITLE = N_("The share of its moves that bet on something that were proven or the best guess")
NOT_GRADED_TITLE = N_("Too long to grade when it ended: its replay grades it")


def accuracy_text(value: Fraction | float | None) -> str:
    """An accuracy (or a mean of them) for people: whole percents, as the records show the win rate; "–" for
    none (no move bet on anything, no game graded)."""
    return "–" if value is None else percent_text(float(value))


@dataclass
class ListedGame:
    """A row of the player's game list."""

    game_id: str
    title: str  # "Expert 30×16, 99 mines"
    mode: str  # "Cruel but fair"
    state: str  # "Playing", "Won in 3:05", "Lost", "Damaged"
    status: str  # playing, won, lost or damaged: the row's colour
    played: str  # when it was last played, in UTC (the page shows it in the player's time zone)
    played_at: str  # the same, as ISO 8601
    deleted_for_everyone: bool = True  # deleting takes it away for everyone; else the player only leaves it
    # A finished game's accuracy ("Accuracy 94 %", "Not graded") with what it means, and its replay's page;
    # "" in play.
    accuracy: str = ""
    accuracy_title: str = ""
    replay: str = ""


def board_title(mode_name: str, width: int, height: int, mines: int) -> str:
    """A board as lists name it: "Beginner 9×9, 10 mines" (its preset's name, when it is one)."""
    mode = get_mode(mode_name)
    preset = next((name for name, size in mode.presets.items() if size == (width, height, mines)), None)
    mines_shown = number_text(mines)
    if preset is None:
        return ngettext(
            "%(width)s×%(height)s, %(mines)s mine",
            "%(width)s×%(height)s, %(mines)s mines",
            mines,
            width=width,
            height=height,
            mines=mines_shown,
        )
    return ngettext(
        "%(preset)s %(width)s×%(height)s, %(mines)s mine",
        "%(preset)s %(width)s×%(height)s, %(mines)s mines",
        mines,
        preset=gettext(mode.preset_title(preset)),
        width=width,
        height=height,
        mines=mines_shown,
    )


def record_size(record: Record) -> str:
    """A record's board as the records page heads it: "Beginner (9×9, 10 mines), no guessing"."""
    return board_size(record.width, record.height, record.mines, record.kind)


def board_size(width: int, height: int, mines: int, kind: str = "") -> str:
    """A board of a mode as the pages name it: its preset if it is one, its size and mines, its kind."""
    described = ngettext(
        "%(width)s×%(height)s, %(mines)s mine",
        "%(width)s×%(height)s, %(mines)s mines",
        mines,
        width=width,
        height=height,
        mines=number_text(mines),
    )
    preset = next((name for name, size in PRESETS.items() if size == (width, height, mines)), None)
    if preset is not None:
        described = gettext("%(preset)s (%(size)s)", preset=gettext(PRESET_TITLES[preset]), size=described)
    return gettext("%(size)s, %(kind)s", size=described, kind=gettext(kind)) if kind else described


def moment_texts(seconds: float, to_the_second: bool = False) -> tuple[str, str]:
    """A moment as a page writes it (UTC) until its script writes it in the reader's time zone, and in ISO 8601."""
    moment = time.gmtime(seconds)
    shown = "%Y-%m-%d %H:%M:%S UTC" if to_the_second else "%Y-%m-%d %H:%M UTC"
    return time.strftime(shown, moment), time.strftime("%Y-%m-%dT%H:%M:%SZ", moment)


def moment_html(seconds: float) -> Markup:
    """A moment as a <time> the page's script writes in the reader's time zone (static/js/page.js)."""
    text, iso = moment_texts(seconds)
    return Markup('<time datetime="{}">{}</time>').format(iso, text)


def game_list(listings: list[Listing], now: float, player: str) -> list[ListedGame]:
    rows = []
    for listing in listings:
        played, played_at = moment_texts(listing.updated_at)
        game = listing.game
        if game is None:
            rows.append(
                ListedGame(
                    listing.game_id,
                    gettext("A game whose stored data is damaged"),
                    "",
                    gettext("Damaged"),
                    "damaged",
                    played,
                    played_at,
                )
            )
            continue
        mode = get_mode(game.mode)
        title = board_title(game.mode, game.width, game.height, game.mines)
        kind = mode.record_kind(game)
        clock = clock_text(game.elapsed(now), tenths=game.status == "won")
        if game.status == "won":
            state = gettext("Won in %(clock)s", clock=clock)
        elif game.status == "lost":
            state = gettext("Lost after %(clock)s", clock=clock)
        else:
            state = (
                gettext("Playing, %(clock)s", clock=clock) if game.started_at is not None else gettext("Not started")
            )
        if mode.seat_count > 1:
            # A game of several seats: its result, or whose turn it is.
            mover = mode.seat_name(mode.seat_to_move(game))
            state = mode.result_text(game, clock) or gettext("Playing, %(seat)s to move", seat=mover)
        if game.deaths:
            state = ngettext("%(state)s, %(num)s death", "%(state)s, %(num)s deaths", game.deaths, state=state)
        accuracy = accuracy_title = replay = ""
        if game.status != "playing":
            # Graded at its end; a game too long for that is graded when its review is first asked for.
            graded = game.review is not None
            accuracy = (
                gettext("Accuracy %(accuracy)s", accuracy=accuracy_text(accuracy_of(game)))
                if graded
                else gettext("Not graded")
            )
            accuracy_title = gettext(ACCURACY_TITLE if graded else NOT_GRADED_TITLE)
            replay = f"/games/{listing.game_id}/replay"
        rows.append(
            ListedGame(
                listing.game_id,
                title,
                gettext("%(mode)s, %(kind)s", mode=gettext(mode.title), kind=gettext(kind))
                if kind
                else gettext(mode.title),
                state,
                game.status,
                played,
                played_at,
                # A room's game is the room's: whoever made it only leaves it (app.service delete).
                deleted_for_everyone=game.maker == player and game.room is None,
                accuracy=accuracy,
                accuracy_title=accuracy_title,
                replay=replay,
            )
        )
    return rows


def isolated(text: str, name: str | None) -> Markup:
    """`text` as markup, the name it holds set apart in <bdi>: a name in a script written right to left must
    not turn the words around it (wherever a language puts the name in its sentence)."""
    if name and name in text:
        before, _, after = text.partition(name)
        return Markup("{}{}{}").format(before, set_apart(name), after)
    return Markup.escape(text)


def set_apart(name: str) -> Markup:
    """A player's name to fill a sentence with, set apart in <bdi> (see `isolated`)."""
    return Markup("<bdi>{}</bdi>").format(name)


def clock_text(seconds: float, tenths: bool = False) -> str:
    """ "3:05", or "3:05.4" for a won game's time, as classic Minesweeper records it."""
    if tenths:
        whole, tenth = divmod(int(seconds * 10), 10)
        return f"{whole // 60}:{whole % 60:02d}.{tenth}"
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"
