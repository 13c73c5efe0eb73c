"""Accessibility in Chromium (issue 41 #21 and its "How it is checked"): axe-core, vendored in tests/vendor
(`make vendor-axe`), on every kind of page Kaboom serves — the home page of a new and of a returning player, a
game of each mode in play and ended, a co-op room as a member and as a watcher, a race's lobby and a race under
way, the boards of the day, the calendar, a past day, a replay (one's own and a shared one), the rules, the
records and the API's pages — each at a laptop's size and on a touch phone, in the light and the dark scheme.
No violation of impact serious or critical (the others are printed, `pytest -s` shows them). On the same pages,
every control is at least 24 px each way on the laptop and 44 px on the phone (WCAG 2.5.8, and 2.5.5 for thumbs),
and no two controls that do different things share a name (issue 41 #21: the menu and the face were both "New
game").

Each scene is set up through the JSON API with the page's own cookie, on games dealt from the module's seed
or on hand-made layouts; the moves act on cells read from the answers, so any deal gives the same pages."""

from __future__ import annotations

import datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.authenticator import SoftAuthenticator
from tests.live import fresh_name, put_layout, put_position, seconds
from tests.test_api import covered
from tests.test_browser import CHROMIUM, play_out, reveal  # noqa: F401  (CHROMIUM: skips the module without Chromium)
from tests.test_browser_replay import api
from tests.test_layout import LAPTOP, PHONE, crowding
from tests.test_replay import open_all_but

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000, "room_limit": 1000, "rooms_per_player": 1000, "race_countdown": 0}

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
BOARD = {"mode": "classic", "width": 9, "height": 9, "mines": 10}
BLOCKING = ("serious", "critical")
# The rules whose outcome hangs on the colours: all that a change of scheme can change.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
DOCS = "/docs"
# Each control's accessible name as the browser computes it (Chrome's accessibility tree), beside what the
# control does: the link's address, the form it submits and the value it sends, a button's id, the menu.
CONTROLS = "a[href], button, summary, select, input:not([type=hidden]), textarea"
ACTIONS = """sel => [...document.querySelectorAll(sel)].map(e => {
    if (!e.checkVisibility()) return null;
    if (e.tagName === 'A') return 'link ' + e.href;
    if (e.tagName === 'SUMMARY') return 'menu ' + (e.parentElement.id || '');
    if (e.tagName === 'BUTTON' && e.type === 'submit' && e.form)
        return 'submit ' + (e.form.id || e.form.action) + ' ' + (e.name || '') + '=' + (e.value || '');
    return e.tagName.toLowerCase() + ' ' + (e.id || e.name || '');
})"""


# Every control in view too small to hit (WCAG 2.2's 2.5.8: 24x24 CSS px; 2.5.5's 44x44, a thumb's, on a touch
# screen), as "what it is (width x height)". A box or a radio button counts with its label, which takes the same
# tap; a link inside a sentence is sized by the sentence's lines (both criteria leave it out); so is a link
# whose words the page says in a sentence of its own: "Board <link>".
SMALL_TARGETS = """([least, sel]) => [...document.querySelectorAll(sel)].filter(e => e.checkVisibility()).map(e => {
    const box = e.matches('input[type=checkbox], input[type=radio]') && e.closest('label');
    if (box && box !== e) return null;
    if (e.tagName === 'A' && getComputedStyle(e).display === 'inline') {
        const around = [...e.parentElement.childNodes].filter(n => n !== e).map(n => n.textContent).join('');
        if (/[\\p{L}\\p{N}]/u.test(around)) return null;
    }
    const r = e.getBoundingClientRect();
    if (r.width >= least && r.height >= least) return null;
    const what = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + JSON.stringify(
        (e.innerText || e.getAttribute('aria-label') || e.value || '').trim().slice(0, 30));
    return `${what} (${Math.round(r.width)}x${Math.round(r.height)})`;
}).filter(Boolean)"""
TARGETS = (
    "a[href], button, summary, select, input:not([type=hidden]), textarea,"
    " label:has(input[type=checkbox]), label:has(input[type=radio])"
)


def small_targets(page, least: int) -> list[str]:
    return page.evaluate(SMALL_TARGETS, [least, TARGETS])


def axe_page(open_page, size: dict, **options):
    """A page whose context puts axe in every document it opens: given once to the context, axe is compiled once,
    not at each page (0.8 s a page), and the context is kept for the next test that asks for axe."""
    return open_page(size, init_script=str(AXE), **options)


def axe(page, rules: list[str] | None = None) -> list[dict]:
    """axe's violations on the page as it is now (of `rules`, or of all): rule, impact, and a few elements."""
    return page.evaluate(
        """rules => axe.run(document, {resultTypes: ['violations'], ...(rules ? {runOnly: rules} : {})})
        .then(result => result.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary.replace(/\\s+/g, ' '))
        })))""",
        rules,
    )


def names(page) -> dict[str, set[str]]:
    """Each accessible name of the controls in view, with what the controls of that name do."""
    session = page.context.new_cdp_session(page)
    try:
        root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        nodes = session.send("DOM.querySelectorAll", {"nodeId": root, "selector": CONTROLS})["nodeIds"]
        actions = page.evaluate(ACTIONS, CONTROLS)
        assert len(actions) == len(nodes)
        named: dict[str, set[str]] = {}
        for node, action in zip(nodes, actions, strict=True):
            if action is None:
                continue
            tree = session.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})
            name = tree["nodes"][0].get("name", {}).get("value", "")
            named.setdefault(name.strip(), set()).add(action)
        return named
    finally:
        session.detach()


def in_language(code: str | None) -> dict:
    """The options of a browser context whose reader speaks `code` (None: the browser's own, English)."""
    return {"locale": code, "extra_http_headers": {"Accept-Language": code}} if code else {}


# Each size's schemes: every rule of axe in the first, the rules about colours in the others.
BOTH_SCHEMES = {"laptop": ("light", "dark"), "phone": ("light", "dark")}


def audit(open_page, *paths: str, player=None, language: str | None = None, checks=(), schemes=BOTH_SCHEMES) -> None:
    """axe on each of `paths`, at both sizes in both schemes (as `player`, when given: their page is the laptop's);
    fails on a serious or critical violation, prints the others. On every page, every control is a target of
    the size's least, no words are cut off, drawn over others or past the window (test_layout.CROWDING), and on
    the laptop no two controls that do different things share a name. `language`: the reader's (the player's
    page must have been opened in it), the page's lang and dir checked. `checks`: more to find on each page, each
    a function of the page that returns what it found. `schemes`: each size's, when not both (BOTH_SCHEMES)."""
    laptop = player or axe_page(open_page, LAPTOP, **in_language(language))
    kept = {"storage_state": laptop.context.storage_state()} if player else {}
    phone = axe_page(open_page, PHONE, **kept, **in_language(language))
    blocking, others = [], []
    for path in paths:
        for page, look, least in ((laptop, "laptop", 24), (phone, "phone", 44)):
            first, *other_schemes = schemes[look]
            page.emulate_media(color_scheme=first)
            page.goto(path)
            if language:
                said = page.evaluate("[document.documentElement.lang, document.documentElement.dir]")
                if said != [language, "rtl" if language == "ar" else "ltr"]:
                    blocking.append((f"{path} {look}: the page says lang and dir {said}", []))
            if crowded := crowding(page):
                blocking.append((f"{path} {look}: words not read whole", crowded))
            for check in checks:
                if found := check(page):
                    blocking.append((f"{path} {look}: {check.__doc__}", found))
            if path == DOCS:
                page.wait_for_selector(".opblock")  # drawn by Swagger UI's script
            elif small := small_targets(page, least):  # Swagger UI's controls are its own
                blocking.append((f"{path} {look}: targets under {least} px", small))
            findings = [(first, axe(page))]
            for scheme in other_schemes:
                page.emulate_media(color_scheme=scheme)
                # The page hears of the scheme at its next frame (/docs turns Swagger UI's dark theme on then); the
                # scheme changes colours and nothing else, so only the rules about colours are run again.
                page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
                findings.append((scheme, axe(page, COLOUR_RULES)))
            for scheme, violations in findings:
                for violation in violations:
                    line = f"{path} {look} {scheme}: {violation['impact']} {violation['id']} ({violation['help']})"
                    (blocking if violation["impact"] in BLOCKING else others).append((line, violation["nodes"]))
        shared = {name: actions for name, actions in names(laptop).items() if len(actions) > 1}
        if shared:
            blocking.append((f"{path}: controls that do different things under one name", [str(shared)]))
    for line, _ in others:
        print(line)
    assert blocking == [], "\n".join(f"{line}\n    " + "\n    ".join(nodes) for line, nodes in blocking)


def new_game(page, mode: str, size: tuple[int, int, int] | None = None, **settings) -> dict:
    """A game of `mode` on a Beginner board, or of `size` (width, height, mines)."""
    board = dict(zip(("width", "height", "mines"), size, strict=True)) if size else BOARD
    return api(page, "POST", "/api/games", {**board, "mode": mode, **settings})


def lost_game(page, database, mode: str) -> str:
    """A game of `mode` lost on a hand-made board: a click beside a 2 whose two mines the count fixes."""
    game_id = new_game(page, mode)["id"]
    if mode == "cruel":
        put_position(database, game_id, ["2..", "..."], mines=2)
    else:
        put_layout(database, game_id, ["o*.", "*..", "..."])
    assert reveal(page, game_id, 1, 0)["status"] == "lost"
    return game_id


def won_game(page, database) -> str:
    """A classic game won on a hand-made board (one mine, beside the corner's 1): its replay has moves."""
    game_id = new_game(page, "classic")["id"]
    put_layout(database, game_id, ["o*.", "...", "..."])
    answer = reveal(page, game_id, 2, 2)
    assert open_all_but(answer, (1, 0), lambda x, y: reveal(page, game_id, x, y))["status"] == "won"
    return game_id


def two_player_game(page, mode: str, finished: bool) -> str:
    """A game of Flags or cruel Flags on one screen, a move in; or played to its end on a 2x2 board with one
    mine, the first covered cell each time (whoever finds the mine wins it)."""
    size = (2, 2, 1) if finished else (9, 9, 10)
    answer = new_game(page, mode, size, opponent="screen")
    game_id = answer["id"]
    answer = play_out(page, answer) if finished else reveal(page, game_id, *covered(answer["board"]))
    assert (answer["status"] != "playing") == finished, answer["status"]
    return game_id


def player(open_page):
    """A new player's page at the laptop's size: their cookie, set by the home page."""
    page = axe_page(open_page, LAPTOP)
    page.goto("/")
    return page


def room_of_two(open_page, kind: str, person=player) -> tuple:
    """Ann's room of `kind` on a Beginner board, joined by Bob: their pages (each opened by `person`) and the room
    as the answer to Ann says it."""
    ann, bob = person(open_page), person(open_page)
    room = api(ann, "POST", "/api/rooms", {"kind": kind, "name": "Ann", **BOARD})
    api(bob, "POST", f"/api/rooms/{room['id']}/join", {"invite": room["invite"], "name": "Bob"})
    return ann, bob, room


# ----- the pages -------------------------------------------------------------------------------------------


def test_the_home_page_of_a_new_player_and_the_page_after_a_deletion(open_page):
    audit(open_page, "/", "/player/deleted")


def test_the_home_page_records_rules_and_data_of_a_returning_player(open_page, database):
    someone = player(open_page)
    lost_game(someone, database, "classic")
    won_game(someone, database)
    reveal(someone, new_game(someone, "cruel")["id"], 4, 4)
    api(someone, "POST", "/api/rooms", {"kind": "coop", "name": "Ann", **BOARD})
    with_a_passkey_and_a_link_code(someone)
    audit(open_page, "/", "/records", "/progress", "/rules", "/player", player=someone)


def with_a_passkey_and_a_link_code(someone) -> str:
    """Two passkeys (made by a software authenticator through the API, one used to sign in) and a link code shown
    on the player's page: the page with all its parts. The code, as typed."""
    origin = someone.url.split("/", 3)[:3]
    for name in ("Laptop", "A phone with a long name, kept"):
        authenticator = SoftAuthenticator("/".join(origin))
        options = api(someone, "POST", "/api/player/passkeys/options")
        api(someone, "POST", "/api/player/passkeys", {"credential": authenticator.make(options), "name": name})
    options = api(someone, "POST", "/api/player/sign-in/options")
    api(someone, "POST", "/api/player/sign-in", {"credential": authenticator.use(options)})
    shown = someone.request.post("/player/link-codes", max_redirects=0)
    assert shown.status == 303, shown.text()
    return api(someone, "POST", "/api/player/link-codes")["code"]


def test_the_choice_of_a_device_with_games_of_its_own_that_signs_in(open_page):
    someone = player(open_page)
    new_game(someone, "classic")
    code = api(someone, "POST", "/api/player/link-codes")["code"]
    device = player(open_page)
    new_game(device, "cruel")
    assert api(device, "POST", "/api/player/link", {"code": code})["choice"]
    audit(open_page, "/player/join", player=device)


@pytest.mark.parametrize("mode", ["cruel", "classic", "help"])
def test_a_game_in_play_and_lost(open_page, database, mode):
    someone = player(open_page)
    game_id = new_game(someone, mode)["id"]
    reveal(someone, game_id, 4, 4)
    audit(open_page, f"/games/{game_id}", f"/games/{lost_game(someone, database, mode)}", player=someone)


@pytest.mark.parametrize("mode", ["flags", "cruel-flags"])
def test_a_two_player_game_in_play_and_over(open_page, mode):
    someone = player(open_page)
    games = [two_player_game(someone, mode, finished) for finished in (False, True)]
    audit(open_page, *(f"/games/{game_id}" for game_id in games), player=someone)


def test_a_won_game_its_replay_and_the_replay_shared(open_page, database):
    someone = player(open_page)
    game_id = won_game(someone, database)
    shared = api(someone, "POST", f"/api/games/{game_id}/share")["url"]
    audit(open_page, f"/games/{game_id}", f"/games/{game_id}/replay", player=someone)
    audit(open_page, urlsplit(shared).path)


def test_a_coop_room_as_a_member_and_as_a_watcher(open_page):
    maker, _, room = room_of_two(open_page, "coop")
    reveal(maker, room["game"]["id"], 4, 4)
    audit(open_page, f"/games/{room['game']['id']}", player=maker)
    audit(open_page, urlsplit(room["link"]).path)


def test_a_race_in_its_lobby_and_under_way(open_page):
    maker, _, room = room_of_two(open_page, "race")
    audit(open_page, f"/rooms/{room['id']}", player=maker)
    game = api(maker, "POST", f"/api/rooms/{room['id']}/start")["game"]
    # The lobby's page follows its racer to the race's game by itself: audited once it is there, or its own move
    # would cut the audit's navigation short (net::ERR_ABORTED).
    maker.wait_for_url(f"**/games/{game['id']}", timeout=seconds(30) * 1000)
    reveal(maker, game["id"], *game["start"])
    audit(open_page, f"/games/{game['id']}", player=maker)


@pytest.mark.usefixtures("small_dailies")
def test_the_boards_of_the_day_the_calendar_and_a_past_day(open_page):
    someone = player(open_page)
    api(someone, "PUT", "/api/name", {"name": fresh_name("Zoë")})
    today = api(someone, "GET", "/api/daily")["date"]
    # An entry on the no-guess board's ladder: from its start, the first covered cell until the game ends.
    answer = api(someone, "POST", f"/api/daily/{today}/classic/games")
    play_out(someone, reveal(someone, answer["id"], *answer["start"]))
    yesterday = datetime.date.fromisoformat(today) - datetime.timedelta(days=1)
    audit(open_page, "/daily", "/daily/history", f"/daily/{yesterday}", player=someone)


def test_the_apis_pages(open_page):
    audit(open_page, DOCS)
