"""The player as a whole: their page (passkeys, link codes, their data to download or delete), signing a device in
as a player, and their part of the JSON API. The page's passkey buttons use the API (static/js/passkeys.js); the
rest of the page works without a script."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from app.core.game import Invalid
from app.core.languages import lazy_gettext
from app.service import GameService
from app.service.devices import LINK_CODE_SECONDS, LinkCode, SignInRefused, Site
from app.service.players import Export
from app.web.deps import Client, Player, Service, Where, become, player_of
from app.web.render import page, page_context
from app.web.schemas.base import ERROR_RESPONSES, ErrorOut
from app.web.schemas.players import (
    DeleteIn,
    ExportOut,
    JoinIn,
    LinkCodeOut,
    LinkIn,
    NewPasskeyIn,
    PasskeyNameIn,
    PasskeyOut,
    ProgressOut,
    SignInIn,
    SignInOut,
    export_document,
)
from app.web.views.progress import finished_rows, progress_charts

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
# Every request here that reads or writes much, or could be used to guess, counts towards a limit per address.
LIMITED: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorOut, "description": "too many of these requests from this address for now"}
}
api_router = APIRouter(prefix="/api/player", tags=["player"], responses={**ERROR_RESPONSES, **LIMITED})

# What the delete form's box sends when ticked, and the join form's buttons.
CONFIRMED = "yes"
# The session's note of a sign-in waiting for the device's choice (its games: bring them or leave them), and of
# the link code this device showed last.
JOINING = "joining"
SHOWN_CODE = "link_code"


# ----- the pages -------------------------------------------------------------------------------------------------


async def _player_page(
    request: Request, player: str, service: GameService, site: Site, status: int = 200, **extra: Any
) -> Response:
    code = _shown_code(request, service)
    context = page_context(
        None,
        passkeys=await service.devices.passkeys(player),
        shown_name=await service.daily.shown_name(player),
        code=code,
        code_qr=_qr(_link_url(site, code.code)) if code else None,
        code_minutes=LINK_CODE_SECONDS // 60,
        **extra,
    )
    return page(request, "player.html", context, status_code=status)


def _again_on_player_page(request: Request, service: GameService, site: Site, **extra: Any) -> None:
    """A refused request comes back to the player page with the message (and what was typed)."""

    async def again(message: str, status: int) -> Response:
        player = player_of(request)
        return await _player_page(request, player, service, site, status, message=message, refused=True, **extra)

    request.state.page_again = again


@router.get("/player")
async def player_page(request: Request, player: Player, service: Service, site: Where) -> Response:
    """The player: their passkeys and link codes, which make another device the same player; their data."""
    return await _player_page(request, player, service, site)


@router.get("/player/link")
async def link_page(request: Request, player: Player, service: Service, site: Where, code: str = "") -> Response:
    """The player page with a link code filled in (a QR code's link): entering it is still a button away."""
    return await _player_page(request, player, service, site, typed_code=code[:40])


@router.post("/player/link-codes")
async def new_link_code(request: Request, player: Player, client: Client, service: Service, site: Where) -> Response:
    """Show a new link code on this device (and its QR code) for another device to enter."""
    _again_on_player_page(request, service, site)
    code = await service.devices.link_code(player, client)
    _note(request, SHOWN_CODE, code.code, code.until)
    return RedirectResponse("/player#link", status_code=303)


@router.post("/player/link")
async def link_form(
    request: Request, player: Player, client: Client, service: Service, site: Where, code: Annotated[str, Form()] = ""
) -> Response:
    """This device becomes the player whose link code it entered."""
    _again_on_player_page(request, service, site, typed_code=code[:40])
    target = await service.devices.redeem_link_code(client, code)
    return RedirectResponse((await _signed_in(request, service, player, target)).next, status_code=303)


@router.get("/player/join")
async def join_page(request: Request, player: Player, service: Service, site: Where) -> Response:
    """A device that signed in as another player, with games of its own: bring them along, or leave them."""
    target = _joining(request, service)
    if target is None:
        return RedirectResponse("/player", status_code=303)
    return await _player_page(request, player, service, site, joining=await service.daily.shown_name(target))


@router.post("/player/join")
async def join_form(
    request: Request, player: Player, service: Service, site: Where, bring: Annotated[str, Form()] = ""
) -> Response:
    _again_on_player_page(request, service, site)
    await _join(request, service, player, bring == CONFIRMED)
    return RedirectResponse("/", status_code=303)


@router.post("/player/passkeys/{credential_id}/rename")
async def rename_passkey_form(
    request: Request,
    credential_id: str,
    player: Player,
    service: Service,
    site: Where,
    name: Annotated[str, Form()] = "",
) -> Response:
    _again_on_player_page(request, service, site)
    await service.devices.rename_passkey(player, credential_id, name)
    return RedirectResponse("/player#passkeys", status_code=303)


@router.post("/player/passkeys/{credential_id}/remove")
async def remove_passkey_form(
    request: Request, credential_id: str, player: Player, service: Service, site: Where
) -> Response:
    _again_on_player_page(request, service, site)
    await service.devices.remove_passkey(player, credential_id)
    return RedirectResponse("/player#passkeys", status_code=303)


@router.get("/player/export")
async def export_download(request: Request, player: Player, client: Client, service: Service, site: Where) -> Response:
    """Everything the server holds about the player, as one JSON file to keep."""
    _again_on_player_page(request, service, site)
    return _download(await service.players.export(player, client), service.clock())


@router.post("/player/delete")
async def delete_form(
    request: Request,
    player: Player,
    client: Client,
    service: Service,
    site: Where,
    confirm: Annotated[str, Form()] = "",
) -> Response:
    """Delete everything the server holds about the player, once they ticked the box that says so; the browser
    then starts afresh as a new player."""
    _again_on_player_page(request, service, site)
    if confirm != CONFIRMED:
        raise Invalid(lazy_gettext("nothing was deleted: tick the box that says you want everything deleted"))
    await service.players.forget(player, client)
    request.session.clear()
    return RedirectResponse("/player/deleted", status_code=303)


# The finished games a page of the progress lists.
FINISHED_PER_PAGE = 50


@router.get("/progress")
async def progress_page(
    request: Request, player: Player, service: Service, page_number: Annotated[int, Query(alias="page", ge=1)] = 1
) -> Response:
    """The player's progress over time: charts of their games, wins, times, 3BV/s and accuracy per week and of the
    boards of the day, and every finished game with its replay (while the game is kept), newest first."""
    progress = await service.players.progress(player)
    history = await service.daily.history(player)
    days = [(day.date, _outcome(day)) for day in history.days]
    pages = max(1, -(-len(progress.finished) // FINISHED_PER_PAGE))
    page_number = min(page_number, pages)
    shown = progress.finished[(page_number - 1) * FINISHED_PER_PAGE : page_number * FINISHED_PER_PAGE]
    context = page_context(
        None,
        charts=progress_charts(progress, days),
        finished=finished_rows(shown),
        kept=await service.players.kept([game.game_id for game in shown]),
        page_number=page_number,
        pages=pages,
        streak=(history.streak, history.best_streak),
        unreadable=progress.unreadable,
    )
    return page(request, "progress.html", context)


def _outcome(day: Any) -> str:
    """How a day of the boards of the day went for the player: a board won, played, or none."""
    entries = [board.entry for board in day.boards if board.entry is not None]
    return "won" if any(entry["won"] for entry in entries) else "played" if entries else "none"


@router.get("/player/deleted")
async def deleted_page(request: Request) -> Response:
    """Where a deletion ends: what is gone, and what a new visit starts."""
    return page(request, "player.html", page_context(None, deleted=True))


# ----- what pages and API share ---------------------------------------------------------------------------------


def _download(export: Export, now: float) -> Response:
    day = datetime.datetime.fromtimestamp(now, datetime.UTC).date().isoformat()
    return Response(
        json.dumps(export_document(export, now), ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="kaboom-player-{day}.json"'},
    )


def _link_url(site: Site, code: str) -> str:
    return f"{site.origin}/player/link?code={code}"


def _qr(url: str) -> Markup:
    """The link as a QR code, drawn as SVG: dark on light whatever the page's scheme, as cameras read it best."""
    svg = segno.make(url, error="m").svg_inline(scale=4, border=2, dark="#000", light="#fff", omitsize=True)
    return Markup(svg)  # noqa: S704 - segno's own SVG of a URL the server made


def _noted(request: Request, service: GameService, note: str) -> tuple[str, float] | None:
    """A note the session keeps for a while ({"value", "until"}): its value and time, while that time is to come."""
    kept = request.session.get(note)
    if not isinstance(kept, dict):
        return None
    value, until = kept.get("value"), kept.get("until")
    if isinstance(value, str) and isinstance(until, (int, float)) and until > service.clock():
        return value, float(until)
    return None


def _note(request: Request, note: str, value: str, until: float) -> None:
    request.session[note] = {"value": value, "until": until}


def _shown_code(request: Request, service: GameService) -> LinkCode | None:
    """The link code this device showed last, while it may still link."""
    noted = _noted(request, service, SHOWN_CODE)
    return LinkCode(*noted) if noted else None


def _joining(request: Request, service: GameService) -> str | None:
    """The player this device signed in as and waits to become, while its choice is still to be made."""
    noted = _noted(request, service, JOINING)
    return noted[0] if noted else None


async def _signed_in(request: Request, service: GameService, player: str, target: str) -> SignInOut:
    """A passkey or a link code made this device `target`: at once, or once it says whether to bring the games
    it has along (it is `player` till then)."""
    if target == player:
        return SignInOut(signed_in=True, choice=False, next="/")
    if await service.players.has_keeping(player):
        _note(request, JOINING, target, service.clock() + LINK_CODE_SECONDS)
        return SignInOut(signed_in=False, choice=True, next="/player/join")
    become(request, target)
    return SignInOut(signed_in=True, choice=False, next="/")


async def _join(request: Request, service: GameService, player: str, bring: bool) -> None:
    target = _joining(request, service)
    if target is None:
        raise SignInRefused(lazy_gettext("no sign-in waits on this device: sign in again"))
    if bring:
        await service.players.merge(player, target)
    become(request, target)


# ----- the JSON API ---------------------------------------------------------------------------------------------


@api_router.get("/export", response_model=ExportOut)
async def export(player: Player, client: Client, service: Service) -> Response:
    """Everything the server holds about the player: their games (as GET /api/games/{id} shows them, with their
    moves), results, records, boards seen, ladder entries, name, rooms, claims and passkeys' names. At most
    `player_limit` exports, deletions, passkeys and link codes per address every `player_window` seconds (429)."""
    return _download(await service.players.export(player, client), service.clock())


@api_router.post("/delete", status_code=204)
async def delete(body: DeleteIn, request: Request, player: Player, client: Client, service: Service) -> Response:
    """Delete everything the server holds about the player, at once, for good: their games and rooms where nobody
    else plays, results, records, ladder entries (they leave the ladders), name, claims, passkeys and link codes.
    In a game or room others share, their seat or place stays, held by a new id nobody has, so the others' game
    goes on. The cookie is emptied: the next request starts a new player. Within the export's limit."""
    await service.players.forget(player, client)
    request.session.clear()
    return Response(status_code=204)


@api_router.get("/progress", response_model=ProgressOut)
async def progress(player: Player, service: Service) -> ProgressOut:
    """The player's progress over time, per week (ISO weeks, UTC): games and wins, the mean 3BV per second of the
    wins and the mean accuracy; and per mode and size, the best and median winning time of each week won in."""
    return ProgressOut.of(await service.players.progress(player))


@api_router.get("/passkeys", response_model=list[PasskeyOut])
async def passkeys(player: Player, service: Service) -> list[PasskeyOut]:
    """The player's passkeys, the first made first: another device signs in as the player with any of them."""
    return [PasskeyOut.of(passkey) for passkey in await service.devices.passkeys(player)]


@api_router.post("/passkeys/options")
async def passkey_options(player: Player, client: Client, service: Service, site: Where) -> Response:
    """What navigator.credentials.create is asked to make a passkey with (PublicKeyCredential's JSON form, for
    parseCreationOptionsFromJSON): for this site, the player's passkeys excluded. Good for five minutes, once."""
    options = await service.devices.passkey_options(player, client, site)
    return Response(options, media_type="application/json")


@api_router.post("/passkeys", status_code=201, response_model=PasskeyOut)
async def add_passkey(body: NewPasskeyIn, player: Player, client: Client, service: Service, site: Where) -> PasskeyOut:
    """Keep the passkey the browser made from the options above, under a name. Refused (409) when it does not
    check out: another site's, another ceremony's, or made too long ago."""
    return PasskeyOut.of(await service.devices.add_passkey(player, client, site, body.credential, body.name))


@api_router.patch("/passkeys/{credential_id}", response_model=PasskeyOut)
async def rename_passkey(credential_id: str, body: PasskeyNameIn, player: Player, service: Service) -> PasskeyOut:
    return PasskeyOut.of(await service.devices.rename_passkey(player, credential_id, body.name))


@api_router.delete("/passkeys/{credential_id}", status_code=204)
async def remove_passkey(credential_id: str, player: Player, service: Service) -> Response:
    """Remove a passkey: it signs nobody in from now on (the device may still offer it)."""
    await service.devices.remove_passkey(player, credential_id)
    return Response(status_code=204)


@api_router.post("/sign-in/options")
async def sign_in_options(client: Client, service: Service, site: Where) -> Response:
    """What navigator.credentials.get is asked to sign in with (for parseRequestOptionsFromJSON): any passkey the
    device keeps for this site. Good for five minutes, once. At most `sign_in_limit` sign-ins and link codes
    entered per address every `player_window` seconds (429)."""
    return Response(await service.devices.sign_in_options(client, site), media_type="application/json")


@api_router.post("/sign-in", response_model=SignInOut)
async def sign_in(
    body: SignInIn, request: Request, player: Player, client: Client, service: Service, site: Where
) -> SignInOut:
    """This device becomes the player whose passkey answered the options above (a new session). A device that has
    games of its own is asked first (`choice`): POST /join says whether to bring them along."""
    target = await service.devices.sign_in(client, site, body.credential)
    return await _signed_in(request, service, player, target)


@api_router.post("/link-codes", status_code=201, response_model=LinkCodeOut)
async def link_code(player: Player, client: Client, service: Service, site: Where) -> LinkCodeOut:
    """A one-time code that makes another device this player: 12 letters and digits of Crockford's base 32
    (60 bits), good for ten minutes and one use. Within the export's limit."""
    code = await service.devices.link_code(player, client)
    return LinkCodeOut(code=code.shown, expires_at=code.until, url=_link_url(site, code.code))


@api_router.post("/link", response_model=SignInOut)
async def link(body: LinkIn, request: Request, player: Player, client: Client, service: Service) -> SignInOut:
    """This device becomes the player whose link code it entered (the code used up). Wrong, used and stale codes
    are refused alike (409), within the sign-ins' limit; a device with games of its own is asked first, as for
    a passkey."""
    target = await service.devices.redeem_link_code(client, body.code)
    return await _signed_in(request, service, player, target)


@api_router.post("/join", status_code=204)
async def join(body: JoinIn, request: Request, player: Player, service: Service) -> Response:
    """Finish a sign-in that waits on this device's choice: bring its games, results, records and ladder entries
    along (merged at once: each ladder keeps the earlier entry, each game and result counts once) or leave them
    with the player this device was. Refused (409) when no sign-in waits."""
    await _join(request, service, player, body.bring)
    return Response(status_code=204)
