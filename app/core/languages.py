"""The languages Kaboom's pages can speak (each one's code, its name in itself, its direction), and the words,
numbers and dates of whichever one the code runs in now.

The web layer answers each request in a language (app/web/i18n.py) and keeps it, with its translations, in a
context variable for the request's whole answer: a view, a mode's words for a page, a template all read it here
without passing it along, and a game thread started by the request inherits it. Outside a request (the command
line, a test) it is English. A message is always a format string: its %(name)s are filled from keyword
arguments and a percent sign is written %%, as in the templates' `_()`.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from gettext import NullTranslations
from typing import Any

from babel import Locale
from babel.dates import format_date, format_skeleton, get_day_names
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent


@dataclass(frozen=True)
class Language:
    code: str
    # The language's name in itself, as the switcher lists it: a reader looks for their own.
    autonym: str
    direction: str = "ltr"

    @functools.cached_property
    def locale(self) -> Locale:
        # Parsed once per language: every number and date on a page asks for it.
        return Locale.parse(self.code)


# In the switcher's order.
LANGUAGES: dict[str, Language] = {
    language.code: language
    for language in (
        Language("en", "English"),
        Language("ru", "Русский"),
        Language("hu", "Magyar"),
        Language("ar", "العربية", "rtl"),
    )
}
ENGLISH = LANGUAGES["en"]


def offered_codes(setting: str) -> tuple[str, ...]:
    """KABOOM_LANGUAGES's codes, English first whether named or not; ValueError naming an unknown one."""
    codes = [code.strip().lower() for code in setting.split(",") if code.strip()]
    unknown = [code for code in codes if code not in LANGUAGES]
    if unknown:
        raise ValueError(f"no such language: {', '.join(unknown)} (Kaboom speaks {', '.join(LANGUAGES)})")
    return tuple(code for code in LANGUAGES if code == "en" or code in codes)


def N_(message: str) -> str:  # noqa: N802 (the name every gettext extractor looks for)
    """Marks `message` for the catalogs where it is written (a mode's title, a setting's label): it is translated
    where it is shown, in the language of whoever reads it."""
    return message


@dataclass(frozen=True)
class Speaking:
    """What the code speaks now: a language, its translations, and the languages the server offers."""

    language: Language
    translations: NullTranslations
    offered: tuple[Language, ...]
    # The translations of what the script writes itself (static/js/words.js), as the JSON the page carries;
    # "" in English, whose messages are their own words.
    script_words: str = ""


# Never changed: a request sets its own.
IN_ENGLISH = Speaking(ENGLISH, NullTranslations(), (ENGLISH,))
_speaking: ContextVar[Speaking] = ContextVar("speaking", default=IN_ENGLISH)


def speaking() -> Speaking:
    return _speaking.get()


@contextmanager
def speaking_as(choice: Speaking) -> Iterator[None]:
    """Everything inside speaks `choice` (a request's answer, in the web layer)."""
    token = _speaking.set(choice)
    try:
        yield
    finally:
        _speaking.reset(token)


@dataclass(frozen=True)
class Text:
    """Words to be read in the reader's language, made where the reader is not known: a refusal or a move's news
    made in a game thread or the slow lane (another process), kept, and shown to whoever asks. It reads as a
    string in the language spoken when it is read (`str`), so a page shows it translated and the command line
    in English. A value that fills it may be a Text itself (read in the same language)."""

    message: str
    params: tuple[tuple[str, Any], ...] = ()
    plural: str | None = None
    count: int = 0

    def __str__(self) -> str:
        params = {name: str(value) if isinstance(value, Text) else value for name, value in self.params}
        if self.plural is None:
            return gettext(self.message, **params)
        return ngettext(self.message, self.plural, self.count, **params)

    def in_english(self) -> str:
        with speaking_as(IN_ENGLISH):
            return str(self)


@dataclass(frozen=True)
class InSentence:
    """Words marked where they are written (a kind's title, a setting's label) that fill a Text's sentence with
    their first letter small ("a co-op room"): read, like the sentence, in the language of whoever reads it."""

    words: str

    def __str__(self) -> str:
        return lowered(gettext(self.words))


def lazy_gettext(message: str, **params: Any) -> Text:
    """`message` to be translated when it is read (Text), its %(name)s filled from `params` then."""
    return Text(message, tuple(params.items()))


def lazy_ngettext(singular: str, plural: str, count: int, **params: Any) -> Text:
    return Text(singular, tuple(params.items()), plural, count)


def gettext(message: str, **params: Any) -> str:
    """`message` in the language spoken now, its %(name)s filled from `params`."""
    return _speaking.get().translations.gettext(message) % params


def unfilled(message: str) -> str:
    """`message` translated but not yet filled: a format for a hot path to fill many times (a board's cells)."""
    return _speaking.get().translations.gettext(message)


def ngettext(singular: str, plural: str, count: int, **params: Any) -> str:
    """The form for `count` in the language spoken now (Russian has three, Arabic six), %(num)s being `count`."""
    return _speaking.get().translations.ngettext(singular, plural, count) % {"num": count, **params}


def pgettext(context: str, message: str, **params: Any) -> str:
    """`message` where the same English word needs different translations (`context` tells them apart)."""
    return str(_speaking.get().translations.pgettext(context, message)) % params


# Numbers, shares and days as each language writes them (CLDR, through Babel): Russian "1 234,5", Hungarian
# "1 234,5", Arabic "1,234.5" in the digits on the board (0-9: the Latin numbering system, as Arabic screens
# that show a board's numbers do). English keeps Kaboom's own way, as it always wrote them ("94 %", "2000").
DIGITS = "latn"


# Babel takes 5 to 12 µs a number, and a page of records or a game list writes dozens, mostly the same small
# counts: each language's forms of a value are kept (a page in Russian cost 10 % more than in English without).
@functools.lru_cache(maxsize=8192)
def _decimal(language: Language, value: float, pattern: str | None) -> str:
    return format_decimal(value, pattern, locale=language.locale, numbering_system=DIGITS)


@functools.lru_cache(maxsize=4096)
def _percent(language: Language, share: float, places: int) -> str:
    return _percent(language, share, places)


def number_text(value: float) -> str:
    """A count or a measure as the language writes it, with the decimals it has (up to three)."""
    language = _speaking.get().language
    return str(value) if language is ENGLISH else _decimal(language, value, None)


def decimal_text(value: float, places: int) -> str:
    """`value` with `places` digits after the decimal sign ("1.23", Russian "1,23")."""
    language = _speaking.get().language
    if language is ENGLISH:
        return f"{value:.{places}f}"
    return _decimal(language, value, "#,##0." + "0" * places if places else "#,##0")


def grouped_text(value: int) -> str:
    """A whole number with its thousands set apart: "12,345", Russian "12 345" (a no-break space)."""
    language = _speaking.get().language
    if language is ENGLISH:
        return f"{value:,}"
    return _decimal(language, value, "#,##0")


def percent_text(share: float, places: int = 0) -> str:
    """A share (0.94) as a percentage: "94 %", Russian "94 %" (a no-break space), Hungarian and Arabic "94%"."""
    language = _speaking.get().language
    if language is ENGLISH:
        return f"{share * 100:.{places}f} %"
    # The language's own pattern (where its sign goes, and its space), with the places asked for.
    pattern = language.locale.percent_formats[None].pattern.replace("0", "0." + "0" * places, 1) if places else None
    return format_percent(share, pattern, locale=language.locale, numbering_system=DIGITS)


def day_text(date: datetime.date, year: bool = False) -> str:
    """A day as the pages of the boards of the day name it: "26 November", "26 ноября", "november 26.", with
    its year when asked."""
    language = _speaking.get().language
    if language is ENGLISH:
        return f"{date.day} {date.strftime('%B %Y' if year else '%B')}"
    return format_skeleton("yMMMMd" if year else "MMMMd", date, locale=language.locale)


def list_text(items: list[str]) -> str:
    """Items as a sentence lists them: "2 deaths and 1 forced guess", Russian "… и …", Arabic "… و…"."""
    language = _speaking.get().language
    if language is ENGLISH:
        return " and ".join(items)
    return format_list(items, locale=language.locale)


def month_text(date: datetime.date) -> str:
    """A month's short name, as a calendar marks where one begins: "Nov", "нояб.", "nov.", "نوفمبر"."""
    language = _speaking.get().language
    if language is ENGLISH:
        return date.strftime("%b")
    return format_date(date, "LLL", locale=language.locale)


def lowered(text: str) -> str:
    """A label (capitalized, as it stands alone) inside a sentence: its first letter small."""
    return text[:1].lower() + text[1:]


ENGLISH_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def weekday_texts() -> tuple[str, ...]:
    """The days of the week, Monday first, as a calendar heads its columns: "Mon", "пн", "H", "إثنين"."""
    language = _speaking.get().language
    if language is ENGLISH:
        return ENGLISH_WEEKDAYS
    # CLDR's "short" names: a calendar's column heads (its abbreviated Arabic ones are the whole words).
    names = get_day_names("short", context="stand-alone", locale=language.locale)
    return tuple(names[day] for day in range(7))


def separated(items: list[str]) -> str:
    """Items one after the other, as the language separates them in a running list: ", ", Arabic "، "."""
    return pgettext("between the items of a list", ", ").join(items)
