"""The languages Kaboom's pages can speak: each one's code, its name in itself, and its direction."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str
    # The language's name in itself, as the switcher lists it: a reader looks for their own.
    autonym: str
    direction: str = "ltr"


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
