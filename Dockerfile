# Kaboom in a container: `docker build -t kaboom .`, then see docs/self-hosting.md
# or docker-compose.yml. The secret that signs player cookies must come from the
# environment (KABOOM_SECRET_KEY); games are kept in SQLite on the /data volume.
FROM python:3.11-slim

# No .pyc files: the code is owned by root and read-only for the server's user.
# Unbuffered output, so log lines reach `docker logs` at once.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The server runs as this user, never as root. A fixed numeric id lets the host
# (and Kubernetes' runAsNonRoot) see who owns the files on the volume.
RUN groupadd --system --gid 10001 kaboom \
    && useradd --system --uid 10001 --gid kaboom --no-create-home --shell /usr/sbin/nologin kaboom \
    && mkdir /data \
    && chown kaboom:kaboom /data

WORKDIR /app

# Dependencies first, from requirements.lock alone: this layer is rebuilt only when
# the lock changes, not on every change to the code. Every version in it is exact
# and every file is checked against its hash, so each build installs the same.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock

# Then the code, built into a package and installed (not editable), with the
# dependencies already there: the package carries templates/ and static/ inside
# app.web (app/web/templates and app/web/static link to them), so the server runs
# from site-packages alone, and the sources are removed once it is in.
# pip check fails the build when the lock lacks a dependency that pyproject.toml
# declares (make lock was not run after an edit).
# One COPY per directory: a COPY of several directories would merge their contents.
COPY solver/ solver/
COPY app/ app/
COPY templates/ templates/
COPY static/ static/
COPY pyproject.toml README.md ./
RUN pip install --no-cache-dir --no-deps . \
    && pip check \
    && rm -rf solver app templates static pyproject.toml README.md build ./*.egg-info

# Settings for a container: listen on every interface, keep the games on the
# volume, and refuse to start without KABOOM_SECRET_KEY rather than generate a
# secret that a new container would not share (every player would lose their games).
# (hadolint's DL3064 takes KABOOM_GENERATE_SECRET for a secret: it is only a switch.)
# hadolint ignore=DL3064
ENV KABOOM_DATABASE=/data/kaboom.sqlite3 \
    KABOOM_HOST=0.0.0.0 \
    KABOOM_PORT=8000 \
    KABOOM_GENERATE_SECRET=false

# Declared after /data is created and chowned above: a new named volume starts as
# a copy of it, owned by the server's user.
VOLUME /data

USER 10001:10001

EXPOSE 8000

# The slim image has no curl or wget: Python's urllib asks /healthz and exits
# non-zero when it does not answer {"status": "ok"}.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import json, os, sys, urllib.request; answer = urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('KABOOM_PORT', '8000'), timeout=4); sys.exit(json.load(answer).get('status') != 'ok')"]

# Exec form: the server is PID 1 and gets `docker stop`'s SIGTERM itself.
# `kaboom serve` checks its settings first and exits with a one-line message
# (for example, a missing KABOOM_SECRET_KEY), then starts uvicorn.
CMD ["kaboom", "serve"]
