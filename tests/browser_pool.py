"""Browser contexts used again: a context a test closes is wiped and handed to the next test that asks for one
with the same options, its page with it.

A fresh context costs Chromium about 0.2 s of CPU (a renderer process started, a network and a storage partition
made; 0.6 s before tests/test_browser.py left out the address bar's popup), a wiped one a fraction of that; the
browser tests open several hundred. What a test may rely on is what
a fresh context gives: no cookie, no stored data (local, session, IndexedDB), an empty HTTP cache, no route, no
listener of the last test, the default timeout and media features, the pointer at the corner, about:blank with no
history. A context that a wipe cannot bring back so is closed as before: a script the test added to every
document (Playwright's clock, an exposed function), a page taken out of its context's viewport, a tab that went
to two origins, a storage state with stored values (one of cookies alone is a wiped context given the cookies).
A script every page of a context needs (axe) is asked for with the context (`init_script`) and is part of what
makes two contexts alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

# What the main world of about:blank holds in a context with no script of the test's: anything more (axe's
# `axe`, the clock's `__pwClock`, an exposed binding) was put there by something a wipe cannot take back.
WINDOW_NAMES = "Object.getOwnPropertyNames(window).sort()"
STORAGE_TYPES = "local_storage,indexeddb,cache_storage,service_workers,websql,file_systems,shader_cache"
UNPOOLED_OPTIONS = {"storage_state", "record_har_path", "record_video_dir"}
# The calls after which a page is not what its context's options make it; the context is closed, not kept.
TAINTING_PAGE_CALLS = ("set_viewport_size", "add_init_script", "expose_function", "expose_binding")
TAINTING_CONTEXT_CALLS = (
    "add_init_script",
    "expose_function",
    "expose_binding",
    "grant_permissions",
    "set_geolocation",
    "set_offline",
    "set_extra_http_headers",
    # A DevTools session may have changed the browser beyond what a wipe sees (a virtual authenticator and its
    # passkeys, tests/test_browser_passkeys.py).
    "new_cdp_session",
)


class ContextPool:
    """Hands out the contexts of one browser: `open(**options)` in place of `browser.new_context`."""

    def __init__(self, new_context: Callable[..., Any], default_timeout_ms: float) -> None:
        """`new_context`: the browser's own `new_context`, which the pool stands in for."""
        self._new_context = new_context
        self.default_timeout_ms = default_timeout_ms
        self._idle: dict[str, list[Any]] = {}

    def open(self, init_script: str | None = None, **options):
        """A context as `browser.new_context(**options)` makes it, with the script at the path `init_script` added
        to every document it opens (the script is part of what the context is, so a context is kept with it)."""
        cookies = None
        state = options.get("storage_state")
        if isinstance(state, dict) and not any(origin.get("localStorage") for origin in state.get("origins", [])):
            # A state of cookies alone is the cookies, added to a wiped context.
            cookies = options.pop("storage_state")["cookies"]
        poolable = not UNPOOLED_OPTIONS & options.keys()
        key = json.dumps([init_script, options], sort_keys=True, default=str) if poolable else None
        if key is not None and self._idle.get(key):
            context = self._idle[key].pop()
        else:
            context = self._new_context(**options)
            context.set_default_timeout(self.default_timeout_ms)
            if init_script is not None:
                context.add_init_script(path=init_script)
            if key is not None:
                _Kept(self, context, key, options)
        if cookies:
            context.add_cookies(cookies)
        return context

    def keep(self, context, key: str) -> None:
        self._idle.setdefault(key, []).append(context)


class _Kept:
    """One pooled context's bookkeeping: its page, what the test hung on it, the origins it went to."""

    def __init__(self, pool: ContextPool, context, key: str, options: dict) -> None:
        self.pool, self.context, self.key, self.options = pool, context, key, options
        self.emulated: set[str] = set()  # what the test's page.emulate_media set
        self.page = None
        self.blank_window: list[str] = []  # the page's main world on about:blank, before the test had it
        self.handed_out = False
        self.tainted = False
        self.listeners: list[tuple[Any, str, Callable]] = []
        self.origins: set[str] = set()
        self.really_close = context.close
        self.really_new_page = context.new_page
        context.close = self.release
        context.new_page = self.new_page
        self._watch(context, TAINTING_CONTEXT_CALLS)

    def _watch(self, target, tainting: tuple[str, ...]) -> None:
        """Notes the listeners the test adds to `target` and the calls that make it unfit to keep."""
        for name in ("on", "once"):
            add = getattr(target, name)

            def adding(event, handler, add=add):
                self.listeners.append((target, event, handler))
                return add(event, handler)

            setattr(target, name, adding)
        for name in tainting:
            call = getattr(target, name)

            def tainting_call(*args, call=call, **kwargs):
                self.tainted = True
                return call(*args, **kwargs)

            setattr(target, name, tainting_call)

    def new_page(self):
        if self.page is not None and not self.handed_out and not self.page.is_closed():
            self.handed_out = True
            return self.page
        page = self.really_new_page()
        page.on("framenavigated", self._went_to)
        if self.page is None or self.page.is_closed():
            self.page = page
            self.blank_window = page.evaluate(WINDOW_NAMES)
            self.handed_out = True
            self._watch(page, TAINTING_PAGE_CALLS)
            emulate_media = page.emulate_media

            def emulating(**features):
                self.emulated.update(features)
                return emulate_media(**features)

            page.emulate_media = emulating
        return page

    def _went_to(self, frame) -> None:
        address = urlsplit(frame.url)
        if address.scheme in ("http", "https"):
            self.origins.add(f"{address.scheme}://{address.netloc}")

    def release(self) -> None:
        try:
            kept = self._wipe()
        except Exception:  # noqa: BLE001  (a context that cannot be wiped is closed, as it was before the pool)
            kept = False
        if kept:
            self.pool.keep(self.context, self.key)
        else:
            self.really_close()

    def _wipe(self) -> bool:
        if self.tainted:
            return False
        for target, event, handler in self.listeners:
            target.remove_listener(event, handler)
        self.listeners.clear()
        self.context.unroute_all(behavior="ignoreErrors")
        for page in self.context.pages:
            if page is not self.page:
                page.close()
        page = self.page
        if page is None or page.is_closed():
            self.page = None
            return self._wipe_storage(None)
        page.unroute_all(behavior="ignoreErrors")
        page.set_default_timeout(self.pool.default_timeout_ms)
        if self.emulated:
            # Back to the context's own media features ("null": none emulated).
            page.emulate_media(**{feature: self.options.get(feature, "null") for feature in self.emulated})
            self.emulated.clear()
        # A tab's session storage outlives its navigations and no call of the protocol reaches it from another
        # origin's document: it is cleared from the test's own, which is why a tab that went to two origins is
        # not kept.
        if len(self.origins) > 1:
            return False
        if urlsplit(page.url).scheme in ("http", "https"):
            page.evaluate("sessionStorage.clear()")
        # Off the test's document, so that nothing of it writes a cookie or a stored value after the wipe.
        page.goto("about:blank")
        if page.evaluate(WINDOW_NAMES) != self.blank_window:
            return False
        page.mouse.move(0, 0)
        self.handed_out = False
        return self._wipe_storage(page)

    def _wipe_storage(self, page) -> bool:
        self.context.clear_cookies()
        if page is None:
            return not self.origins  # stored data without a page to reach it through: not kept
        session = self.context.new_cdp_session(page)
        try:
            for origin in sorted(self.origins):
                session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": STORAGE_TYPES})
            session.send("Network.clearBrowserCache")
            # The test's pages out of the tab's history, and so out of the back-forward cache, where a page kept
            # frozen could hold its live stream open on the server.
            session.send("Page.resetNavigationHistory")
        finally:
            session.detach()
        self.origins.clear()
        return True
