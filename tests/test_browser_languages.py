"""The pages in another language, in Chromium: the browser's language chooses, the header's switcher changes it and
the choice stays, Arabic reads right to left with nothing cut off or sideways, the times are the page
language's, and axe finds nothing serious, at a laptop's size and on a touch phone, light and dark."""

from __future__ import annotations

import re

import httpx
import pytest

from app.core.languages import LANGUAGES
from app.core.names import ANONYMOUS
from tests.live import fresh_name, seconds
from tests.test_browser import CHROMIUM, reveal  # noqa: F401  (CHROMIUM: skips the module without Chromium)
from tests.test_browser_axe import (
    BLOCKING,
    BOARD,
    COLOUR_RULES,
    audit,
    axe,
    axe_page,
    lost_game,
    small_targets,
    won_game,
)
from tests.test_browser_axe import in_language as speaking
from tests.test_browser_replay import api, at_step
from tests.test_layout import LAPTOP, PHONE

SERVER_SETTINGS = {
    "languages": "en,ru,hu,ar",
    "create_limit": 100_000,
    "room_limit": 1000,
    "rooms_per_player": 1000,
    "race_countdown": 0,
}

# The replay's controls, from the start to the end.
CONTROLS = ("start", "back", "forward", "end")
# What the page's whole width is, against the window's: anything wider scrolls sideways.
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


def in_language(open_page, size: dict, code: str):
    return axe_page(open_page, size, **speaking(code))


def findings(page) -> list[str]:
    """axe's serious and critical findings on the page as it is now, in the light scheme and then the dark."""
    found = []
    for scheme, rules in (("light", None), ("dark", COLOUR_RULES)):
        page.emulate_media(color_scheme=scheme)
        page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        found += [f"{scheme} {v['id']}: {v['nodes']}" for v in axe(page, rules) if v["impact"] in BLOCKING]
    page.emulate_media(color_scheme="light")
    return found


@pytest.mark.parametrize("code", ["ar", "ru", "hu"])
@pytest.mark.parametrize(("look", "size", "least"), [("laptop", LAPTOP, 24), ("phone", PHONE, 44)])
def test_the_home_page_and_its_switcher_in_each_language(open_page, code, look, size, least):
    page = in_language(open_page, size, code)
    page.goto("/")
    direction = "rtl" if code == "ar" else "ltr"
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == [code, direction]
    assert page.evaluate(OVERFLOW) <= 0, f"{code} {look}: the page scrolls sideways"
    assert findings(page) == []
    assert small_targets(page, least) == []
    switcher = page.locator("details.language")
    switcher.locator("summary").click()
    menu = switcher.locator("form")
    assert menu.is_visible()
    # The open menu lies inside the window, whichever side the header starts from.
    box = menu.bounding_box()
    width = page.evaluate("window.innerWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (code, look, box)
    assert findings(page) == []
    assert small_targets(page, least) == []
    if code == "ar":
        # The header is mirrored: the game's name at the right, the links to its left.
        title = page.locator(".top h1").bounding_box()
        links = page.locator(".top-links").bounding_box()
        assert title and links and title["x"] > links["x"], (title, links)


def test_the_switcher_changes_the_language_and_the_choice_stays(open_page):
    page = in_language(open_page, LAPTOP, "ru")
    page.goto("/rules")
    assert page.evaluate("document.documentElement.lang") == "ru"
    page.locator("details.language summary").click()
    page.locator('details.language button[value="hu"]').click()
    page.wait_for_url("**/rules")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["hu", "ltr"]
    assert page.locator(".top-links").inner_text().split() == ["Játékaid", "Ma", "Rekordok", "Szabályok"]
    # The browser still asks for Russian; the choice outweighs it on every page after.
    page.goto("/")
    assert page.evaluate("document.documentElement.lang") == "hu"
    assert page.locator("details.language summary").get_attribute("title") == "Nyelv: Magyar"
    page.locator("details.language summary").click()
    page.locator('details.language button[value="ar"]').click()
    page.wait_for_url("**/")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]


@pytest.mark.parametrize(("code", "letters"), [("ru", "[а-я]"), ("ar", "[\u0600-\u06ff]"), ("hu", "[a-ző]")])
def test_a_games_time_on_the_home_page_is_written_in_the_pages_language(open_page, code, letters):
    page = in_language(open_page, LAPTOP, code)
    page.goto("/")
    page.locator(".presets button").first.click()
    page.wait_for_url("**/games/**")
    page.goto("/")
    played = page.locator("time.game-played").first
    page.wait_for_function("time => !time.textContent.includes('UTC')", arg=played.element_handle())
    text = played.inner_text()
    # The month in the page's language, the digits the board's (0-9) whatever the language's own.
    assert re.search(letters, text), text
    assert re.search("[0-9]", text) and not re.search("[\u0660-\u0669]", text), text


def test_an_arabic_game_reads_right_to_left_but_its_board_keeps_its_columns_left_to_right(open_page):
    page = in_language(open_page, LAPTOP, "ar")
    page.goto("/")
    page.locator('.presets button[value="classic beginner"]').click()
    page.wait_for_url("**/games/**")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    first, second = (page.locator(f"#c-{x}-0").bounding_box() for x in (0, 1))
    assert first and second and first["x"] < second["x"], (first, second)
    # The side panel mirrors: beside the board, at its left.
    board, side = page.locator("#board").bounding_box(), page.locator("aside.side").bounding_box()
    assert board and side and side["x"] < board["x"], (board, side)
    assert page.evaluate(OVERFLOW) <= 0
    assert findings(page) == []


@pytest.mark.parametrize(("code", "copied"), [("ru", "Скопировано"), ("ar", "نُسخ"), ("en", "Copied")])
def test_the_script_writes_its_own_words_in_the_pages_language(open_page, code, copied):
    page = in_language(open_page, LAPTOP, code)
    page.goto("/")
    failed = "The server could not apply that (%(status)s). Reload the page to see the game as stored."
    said = page.evaluate(
        """failed => import("/static/js/words.js").then(({ _ }) => [_("Copied"), _(failed, { status: 502 })])""",
        failed,
    )
    assert said[0] == copied
    assert "502" in said[1] and "%(" not in said[1]
    # An English page carries no catalog: the script's messages are their own English.
    assert page.locator("#words").count() == (0 if code == "en" else 1)


# What a page in a language of another script may still show in Latin letters: names (Kaboom, KöMaL's, MSN, the
# players' own, set apart in <bdi>), 3BV, keys, the API, UTC, the name the ladders give a player without one, and
# the switcher's language codes.
LATIN_KEPT = {"Kaboom", "BV", "MSN", "KöMaL", "S.27", "API", "JSON", "UTC", "Home", "End", "Enter", "Space", "Tab"}
LATIN_KEPT.update({"Ctrl", "Page", "Up", "Down"}, (code.upper() for code in LANGUAGES))
LATIN_WORDS = """() => {
    const said = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
        if (node.textContent.trim() && !node.parentElement.closest('bdi, script, style') &&
            node.parentElement.checkVisibility()) said.push(node.textContent.trim());
    for (const e of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]'))
        for (const name of ['aria-label', 'title', 'placeholder', 'alt'])
            if (e.getAttribute(name) && e.checkVisibility()) said.push(e.getAttribute(name));
    return said.concat(document.title);
}"""


def english_left(page) -> list[str]:
    """words in Latin letters left on a page of another script"""
    # A run of Latin letters not glued to a digit before it (a tag's "8fd5"), beside another script's letters or not
    # (Arabic writes "and Home" as "وHome"); one letter and F2 are a key's name.
    latin = re.compile(r"(?<![0-9A-Za-zÀ-ɏ])[A-Za-zÀ-ɏ][A-Za-zÀ-ɏ0-9.]*")
    return [
        text
        for text in page.evaluate(LATIN_WORDS)
        if {
            word.rstrip(".")
            for word in latin.findall(re.sub(rf"{ANONYMOUS}( [0-9a-f]+)?", "", text))
            if not re.fullmatch(r"[A-Z]|F\d+", word)
        }
        - LATIN_KEPT
    ]


@pytest.mark.usefixtures("seeded", "small_dailies")
@pytest.mark.parametrize("code", ["ar", "ru", "hu"])
def test_every_kind_of_page_reads_whole_in_each_language(open_page, server, database, code):
    """A game lost and one won, each with its replay and review; a race's room; the boards of the day; the rules:
    at a laptop's size (light) and on a touch phone (dark), the page says its language and direction, axe finds
    nothing serious, every control is big enough, and no words are cut off, drawn over others or sideways."""

    someone = in_language(open_page, LAPTOP, code)
    someone.goto("/")
    api(someone, "PUT", "/api/name", {"name": fresh_name("Zoë")})
    lost, won = lost_game(someone, database, "classic"), won_game(someone, database)
    # A race's lobby with a second racer in it, who needs no browser of their own.
    room = api(someone, "POST", "/api/rooms", {"kind": "race", "name": "Ann", **BOARD})
    with httpx.Client(base_url=server, timeout=seconds(30)) as bob:
        bob.get("/")
        joined = bob.post(f"/api/rooms/{room['id']}/join", json={"invite": room["invite"], "name": "Bob"})
        assert joined.status_code == 200, joined.text
    today = api(someone, "GET", "/api/daily")["date"]
    entry = api(someone, "POST", f"/api/daily/{today}/classic/games")
    reveal(someone, entry["id"], *entry["start"])
    pages = [
        f"/games/{lost}",
        f"/games/{lost}/replay",
        f"/games/{won}/replay",
        f"/rooms/{room['id']}",
        "/daily",
        "/rules",
        "/player",
        "/progress",
    ]
    # Russian and Arabic are written in scripts of their own: an English word on their pages is one not translated.
    checks = [english_left] if code in ("ru", "ar") else []
    # Every rule of axe in the light scheme on the laptop and in the dark on the phone: a translation changes the
    # words, not the colours, which the English pages' audits check in both schemes at both sizes.
    schemes = {"laptop": ("light",), "phone": ("dark",)}
    audit(open_page, *pages, player=someone, language=code, checks=checks, schemes=schemes)


@pytest.mark.usefixtures("seeded")
def test_an_arabic_replay_runs_from_the_right_its_controls_and_arrow_keys_alike(open_page, database):
    page = in_language(open_page, LAPTOP, "ar")
    page.goto("/")
    game_id = won_game(page, database)
    page.goto(f"/games/{game_id}/replay")
    start, back, forward, end = (page.locator(f"#replay-{name}").bounding_box() for name in CONTROLS)
    assert start and back and forward and end
    assert start["x"] > back["x"] > forward["x"] > end["x"], "the start at the right, the end at the left"
    # The left arrow goes the way the controls do: forward, toward the left.
    page.locator("#board").click(position={"x": 1, "y": 1})
    page.keyboard.press("ArrowLeft")
    at_step(page, 1)
    page.keyboard.press("ArrowRight")
    at_step(page, 0)
