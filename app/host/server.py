"""uvicorn as `kaboom serve` runs it: limits one client cannot exhaust, and workers that stop with their parent.

uvicorn (0.54) leaves three doors open that a single client can walk through
when no proxy stands in front (`make run`):
- a request is read for as long as the client keeps sending, so a head sent one
  line every few seconds, or a connection that never sends anything, is kept
  forever (its keep-alive timer only starts after a first answer, and any byte
  stops it);
- one address may open as many connections as the process has file
  descriptors, so it can starve everyone else;
- `limit_concurrency` answers 503 only once a request's head has arrived, so
  connections that never finish a head are never counted out.
`GuardedHttpProtocol` closes them with a deadline for each whole request, a cap
per client address and a ceiling on open connections. uvicorn's supervisor of
several workers spawns them with multiprocessing, which leaves them serving
(and holding the port) when the supervisor is killed; `KaboomConfig.load`, run
in each worker, ties the worker's life to the supervisor's.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import errno
import ipaddress
import logging
import os
import resource
import signal
import socket
import sys
import threading
import time
import weakref
from collections import Counter
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState
from uvicorn.supervisors import Multiprocess

from app.core.addresses import address_key
from app.core.config import ConfigurationError, Settings
from app.host.allocator import limit_arenas

logger = logging.getLogger("uvicorn.error")

# Files a worker needs beside its client connections: the listening socket, the
# database and its journal, Redis connections, logs, the supervisor's pipes.
RESERVED_FILES = 64
# uvicorn's logging, and Kaboom's own lines ("kaboom": refusals, the slow lane, what a worker holds) beside its.
LOG_CONFIG = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
LOG_CONFIG["loggers"]["kaboom"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
# Seconds a stopping worker lets open answers finish before it cuts them (Docker sends SIGKILL at ten).
STOP_SECONDS = 5
# How often a worker without prctl (not Linux) looks whether its supervisor is still there.
PARENT_POLL_SECONDS = 1.0
PR_SET_PDEATHSIG = 1

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(text: str | list[str]) -> list[Network]:
    """The proxies named by KABOOM_FORWARDED_ALLOW_IPS (uvicorn's Config may hold them as a list too)."""
    if isinstance(text, list):
        text = ",".join(text)
    if text.strip() == "*":
        # uvicorn would then take the left-most X-Forwarded-For address: the one any client writes itself.
        raise ConfigurationError(
            "KABOOM_FORWARDED_ALLOW_IPS: '*' would let every client choose the address it is counted as; "
            "name the proxy's address or network (for example 172.30.53.10 or 10.0.0.0/8)"
        )
    networks = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ConfigurationError(
                f"KABOOM_FORWARDED_ALLOW_IPS: {item!r} is not an IP address or network"
                " (for example 172.30.53.10 or 10.0.0.0/8)"
            ) from None
    return networks


def raise_open_files_limit() -> int:
    """Lift the soft limit on open files to the hard one (often 1,024 and far more); returns the limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass  # some systems refuse an infinite soft limit: keep the one there is
    return soft


def connection_ceiling(wanted: int, open_files: int) -> int:
    """KABOOM_MAX_CONNECTIONS, lowered so that connections can never use up the open-files limit."""
    if open_files == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, open_files - RESERVED_FILES))


def stop_with_parent(parent_pid: int) -> None:
    """Send this process SIGTERM (uvicorn's graceful stop) when the process `parent_pid` dies, even by SIGKILL."""
    libc_name = ctypes.util.find_library("c") if sys.platform.startswith("linux") else None
    if libc_name:
        libc = ctypes.CDLL(libc_name, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0:
            # The parent may have died before the kernel was asked to tell.
            if os.getppid() != parent_pid:
                os.kill(os.getpid(), signal.SIGTERM)
            return

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class KaboomConfig(uvicorn.Config):
    """uvicorn's Config with the limits GuardedHttpProtocol reads; it travels to each worker whole (pickled)."""

    def __init__(self, app: Any, *, read_timeout: float, connections_per_client: int, **options: Any) -> None:
        super().__init__(app, **options)
        self.read_timeout = read_timeout
        self.connections_per_client = connections_per_client
        self.trusted_proxies = trusted_networks(self.forwarded_allow_ips if self.proxy_headers else "")
        self.supervisor_pid = os.getpid()

    def is_trusted_proxy(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.trusted_proxies)

    def load(self) -> None:
        # Runs in each worker before it serves, before its threads start (see app/host/allocator.py).
        limit_arenas()
        # With one process there is no supervisor to outlive.
        if self.workers > 1 and os.getpid() != self.supervisor_pid:
            stop_with_parent(self.supervisor_pid)
        super().load()


# Open connections per client key, for each server (one per worker process; tests may run several in one).
_open_per_client: weakref.WeakKeyDictionary[ServerState, Counter[str]] = weakref.WeakKeyDictionary()
_last_warning: dict[str, float] = {}


def _warn_now_and_then(reason: str, message: str, *args: Any) -> None:
    """Log a refusal at most once a minute per reason: a flood must not become a flood of log lines."""
    now = time.monotonic()
    if now - _last_warning.get(reason, -60.0) >= 60.0:
        _last_warning[reason] = now
        logger.warning(message, *args)


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline per request and caps on connections (see the module's docstring).

    The deadline runs from the connection's start, or from the end of the
    previous answer, to the end of the request's body. A client that had begun a
    head gets a 408 with a message; one that sent nothing is just closed."""

    config: KaboomConfig

    def __init__(self, config: KaboomConfig, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self._read_deadline: Any = None
        self._client_key: str | None = None
        self._bytes_since_armed = False
        self._head_complete = False

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        ceiling = self.config.limit_concurrency
        if ceiling is not None and len(self.connections) > ceiling:
            _warn_now_and_then(
                "ceiling", "%d connections are open (KABOOM_MAX_CONNECTIONS): new ones are closed", ceiling
            )
            transport.close()
            return
        host = self.client[0] if self.client else None
        if host is not None and not self.config.is_trusted_proxy(host):
            key = address_key(host)
            counts = _open_per_client.setdefault(self.server_state, Counter())
            if counts[key] >= self.config.connections_per_client:
                _warn_now_and_then(
                    "per-client",
                    "%s holds %d connections (KABOOM_CONNECTIONS_PER_CLIENT): new ones are closed",
                    key,
                    counts[key],
                )
                transport.close()
                return
            counts[key] += 1
            self._client_key = key
        self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        if self._client_key is not None:
            counts = _open_per_client[self.server_state]
            counts[self._client_key] -= 1
            if counts[self._client_key] <= 0:
                del counts[self._client_key]
            self._client_key = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._bytes_since_armed = True
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._head_complete = True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        if self.cycle is not None and self.cycle.response_complete:
            # Answered before its body ended: the connection now waits for the next request.
            self._await_request()
        else:
            self._cancel_deadline()

    def on_response_complete(self) -> None:
        next_request_read = bool(self.pipeline)
        super().on_response_complete()
        if not next_request_read and not self.transport.is_closing():
            self._await_request()

    def _await_request(self) -> None:
        self._cancel_deadline()
        self._bytes_since_armed = False
        self._head_complete = False
        self._read_deadline = self.loop.call_later(self.config.read_timeout, self._request_too_slow)

    def _cancel_deadline(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _request_too_slow(self) -> None:
        self._read_deadline = None
        if self.transport.is_closing():
            return
        if self._bytes_since_armed and not self._head_complete:
            # Between two requests, so nothing else is being written on this connection.
            message = f"The request did not arrive within {self.config.read_timeout:g} seconds.".encode()
            self.transport.write(
                STATUS_LINE[408]
                + b"content-type: text/plain; charset=utf-8\r\n"
                + b"content-length: %d\r\nconnection: close\r\n\r\n" % len(message)
                + message
            )
        self.transport.close()


def listening_socket(settings: Settings) -> socket.socket:
    """The socket the server listens on, bound to KABOOM_HOST and KABOOM_PORT as uvicorn binds it, before anything
    says the server is up: an address it cannot take stops it with a message saying why and what to change
    (uvicorn printed where it would serve, then the error)."""
    where = f"[{settings.host}]:{settings.port}" if ":" in settings.host else f"{settings.host}:{settings.port}"
    listener = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((settings.host, settings.port))
    except OSError as error:
        listener.close()
        why = {
            errno.EADDRINUSE: f"port {settings.port} is taken, by another program or another Kaboom",
            errno.EACCES: f"port {settings.port} needs privileges this user lacks (ports below 1024 do)",
            errno.EADDRNOTAVAIL: f"{settings.host} is no address of this machine (KABOOM_HOST)",
        }.get(error.errno or 0, error.strerror or str(error))
        raise ConfigurationError(
            f"cannot listen on {where}: {why}; choose another port with KABOOM_PORT "
            f"(KABOOM_PORT=8001 make run, or kaboom serve --port 8001)"
        ) from None
    listener.set_inheritable(True)
    return listener


def serve(settings: Settings, listener: socket.socket) -> None:
    """Run the app under uvicorn with the limits in `settings` on `listener` (listening_socket); returns when the
    server stops."""
    open_files = raise_open_files_limit()
    ceiling = connection_ceiling(settings.max_connections, open_files)
    if ceiling < settings.max_connections:
        lowered = f"KABOOM_MAX_CONNECTIONS lowered to {ceiling}: this process may open only {open_files} files"
        print(lowered, file=sys.stderr)
    trusted = settings.forwarded_allow_ips.strip()
    config = KaboomConfig(
        "app.host.worker:worker_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        http=GuardedHttpProtocol,
        # No route speaks WebSocket: an upgrade would only leave GuardedHttpProtocol's accounting.
        ws="none",
        # Limits count per client address; only the named proxies may say who the client is.
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted,
        limit_concurrency=ceiling,
        timeout_keep_alive=settings.keepalive_timeout,  # uvicorn takes any number of seconds
        read_timeout=settings.read_timeout,
        connections_per_client=settings.connections_per_client,
        log_level="info",
        log_config=LOG_CONFIG,
        # The last guard of a stop: live streams end at once (app.web), a request keeps the solver at most
        # KABOOM_SOLVER_SECONDS; whatever is still open then is cut, well before Docker's ten seconds.
        timeout_graceful_shutdown=STOP_SECONDS,
    )
    server = uvicorn.Server(config)
    try:
        if config.workers > 1:
            Multiprocess(config, sockets=[listener]).run()
        else:
            server.run(sockets=[listener])
    except KeyboardInterrupt:
        pass
    if config.workers == 1 and not server.started:
        sys.exit(STARTUP_FAILURE)
