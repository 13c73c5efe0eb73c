"""Passkeys in Chromium (issue 45 #1, #3): a passkey made on one device signs another in as the same player, with the
same games, records and streak; a device that has games of its own brings them along, or leaves them; a removed
passkey signs nobody in. Each device is a browser context with a virtual authenticator of its own (the DevTools
protocol's WebAuthn domain); a passkey "synced" to the other device is its credential copied into that one's
authenticator. At a laptop's size and on a touch phone. The pages are on localhost: browsers make passkeys for a
host name, never for an address."""

from __future__ import annotations

import pytest

from tests.live import fresh_name
from tests.test_browser_axe import lost_game, new_game

pytestmark = pytest.mark.browser

LAPTOP = {"viewport": {"width": 1366, "height": 650}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture
def device(browser, server):
    """Opens a device: a browser context on localhost with an authenticator that keeps passkeys and says its
    person is present and verified; its page, and the authenticator's DevTools session and id."""
    opened, errors = [], []
    base = server.replace("127.0.0.1", "localhost")

    def open_(size: dict):
        context = browser.new_context(base_url=base, bypass_csp=True, **size)
        opened.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        devtools = context.new_cdp_session(page)
        devtools.send("WebAuthn.enable")
        options = {
            "protocol": "ctap2",
            "transport": "internal",
            "hasResidentKey": True,
            "hasUserVerification": True,
            "isUserVerified": True,
            "automaticPresenceSimulation": True,
        }
        authenticator = devtools.send("WebAuthn.addVirtualAuthenticator", {"options": options})["authenticatorId"]
        return page, devtools, authenticator

    yield open_
    for context in opened:
        context.close()
    assert not errors, errors


def api(page, path: str, method: str = "GET", body: dict | None = None):
    answer = page.request.fetch(path, method=method, data=body)
    assert answer.ok, answer.text()
    return answer.json() if answer.status != 204 else None


def add_passkey(page, name: str) -> None:
    page.goto("/player")
    page.fill("#passkey-name", name)
    page.click("#passkey-add button[type=submit]")
    page.wait_for_selector(f".passkey input[value='{name}']")


def synced(source: tuple, target: tuple) -> None:
    """The passkeys of one device's authenticator copied into the other's, as a password manager syncs them: from
    the device that used them last, so that each one's signature counter goes on from its last use (a counter that
    goes back is a cloned authenticator's, and refused)."""
    _, devtools, authenticator = source
    _, other_devtools, other_authenticator = target
    for credential in devtools.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]:
        other_devtools.send(
            "WebAuthn.addCredential", {"authenticatorId": other_authenticator, "credential": credential}
        )


def sign_in(page) -> None:
    page.goto("/player")
    with page.expect_navigation():
        page.click("[data-passkey=sign-in] button")


def kept(page) -> tuple:
    """What a player sees of their own: their games, their records, their streak."""
    games = sorted(game["id"] for game in api(page, "/api/games"))
    daily = api(page, "/api/daily")
    return games, api(page, "/api/records"), (daily["streak"], daily["name"])


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_passkey_made_on_one_device_signs_another_in_as_the_same_player(device, database, size):
    laptop = device(size)
    page = laptop[0]
    page.goto("/")
    lost_game(page, database, "classic")
    new_game(page, "cruel")
    api(page, "/api/name", "PUT", {"name": fresh_name("Keeper")})
    add_passkey(page, "My laptop")
    [passkey] = api(page, "/api/player/passkeys")
    assert passkey["name"] == "My laptop" and passkey["last_used_at"] is None

    phone = device(size)
    synced(laptop, phone)
    other = phone[0]
    sign_in(other)
    assert other.url.endswith("/")
    assert kept(other) == kept(page) and len(kept(other)[0]) == 2
    # The home page lists the same games; the passkey says when it last signed in.
    assert other.locator(".game-row").count() == 2
    assert api(page, "/api/player/passkeys")[0]["last_used_at"] is not None


def signed_in_with_a_game_of_its_own(device, synced_from: tuple, mode: str, bring: str) -> tuple:
    """A new phone with a game of `mode`, signed in with the passkey of the device it syncs from, answering the
    question about its game with `bring`; the device, and its game's id."""
    phone = device(PHONE)
    synced(synced_from, phone)
    page = phone[0]
    page.goto("/")
    game = new_game(page, mode)["id"]
    sign_in(page)
    assert page.url.endswith("/player/join")
    assert page.locator("h2").inner_text() == "Bring this device's games along?"
    with page.expect_navigation():
        page.click(f"button[name=bring][value={bring}]")
    return phone, game


def test_a_device_with_games_of_its_own_brings_them_along_or_leaves_them(device, database):
    laptop = device(LAPTOP)
    page = laptop[0]
    page.goto("/")
    kept_game = new_game(page, "classic")["id"]
    add_passkey(page, "Laptop")

    # One device brings its game along: both devices are one player with both games.
    phone, brought = signed_in_with_a_game_of_its_own(device, laptop, "cruel", bring="yes")
    assert kept(phone[0])[0] == kept(page)[0] == sorted([kept_game, brought])
    # Another leaves its game where it was: the player's games are as they were.
    tablet, left = signed_in_with_a_game_of_its_own(device, phone, "classic", bring="no")
    third = tablet[0]
    assert kept(third)[0] == sorted([kept_game, brought]) and left not in kept(third)[0]


def test_a_removed_passkey_signs_nobody_in(device):
    laptop = device(LAPTOP)
    page = laptop[0]
    page.goto("/")
    add_passkey(page, "Old key")
    phone = device(LAPTOP)
    synced(laptop, phone)
    with page.expect_navigation():
        page.click(".passkey form[action$='/remove'] button")
    assert api(page, "/api/player/passkeys") == []
    other = phone[0]
    other.goto("/player")
    other.click("[data-passkey=sign-in] button")
    status = other.locator("[data-passkey=status]")
    status.filter(has_text="belongs to no player here").wait_for()
    assert kept(other)[0] == []


def test_the_page_says_so_where_the_browser_cannot_make_passkeys(browser, server):
    # A browser without PublicKeyCredential (an old one) keeps the passkey buttons hidden and says why; the link
    # code's form works all the same.
    context = browser.new_context(base_url=server, bypass_csp=True, **LAPTOP)
    page = context.new_page()
    page.add_init_script("delete window.PublicKeyCredential")
    page.goto("/player")
    assert page.locator("#passkey-add").is_hidden() and page.locator("[data-passkey=sign-in]").is_hidden()
    assert page.locator("[data-passkey=none]").is_visible() and page.locator("#link-code").is_visible()
    context.close()
