"""The player's language: which one a request is answered in, its catalog, and the words, numbers and dates in it.

A request's language is the one its cookie chose with the header's switcher, else the first of its
Accept-Language the server offers, else English. LanguageMiddleware keeps it in a context variable for the
request's whole answer, so templates (Jinja2's i18n extension, `_()` and `{% trans %}`) and the views' Python
(`gettext`, `ngettext` below) read the same one without passing it along. The catalogs are the .po files under
locales/ (extracted and updated with `make messages`), compiled in memory when the app starts: no binary
catalog is kept in the repository or written at install. An entry a translator marked fuzzy is not used: the
English words show until someone confirms it. The command line and the JSON API's codes stay English.
"""

from __future__ import annotations

import io
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.languages import ENGLISH, LANGUAGES, Language, offered_codes

CATALOGS = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"
# The switcher's choice; a year, renewed by each choice. Not the session: a language is no secret and must be
# readable before the session is (the error pages of a request whose session is unreadable are translated too).
LANGUAGE_COOKIE = "kaboom-lang"
LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600


@dataclass(frozen=True)
class Speaking:
    """What a request is answered in: its language, that language's translations, and the languages the server
    offers (the switcher's)."""

    language: Language
    translations: NullTranslations
    offered: tuple[Language, ...]


class Catalogs:
    """Every offered language's translations, compiled from its .po file once."""

    def __init__(self, setting: str, directory: Path = CATALOGS):
        languages = tuple(LANGUAGES[code] for code in offered_codes(setting))
        self.speaking: dict[str, Speaking] = {
            language.code: Speaking(
                language,
                NullTranslations() if language is ENGLISH else compiled(catalog_path(directory, language.code)),
                languages,
            )
            for language in languages
        }

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


def compiled(path: Path) -> Translations:
    with path.open("rb") as source:
        catalog = read_po(source, locale=path.parent.parent.name, domain=DOMAIN)
    binary = io.BytesIO()
    write_mo(binary, catalog, use_fuzzy=False)
    binary.seek(0)
    return Translations(binary, domain=DOMAIN)


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


# Outside a request (the command line, a test of a view): English. Never changed: a request sets its own.
IN_ENGLISH = Speaking(ENGLISH, NullTranslations(), (ENGLISH,))
_speaking: ContextVar[Speaking] = ContextVar("speaking", default=IN_ENGLISH)


def speaking() -> Speaking:
    return _speaking.get()


# As in the templates (Jinja2's "newstyle" `_()`), a message is always a format string: its %(name)s are filled from
# `params`, and a percent sign is written %%, so one message reads the same in Python and in a template.
def gettext(message: str, **params: Any) -> str:
    """`message` in the request's language, its %(name)s filled from `params`."""
    return _speaking.get().translations.gettext(message) % params


def ngettext(singular: str, plural: str, count: int, **params: Any) -> str:
    """The form for `count` in the request's language (Russian has three, Arabic six), %(num)s being `count`."""
    translated = _speaking.get().translations.ngettext(singular, plural, count)
    return translated % {"num": count, **params}


def pgettext(context: str, message: str, **params: Any) -> str:
    """`message` where the same English word needs different translations (`context` tells them apart)."""
    return str(_speaking.get().translations.pgettext(context, message)) % params


def _raw_gettext(message: str) -> str:
    return _speaking.get().translations.gettext(message)


def _raw_ngettext(singular: str, plural: str, count: int) -> str:
    return _speaking.get().translations.ngettext(singular, plural, count)


def _raw_pgettext(context: str, message: str) -> str:
    return str(_speaking.get().translations.pgettext(context, message))


def _raw_npgettext(context: str, singular: str, plural: str, count: int) -> str:
    return _speaking.get().translations.npgettext(context, singular, plural, count)


def install(environment: Any) -> None:
    """Jinja2's i18n extension on the templates' environment, reading the request's language; "newstyle":
    `_()` escapes what it is given and fills %(name)s itself, so a template never formats a translation."""
    environment.add_extension("jinja2.ext.i18n")
    environment.globals["speaking"] = speaking
    environment.install_gettext_callables(
        gettext=_raw_gettext,
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
        token = _speaking.set(
            self.catalogs.negotiate(connection.cookies.get(LANGUAGE_COOKIE), connection.headers.get("accept-language"))
        )
        try:
            await self.app(scope, receive, send)
        finally:
            _speaking.reset(token)
