"""The container files: Dockerfile, .dockerignore and docker-compose.yml, and the lock files.

No Docker engine is needed. The Dockerfile is read with dockerfile-parse and
.dockerignore with docker-py's matcher, and both are checked; then the image's
own steps are carried out outside Docker: its build context is made from the
files git tracks less what .dockerignore leaves out, its COPY and RUN pip/python
steps run in order into a fresh virtual environment (installs come from the
package index, as in the image, at the versions of requirements.lock), and its
CMD is started with its ENV to see the server answer /healthz, and refuse to
start without KABOOM_SECRET_KEY. The lock files must pin what pyproject.toml
asks for: the image and `make` install from them alone.
"""

from __future__ import annotations

import io
import ipaddress
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from docker.utils.build import exclude_paths
from dockerfile_parse import DockerfileParser
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from app.core.config import Settings
from tests.live import seconds

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
COMPOSE = ROOT / "docker-compose.yml"
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "requirements.lock"
DEV_LOCK = ROOT / "requirements-dev.lock"

# What the server needs at run time, beside the installed dependencies.
RUNTIME_PATHS = ["requirements.lock", "solver", "app", "templates", "static", "pyproject.toml", "README.md"]
CODE_DIRECTORIES = ["solver", "app", "templates", "static"]


# --- Dockerfile --------------------------------------------------------------------------------

DOCKERFILE_INSTRUCTIONS = {
    "ADD",
    "ARG",
    "CMD",
    "COPY",
    "ENTRYPOINT",
    "ENV",
    "EXPOSE",
    "FROM",
    "HEALTHCHECK",
    "LABEL",
    "MAINTAINER",
    "ONBUILD",
    "RUN",
    "SHELL",
    "STOPSIGNAL",
    "USER",
    "VOLUME",
    "WORKDIR",
}


@dataclass
class Instruction:
    keyword: str  # upper case: FROM, RUN, COPY, ...
    args: str  # the rest of the logical line, continuations joined
    line: int  # where it starts, 1-based
    env: dict[str, str]  # the image's ENV from this instruction on, its own included

    def exec_form(self, text: str | None = None) -> list[str] | None:
        """The JSON-array form of the arguments (or of `text`), None for the shell form."""
        text = self.args if text is None else text
        if not text.startswith("["):
            return None
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, list) and all(isinstance(item, str) for item in value) else None


def parse_dockerfile(text: str) -> list[Instruction]:
    """The instructions as dockerfile-parse reads them, comments left out.

    Where Docker reads on past an empty line inside a continued instruction,
    dockerfile-parse ends the instruction there and takes the next line's first
    word for a new one: such a word is refused rather than run or checked.
    """
    parser = DockerfileParser(fileobj=io.BytesIO(text.encode()))
    instructions = [
        Instruction(item["instruction"], item["value"].strip(), item["startline"] + 1, dict(context.envs))
        for item, context in zip(parser.structure, parser.context_structure, strict=True)
        if item["instruction"] != "COMMENT"
    ]
    for instruction in instructions:
        if instruction.keyword not in DOCKERFILE_INSTRUCTIONS:
            raise ValueError(
                f"line {instruction.line}: {instruction.keyword!r} is no instruction"
                " (an empty line inside a continued instruction above it?)"
            )
    return instructions


def copy_parts(instruction: Instruction) -> tuple[list[str], str]:
    """The sources and the destination of a COPY, flags (--chown=...) left out."""
    words = instruction.exec_form() or [w for w in shlex.split(instruction.args) if not w.startswith("--")]
    return words[:-1], words[-1]


def healthcheck_command(instruction: Instruction) -> list[str] | str:
    """The command of `HEALTHCHECK [--option=value ...] CMD ...`: a list (exec form) or a string."""
    rest = re.sub(r"^(--\S+\s+)*", "", instruction.args)
    keyword, _, command = rest.partition(" ")
    assert keyword.upper() == "CMD", f"HEALTHCHECK on line {instruction.line} has no CMD"
    command = command.strip()
    return instruction.exec_form(command) or command


def image_env(instructions: list[Instruction]) -> dict[str, str]:
    return dict(instructions[-1].env)


PYTHON_WORD = re.compile(r"(?<![\w./-])(pip|python3?)(?![\w.-])")


def is_python_step(instruction: Instruction) -> bool:
    """A RUN that uses pip or python: the steps the test repeats (useradd, mkdir /data are not)."""
    return instruction.keyword == "RUN" and PYTHON_WORD.search(instruction.args) is not None


def is_dependency_install(instruction: Instruction) -> bool:
    return is_python_step(instruction) and "pip install" in instruction.args and "--require-hashes" in instruction.args


def is_project_install(instruction: Instruction) -> bool:
    return (
        is_python_step(instruction) and re.search(r"pip install .*--no-deps.* \.(\s|$)", instruction.args) is not None
    )


@pytest.fixture(scope="module")
def dockerfile() -> list[Instruction]:
    return parse_dockerfile(DOCKERFILE.read_text())


def test_parser_joins_continuations_and_drops_comments():
    text = (
        "# a comment\nFROM base\n\nRUN a \\\n    # inside\n    && b \\\n    && c\n"
        'ENV A=1 B="two words"\nENV C one two\nCMD ["x", "y"]\n'
    )
    parsed = parse_dockerfile(text)
    assert [(i.keyword, i.line) for i in parsed] == [("FROM", 2), ("RUN", 4), ("ENV", 8), ("ENV", 9), ("CMD", 10)]
    assert parsed[1].args.split() == ["a", "&&", "b", "&&", "c"]
    assert parsed[4].exec_form() == ["x", "y"]
    assert parsed[1].env == {}
    assert parsed[2].env == {"A": "1", "B": "two words"}
    assert parsed[3].env == parsed[4].env == {"A": "1", "B": "two words", "C": "one two"}
    with pytest.raises(ValueError, match="line 4"):
        parse_dockerfile("FROM base\nRUN a \\\n\n    && c\n")


def test_base_image_is_python_311_slim(dockerfile):
    froms = [i for i in dockerfile if i.keyword == "FROM"]
    assert len(froms) == 1, "one stage: the test below repeats its steps"
    assert froms[0].args.split()[0] == "python:3.11-slim"
    assert dockerfile[0].keyword == "FROM"


def test_server_runs_as_a_user_that_is_not_root(dockerfile):
    cmd = next(n for n, i in enumerate(dockerfile) if i.keyword == "CMD")
    users = [i.args for i in dockerfile[:cmd] if i.keyword == "USER"]
    assert users, "no USER before CMD: the server would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), users[-1]
    assert not any(i.keyword == "USER" for i in dockerfile[cmd:])


def test_dependencies_are_installed_before_the_code_is_copied(dockerfile):
    installs = [n for n, i in enumerate(dockerfile) if is_dependency_install(i)]
    assert installs, "no RUN installs the dependencies"
    first_install = installs[0]
    words = shlex.split(dockerfile[first_install].args)
    assert words[:2] == ["pip", "install"] and "--require-hashes" in words, dockerfile[first_install].args
    assert [word for previous, word in itertools.pairwise(words) if previous in ("-r", "--requirement")] == [
        "requirements.lock"
    ], "the dependencies are installed from requirements.lock, and from nothing else"
    code_copies = [
        n
        for n, i in enumerate(dockerfile)
        if i.keyword == "COPY" and any(s.strip("./") in CODE_DIRECTORIES for s in copy_parts(i)[0])
    ]
    assert {s.strip("./") for n in code_copies for s in copy_parts(dockerfile[n])[0]} >= set(CODE_DIRECTORIES)
    assert first_install < min(code_copies)
    # Only the lock file reaches the image before the install, so nothing else invalidates its layer.
    early = [s for i in dockerfile[:first_install] if i.keyword in ("COPY", "ADD") for s in copy_parts(i)[0]]
    assert early == ["requirements.lock"]
    # Several directories in one COPY would be merged into its destination.
    for n in code_copies:
        assert len(copy_parts(dockerfile[n])[0]) == 1, f"line {dockerfile[n].line}: one directory per COPY"
    project = [n for n, i in enumerate(dockerfile) if is_project_install(i)]
    assert project and project[0] > max(code_copies), "pip install --no-deps . after the code is copied"
    # A built package, not an editable one: the image runs what was installed, not the tree it was built from.
    assert not any(re.search(r"pip install .*(-e|--editable)\b", i.args) for i in dockerfile if is_python_step(i))


def test_cmd_is_exec_form_and_starts_the_server(dockerfile):
    cmds = [i for i in dockerfile if i.keyword == "CMD"]
    assert len(cmds) == 1
    assert cmds[0].exec_form() == ["kaboom", "serve"]
    assert not any(i.keyword == "ENTRYPOINT" for i in dockerfile)


def test_healthcheck_needs_no_curl(dockerfile):
    checks = [i for i in dockerfile if i.keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    command = healthcheck_command(checks[0])
    assert isinstance(command, list) and command[:2] == ["python", "-c"]
    text = " ".join(command)
    assert "curl" not in text and "wget" not in text
    assert "urllib" in text and "/healthz" in text


def test_games_are_kept_on_a_data_volume_owned_by_the_server_user(dockerfile):
    volumes = [i for i in dockerfile if i.keyword == "VOLUME"]
    assert volumes
    paths = [p for i in volumes for p in (i.exec_form() or i.args.split())]
    assert "/data" in paths
    volume = dockerfile.index(volumes[0])
    # Changes to /data after VOLUME are thrown away: it must be made and chowned before.
    assert any(i.keyword == "RUN" and re.search(r"chown .*/data\b", i.args) for i in dockerfile[:volume])
    assert any(i.keyword == "EXPOSE" and "8000" in i.args.split() for i in dockerfile)


def test_env_is_set_for_a_container(dockerfile):
    env = image_env(dockerfile)
    assert env["KABOOM_GENERATE_SECRET"] == "false"
    assert env["KABOOM_DATABASE"].startswith("/data/")
    assert env["KABOOM_HOST"] == "0.0.0.0"
    assert env["KABOOM_PORT"] == "8000"
    assert env["PYTHONDONTWRITEBYTECODE"] == "1" and env["PYTHONUNBUFFERED"] == "1"
    assert "KABOOM_SECRET_KEY" not in env, "a secret baked into the image is no secret"


# --- .dockerignore -------------------------------------------------------------------------------


def dockerignore_patterns(text: str) -> list[str]:
    """The patterns of a .dockerignore as docker-py's build reads the file: blank and comment lines dropped."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def build_context(names: Iterable[str], patterns: list[str], directory: Path) -> set[str]:
    """The paths (relative, with /) that `docker build` sends of `names`, and of their directories.

    docker-py's matcher decides on a directory when it walks into it: one that is
    left out is not entered, whatever its files would match. So `names` are laid
    out as empty files in `directory`, and docker-py walks it as it walks a build
    context. (Like Docker, it always sends Dockerfile and .dockerignore: the
    builder reads them.)
    """
    for name in names:
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    return {path.replace(os.sep, "/") for path in exclude_paths(str(directory), list(patterns))}


def tracked_files() -> list[str]:
    """The repository's files as a clean clone has them, with the working tree's content.

    Files not yet added but not ignored by git count too: `docker build .` in this
    working tree would send them, and in a fresh clone there are none.
    """
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    # A link (app/web/templates to templates/) is sent as a link, as git keeps it.
    return [
        name
        for name in listing.decode().split("\0")
        if name and ((ROOT / name).is_file() or (ROOT / name).is_symlink())
    ]


def test_dockerignore_matcher(tmp_path):
    patterns = dockerignore_patterns("# a comment\n\ndata\n**/__pycache__\n  *.md\n!README.md\n/docs/*.png\n")
    assert patterns == ["data", "**/__pycache__", "*.md", "!README.md", "/docs/*.png"]
    context = build_context(
        [
            "data/kaboom.sqlite3",
            "app/data.py",
            "__pycache__/x.pyc",
            "app/__pycache__/web.cpython-311.pyc",
            "NOTES.md",
            "README.md",
            "static/VENDORED.md",
            "docs/screenshot.png",
            "docs/screenshot.py",
        ],
        patterns,
        tmp_path,
    )

    def ignored(path: str) -> bool:
        return path not in context

    assert ignored("data") and ignored("data/kaboom.sqlite3")
    assert not ignored("app/data.py")
    assert ignored("__pycache__/x.pyc") and ignored("app/__pycache__/web.cpython-311.pyc")
    assert ignored("NOTES.md") and not ignored("README.md")
    assert not ignored("static/VENDORED.md")  # * never crosses a /
    assert ignored("docs/screenshot.png") and not ignored("docs/screenshot.py")


@pytest.mark.subprocess
def test_dockerignore_keeps_local_state_out_and_the_code_in(tmp_path):
    patterns = dockerignore_patterns(DOCKERIGNORE.read_text())
    local = [
        ".git/HEAD",
        ".venv/bin/python",
        "data/kaboom.sqlite3",
        "data/secret_key",
        ".env",
        "app/__pycache__/web.cpython-311.pyc",
        ".pytest_cache/README.md",
        ".hypothesis/examples/x",
        ".mypy_cache/3.11/app/game.data.json",
        ".ruff_cache/0.17.6/123",
        "kaboom.sqlite3",
        "tests/test_api.py",
        "bench/web.py",
        "docs/screenshot.png",
        "requirements-dev.lock",
    ]
    tracked = tracked_files()
    sent = build_context([*tracked, *local], patterns, tmp_path)
    for path in local:
        assert path not in sent, path
    context = [name for name in tracked if name in sent]
    for needed in RUNTIME_PATHS:
        assert any(name == needed or name.startswith(needed + "/") for name in context), needed
    # Every tracked file under the code directories reaches the image.
    for name in tracked:
        if name.split("/")[0] in CODE_DIRECTORIES:
            assert name in sent, name


# --- docker-compose.yml --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _environment(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def test_compose_app_service(compose, dockerfile):
    app = compose["services"]["kaboom"]
    assert app["build"] in (".", {"context": "."}) or app["build"].get("context") == "."
    assert "ports" not in app, "only Caddy is published: clients reach Kaboom through it"
    assert "8000" in [str(port) for port in app["expose"]]
    volumes = app["volumes"]
    data = [v for v in volumes if isinstance(v, str) and v.split(":")[1] == "/data"]
    assert data, volumes
    assert data[0].split(":")[0] in compose["volumes"], "a named volume, declared at the top level"
    assert app["restart"] == "unless-stopped"
    assert "profiles" not in app
    # The same probe as the image's HEALTHCHECK.
    test = app["healthcheck"]["test"]
    assert test[0] == "CMD"
    check = next(i for i in dockerfile if i.keyword == "HEALTHCHECK")
    assert test[1:] == healthcheck_command(check)


def test_compose_requires_the_secret(compose):
    env = _environment(compose["services"]["kaboom"])
    assert re.fullmatch(r"\$\{KABOOM_SECRET_KEY:\?[^}]+\}", env["KABOOM_SECRET_KEY"]), env["KABOOM_SECRET_KEY"]
    assert env["KABOOM_WORKERS"] == "${KABOOM_WORKERS:-2}"
    assert env["KABOOM_SECURE_COOKIES"] == "${KABOOM_SECURE_COOKIES:-false}"
    # Empty by default, which the settings read as "no Redis": SQLite.
    assert env.get("KABOOM_STORE", "${KABOOM_STORE:-}") == "${KABOOM_STORE:-}"


def test_compose_redis_is_optional(compose):
    redis = compose["services"]["redis"]
    assert redis["image"] == "redis:7-alpine"
    assert redis["profiles"] == ["redis"]
    assert redis["restart"] == "unless-stopped"
    assert "redis-cli" in redis["healthcheck"]["test"] and "ping" in redis["healthcheck"]["test"]
    assert any(isinstance(v, str) and v.split(":")[0] in compose["volumes"] for v in redis["volumes"])
    assert "ports" not in redis, "only the app talks to Redis"
    # The app must start without the profile, so it cannot depend on redis.
    assert "redis" not in (compose["services"]["kaboom"].get("depends_on") or [])
    assert "redis://redis:6379/0" in COMPOSE.read_text()


def compose_default(value: str) -> str:
    """What Compose makes of `${NAME:-default}` when NAME is not set."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)


def test_compose_puts_caddy_in_front(compose):
    caddy, app = compose["services"]["caddy"], compose["services"]["kaboom"]
    image, _, tag = caddy["image"].partition(":")
    assert image == "caddy" and re.fullmatch(r"2\.\d+(\.\d+)?(-alpine)?", tag), caddy["image"]
    assert {"80:80", "443:443", "443:443/udp"} <= {str(port) for port in caddy["ports"]}
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in caddy["volumes"]
    certificates = [v.split(":")[0] for v in caddy["volumes"] if v.split(":")[1] == "/data"]
    assert certificates and certificates[0] in compose["volumes"], "certificates kept on a named volume"
    assert caddy["restart"] == "unless-stopped" and "kaboom" in caddy["depends_on"]
    env, app_env = _environment(caddy), _environment(app)
    # Plain HTTP on port 80 unless a domain is given (a bare localhost would mean Caddy's own certificate).
    assert compose_default(env["KABOOM_DOMAIN"]) == ":80"
    assert env["KABOOM_UPSTREAM"] == "kaboom:8000"
    # One body limit for both, Kaboom's default.
    assert env["KABOOM_MAX_BODY_BYTES"] == app_env["KABOOM_MAX_BODY_BYTES"]
    assert int(compose_default(app_env["KABOOM_MAX_BODY_BYTES"])) == Settings.model_fields["max_body_bytes"].default
    caddyfile = (ROOT / "Caddyfile").read_text()
    for name in env:
        assert "{$" + name in caddyfile, f"the Caddyfile does not read {name}"


def test_compose_kaboom_believes_only_caddy(compose):
    caddy, app = compose["services"]["caddy"], compose["services"]["kaboom"]
    address = caddy["networks"]["front"]["ipv4_address"]
    assert _environment(app)["KABOOM_FORWARDED_ALLOW_IPS"] == address
    subnet = compose["networks"]["front"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(compose_default(address)) in ipaddress.ip_network(compose_default(subnet))
    # Nobody else on that network could pass for Caddy.
    on_front = sorted(
        name for name, service in compose["services"].items() if "front" in (service.get("networks") or [])
    )
    assert on_front == ["caddy", "kaboom"]
    assert list(caddy["networks"]) == ["front"]


# --- the lock files -----------------------------------------------------------------------------


@dataclass
class Pin:
    version: Version
    marker: Marker | None
    hashes: list[str]


# The Pythons the universal lock is written for (--python-version 3.11 and later); the image runs 3.11.
PYTHONS = ("3.11.9", "3.12.8", "3.13.1")


def read_lock(path: Path, python: str = PYTHONS[0]) -> dict[str, Pin]:
    """A lock file as `make lock` writes it: `name==version [; marker]` lines, each with its --hash options,
    as the given Python reads it. A package may be pinned once per range of Pythons (numpy drops old
    ones before we do), but exactly one of its pins may apply to any one Python."""
    pins: dict[str, Pin] = {}
    for line in path.read_text().replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        requirement, *hashes = re.split(r"\s+--hash=", line)
        pin = Requirement(requirement)
        specifiers = list(pin.specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==", f"{path.name}: {line}"
        if pin.marker is not None and not pin.marker.evaluate(
            {"python_full_version": python, "python_version": python.rsplit(".", 1)[0]}
        ):
            continue
        name = canonicalize_name(pin.name)
        assert name not in pins, f"{path.name} pins {name} twice for Python {python}"
        pins[name] = Pin(Version(specifiers[0].version), pin.marker, hashes)
    return pins


def test_every_python_the_lock_is_for_reads_one_pin_a_package():
    for python in PYTHONS:
        for path in (LOCK, DEV_LOCK):
            assert read_lock(path, python), (path.name, python)


def test_lock_files_pin_what_pyproject_asks_for():
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    runtime = [Requirement(d) for d in project["dependencies"]]
    dev = runtime + [
        Requirement(d) for extra in ("test", "bench", "plot") for d in project["optional-dependencies"][extra]
    ]
    locks = {LOCK: (read_lock(LOCK), runtime), DEV_LOCK: (read_lock(DEV_LOCK), dev)}
    for path, (pins, wanted) in locks.items():
        for requirement in wanted:
            name = canonicalize_name(requirement.name)
            assert name in pins, f"{path.name} has no {name}: run make lock"
            assert requirement.specifier.contains(pins[name].version, prereleases=True), (
                f"{path.name} pins {name} {pins[name].version}, outside {requirement.specifier}: run make lock"
            )
        # pip checks every file against these (--require-hashes): none may go without.
        for name, pin in pins.items():
            assert pin.hashes and all(h.startswith("sha256:") for h in pin.hashes), f"{path.name}: {name}"
        # Pre-releases only where pyproject.toml names one, not for what those depend on.
        asked = {canonicalize_name(r.name) for r in wanted if r.specifier.prereleases}
        assert {name for name, pin in pins.items() if pin.version.is_prerelease} <= asked, path.name
    # The tests run the versions the image installs.
    runtime_pins, dev_pins = locks[LOCK][0], locks[DEV_LOCK][0]
    for name, pin in runtime_pins.items():
        assert name in dev_pins, f"{DEV_LOCK.name} has no {name}: run make lock"
        assert (dev_pins[name].version, dev_pins[name].marker) == (pin.version, pin.marker), name


# --- the image's steps, outside Docker -----------------------------------------------------------


def _clean_env(venv: Path) -> dict[str, str]:
    """This process's environment without the project's venv or any KABOOM_ setting, the new venv first on PATH."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("KABOOM_") and key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PIP_USER")
    }
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = str(venv)
    return env


def _copy(source: Path, destination: Path, into_directory: bool) -> None:
    if source.is_dir():
        # COPY dir dest copies the directory's contents into dest.
        shutil.copytree(source, destination, symlinks=True, dirs_exist_ok=True)  # as COPY keeps a link
    else:
        target = destination / source.name if into_directory else destination
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


@dataclass
class Image:
    workdir: Path  # where the image's WORKDIR is
    venv: Path
    env: dict[str, str]  # the image's ENV on top of a clean environment
    cmd: list[str]
    healthcheck: list[str]
    files_after_install: set[str]


def _files(directory: Path) -> set[str]:
    return {str(path.relative_to(directory)) for path in directory.rglob("*")}


@pytest.fixture(scope="module")
def image(tmp_path_factory, dockerfile) -> Image:
    base = tmp_path_factory.mktemp("image")
    context, root, venv = base / "context", base / "root", base / "venv"
    tracked = tracked_files()
    sent = build_context(tracked, dockerignore_patterns(DOCKERIGNORE.read_text()), base / "layout")
    for name in tracked:
        if name in sent:
            (context / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, context / name, follow_symlinks=False)

    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=seconds(300))
    clean_env = _clean_env(venv)
    image_workdir = "/"

    def host(path: str) -> Path:
        absolute = path if path.startswith("/") else os.path.join(image_workdir, path)
        return root / os.path.normpath(absolute).lstrip("/")

    for instruction in dockerfile:
        if instruction.keyword == "WORKDIR":
            image_workdir = os.path.normpath(os.path.join(image_workdir, instruction.args))
            host(".").mkdir(parents=True, exist_ok=True)
        elif instruction.keyword == "COPY":
            sources, destination = copy_parts(instruction)
            into = destination.endswith("/") or len(sources) > 1
            for source in sources:
                assert (context / source).exists(), f"line {instruction.line}: {source} is not in the build context"
                _copy(context / source, host(destination), into)
        elif is_python_step(instruction):
            # Paths of the image's working directory become the copy's; pip and python are the venv's (PATH).
            command = instruction.args
            if image_workdir != "/":
                command = re.sub(rf"(?<![\w./-]){re.escape(image_workdir)}(?=/|\s|$)", str(host(".")), command)
            env = {**clean_env, **instruction.env}
            subprocess.run(["/bin/sh", "-c", command], cwd=host("."), env=env, check=True, timeout=seconds(900))

    workdir = host(".")
    cmd = next(i for i in dockerfile if i.keyword == "CMD").exec_form()
    healthcheck = healthcheck_command(next(i for i in dockerfile if i.keyword == "HEALTHCHECK"))
    return Image(workdir, venv, {**clean_env, **image_env(dockerfile)}, cmd, healthcheck, _files(workdir))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _server_env(image: Image, data: Path, port: int) -> dict[str, str]:
    env = dict(image.env)
    env["KABOOM_DATABASE"] = str(data / Path(image.env["KABOOM_DATABASE"]).name)
    env["KABOOM_HOST"] = "127.0.0.1"
    env["KABOOM_PORT"] = str(port)
    return env


def _command(image: Image, command: list[str]) -> list[str]:
    program = shutil.which(command[0], path=str(image.venv / "bin"))
    assert program, f"{command[0]} is not installed in the image's environment"
    return [program, *command[1:]]


def _probe(image: Image, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The image's HEALTHCHECK command, run as Docker would (its exit status tells)."""
    command = _command(image, image.healthcheck)
    return subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=seconds(30))


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=seconds(5)) as answer:
        return answer.status, answer.read()


@pytest.mark.subprocess
def test_image_command_serves_healthz(image, tmp_path):
    port = _free_port()
    env = _server_env(image, tmp_path / "data", port)
    env["KABOOM_SECRET_KEY"] = "a-test-secret-that-is-long-enough"
    env["KABOOM_WORKERS"] = "2"  # as docker-compose.yml runs it
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            _command(image, image.cmd),
            cwd=image.workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline, answer = time.monotonic() + seconds(60), None
        while time.monotonic() < deadline:
            assert server.poll() is None, f"the server exited with {server.returncode}:\n{log.read_text()}"
            try:
                answer = _get(f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                time.sleep(0.5)
        assert answer is not None, f"no answer from /healthz within 60 s:\n{log.read_text()}"
        assert answer[0] == 200 and json.loads(answer[1]) == {"status": "ok"}
        # The page and its static files come from the installed package: the tree it was built from is gone.
        assert not (image.workdir / "app").exists() and not (image.workdir / "templates").exists()
        assert _get(f"http://127.0.0.1:{port}/")[0] == 200
        assert _get(f"http://127.0.0.1:{port}/static/kaboom.css")[0] == 200
        # The image's HEALTHCHECK passes against it.
        probe = _probe(image, env)
        assert probe.returncode == 0, probe.stderr
        assert (tmp_path / "data" / Path(image.env["KABOOM_DATABASE"]).name).exists()
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=seconds(20))
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=seconds(20))
    # ... and fails once the server is gone.
    probe = _probe(image, env)
    assert probe.returncode != 0
    # In the image the code belongs to root: the server writes nothing beside it, only under /data.
    assert _files(image.workdir) == image.files_after_install


@pytest.mark.subprocess
def test_image_command_refuses_to_start_without_the_secret(image, tmp_path):
    env = _server_env(image, tmp_path / "data", _free_port())
    assert "KABOOM_SECRET_KEY" not in env
    command = subprocess.Popen(
        _command(image, image.cmd),
        cwd=image.workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, stderr = command.communicate(timeout=seconds(60))
    except subprocess.TimeoutExpired:
        os.killpg(command.pid, signal.SIGKILL)
        _, stderr = command.communicate(timeout=seconds(20))
        pytest.fail(f"still running after 60 s without KABOOM_SECRET_KEY:\n{stderr}")
    assert command.returncode != 0
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "KABOOM_SECRET_KEY" in lines[0], stderr
    assert not (tmp_path / "data" / "secret_key").exists()
