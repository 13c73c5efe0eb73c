"""Rendering the pages (a template each, extending base.html) and their blocks: a whole page, a game's status panel,
a move's changes."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from app.core.game import MAX_BOARD_SIDE, Game
from app.modes import BOARD_MODE, MODES
from app.results.daily import stored_board
from app.results.review import Review
from app.rooms import KINDS
from app.service.games import MoveResult
from app.service.overlays import Overlay
from app.web.deps import templates
from app.web.faces import PARTS, face_of
from app.web.views.game import (
    Look,
    bot_text,
    cell_html,
    changed_cells,
    hint_text,
    panel,
    probability_legend,
    review_text,
    seat_lines,
)
from app.web.views.reviews import kept_accuracy, replay_view

# The page that owns most fragments: a game's panel, board and settings are blocks of it.
GAME_PAGE = "game.html"
# Past this many changed cells a response sends rows, past this many rows the whole grid:
# htmx fires an event per earlier swap on every out-of-band swap (N^2/2 events in all).
OOB_CELLS = 40
OOB_ROWS = 30


def page_context(
    game_id: str | None, game: Game | None = None, overlay: Overlay | None = None, *, now: float = 0.0, **extra: Any
) -> dict:
    context: dict[str, Any] = {
        "game_id": game_id,
        "game": game,
        "max_side": MAX_BOARD_SIDE,
        "modes": list(MODES.values()),
        "modes_by_name": MODES,
        "variants": {name: [mode for mode in MODES.values() if mode.variant_of == name] for name in MODES},
        "board_mode": BOARD_MODE,
        "room_kinds": list(KINDS.values()),
    }
    review = extra.pop("review", None)
    if review is not None and game is not None:
        context["review"] = (review, review_text(review, game))
    hint = extra.get("hint")
    if hint is not None:
        context["hint_words"] = hint_text(hint, bool(extra.get("show_hint") and hint.cell))
    bot, played = extra.pop("bot", None), extra.pop("bot_played", False)
    if bot is not None and game is not None:
        context["bot"] = (bot, bot_text(bot, played, game.mode))
    if game is not None:
        options = type(game.options)
        mode = MODES[game.mode]
        context.update(
            board_actions=mode.board_actions(),
            board_data=mode.board_data(game),
            bot_offered=mode.bot_plays,
            board_id=mode.shown_board_id(game),
            layout_seen=mode.layout_seen(game),
            daily_board=stored_board(game.daily) if game.daily else None,
            helping=options.helping(),
            missed=[game.cell(index) for index in mode.missed_cells(game)] if game.status == "lost" else [],
            missed_words=mode.missed_words(game),
            look=Look(game, overlay),
            accuracy=kept_accuracy(game),
            # Asked for and over the counting budget: the page says so (the debug overlay still shows).
            too_complex=overlay is not None and overlay.too_complex,
            legend=probability_legend() if overlay is not None and overlay.probabilities is not None else None,
            panel=panel(game, now),
            settings=[
                (
                    name,
                    options.label(name),
                    getattr(game.options, name),
                    options.at_deal(name) and game.started_at is not None,
                )
                for name in options.names()
            ],
        )
    seating = extra.pop("seating", None)
    if game is not None:
        face = face_of(game.mode)
        context.update({f"{part}_part": face.template(game.mode, part) for part in PARTS})
        context["face_class"] = face.css_class(game.mode)
        context.update(face_scripts=face.urls(game.mode, face.scripts), face_styles=face.urls(game.mode, face.styles))
        context.update(face.context(game, seating))
    if game is not None and seating is not None:
        mode = MODES[game.mode]
        context.update(
            seating=seating,
            seat_lines=seat_lines(game, seating),
            seat_names=[mode.seat_name(seat) for seat in range(len(game.seats))],
        )
        if seating.watching:
            context["board_actions"] = ()  # a spectator's board takes nothing
    room = extra.pop("room", None)
    context["assists"] = room is None or room.view.kind.assists
    if room is not None:
        context["room"] = room
        if game is not None and room.view.watching:
            context["board_actions"] = ()
        if game is not None:
            # A room's boards are dealt by the room, from its own settings: one that shapes a deal would only
            # say "from the next board" of a board this game never deals. In a race, what helps is off.
            options = type(game.options)
            hidden = (options.helping() if not room.view.kind.assists else frozenset()) | {
                name for name in options.names() if options.at_deal(name)
            }
            context["settings"] = [setting for setting in context["settings"] if setting[0] not in hidden]
            # The form sends the boxes it shows: those it does not keep their values through it.
            context["kept_settings"] = sorted(name for name in hidden if getattr(game.options, name))
    context.update(extra)
    return context


# A page shows a game as it is now: Back and Forward must ask again, not show the copy of an earlier
# visit (the browser's cache and its back-forward cache keep none).
FRESH = {"Cache-Control": "no-store"}


def replay_context(
    game_id: str,
    game: Game,
    review: Review,
    now: float,
    *,
    owner: bool = False,
    share: str | None = None,
    key: str | None = None,
    on_ladder: bool = False,
    player: str | None = None,
) -> dict:
    """The page's context for a finished game's replay: the header's, and the replay (app.web.views.reviews).
    `player`: the player's name, for a viewer who is someone else."""
    context = page_context(None, now=now)
    ladder = stored_board(game.daily) if on_ladder and game.daily else None
    context["replay"] = replay_view(
        game_id, game, review, now, owner=owner, share=share, key=key, ladder=ladder, player=player
    )
    return context


def page(request: Request, template: str, context: dict, status_code: int = 200) -> Response:
    """The page `template` (under templates/) draws, whole."""
    return templates.TemplateResponse(request, template, context, status_code=status_code, headers=FRESH)


def blocks(
    request: Request,
    context: dict,
    *names: str,
    template: str = GAME_PAGE,
    status_code: int = 200,
    headers: dict | None = None,
) -> Response:
    """Only the named blocks of the page `template` draws, for HTMX to swap. A game's status shows in three
    places, the counters above the board, the Undo button and the panel beside it: "panel" brings all three."""
    names = tuple(part for name in names for part in (("topbar", "undo", name) if name == "panel" else (name,)))
    return templates.TemplateResponse(
        request,
        template,
        context,
        status_code=status_code,
        block_names=list(names),
        headers={**FRESH, **(headers or {})},
    )


def move_answer(
    request: Request, game_id: str, result: MoveResult, page_version: str, now: float, **extra: Any
) -> Response:
    """A move's answer: the panel and the cells whose look changed (as rows, or the grid, when many did)."""
    before, after = Look(result.before, result.overlay_before), Look(result.after, result.overlay_after)
    context = page_context(
        game_id,
        result.after,
        result.overlay_after,
        now=now,
        message=result.outcome.message,
        review=result.review,
        bot=result.bot,
        bot_played=True,
        oob=True,
        **extra,
    )
    # The first click dealt the board (or its undo took the deal back): the settings that shape a deal say so.
    extra_blocks = ("settings",) if (result.before.started_at is None) != (result.after.started_at is None) else ()
    if page_version != str(result.before.version):
        # The page shows an older board than the one moved on: send all of it.
        return blocks(request, context, "panel", "grid", *extra_blocks)
    changes = changed_cells(before, after, result.outcome.changed, max_rows=OOB_ROWS)
    if changes is None:
        return blocks(request, context, "panel", "grid", *extra_blocks)
    if len(changes) <= OOB_CELLS:
        ripple = result.outcome.ripple
        context.update(
            changes=[
                cell_html(cell, look, oob=True, wave=ripple.get(result.after.index(*cell))) for cell, look in changes
            ],
            changed_rows=[],
        )
        return blocks(request, context, "panel", "changes", *extra_blocks)
    # htmx settles out-of-band swaps in quadratic time: a big change goes as whole rows.
    rows = sorted({y for (_, y), _ in changes})
    if len(rows) > OOB_ROWS:
        return blocks(request, context, "panel", "grid", *extra_blocks)
    context.update(changes=[], changed_rows=[(y, after.row_html(y)) for y in rows])
    return blocks(request, context, "panel", "changes", *extra_blocks)
