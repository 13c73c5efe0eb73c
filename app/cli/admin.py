"""`kaboom admin`: what the host does to keep the server civil, on the server's machine (app.service.moderation).
It opens the store the server's settings name (KABOOM_DATABASE or KABOOM_STORE, and KABOOM_SECRET_KEY), acts, and
writes the action to the audit log that `kaboom admin log` prints."""

from __future__ import annotations

import argparse
import datetime
import json
from typing import TextIO

from app.cli.errors import positive, settings_checked


def admin(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    from app.core.config import Settings
    from app.service import lane_service

    with settings_checked():
        service = lane_service(Settings())
    try:
        act(args, service.moderation, stdout)
    finally:
        service.close()


def act(args: argparse.Namespace, moderation, stdout: TextIO) -> None:
    action = args.action
    reason = getattr(args, "reason", "") or ""
    if action == "names":
        for named in moderation.recent_names(args.limit):
            when = _when(named.chosen_at) if named.chosen_at else "(before names had times)"
            print(f"{when}  {named.tag}  {named.name}", file=stdout)
        return
    if action == "log":
        for line in moderation.audit_log(args.limit):
            print(json.dumps(line, ensure_ascii=False), file=stdout)
        return
    if action == "rename":
        done = moderation.rename(args.name, args.new_name, reason)
    elif action == "blank":
        done = moderation.blank(args.name, reason)
    elif action == "remove-entry":
        done = moderation.remove_entry(args.day, args.mode, args.name, reason)
    elif action == "close-room":
        done = moderation.close_room(args.room, reason)
    elif action == "block":
        done = moderation.block(args.address, reason)
    else:
        done = moderation.unblock(args.address, reason)
    print(json.dumps(done, ensure_ascii=False), file=stdout)


def _when(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "admin",
        help="moderate names, ladders and rooms (the host's, on the server's machine)",
        description=(
            "Acts on the store the server's settings name (KABOOM_DATABASE or KABOOM_STORE, with its "
            "KABOOM_SECRET_KEY). Every action is written to the audit log (kaboom admin log), which names players "
            "by their name and a tag, never by their id."
        ),
    )
    actions = parser.add_subparsers(dest="action", required=True)

    def with_reason(action: argparse.ArgumentParser) -> argparse.ArgumentParser:
        action.add_argument("--reason", default="", help="why, kept in the audit log")
        return action

    names = actions.add_parser("names", help="the names chosen last, newest first: when, the player's tag, the name")
    names.add_argument("--limit", type=positive, default=50, help="how many (default 50)")
    log = actions.add_parser("log", help="the audit log, newest first, a JSON object a line")
    log.add_argument("--limit", type=positive, default=50, help="how many lines (default 50)")
    rename = with_reason(actions.add_parser("rename", help="give the player who goes by NAME another name"))
    rename.add_argument("name", help="the name as the pages show it (any name that looks the same finds it)")
    rename.add_argument("new_name", help="the name they go by from now on (checked as a player's own)")
    blank = with_reason(actions.add_parser("blank", help="take a name away: its player is anonymous again"))
    blank.add_argument("name")
    entry = with_reason(actions.add_parser("remove-entry", help="take an entry off a day's ladder"))
    entry.add_argument("day", help="the day, as 2026-11-26")
    entry.add_argument("mode", help="the board's mode: cruel or classic")
    entry.add_argument("name", help="the entry's name as the ladder shows it (a name, or 'anonymous 1a2b')")
    room = with_reason(actions.add_parser("close-room", help="take a room away (its games stay, each its players')"))
    room.add_argument("room", help="the room's id, from its address: /rooms/<id>")
    block = with_reason(actions.add_parser("block", help="keep an address from choosing a name"))
    block.add_argument("address", help="an IP address (an IPv6 one blocks its /64)")
    unblock = with_reason(actions.add_parser("unblock", help="let a blocked address choose names again"))
    unblock.add_argument("address")
    parser.set_defaults(handler=admin)
