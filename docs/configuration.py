"""Writes docs/configuration.md from the settings class, app.core.config.Settings: run it after changing a setting.

    .venv/bin/python docs/configuration.py

The table comes from the fields themselves: their names, defaults, bounds and descriptions. What the
descriptions do not say is kept here (NOTES), and so is the intro; the Docker image's own values are read
from the Dockerfile. tests/test_docs.py checks that docs/configuration.md is what render() gives.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, get_args

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "configuration.md"
DOCKERFILE = ROOT / "Dockerfile"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from annotated_types import Ge, Gt, Le, Lt  # noqa: E402
from pydantic import SecretStr  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402

from app.core.config import Settings  # noqa: E402

INTRO = """\
Kaboom reads its settings from environment variables, each `{prefix}` and the
setting's name in capitals, or from a `{env_file}` file in the directory it is
started from. `kaboom serve --host --port --database --workers` overrides those
four. A bad setting, an unwritable database or an unreachable Redis stops
`kaboom serve` at once with a one-line message.

The Docker image sets a few of them itself (in its [`Dockerfile`](../Dockerfile)),
shown beside the default; `docker-compose.yml` sets more, and adds the variables
of its own that place Caddy (`KABOOM_DOMAIN`, `KABOOM_PROXY_ADDRESS`,
`KABOOM_PROXY_SUBNET`): see [Self-hosting](self-hosting.md).

`GET /healthz` answers `{{"status": "ok"}}` while the store works (see
[When something fails](self-hosting.md#when-something-fails)).
"""

# What a setting's description leaves out, added after it.
NOTES = {
    "store": "It must start with `redis://`, `rediss://` or `unix://`. "
    "See [Many workers, many hosts](self-hosting.md#many-workers-many-hosts).",
    "secret_key": "At least 16 characters. It also keys board ids' layouts: changing it changes the board every "
    "id deals, and loses every player their games. Unset, one is generated on the first run and kept in "
    "`secret_key` beside the database (see `KABOOM_GENERATE_SECRET`).",
    "generate_secret": "When `false`, a missing key stops the server.",
    "forwarded_allow_ips": "Empty: nobody, and the connection's own address counts. The compose file names "
    "Caddy's. The creation limit counts per client address. "
    "See [Behind a proxy, and limits](self-hosting.md#behind-a-proxy-and-limits).",
    "solver_seconds": "See [The solver's limits](self-hosting.md#the-solvers-limits).",
    "solver_work": "A no-guess board's search may take six times this. "
    "See [The solver's limits](self-hosting.md#the-solvers-limits).",
    "slow_lane": "`false` keeps slow games in one thread of their own instead. "
    "See [The solver's limits](self-hosting.md#the-solvers-limits).",
    "cache_megabytes": "See [Memory](self-hosting.md#memory).",
    "max_body_bytes": "A larger one gets 413. The compose file gives Caddy the same limit.",
    "games_per_player": "After them, the longest idle.",
    "idle_days": "Swept hourly.",
    "create_limit": "Past it, 429.",
    "no_guess_limit": "Past it, 429.",
    "read_timeout": "See [Behind a proxy, and limits](self-hosting.md#behind-a-proxy-and-limits).",
    "keepalive_timeout": "See [Behind a proxy, and limits](self-hosting.md#behind-a-proxy-and-limits).",
    "connections_per_client": "Proxies in `KABOOM_FORWARDED_ALLOW_IPS` are exempt. "
    "See [Behind a proxy, and limits](self-hosting.md#behind-a-proxy-and-limits).",
    "requests_per_client": "A live stream's turn ends as its answer starts. "
    "See [Behind a proxy, and limits](self-hosting.md#behind-a-proxy-and-limits).",
    "max_connections": "See [Behind a proxy, and limits](self-hosting.md#behind-a-proxy-and-limits).",
    "live_streams": "See [Live pages](self-hosting.md#live-pages).",
    "live_streams_per_client": "See [Live pages](self-hosting.md#live-pages).",
}


def variable(name: str) -> str:
    return Settings.model_config.get("env_prefix", "") + name.upper()


def shown(value: Any) -> str:
    """A value as it would be written in the environment."""
    if value is None:
        return "unset"
    if isinstance(value, SecretStr):
        return "set (not shown)"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value == "":
        return "empty"
    return f"`{value}`"


def kind(field: FieldInfo) -> str:
    """What a value is, in words; an optional one is its type's."""
    types = set(get_args(field.annotation)) or {field.annotation}
    types.discard(type(None))
    for python, words in (
        (SecretStr, "a secret"),
        (bool, "`true` or `false`"),
        (int, "a whole number"),
        (float, "a number"),
        (Path, "a path"),
    ):
        if python in types:
            return words
    return "text"


def bounds(field: FieldInfo) -> str:
    """The field's type and bounds in words: 'a whole number, 1 to 64'."""
    limits = {type(item): item for item in field.metadata}
    low, high = limits.get(Ge), limits.get(Le)
    if low is not None and high is not None:
        words = [f"{low.ge} to {high.le}"]
    else:
        words = []
        if low is not None:
            words.append(f"at least {low.ge}")
        if Gt in limits:
            words.append(f"more than {limits[Gt].gt}")
        if high is not None:
            words.append(f"at most {high.le}")
        if Lt in limits:
            words.append(f"less than {limits[Lt].lt}")
    return ", ".join([kind(field), *words])


def marked(text: str) -> str:
    """A description with its variables, other settings' names and URLs set as code."""

    def code(match: re.Match[str]) -> str:
        word = match.group(0)
        return f"`{variable(word)}`" if word in Settings.model_fields else f"`{word}`"

    names = "|".join(re.escape(name) for name in Settings.model_fields if "_" in name)
    pattern = rf"(?<![`\w])(?:KABOOM_\w+|\w+://\S+|{names})(?![`\w])"
    return re.sub(pattern, code, text)


def meaning(name: str, field: FieldInfo) -> str:
    if not field.description:
        raise ValueError(f"setting {name!r} has no description in app/core/config.py: give it one")
    described = marked(field.description.strip())
    if not described.endswith("."):
        described += "."
    return " ".join(part for part in (described, NOTES.get(name, "")) if part)


def docker_image_settings(path: Path = DOCKERFILE) -> dict[str, str]:
    """The KABOOM_ variables the Dockerfile's ENV instructions set."""
    if not path.exists():
        return {}
    joined = re.sub(r"\\\n", " ", path.read_text())
    found: dict[str, str] = {}
    for line in joined.splitlines():
        instruction = re.match(r"\s*ENV\s+(.*)", line)
        if instruction:
            found.update(re.findall(r"(KABOOM_\w+)=(\S+)", instruction.group(1)))
    return found


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    """The whole of docs/configuration.md."""
    image = docker_image_settings()
    lines = [
        "<!-- Generated by docs/configuration.py from app/core/config.py: edit those, then run "
        "`.venv/bin/python docs/configuration.py`. -->",
        "",
        "# Configuration",
        "",
        INTRO.format(
            prefix=Settings.model_config.get("env_prefix", ""),
            env_file=Settings.model_config.get("env_file") or ".env",
        ).rstrip("\n"),
        "",
        "| variable | default | accepts | what it does |",
        "|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        default = shown(field.default)
        env = variable(name)
        if env in image and f"`{image[env]}`" != default:
            default += f" (`{image[env]}` in the Docker image)"
        lines.append(f"| `{env}` | {cell(default)} | {cell(bounds(field))} | {cell(meaning(name, field))} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    PAGE.write_text(render())
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
