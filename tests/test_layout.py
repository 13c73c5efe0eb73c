"""The page as a new player meets it, in a real Chromium at a laptop's and a phone's size (issue 9):
the board fits, every tap lands where it was pressed, and nothing moves under the player's pointer."""

from __future__ import annotations

import pytest

from app.core.game import PRESETS
from tests.live import fresh_name, seconds
from tests.test_browser import act, analysis, classes, next_cell, on_position, play_out, reveal, settled, start
from tests.test_browser_replay import api

pytestmark = pytest.mark.usefixtures("seeded")
SERVER_SETTINGS = {"create_limit": 100_000}

# 1366x650 is what a 768-pixel laptop screen leaves inside a browser's window.
LAPTOP = {"viewport": {"width": 1366, "height": 650}}
LAPTOP_768 = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}

# What a player needs in view to play: the board, the counters and every button.
ESSENTIALS = [
    "#grid",
    "#mines-left",
    "#face",
    "#timer",
    "#undo",
    "#hint-button",
    "#show-button",
    "#flag-mode",
    "#again button",
]


# Words a reader cannot read whole, as "what: the words": text drawn over other text (two lines of text whose boxes
# cross), text cut off by its box (a box that clips or scrolls its text sideways, or ends it in an ellipsis), and
# text outside the window's width (on a page read right to left, what passes the left edge cannot be scrolled to).
# A box that scrolls on purpose (the board's frame, which pans a big board; a wide table's) and text made to be
# hidden (a box of a pixel for screen readers) are left out.
CROWDING = """() => {
    const scrolls = e => e.closest('.board, .table-scroll');
    const unseen = e => e.closest('.visually-hidden');
    const runs = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const owner = node.parentElement;
        if (!node.textContent.trim() || unseen(owner) ||
            !owner.checkVisibility({opacityProperty: true, visibilityProperty: true}))
            continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const box of range.getClientRects())
            if (box.width >= 2 && box.height >= 2) runs.push({owner, box, text: node.textContent.trim().slice(0, 40)});
    }
    const found = [];
    const width = document.documentElement.clientWidth;
    for (const run of runs)
        if (!scrolls(run.owner) && (run.box.left < -1 || run.box.right > width + 1))
            found.push(`outside the window: ${run.text} (${Math.round(run.box.left)} to ${Math.round(run.box.right)})`);
    for (let i = 0; i < runs.length; i++)
        for (let j = i + 1; j < runs.length; j++) {
            const a = runs[i].box, b = runs[j].box;
            const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (across > 2 && down > 2) found.push(`over each other: ${runs[i].text} | ${runs[j].text}`);
        }
    const clipped = new Set();
    for (const run of runs)
        for (let e = run.owner; e && e !== document.body; e = e.parentElement) {
            if (clipped.has(e) || scrolls(e)) break;
            const style = getComputedStyle(e);
            const cut = style.textOverflow === 'ellipsis' || style.overflowX !== 'visible';
            if (cut && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 2) {
                clipped.add(e);
                found.push(`cut off: ${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className} ${run.text}`);
            }
        }
    return found;
}"""


def crowding(page) -> list[str]:
    """What of the page's words cannot be read whole (CROWDING)."""
    return page.evaluate(CROWDING)


def rect(page, selector: str) -> dict:
    return page.eval_on_selector(
        selector,
        "e => { const r = e.getBoundingClientRect(); "
        "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width}; }",
    )


def outside_viewport(page, selectors: list[str]) -> list[str]:
    size = page.viewport_size
    return [
        f"{selector} {box}"
        for selector in selectors
        for box in [rect(page, selector)]
        if box["left"] < 0 or box["top"] < 0 or box["right"] > size["width"] or box["bottom"] > size["height"]
    ]


def swipe_left(page, y: float) -> None:
    """A finger drawn 300 px to the left through Chromium's input pipeline (what a phone's touch screen
    sends), held still at the end so that the board does not fling on after it."""
    session = page.context.new_cdp_session(page)
    session.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": 350, "y": y}]})
    for x in [*range(340, 40, -10), *[50] * 5]:
        session.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    session.detach()


def first_move(page, x: int, y: int, tap: bool = False) -> None:
    """The first click of a game: in cruel mode it always opens, wherever it lands."""
    act(page, lambda: page.tap(f"#c-{x}-{y}") if tap else page.click(f"#c-{x}-{y}"))
    assert "u" not in classes(page, x, y).split()


@pytest.mark.parametrize("size", [LAPTOP, LAPTOP_768], ids=["1366x650", "1366x768"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_fits_a_laptop_window_board_counters_and_buttons(open_page, preset, size):
    page = open_page(size)
    start(page, preset)
    width, height, _ = PRESETS[preset]
    first_move(page, width // 2, height // 2)
    assert outside_viewport(page, ESSENTIALS) == []
    # The whole board is in view: neither the page nor the board scrolls.
    assert page.evaluate("[window.scrollX, window.scrollY]") == [0, 0]
    board = page.eval_on_selector("#board", "b => [b.scrollWidth - b.clientWidth, b.scrollHeight - b.clientHeight]")
    assert board[0] <= 0 and board[1] <= 0, board
    # The new-game form is folded away during a game, and opens over the page, not above the board.
    assert not page.is_visible('#new-game button[value="cruel expert"]')
    before = rect(page, "#grid")
    page.click(".new-game summary")
    assert page.is_visible('#new-game button[value="cruel expert"]') and rect(page, "#grid") == before


def test_a_phone_shows_every_column_of_intermediate_and_a_tap_on_the_last_reveals_it(open_page):
    page = open_page(PHONE)
    start(page, "intermediate")
    width = PRESETS["intermediate"][0]
    # Every column inside the board's frame, which does not scroll sideways: none is cut off.
    frame = rect(page, "#board")
    for x in range(width):
        cell = rect(page, f"#c-{x}-0")
        assert frame["left"] <= cell["left"] and cell["right"] <= min(frame["right"], 390) and cell["width"] >= 20, (
            x,
            cell,
        )
    assert page.eval_on_selector("#board", "b => b.scrollWidth - b.clientWidth") <= 0
    assert outside_viewport(page, ["#grid", "#mines-left", "#face", "#timer"]) == []
    first_move(page, width - 1, 8, tap=True)


def test_expert_on_a_phone_pans_at_24_px_cells_and_a_tap_after_a_swipe_reveals_the_cell_tapped(open_page):
    """Issue 9 #1 and #3 on a phone: Expert has fingertip cells and pans; a swipe is the browser's
    (it neither flags nor reveals), and the tap after it lands on the cell under the finger."""
    page = open_page(PHONE)
    start(page, "expert")
    width = PRESETS["expert"][0]
    assert rect(page, "#c-0-0")["width"] >= 24
    board = page.eval_on_selector("#board", "b => [b.scrollWidth, b.clientWidth]")
    assert board[0] > board[1], board
    # Two swipes of a finger 300 px to the left, to the board's right edge.
    y = rect(page, "#board")["top"] + 60
    swipe_left(page, y)
    swipe_left(page, y)
    page.wait_for_function("document.getElementById('board').scrollLeft > 0")
    panned = page.eval_on_selector("#board", "b => b.scrollLeft")
    assert panned > 0
    assert page.get_attribute("#version", "value") == "0" and page.locator("#grid .c.f").count() == 0
    last = rect(page, f"#c-{width - 1}-5")
    assert last["right"] <= 390, last
    act(page, lambda: page.touchscreen.tap(last["left"] + last["width"] / 2, (last["top"] + last["bottom"]) / 2))
    assert "u" not in classes(page, width - 1, 5).split()
    assert page.eval_on_selector("#board", "b => b.scrollLeft") == panned


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_board_does_not_move_when_a_message_comes_and_goes(open_page, size):
    """Issue 9 #7: a message appearing or going moved the board 15-16 px."""
    page = open_page(size)
    # Intermediate: its first opening leaves cells to play (one on Beginner can, rarely, clear the board).
    start(page, "intermediate")
    first_move(page, 8, 8, tap=size is PHONE)
    before = rect(page, "#grid")
    page.click("#hint-button")
    page.wait_for_selector("#hint")
    assert rect(page, "#grid") == before
    x, y = next_cell(page)
    act(page, lambda: page.click(f"#c-{x}-{y}"))
    assert page.locator("#hint").count() == 0 and rect(page, "#grid") == before
    page.click("#undo")
    settled(page, "document.getElementById('message') !== null")
    assert rect(page, "#grid") == before


def test_a_preset_starts_after_a_bad_custom_field_and_a_refused_size_keeps_a_way_back(open_page):
    """Issue 9 #5: a bad custom field blocked the preset buttons; a refused size left a bare page."""
    page = open_page(LAPTOP)
    page.goto("/")
    page.fill("input[name=width]", "0")
    page.click('button[value="cruel beginner"]')
    page.wait_for_selector("#grid")
    assert page.get_attribute("#board", "data-width") == "9"
    # A size the server refuses: the page says why, keeps the fields, and the presets still start a game.
    page.goto("/")
    page.fill("input[name=width]", "500")
    page.eval_on_selector("#new-game", "form => form.noValidate = true")
    page.click("button[value=custom]")
    assert "between 2 and 100" in page.inner_text("#message")
    assert page.input_value("input[name=width]") == "500"
    page.click('button[value="cruel intermediate"]')
    page.wait_for_selector("#grid")
    assert page.get_attribute("#board", "data-width") == "16"


def test_a_phone_is_not_told_of_keys(open_page, database):
    """Issue 9 #8: "Undo (U)" on a phone."""
    texts = {}
    for name, size in (("laptop", LAPTOP), ("phone", PHONE)):
        page = open_page(size)
        # Both mines next to the 2, the right column proven safe: a click beside the 2 loses.
        on_position(page, database, ["2..", "..."], mines=2)
        act(page, lambda page=page: page.click("#c-1-0"))
        texts[name] = page.inner_text("#result")
    assert "Undo (U) to step back." in texts["laptop"]
    assert "Undo to step back." in texts["phone"]


def test_home_end_and_page_keys_move_the_cursor_across_a_big_board(open_page):
    page = open_page(LAPTOP)
    start(page, "expert")
    # The board has the keys as soon as the page loads.
    assert page.evaluate("document.activeElement.id") == "grid"

    def cursor():
        return tuple(int(part) for part in page.get_attribute("#grid .c.cur", "id").split("-")[1:])

    for key, expected in [
        ("End", (29, 0)),
        ("PageDown", (29, 10)),
        ("PageDown", (29, 15)),
        ("Home", (0, 15)),
        ("Control+End", (29, 15)),
        ("Control+Home", (0, 0)),
    ]:
        page.keyboard.press(key)
        assert cursor() == expected, key
    assert page.get_attribute("#grid", "aria-activedescendant") == "c-0-0"
    assert page.get_attribute("#c-0-0", "aria-label") == "covered, column 1, row 1"


def test_a_skip_link_is_the_first_tab_stop_and_leads_to_the_board(open_page):
    page = open_page(LAPTOP)
    start(page, "beginner")
    first = "document.querySelector('a[href], button, input:not([type=hidden]), select, summary, [tabindex]')"
    assert page.evaluate(f"{first}.textContent") == "Skip to the board"
    page.focus(".skip-link")
    assert page.is_visible(".skip-link") and outside_viewport(page, [".skip-link"]) == []
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "grid"


def test_the_overlay_stays_after_a_loss_showing_what_was_proven(open_page, database):
    """Issue 9 #10: the overlay vanished on a loss, just when the player wants to see what was provable."""
    page = open_page(LAPTOP)
    on_position(page, database, ["2..", "..."], mines=2)
    act(page, lambda: page.click("#options input[name=debug_overlay]"))
    assert analysis(page) == ["2?s", "??s"]
    act(page, lambda: page.click("#c-1-0"))
    assert page.inner_text("#state") == "Lost"
    assert "os" in classes(page, 2, 0).split() and "os" in classes(page, 2, 1).split()


def test_show_me_brings_a_hinted_cell_off_a_panned_board_into_view(open_page, database):
    """On a phone, Expert's width is panned: the cell "Show me" names must come into view (the board scrolls,
    not the page). One mine under the three 1s can only be at (28, 1): the cells right of them are safe."""
    page = open_page(PHONE)
    rows = ["0" * 27 + "1.."] * 3
    on_position(page, database, rows, mines=1)
    assert rect(page, "#c-28-0")["left"] > 390  # out of view before the hint
    page.click("#show-button")
    page.wait_for_selector("#hint.safe")
    hinted = page.get_attribute("#hint", "data-cell")
    # The page highlights the cell and scrolls the board to it in one step, once the answer has settled:
    # the hint's text can be there a moment before.
    page.wait_for_function(f"document.getElementById('{hinted}').classList.contains('hl')", timeout=seconds(10) * 1000)
    cell, frame = rect(page, f"#{hinted}"), rect(page, "#board")
    assert int(hinted.split("-")[1]) >= 28
    assert frame["left"] <= cell["left"] and cell["right"] <= frame["right"], (cell, frame)
    assert page.evaluate("window.scrollX") == 0


@pytest.mark.parametrize("width", [320, 390])
def test_every_preset_button_shows_its_whole_name_on_a_phone(open_page, width):
    """ "Intermediate" in bold once ran past its button's border, three buttons a row at 390 px."""
    page = open_page({**PHONE, "viewport": {"width": width, "height": 844}})
    page.goto("/")
    names = page.eval_on_selector_all(
        ".presets button", "buttons => buttons.map(b => [b.innerText.split('\\n')[0], b.scrollWidth - b.clientWidth])"
    )
    assert names and all(overflow <= 0 for _, overflow in names), [name for name, overflow in names if overflow > 0]


# ----- issue 41: the home page, a loss's settings and the ladder's names -------------------------------------


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_who_plays_comes_before_every_size_button(open_page, size):
    """Issue 41 #18: "Who plays" (alone, a room, a race) sat below every size button, so a player reading down
    started a game alone before seeing it."""
    page = open_page(size)
    page.goto("/")
    order = page.evaluate(
        "[...document.querySelectorAll('#new-game select[name=room], #new-game button[name=choice]')].map(e => e.name)"
    )
    assert order[0] == "room" and order.count("room") == 1, order
    assert rect(page, "select[name=room]")["top"] < rect(page, ".presets button")["top"]


def test_a_returning_players_games_are_in_the_first_screen_of_a_laptop_beside_the_new_game_form(open_page):
    """Issue 41 #22: "Your games" started 620 px down the 1366x650 home page, under the New game form."""
    page = open_page(LAPTOP)
    page.goto("/")
    for mode in ("cruel", "classic"):
        game = api(page, "POST", "/api/games", {"mode": mode, "width": 9, "height": 9, "mines": 10})
        reveal(page, game["id"], 4, 4)
    page.goto("/")
    assert outside_viewport(page, ["#games-title", ".game-row", "select[name=room]", ".presets button"]) == []


def test_an_expert_loss_keeps_the_settings_in_a_laptop_window(open_page):
    """Issue 41 #22: after an Expert loss the side column ran past a 1366x650 window, and the page with it."""
    page = open_page(LAPTOP)
    start(page, "expert")
    first_move(page, 15, 8)
    game_id = page.get_attribute("#board", "data-game")
    assert play_out(page, api(page, "GET", f"/api/games/{game_id}"))["status"] == "lost"
    page.reload()
    page.wait_for_selector("#hint.review")
    assert page.evaluate("document.documentElement.scrollHeight") <= LAPTOP["viewport"]["height"]
    assert page.eval_on_selector(".side", "side => side.scrollHeight - side.clientHeight") <= 0
    assert outside_viewport(page, [".toolbar", "#panel", "#settings fieldset", *ESSENTIALS[:4]]) == []


# Where a name's text goes to a new line: each break's character before it (a space, if not inside a word).
LINE_BREAKS = """cell => {
    const text = cell.firstChild, range = document.createRange(), breaks = [];
    let top = null;
    for (let i = 0; i < text.length; i++) {
        range.setStart(text, i); range.setEnd(text, i + 1);
        const at = range.getClientRects()[0].top;
        if (top !== null && at > top + 1) breaks.push(text.data[i - 1]);
        top = at;
    }
    return breaks;
}"""
# A name as long as a name may be: one word, and two.
LONG_NAMES = ("Bartholomew_Featherstone", "Maximilian Featherstones")


@pytest.mark.usefixtures("small_dailies")
def test_a_long_name_on_a_phones_ladder_is_never_broken_inside_a_word(open_page):
    """Issue 41 #22: a 24-letter name broke mid-word on the phone's ladder. A name wraps at its spaces; a word too
    long for the column is cut short whole, with an ellipsis; every column stays on the screen."""
    for long in LONG_NAMES:
        name = fresh_name(long, same_length=True)
        page = open_page(PHONE)
        page.goto("/")
        api(page, "PUT", "/api/name", {"name": name})
        today = api(page, "GET", "/api/daily")["date"]
        game = api(page, "POST", f"/api/daily/{today}/classic/games")
        play_out(page, reveal(page, game["id"], *game["start"]))
        # The player's own line, which their ladder shows whether the entry won or lost.
        page.goto("/daily#classic")
        shown = page.locator("#classic tr.own td.who .named")
        assert shown.inner_text() == name
        assert set(shown.evaluate(LINE_BREAKS)) <= {" "}, name
        assert page.eval_on_selector("#classic .table-scroll", "box => box.scrollWidth - box.clientWidth") <= 0
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["viewport"]["width"]


def test_a_long_name_on_a_phones_race_scoreboard_is_never_broken_inside_a_word(open_page):
    """Issue 41's leftover: a race's scoreboard broke a 24-letter name mid-word on a phone, as the ladder once did.
    A name wraps at its spaces; a word too long for the column is cut short whole; its dot stays beside it (a
    line is never the dot alone), and the page stays within the screen."""
    racer = open_page(PHONE)
    racer.goto("/")
    other = open_page(LAPTOP)
    other.goto("/")
    long, spaced = (fresh_name(name, same_length=True) for name in LONG_NAMES)
    room = api(racer, "POST", "/api/rooms", {"kind": "race", "name": long, "width": 9, "height": 9, "mines": 10})
    api(other, "POST", f"/api/rooms/{room['id']}/join", {"invite": room["invite"], "name": spaced})
    racer.goto(f"/rooms/{room['id']}")
    for row, name in (("tr.you", long), ("tr:not(.you)", spaced)):
        shown = racer.locator(f".scoreboard {row} th bdi")
        assert shown.inner_text() == name, "read whole, however it is cut"
        assert shown.evaluate("bdi => bdi.firstChild.nodeType") == 3, "the name's own text, not a link (the lobby's)"
        assert set(shown.evaluate(LINE_BREAKS)) <= {" "}, name
        dot, text = (racer.locator(f".scoreboard {row} th {part}").bounding_box() for part in (".dot", "bdi"))
        assert dot is not None and text is not None
        assert dot["y"] < text["y"] + text["height"] and text["y"] < dot["y"] + dot["height"], "on the name's line"
    assert racer.evaluate("document.documentElement.scrollWidth") <= PHONE["viewport"]["width"]
