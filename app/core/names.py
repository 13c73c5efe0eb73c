"""Players' names as other players read them: on a board of the day's ladder, among a room's members.

A name is 1 to NAME_LENGTH characters, trimmed: letters of any script with their accents, digits, spaces, '-'
and '_'. Nothing in it may hide or pass for something else: no character that shows nothing (a Hangul filler is
a letter to Unicode and blank on the screen), no pile of marks on one letter, no word that mixes scripts (a
Cyrillic 'А' in "Аlice"), and never the pattern the ladders give players without a name ("anonymous 9a14").
Two names look alike when Unicode's confusable skeleton (UTS #39) of each is the same (`name_key`, through the
maintained `disarm` library rather than a list of our own): "Alice", "alice" and "Аlice" are one name, held by
one player at a time (app.service.daily), and one member of a room.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import disarm

from app.core.game import Invalid
from app.core.languages import N_, lazy_gettext, lazy_ngettext

NAME_LENGTH = 24
# What a player without a name is called on the ladders, with a tag of four hex digits (app.results.daily).
ANONYMOUS = "anonymous"


# The claim (Store.claim) of a name's look, held by the player who goes by it on the ladders.
NAME_CLAIM = "name:"
# Why a name is refused when another player goes by its look: raised as lazy_gettext(NAME_TAKEN), read in the
# reader's language.
NAME_TAKEN = N_("another player goes by a name that looks like this one: choose another")


def name_key(name: str) -> str:
    """How the name looks, for telling names apart: the same for names a reader could take for one another."""
    return disarm.skeleton_key(name)


def name_claim(name: str) -> str:
    """The claim a player holds on the look of the name they go by."""
    return NAME_CLAIM + name_key(name)


def checked_name(name: Any) -> str:
    """A name as others will see it (NFC, trimmed); Invalid, saying what is wrong, for one that is malformed or
    could pass for something it is not."""
    if not isinstance(name, str):
        raise Invalid(lazy_gettext("a name is text"))
    name = unicodedata.normalize("NFC", name).strip(" ")
    if not name:
        raise Invalid(lazy_gettext("a name needs at least one character"))
    if len(name) > NAME_LENGTH:
        raise Invalid(
            lazy_ngettext(
                "a name has at most %(num)s character, not %(length)s",
                "a name has at most %(num)s characters, not %(length)s",
                NAME_LENGTH,
                length=len(name),
            )
        )
    marks = 0
    for at, character in enumerate(name):
        category = unicodedata.category(character)
        mark = category.startswith("M") and at > 0 and unicodedata.category(name[at - 1])[0] in "LM"
        marks += mark
        # A combining mark (an accent, a vowel sign) belongs to the letter before it.
        if not (category.startswith("L") or category == "Nd" or character in " -_" or mark):
            raise Invalid(
                lazy_gettext(
                    "a name holds letters, digits, spaces, '-' and '_' only, not %(character)s",
                    character=repr(_shown(character)),
                )
            )
        if character != " " and not name_key(character):
            raise Invalid(
                lazy_gettext("a name holds nothing invisible, not %(character)s", character=repr(_shown(character)))
            )
    if disarm.is_zalgo(name) or marks * 2 > len(name):
        raise Invalid(lazy_gettext("a name is mostly letters: too many marks are piled on them"))
    if disarm.is_mixed_script(name, per_word=True):
        raise Invalid(
            lazy_gettext("each word of a name is written in one script: some of its letters look like another's")
        )
    if name_key(name).startswith(name_key(ANONYMOUS)):
        raise Invalid(
            lazy_gettext(
                "a name may not begin with %(anonymous)s: the ladders call players without a name so",
                anonymous=repr(ANONYMOUS),
            )
        )
    return name


def _shown(character: str) -> str:
    return character if character.isprintable() and not character.isspace() else f"U+{ord(character):04X}"
