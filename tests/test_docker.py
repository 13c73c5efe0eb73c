"""The container files: Dockerfile, .dockerignore and docker-compose.yml.

No Docker engine is needed. The files are parsed and checked, then the image's
own steps are carried out outside Docker: its build context is made from the
files git tracks less what .dockerignore leaves out, its COPY and RUN pip/python
steps run in order into a fresh virtual environment (installs come from the
package index, as in the image), and its CMD is started with its ENV to see the
server answer /healthz, and refuse to start without KABOOM_SECRET_KEY.
"""

from __future__ import annotations

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
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
COMPOSE = ROOT / "docker-compose.yml"

# What the server needs at run time, beside the installed dependencies.
RUNTIME_PATHS = ["solver", "app", "templates", "static", "pyproject.toml", "README.md"]
CODE_DIRECTORIES = ["solver", "app", "templates", "static"]


# --- Dockerfile --------------------------------------------------------------------------------


@dataclass
class Instruction:
    keyword: str  # upper case: FROM, RUN, COPY, ...
    args: str  # the rest of the logical line, continuations joined
    line: int  # where it starts, 1-based

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
    """Instructions with their arguments, as Docker reads them (escape character `\\`).

    A line ending in a backslash continues on the next one; comment lines and
    blank lines inside a continued instruction are dropped, as Docker does.
    """
    instructions: list[Instruction] = []
    pending: str | None = None
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if pending is None:
            if not stripped or stripped.startswith("#"):
                continue
            pending, start = "", number
        elif not stripped or stripped.startswith("#"):
            continue
        line = raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        pending += line
        keyword, _, args = pending.strip().partition(" ")
        instructions.append(Instruction(keyword.upper(), args.strip(), start))
        pending = None
    assert pending is None, f"the instruction starting on line {start} ends with a continuation"
    return instructions


def env_pairs(instruction: Instruction) -> dict[str, str]:
    """`ENV A=1 B="two words"` or the old `ENV A 1`."""
    words = shlex.split(instruction.args)
    if words and "=" not in words[0]:
        return {words[0]: instruction.args.split(None, 1)[1] if len(words) > 1 else ""}
    return dict(word.split("=", 1) for word in words)


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
    env: dict[str, str] = {}
    for instruction in instructions:
        if instruction.keyword == "ENV":
            env.update(env_pairs(instruction))
    return env


PYTHON_WORD = re.compile(r"(?<![\w./-])(pip|python3?)(?![\w.-])")


def is_python_step(instruction: Instruction) -> bool:
    """A RUN that uses pip or python: the steps the test repeats (useradd, mkdir /data are not)."""
    return instruction.keyword == "RUN" and PYTHON_WORD.search(instruction.args) is not None


def is_dependency_install(instruction: Instruction) -> bool:
    return is_python_step(instruction) and "pip install" in instruction.args and "-e ." not in instruction.args


def is_project_install(instruction: Instruction) -> bool:
    return is_python_step(instruction) and re.search(r"pip install .*--no-deps.* -e \.", instruction.args) is not None


@pytest.fixture(scope="module")
def dockerfile() -> list[Instruction]:
    return parse_dockerfile(DOCKERFILE.read_text())


def test_parser_joins_continuations_and_drops_comments():
    text = "# a comment\nFROM base\n\nRUN a \\\n    # inside\n    && b \\\n\n    && c\nCMD [\"x\", \"y\"]\n"
    parsed = parse_dockerfile(text)
    assert [(i.keyword, i.line) for i in parsed] == [("FROM", 2), ("RUN", 4), ("CMD", 9)]
    assert parsed[1].args.split() == ["a", "&&", "b", "&&", "c"]
    assert parsed[2].exec_form() == ["x", "y"]
    assert env_pairs(Instruction("ENV", 'A=1 B="two words"', 1)) == {"A": "1", "B": "two words"}
    assert env_pairs(Instruction("ENV", "A one two", 1)) == {"A": "one two"}


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
    assert "tomllib" in dockerfile[first_install].args, "the dependencies are read from pyproject.toml"
    code_copies = [
        n for n, i in enumerate(dockerfile)
        if i.keyword == "COPY" and any(s.strip("./") in CODE_DIRECTORIES for s in copy_parts(i)[0])
    ]
    assert {s.strip("./") for n in code_copies for s in copy_parts(dockerfile[n])[0]} >= set(CODE_DIRECTORIES)
    assert first_install < min(code_copies)
    # Only pyproject.toml reaches the image before the install, so nothing else invalidates its layer.
    early = [s for i in dockerfile[:first_install] if i.keyword in ("COPY", "ADD") for s in copy_parts(i)[0]]
    assert early == ["pyproject.toml"]
    # Several directories in one COPY would be merged into its destination.
    for n in code_copies:
        assert len(copy_parts(dockerfile[n])[0]) == 1, f"line {dockerfile[n].line}: one directory per COPY"
    project = [n for n, i in enumerate(dockerfile) if is_project_install(i)]
    assert project and project[0] > max(code_copies), "pip install --no-deps -e . after the code is copied"


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


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker's pattern matcher reads it (Go filepath.Match plus **)."""
    regex, i = "", 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            if pattern[i + 1 : i + 2] == "*":
                i += 1
                if pattern[i + 1 : i + 2] == "/":
                    i += 1
                regex += ".*" if i + 1 >= len(pattern) else "(.*/)?"
            else:
                regex += "[^/]*"
        elif ch == "?":
            regex += "[^/]"
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                regex += re.escape(ch)
            else:
                regex += "[" + pattern[i + 1 : end].replace("\\", "\\\\") + "]"
                i = end
        elif ch == "\\" and i + 1 < len(pattern):
            i += 1
            regex += re.escape(pattern[i])
        else:
            regex += re.escape(ch)
        i += 1
    return re.compile(regex)


def dockerignore_patterns(text: str) -> list[tuple[bool, re.Pattern[str]]]:
    patterns = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = os.path.normpath(line.lstrip("!").strip()).lstrip("/")
        patterns.append((negated, _pattern_regex(line)))
    return patterns


def ignored(path: str, patterns: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether Docker leaves `path` (relative to the context, with /) out of the build context."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    result = False
    for negated, regex in patterns:
        if regex.fullmatch(path) or any(regex.fullmatch(prefix) for prefix in prefixes[:-1]):
            result = not negated
    return result


def tracked_files() -> list[str]:
    """The repository's files as a clean clone has them, with the working tree's content.

    Files not yet added but not ignored by git count too: `docker build .` in this
    working tree would send them, and in a fresh clone there are none.
    """
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout
    return [name for name in listing.decode().split("\0") if name and (ROOT / name).is_file()]


def test_dockerignore_matcher():
    patterns = dockerignore_patterns("data\n**/__pycache__\n*.md\n!README.md\n/docs/*.png\n")
    assert ignored("data", patterns) and ignored("data/kaboom.sqlite3", patterns)
    assert not ignored("app/data.py", patterns)
    assert ignored("__pycache__/x.pyc", patterns) and ignored("app/__pycache__/web.cpython-311.pyc", patterns)
    assert ignored("NOTES.md", patterns) and not ignored("README.md", patterns)
    assert not ignored("static/VENDORED.md", patterns)  # * never crosses a /
    assert ignored("docs/screenshot.png", patterns) and not ignored("docs/screenshot.py", patterns)


def test_dockerignore_keeps_local_state_out_and_the_code_in():
    patterns = dockerignore_patterns(DOCKERIGNORE.read_text())
    for path in [".git/HEAD", ".venv/bin/python", "data/kaboom.sqlite3", "data/secret_key", ".env",
                 "app/__pycache__/web.cpython-311.pyc", ".pytest_cache/README.md", ".hypothesis/examples/x",
                 "kaboom.sqlite3", "tests/test_api.py", "bench/web.py", "docs/screenshot.png"]:
        assert ignored(path, patterns), path
    context = [name for name in tracked_files() if not ignored(name, patterns)]
    for needed in RUNTIME_PATHS:
        assert any(name == needed or name.startswith(needed + "/") for name in context), needed
    # Every tracked file under the code directories reaches the image.
    for name in tracked_files():
        if name.split("/")[0] in CODE_DIRECTORIES:
            assert not ignored(name, patterns), name


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
    assert "8000:8000" in [str(port) for port in app["ports"]]
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


# --- the image's steps, outside Docker -----------------------------------------------------------


def _clean_env(venv: Path) -> dict[str, str]:
    """This process's environment without the project's venv or any KABOOM_ setting, the new venv first on PATH."""
    env = {
        key: value for key, value in os.environ.items()
        if not key.startswith("KABOOM_") and key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PIP_USER")
    }
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = str(venv)
    return env


def _copy(source: Path, destination: Path, into_directory: bool) -> None:
    if source.is_dir():
        # COPY dir dest copies the directory's contents into dest.
        shutil.copytree(source, destination, dirs_exist_ok=True)
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
    patterns = dockerignore_patterns(DOCKERIGNORE.read_text())
    for name in tracked_files():
        if not ignored(name, patterns):
            (context / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, context / name)

    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = _clean_env(venv)
    image_workdir = "/"

    def host(path: str) -> Path:
        absolute = path if path.startswith("/") else os.path.join(image_workdir, path)
        return root / os.path.normpath(absolute).lstrip("/")

    for instruction in dockerfile:
        if instruction.keyword == "WORKDIR":
            image_workdir = os.path.normpath(os.path.join(image_workdir, instruction.args))
            host(".").mkdir(parents=True, exist_ok=True)
        elif instruction.keyword == "ENV":
            env.update(env_pairs(instruction))
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
            subprocess.run(["/bin/sh", "-c", command], cwd=host("."), env=env, check=True, timeout=900)

    workdir = host(".")
    cmd = next(i for i in dockerfile if i.keyword == "CMD").exec_form()
    healthcheck = healthcheck_command(next(i for i in dockerfile if i.keyword == "HEALTHCHECK"))
    return Image(workdir, venv, env, cmd, healthcheck, _files(workdir))


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
    return subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=30)


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.status, answer.read()


def test_image_command_serves_healthz(image, tmp_path):
    port = _free_port()
    env = _server_env(image, tmp_path / "data", port)
    env["KABOOM_SECRET_KEY"] = "a-test-secret-that-is-long-enough"
    env["KABOOM_WORKERS"] = "2"  # as docker-compose.yml runs it
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            _command(image, image.cmd), cwd=image.workdir, env=env,
            stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        deadline, answer = time.monotonic() + 60, None
        while time.monotonic() < deadline:
            assert server.poll() is None, f"the server exited with {server.returncode}:\n{log.read_text()}"
            try:
                answer = _get(f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                time.sleep(0.5)
        assert answer is not None, f"no answer from /healthz within 60 s:\n{log.read_text()}"
        assert answer[0] == 200 and json.loads(answer[1]) == {"status": "ok"}
        # The page and its static files come from the copied tree.
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
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=20)
    # ... and fails once the server is gone.
    probe = _probe(image, env)
    assert probe.returncode != 0
    # In the image the code belongs to root: the server writes nothing beside it, only under /data.
    assert _files(image.workdir) == image.files_after_install


def test_image_command_refuses_to_start_without_the_secret(image, tmp_path):
    env = _server_env(image, tmp_path / "data", _free_port())
    assert "KABOOM_SECRET_KEY" not in env
    command = subprocess.Popen(
        _command(image, image.cmd), cwd=image.workdir, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        _, stderr = command.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(command.pid, signal.SIGKILL)
        _, stderr = command.communicate(timeout=20)
        pytest.fail(f"still running after 60 s without KABOOM_SECRET_KEY:\n{stderr}")
    assert command.returncode != 0
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "KABOOM_SECRET_KEY" in lines[0], stderr
    assert not (tmp_path / "data" / "secret_key").exists()
