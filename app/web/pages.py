"""The pages and their HTMX fragments: forms and clicks become service operations."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app.core.game import Game, Invalid, Move, board_size, rewound
from app.core.seats import held_by, replay_watcher, watcher
from app.modes import BOARD_MODE, DEFAULT_MODE, get_mode, variant_of
from app.service import GameService
from app.service.overlays import Overlay
from app.store import Corrupt, NotFound, StoreUnavailable
from app.web.deps import (
    PRESENCE_CHECK_SECONDS,
    ROOM_NEWS_SECONDS,
    Client,
    Player,
    Service,
    is_htmx,
    stream_slot,
)
from app.web.render import OOB_ROWS, blocks, move_answer, page, page_context, replay_context
from app.web.views.daily import daily_rules
from app.web.views.game import Look, cell_html, changed_cells, clock_text, game_list
from app.web.views.game_page import company, game_context
from app.web.views.reviews import MARGIN_TEXT, overlay_changes
from app.web.views.rooms import room_rows

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


@router.get("/healthz", response_class=JSONResponse)
def healthz(service: Service) -> JSONResponse:
    """{"status": "ok"} while the store can read and save games (the Docker HEALTHCHECK reads it);
    otherwise 503, naming the part that is down."""
    try:
        service.store.check()
    except StoreUnavailable as down:
        return JSONResponse({"status": "down", "store": down.part, "detail": down.message}, status_code=503)
    return JSONResponse({"status": "ok"})


@router.get("/docs")
def api_docs(request: Request) -> Response:
    """Swagger UI for the JSON API, from the copy vendored in static/ (see static/VENDORED.md), under Kaboom's
    header: a way back to the game."""
    return page(request, page_context(None, docs_page=True))


@router.get("/")
async def home(request: Request, player: Player, service: Service) -> Response:
    """The player's games, running and finished, to resume or delete; a welcome for a new player."""
    listings = await service.games.games_of(player)
    latest = next((listing for listing in listings if listing.game is not None), None)
    rooms = room_rows(await service.rooms.rooms_of(player))
    return page(
        request, page_context(None, games=game_list(listings, service.clock(), player), latest=latest, rooms=rooms)
    )


@router.get("/rules")
async def rules_page(request: Request) -> Response:
    """Every mode's rules with a picture of its key idea, the rooms', the boards of the day's and the review's,
    the controls and the settings."""
    return page(request, page_context(None, rules_page=True, daily=daily_rules(), margin=MARGIN_TEXT))


@router.get("/records")
async def records_page(request: Request, player: Player, service: Service) -> Response:
    """The player's records per mode and size."""
    return page(request, page_context(None, records=await service.games.records(player), clock=clock_text))


@router.post("/games/{game_id}/delete")
async def delete_form(game_id: str, player: Player, service: Service) -> Response:
    await service.games.delete(game_id, player)
    return RedirectResponse("/", status_code=303)


@router.post("/games")
async def new_game_form(
    request: Request,
    player: Player,
    client: Client,
    service: Service,
    preset: Annotated[str, Form()] = "custom",
    width: Annotated[str, Form()] = "",
    height: Annotated[str, Form()] = "",
    mines: Annotated[str, Form()] = "",
    unit: Annotated[str, Form()] = "count",
    mode: Annotated[str, Form()] = DEFAULT_MODE,
    choice: Annotated[str, Form()] = "",
    settings_of: Annotated[str | None, Form()] = None,
    opponent: Annotated[str | None, Form()] = None,
    level: Annotated[str | None, Form()] = None,
    room: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
) -> Response:
    """A new game of a preset or custom size in a mode (`choice`, "MODE PRESET", names both: the page's
    buttons); its settings are those of the game `settings_of` names (the player's current one) as they
    are now, as far as the mode has them, or the defaults."""
    if choice:
        mode, _, preset = choice.partition(" ")
        # A row of the form may offer its mode's variants (cruel Flags in Flags'): the presets play the one chosen.
        variant = (await request.form()).get(f"variant-{mode}")
        if isinstance(variant, str) and variant:
            mode = variant_of(mode, variant)
    # A refused form comes back filled in as it was sent (see app.web.errors).
    request.state.form = {"width": width, "height": height, "mines": mines, "unit": unit, "mode": mode}
    rules = get_mode(mode)
    if preset in rules.presets:
        size = rules.presets[preset]
    elif preset == "custom":
        size = board_size(
            whole(width, "width"),
            whole(height, "height"),
            mines=whole(mines, "mines") if unit == "count" else None,
            percent=decimal(mines, "mine percentage") if unit == "percent" else None,
        )
    else:
        raise Invalid(f"unknown preset {preset!r}")
    # Read from the game, not from the page: settings changed during the game are not in an old form.
    settings = await settings_from(service, settings_of, player) if settings_of else {}
    names = rules.options_class.names()
    chosen = {name: on for name, on in settings.items() if name in names}
    if room:
        # A room of others playing this board (app.rooms): made, then its page, with the link to send.
        room_id, _ = await service.rooms.create_room(player, client, room, rules.name, *size, chosen, name)
        return RedirectResponse(f"/rooms/{room_id}", status_code=303)
    # The form holds every mode's fields: only the chosen mode's go to it.
    seat_fields = rules.seat_fields
    game_id, _ = await service.games.create(
        player,
        client,
        rules.name,
        *size,
        chosen,
        opponent=(opponent or None) if "opponent" in seat_fields else None,
        level=(level or None) if opponent == "computer" and "level" in seat_fields else None,
    )
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.get("/play/{board_id}")
async def play_board(
    board_id: str, player: Player, client: Client, service: Service, mode: str = BOARD_MODE
) -> Response:
    """A shared board: a new game of the layout its id names, for whoever opens the link."""
    game_id, _ = await service.games.create(player, client, mode, 0, 0, 0, {}, board_id)
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.post("/games/{game_id}/restart")
async def restart_form(game_id: str, player: Player, client: Client, service: Service) -> Response:
    new_id, _ = await service.games.restart(game_id, player, client)
    return RedirectResponse(f"/games/{new_id}", status_code=303)


async def settings_from(service: GameService, game_id: str, player: str) -> dict[str, bool]:
    """A game's settings as they are now; the defaults when it is gone or damaged (a new game must still start)."""
    try:
        return (await service.games.load(game_id, player)).options.as_dict()
    except (NotFound, Corrupt):
        return {}


@router.get("/games/{game_id}")
async def game_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    game, overlay, review = await service.games.look(game_id, player)
    return page(request, await game_context(request, service, game_id, game, player, overlay, review=review))


# ----- games of two: the invitation, watching, live updates ---------------------------------


@router.get("/games/{game_id}/join/{key}")
async def invitation(request: Request, game_id: str, key: str, service: Service) -> Response:
    """An invitation's link shows the game; taking the seat is a button on it (join_invitation). A link
    preview (a chat app fetching the link to draw it) must not take the friend's seat, nor may any other
    plain GET. The player who holds a seat goes to their game."""
    game = await service.games.load(game_id, watcher(key))
    if held_by(game.seats, request.session.get("player", "")):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    return RedirectResponse(f"/games/{game_id}/watch/{key}", status_code=303)


@router.post("/games/{game_id}/join/{key}")
async def join_invitation(game_id: str, key: str, player: Player, service: Service) -> Response:
    """Take the invitation's seat: the player's (their cookie keeps it) if nobody took it first; else they watch."""
    seated = await service.seats.join(game_id, key, player)
    return RedirectResponse(f"/games/{game_id}" if seated else f"/games/{game_id}/watch/{key}", status_code=303)


@router.post("/games/{game_id}/free-seat")
async def free_seat_form(game_id: str, player: Player, service: Service) -> Response:
    """The inviter frees the seat of someone who took it and never moved: a new link to send."""
    await service.seats.free_seat(game_id, player)
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.get("/games/{game_id}/watch/{key}")
async def watch_page(request: Request, game_id: str, key: str, service: Service) -> Response:
    """A game of two as a spectator sees it: everything the players see, nothing to click."""
    viewer = watcher(key)
    game, overlay, review = await service.games.look(game_id, viewer, request.session.get("player"))
    return page(request, await game_context(request, service, game_id, game, viewer, overlay, key=key, review=review))


async def live_events(
    game_id: str, viewer: str, service: GameService, version: int, room_state: str = "", player: str | None = None
) -> AsyncIterator[ServerSentEvent]:
    """A "changed" event whenever the game's version, who is connected or (in a room) what the room shows
    differs from what the page shows; the page then asks for the fragment. Only these facts travel here,
    never a cell."""
    shown_version, shown_present, shown_room = version, None, room_state
    while True:
        try:
            current, present, room = await service.rooms.live_with_room(game_id, viewer, player)
        except (NotFound, Corrupt, StoreUnavailable):
            return  # the game is gone or cannot be read now: the page's poll says why
        if room is not None:
            # The room's look at its games came after this one's read, and may have seen a newer version.
            current = max(current, room.versions.get(game_id, current))
        if shown_present is None:
            shown_present = present
        signature = room.signature if room is not None else ""
        if (current, present, signature) != (shown_version, shown_present, shown_room):
            shown_version, shown_present, shown_room = current, present, signature
            yield ServerSentEvent(event="changed", data=f"{current}")
            if room is not None:
                await service.seats.wait_for_change(game_id, current, ROOM_NEWS_SECONDS)
        await service.seats.wait_for_change(game_id, current, PRESENCE_CHECK_SECONDS, room)
        if service.seats.changes.closed:
            return  # the server is stopping: the page reconnects to whichever answers next


async def seat_viewer(game_id: str, player: Player, service: Service) -> str:
    """A player who holds a seat in the game (NotFound, a 404, otherwise: checked before a stream starts)."""
    await service.seats.live(game_id, player)
    return player


async def link_viewer(request: Request, game_id: str, key: str, service: Service) -> str:
    """Whoever holds the game's invitation link, to watch it."""
    await service.seats.live(game_id, watcher(key), request.session.get("player"))
    return watcher(key)


@router.get("/games/{game_id}/events", response_class=EventSourceResponse)
async def game_events(
    game_id: str,
    viewer: Annotated[str, Depends(seat_viewer)],
    _slot: Annotated[None, Depends(stream_slot)],
    service: Service,
    version: int = -1,
    room_state: str = "",
) -> AsyncIterator[ServerSentEvent]:
    """Server-sent events of a game several play or watch, for one of its players (htmx's SSE extension listens)."""
    async for event in live_events(game_id, viewer, service, version, room_state):
        yield event


@router.get("/games/{game_id}/watch/{key}/events", response_class=EventSourceResponse)
async def watch_events(
    game_id: str,
    viewer: Annotated[str, Depends(link_viewer)],
    _slot: Annotated[None, Depends(stream_slot)],
    service: Service,
    request: Request,
    version: int = -1,
    room_state: str = "",
) -> AsyncIterator[ServerSentEvent]:
    async for event in live_events(game_id, viewer, service, version, room_state, request.session.get("player")):
        yield event


@router.get("/games/{game_id}/live")
async def game_live(
    request: Request,
    game_id: str,
    player: Player,
    service: Service,
    version: str = "",
    presence: str = "",
    room_state: str = "",
) -> Response:
    """The fallback poll (and what a stream's event asks for): 204 while the page is up to date, else its
    panel and the cells that changed."""
    return await live_answer(request, game_id, player, service, version, presence, room_state=room_state)


@router.get("/games/{game_id}/watch/{key}/live")
async def watch_live(
    request: Request,
    game_id: str,
    key: str,
    service: Service,
    version: str = "",
    presence: str = "",
    room_state: str = "",
) -> Response:
    return await live_answer(request, game_id, watcher(key), service, version, presence, key, room_state)


async def live_answer(
    request: Request,
    game_id: str,
    viewer: str,
    service: GameService,
    version: str,
    presence: str,
    key: str | None = None,
    room_state: str = "",
) -> Response:
    asker = request.session.get("player")
    current, present, room = await service.rooms.live_with_room(game_id, viewer, asker)
    shown = "".join(str(seat) for seat in sorted(present))
    signature = room.signature if room is not None else ""
    if version == str(current) and presence == shown and room_state == signature:
        return Response(status_code=204)
    game, overlay, review = await service.games.look(game_id, viewer, asker)
    context = await game_context(
        request, service, game_id, game, viewer, overlay, present=present, key=key, room=room, review=review, oob=True
    )
    if version == str(game.version):
        return blocks(request, context, "panel")  # the board is as the page shows it: only the panel moved
    changes = one_action_behind(game, overlay, version)
    if changes is not None:
        context.update(changes=[cell_html(cell, look, oob=True) for cell, look in changes], changed_rows=[])
        return blocks(request, context, "panel", "changes")
    return blocks(request, context, "panel", "grid")


def one_action_behind(game: Game, overlay: Overlay, version: str) -> list | None:
    """The cells that look different from what a page one version behind shows, when that version is the
    one before the game's last action (as a live page usually is): only what that action changed. None
    otherwise (the caller sends the grid): after an undo, with an overlay (it moves everywhere), or further behind."""
    if version != str(game.version - 1) or not game.history or game.undone or game.status != "playing":
        return None
    if overlay.statuses is not None or overlay.probabilities is not None:
        return None
    record = game.history[-1]
    if record.get("version") != game.version - 1:
        return None
    before, _ = rewound(game)
    touched = {int(key) for key in (*record["cells"], *record["marks"])}
    return changed_cells(Look(before, None), Look(game, None), touched, max_rows=OOB_ROWS)


@router.post("/games/{game_id}/moves")
async def move_form(
    request: Request,
    game_id: str,
    player: Player,
    client: Client,
    service: Service,
    action: Annotated[str, Form()],
    x: Annotated[str, Form()] = "",
    y: Annotated[str, Form()] = "",
    version: Annotated[str, Form()] = "",
) -> Response:
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    move = Move(action, whole(x, "x") if x else None, whole(y, "y") if y else None)
    request.state.page_version = version  # a refusal answers a page behind the game with the board as it is
    result = await service.games.move(game_id, player, move, client)
    around = await company(request, service, game_id, result.after, player)
    return move_answer(request, game_id, result, version, service.clock(), **around)


@router.post("/games/{game_id}/bot")
async def bot_move_form(
    request: Request,
    game_id: str,
    player: Player,
    client: Client,
    service: Service,
    version: Annotated[str, Form()] = "",
) -> Response:
    """One step of Play for me (kaboom.js): the bot's next cell, answered as a click on it is."""
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    request.state.page_version = version
    result = await service.games.bot_move(game_id, player, client)
    around = await company(request, service, game_id, result.after, player)
    return move_answer(request, game_id, result, version, service.clock(), **around)


@router.get("/games/{game_id}/bot")
async def bot_choice_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    """What would the bot do? Its next cell, ringed on the board, with the reason in the panel."""
    _, choice = await service.aids.bot_choice(game_id, player)
    game, overlay, _ = await service.games.look(game_id, player)
    context = await game_context(request, service, game_id, game, player, overlay, bot=choice, oob=is_htmx(request))
    return blocks(request, context, "panel") if is_htmx(request) else page(request, context)


@router.post("/games/{game_id}/options")
async def options_form(request: Request, game_id: str, player: Player, service: Service) -> Response:
    game = await service.games.load(game_id, player)
    # The form sends only the ticked boxes, so any other body (JSON, nothing at all) would read
    # as "every box unticked": only the form's own encoding is taken.
    if request.headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/x-www-form-urlencoded":
        raise Invalid("The settings come from the page's settings form only; nothing was changed.")
    form = await request.form()
    options = type(game.options)
    # A ticked box is sent as name=on, an unticked one not at all: every setting the form lacks
    # is off. Any other name or value is refused by the check, naming it.
    sent = {name: True if value == "on" else value for name, value in form.multi_items()}
    changes = options.checked({**dict.fromkeys(options.names(), False), **sent})
    await service.games.set_options(game_id, player, changes)
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    # A setting that shapes the deal, changed once the board is dealt, is kept for the next game: say so.
    waiting = [
        options.label(name)
        for name, on in changes.items()
        if on != getattr(game.options, name) and options.at_deal(name) and game.started_at is not None
    ]
    message = (
        f"{waiting[0]}: from the next board, as this one is already dealt. Play again (F2) deals one."
        if waiting
        else ""
    )
    game, overlay, review = await service.games.look(game_id, player)
    context = await game_context(
        request, service, game_id, game, player, overlay, review=review, oob=True, message=message
    )
    return blocks(request, context, "panel", "grid", "settings")


@router.post("/games/{game_id}/hint")
async def hint_form(
    request: Request, game_id: str, player: Player, service: Service, show: Annotated[str, Form()] = ""
) -> Response:
    _, advice = await service.aids.hint(game_id, player)
    if not is_htmx(request):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    game, overlay, _ = await service.games.look(game_id, player)
    context = await game_context(
        request, service, game_id, game, player, overlay, hint=advice, show_hint=show == "yes", oob=True
    )
    return blocks(request, context, "panel")


def whole(text: str, name: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise Invalid(f"{name} must be a whole number, not {text!r}") from None


def decimal(text: str, name: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise Invalid(f"{name} must be a number, not {text!r}") from None


# ----- a finished game's replay and review ----------------------------------------------------------


@router.get("/games/{game_id}/replay")
async def replay_page(request: Request, game_id: str, player: Player, service: Service) -> Response:
    """A finished game's replay, every move graded; 404 while it is in play, as for another player's game."""
    game, graded = await service.reviews.review(game_id, player)
    share = str(request.url_for("shared_replay", game_id=game_id, key=game.share)) if game.share else None
    owner = player == game.maker
    on_ladder = owner and await service.daily.on_ladder(game_id, game)
    context = replay_context(game_id, game, graded, service.clock(), owner=owner, share=share, on_ladder=on_ladder)
    return page(request, context)


@router.get("/replays/{game_id}/{key}")
async def shared_replay(request: Request, game_id: str, key: str, service: Service) -> Response:
    """A replay shared by its link: the same page, without its owner's controls, naming its player to anyone
    else; 404 once withdrawn."""
    asker = request.session.get("player")
    game, graded = await service.reviews.review(game_id, replay_watcher(key), asker)
    player = await service.daily.shown_name(game.maker) if asker != game.maker else None
    return page(request, replay_context(game_id, game, graded, service.clock(), key=key, player=player))


@router.get("/games/{game_id}/replay/overlay", response_class=JSONResponse)
async def replay_overlay(game_id: str, step: int, player: Player, service: Service) -> JSONResponse:
    return await overlay_answer(service, game_id, player, step)


@router.get("/replays/{game_id}/{key}/overlay", response_class=JSONResponse)
async def shared_replay_overlay(request: Request, game_id: str, key: str, step: int, service: Service) -> JSONResponse:
    return await overlay_answer(service, game_id, replay_watcher(key), step, request.session.get("player"))


async def overlay_answer(
    service: GameService, game_id: str, viewer: str, step: int, asker: str | None = None
) -> JSONResponse:
    """What could be known after `step` steps of the replay: the cells the overlays change, and a note
    when counting took too long."""
    _, frame, overlay = await service.reviews.replay_overlay(game_id, viewer, step, asker)
    note = "Too complex to count in time: the chances are left out." if overlay.too_complex else ""
    return JSONResponse({"step": step, "changes": overlay_changes(frame, overlay), "note": note})


@router.post("/games/{game_id}/share")
async def share_form(game_id: str, player: Player, service: Service, shared: Annotated[str, Form()] = "1") -> Response:
    """Share the replay (shared=1) or withdraw its link (shared=0), then back to the replay."""
    await service.reviews.share(game_id, player, shared != "0")
    return RedirectResponse(f"/games/{game_id}/replay#share", status_code=303)
