"""Players' names (issue 41, point 7; app/core/names.py): what a name may hold, names that impersonate or vanish, one
look per player on every store and host, and the same rules among a room's members."""

from __future__ import annotations

import asyncio
import unicodedata

import pytest

from app.core.game import Invalid, Refused
from app.core.names import checked_name, name_key
from tests.test_fair_play import hosts  # noqa: F401  (the fixture: two services on one store, of each kind)
from tests.test_store_ladders import at_once

KEPT = ["Ada", "  Zoë  ", "Zoe\u0308", "李小龍", "日本語テスト", "Ђорђе_7", "अनुराग", "x-y z", "سارة", "Ana-Мария"]
KEPT.append("a" * 24)


@pytest.mark.parametrize("name", KEPT)
def test_names_of_letters_of_any_script_digits_spaces_hyphens_and_underscores_are_kept_trimmed(name):
    assert checked_name(name) == unicodedata.normalize("NFC", name).strip()


@pytest.mark.parametrize(
    "name, message",
    [
        ("", "at least one character"),
        ("   ", "at least one character"),
        ("a" * 25, "at most 24 characters, not 25"),
        ("<b>bold</b>", "not '<'"),
        ("tab\there", "not 'U\\+0009'"),
        ("robert'); drop", 'not "\'"'),
        ("\u0301a", "not"),  # a combining mark with no letter before it
        (7, "a name is text"),
        # Letters to Unicode that show nothing: Hangul fillers, alone or hiding in a name.
        ("\u3164", "nothing invisible"),
        ("\u115f", "nothing invisible"),
        ("\u1160", "nothing invisible"),
        ("Al\u3164ice", "nothing invisible"),
        ("a" + "\u0301" * 23, "too many marks"),
        ("ab" + "\u0301\u0316\u0327" * 2, "too many marks"),
        # A word of two scripts: a Cyrillic А in "Alice".
        ("\u0410lice", "one script"),
        ("B\u043e\u0440\u0438\u0441", "one script"),
        # What the ladders call players without a name.
        ("anonymous 9a14", "anonymous"),
        ("Anonymous 9A14", "anonymous"),
        ("anonymous", "anonymous"),
    ],
)
def test_malformed_names_are_refused_with_a_message(name, message):
    with pytest.raises(Invalid, match=message):
        checked_name(name)


def test_names_that_look_alike_have_one_key():
    assert name_key("Alice") == name_key("alice") == name_key("\u0410lice") == name_key("\uff21lice")
    assert name_key("Alice") != name_key("Alicia")


def run(work):
    return asyncio.run(work)


def test_a_name_is_held_by_one_player_at_a_time_whatever_its_case_or_look_alike_letters(hosts):  # noqa: F811
    one, other = hosts
    assert run(one.daily.set_name("ann", "c", "Alice")) == "Alice"
    for taken in ("Alice", "alice", "\uff21lice", "AIice"):
        with pytest.raises(Refused, match="looks like this one"):
            run(other.daily.set_name("bob", "c", taken))
    assert run(other.daily.name_of("bob")) is None
    assert run(other.daily.set_name("ann", "c", "alice")) == "alice"  # her own look, as she likes it
    assert run(one.daily.set_name("ann", "c", "Alicia")) == "Alicia"  # and the old look is let go
    assert run(other.daily.set_name("bob", "c", "Alice")) == "Alice"
    with pytest.raises(Refused):
        run(one.daily.set_name("ann", "c", "alice"))
    # Two players asking for one look at the same moment on two hosts: one gets it.
    asked = at_once(
        lambda: _named(one, "cy", "Zed"),
        lambda: _named(other, "dee", "zed"),
        lambda: _named(one, "eve", "Zed "),
    )
    assert sorted(asked) == [False, False, True]


def _named(service, player: str, name: str) -> bool:
    try:
        run(service.daily.set_name(player, "c", name))
    except Refused:
        return False
    return True


def test_a_rooms_members_go_by_names_that_look_like_no_others(hosts):  # noqa: F811
    one, other = hosts
    run(one.daily.set_name("lou", "c", "Lou"))
    room_id, room = run(one.rooms.create_room("ann", "c", "coop", "classic", 9, 9, 10, {}, "Ann"))
    for refused, message in (("ann", "looks like 'ann'"), ("lou", "looks like this one"), ("\u0410nn", "one script")):
        with pytest.raises((Refused, Invalid), match=message):
            run(other.rooms.join_room(room_id, room.invite, "bob", refused))
    with pytest.raises(Invalid, match="anonymous"):
        run(other.rooms.join_room(room_id, room.invite, "bob", "anonymous 1234"))
    # The name every newcomer is offered is numbered, so that the room tells them apart.
    run(other.rooms.join_room(room_id, room.invite, "bob", "Player"))
    run(one.rooms.join_room(room_id, room.invite, "cy", "Player"))
    names = [member.name for member in run(one.rooms.room_view(room_id, "ann")).room.members]
    assert names == ["Ann", "Player", "Player 2"]
    # Lou goes by his own name in a room too.
    run(one.rooms.join_room(room_id, room.invite, "lou", "Lou"))
