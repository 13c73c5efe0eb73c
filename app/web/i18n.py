"""The player's language: which one a request is answered in, and the catalogs it is answered from.

A request's language is the one its cookie chose with the header's switcher, else the first of its
Accept-Language the server offers, else English. LanguageMiddleware speaks it for the request's whole answer
(app.core.languages: the views' and the modes' gettext, and here the templates' `_()` and `{% trans %}`, through
Jinja2's i18n extension). The catalogs are the .po files under locales/ (extracted and updated with `make
messages`), compiled in memory when the app starts: no binary catalog is kept in the repository or written at
install. An entry a translator marked fuzzy is not used: the English words show until someone confirms it. The
command line and the JSON API's codes stay English.
"""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.languages import ENGLISH, LANGUAGES, Speaking, offered_codes, speaking, speaking_as, unfilled

CATALOGS = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"
# The switcher's choice; a year, renewed by each choice. Not the session: a language is no secret and must be
# readable before the session is (the error pages of a request whose session is unreadable are translated too).
LANGUAGE_COOKIE = "kaboom-lang"
LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600


class Catalogs:
    """Every offered language's translations, compiled from its .po file once."""

    def __init__(self, setting: str, directory: Path = CATALOGS):
        languages = tuple(LANGUAGES[code] for code in offered_codes(setting))
        self.speaking: dict[str, Speaking] = {"en": Speaking(ENGLISH, NullTranslations(), languages)}
        for language in languages[1:]:
            path = catalog_path(directory, language.code)
            translations, words = read_catalog(path, path.stat().st_mtime_ns, language.code)
            self.speaking[language.code] = Speaking(language, translations, languages, words)

    def negotiate(self, chosen: str | None, accept_language: str | None) -> Speaking:
        """The cookie's language if it is offered, else the header's first offered one (by its weights), else
        English. A header's "ru-RU" is answered in "ru"."""
        if chosen in self.speaking:
            return self.speaking[chosen]
        for tag in preferred_tags(accept_language or ""):
            primary = tag.split("-", 1)[0]
            if primary in self.speaking:
                return self.speaking[primary]
        return self.speaking["en"]


def catalog_path(directory: Path, code: str) -> Path:
    return directory / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.lru_cache(maxsize=16)
def read_catalog(path: Path, modified: int, code: str) -> tuple[Translations, str]:
    """A catalog's translations and its script's words, read once per process while the file stays as it is: an
    app is made once per worker, but a process that makes many (the tests) would read the same files each time."""
    with path.open("rb") as source:
        catalog = read_po(source, locale=code, domain=DOMAIN)
    return compiled(catalog), script_words(catalog)


def compiled(catalog: Catalog) -> Translations:
    binary = io.BytesIO()
    write_mo(binary, catalog, use_fuzzy=False)
    binary.seek(0)
    return Translations(binary, domain=DOMAIN)


def script_words(catalog: Catalog) -> str:
    """The catalog's translations of the script's messages (those written in static/), as JSON a page can carry
    in a <script type="application/json">: no "<" in it, so no "</script>" can end the element early."""
    words = {
        message.id: message.string
        for message in catalog
        if message.id
        and isinstance(message.id, str)
        and message.string
        and not message.fuzzy
        and any(path.startswith("static/") for path, _ in message.locations)
    }
    return json.dumps(words, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")


def preferred_tags(header: str) -> list[str]:
    """An Accept-Language header's language tags, lowercased, the most wanted first (RFC 9110 §12.5.4); "*"
    and tags of weight 0 are left out, and a malformed weight counts as 0."""
    weighted: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        tag, _, parameters = part.strip().partition(";")
        tag = tag.strip().lower()
        weight = 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if tag and tag != "*" and 0 < weight <= 1:
            weighted.append((-weight, position, tag))
    return [tag for _, _, tag in sorted(weighted)]


def _raw_ngettext(singular: str, plural: str, count: int) -> str:
    return speaking().translations.ngettext(singular, plural, count)


def _raw_pgettext(context: str, message: str) -> str:
    return str(speaking().translations.pgettext(context, message))


def _raw_npgettext(context: str, singular: str, plural: str, count: int) -> str:
    return speaking().translations.npgettext(context, singular, plural, count)


def install(environment: Any) -> None:
    """Jinja2's i18n extension on the templates' environment, reading the request's language; "newstyle":
    `_()` escapes what it is given and fills %(name)s itself, so a template never formats a translation."""
    environment.add_extension("jinja2.ext.i18n")
    environment.globals["speaking"] = speaking
    environment.install_gettext_callables(
        gettext=unfilled,
        ngettext=_raw_ngettext,
        pgettext=_raw_pgettext,
        npgettext=_raw_npgettext,
        newstyle=True,
    )


class LanguageMiddleware:
    """Answers each request in its language (Catalogs.negotiate), kept for the request's whole answer."""

    def __init__(self, app: ASGIApp, catalogs: Catalogs):
        self.app = app
        self.catalogs = catalogs

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        choice = self.catalogs.negotiate(
            connection.cookies.get(LANGUAGE_COOKIE), connection.headers.get("accept-language")
        )
        with speaking_as(choice):
            await self.app(scope, receive, send)
