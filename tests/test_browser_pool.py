"""The browser contexts the tests share (tests/browser_pool.py): one handed out again is as a fresh one would be."""

from __future__ import annotations

import pytest

from tests.test_browser import UNUSED_FEATURES, disabled_by_playwright, features_disabled

LAPTOP = {"viewport": {"width": 1366, "height": 650}}


def leave_traces(context) -> list[str]:
    """A test's life in `context`: a cookie, stored values, a route, a listener, a timeout, some history.
    Returns what the listener heard."""
    page = context.new_page()
    heard: list[str] = []
    page.on("request", lambda request: heard.append(request.url))
    page.goto("/")
    page.evaluate("localStorage.setItem('left', 'behind'); sessionStorage.setItem('left', 'behind')")
    page.route("**/rules", lambda route: route.fulfill(status=418, body="routed"))
    page.goto("/rules")
    page.set_default_timeout(5)
    assert context.cookies(), "the home page gives a cookie"
    return heard


def test_a_context_handed_out_again_carries_nothing_of_the_test_before(browser, server):
    first = browser.new_context(base_url=server, **LAPTOP)
    heard = leave_traces(first)
    first.close()
    heard.clear()

    again = browser.new_context(base_url=server, **LAPTOP)
    assert again is first, "the wiped context is the one handed out"
    page = again.new_page()
    assert page.url == "about:blank"
    assert again.cookies() == []
    assert page.evaluate("history.length") == 1
    answer = page.goto("/rules")
    assert answer is not None and answer.status == 200, "the route went with its test"
    assert heard == [], "the listener went with its test"
    assert page.evaluate("[localStorage.getItem('left'), sessionStorage.getItem('left')]") == [None, None]
    assert page.evaluate("performance.getEntriesByType('resource').every(entry => entry.transferSize > 0)"), (
        "every file came from the server, none from the cache"
    )
    page.wait_for_timeout(20)  # a wait past the last test's 5 ms default timeout is no failure
    page.wait_for_selector("body")
    again.close()


@pytest.mark.parametrize(
    "taint",
    [
        lambda context, page: context.add_init_script("window.added = 1"),
        lambda context, page: page.clock.install(),
        lambda context, page: page.set_viewport_size({"width": 500, "height": 500}),
        lambda context, page: context.expose_function("exposed", lambda: 1),
    ],
    ids=["init-script", "clock", "viewport", "exposed"],
)
def test_a_context_a_wipe_cannot_bring_back_is_closed(browser, server, taint):
    first = browser.new_context(base_url=server, **LAPTOP)
    page = first.new_page()
    taint(first, page)
    page.goto("/")
    first.close()
    again = browser.new_context(base_url=server, **LAPTOP)
    assert again is not first
    again.close()


def test_contexts_of_other_options_are_their_own_and_a_state_of_cookies_is_a_wiped_context_given_them(browser, server):
    laptop = browser.new_context(base_url=server, **LAPTOP)
    laptop.new_page().goto("/")
    state = laptop.storage_state()
    assert state["cookies"] and not state["origins"]
    laptop.close()
    phone = browser.new_context(base_url=server, viewport={"width": 390, "height": 844}, has_touch=True)
    assert phone is not laptop
    phone.close()
    returning = browser.new_context(base_url=server, storage_state=state, **LAPTOP)
    assert returning is laptop and returning.cookies() == state["cookies"]
    returning.close()
    stored = {**state, "origins": [{"origin": server, "localStorage": [{"name": "zoom", "value": "2"}]}]}
    with_stored_values = browser.new_context(base_url=server, storage_state=stored, **LAPTOP)
    assert with_stored_values is not laptop
    with_stored_values.close()


def test_a_script_asked_for_with_the_context_is_kept_with_it_and_media_go_back_to_the_contexts(
    browser, server, tmp_path
):
    script = tmp_path / "mark.js"
    script.write_text("window.marked = true;")
    first = browser.new_context(base_url=server, init_script=str(script), color_scheme="dark", **LAPTOP)
    page = first.new_page()
    page.emulate_media(color_scheme="light")
    page.goto("/")
    assert page.evaluate("[window.marked, matchMedia('(prefers-color-scheme: dark)').matches]") == [True, False]
    first.close()
    plain = browser.new_context(base_url=server, color_scheme="dark", **LAPTOP)
    assert plain is not first, "a context without the script is another"
    again = browser.new_context(base_url=server, init_script=str(script), color_scheme="dark", **LAPTOP)
    assert again is first
    page = again.new_page()
    page.goto("/")
    assert page.evaluate("[window.marked, matchMedia('(prefers-color-scheme: dark)').matches]") == [True, True]
    plain.close()
    again.close()


def test_a_fresh_context_loads_no_address_bar_and_playwright_keeps_its_features_off(browser, server):
    """The browser the tests share leaves out the address bar's popup (tests/test_browser.py: UNUSED_FEATURES),
    and the features Playwright turns off stay off: the one --disable-features Chromium reads carries them."""
    context = browser.new_context(base_url=server, **LAPTOP)
    context.new_page().goto("/rules")
    session = browser.new_browser_cdp_session()
    targets = session.send("Target.getTargets")["targetInfos"]
    in_force = set(features_disabled(session.send("Browser.getBrowserCommandLine")["arguments"]))
    context.close()
    assert [target["url"] for target in targets if target["type"] == "browser_ui"] == []
    by_playwright = disabled_by_playwright(browser.browser_type)
    assert by_playwright, "Playwright disables features of its own"
    assert {*by_playwright, *UNUSED_FEATURES} <= in_force
