"""The C library's memory allocator, asked to keep a worker's memory from creeping.

glibc gives each thread that allocates an arena of its own, up to eight per core, and
keeps what is freed in an arena for that arena's next allocations. A worker runs its
requests on a pool of threads, each allocating and freeing in turn, so freed memory
was spread over some twenty arenas that each kept it: in a soak (bench/load.py, two
workers, players and live pages), 90 MB per worker lay free inside the arenas after
three minutes and 130 MB after fifteen, while Python's own objects grew by 6 MB (the
caches filling). The worker's resident size rose with it, at about 1.5 MB a minute.

Two arenas are enough for a worker: its threads take turns on the GIL, so they seldom
allocate at the same moment. The limit is set as the process starts, before its
threads do. A self-hoster who sets glibc's MALLOC_ARENA_MAX chooses for themselves,
and where the C library is not glibc (musl in Alpine, macOS) nothing is done.
"""

from __future__ import annotations

import ctypes
import logging
import os

log = logging.getLogger("kaboom")

ARENAS = 2
M_ARENA_MAX = -8  # mallopt's parameter number, from glibc's malloc.h


class _Mallinfo2(ctypes.Structure):
    # struct mallinfo2 (glibc 2.33 on): every field a size_t, in this order.
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None)  # the C library this process already runs on
    except OSError:
        return None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """At most `arenas` arenas in this process from now on; False where it was not done (the environment
    chose already, or the C library is not glibc)."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    libc = _libc()
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))


def heap() -> tuple[int, int] | None:
    """The C heap's bytes in use and bytes free but kept by the allocator, or None where it cannot be asked."""
    mallinfo2 = getattr(_libc(), "mallinfo2", None)
    if mallinfo2 is None:
        return None
    mallinfo2.restype = _Mallinfo2
    info = mallinfo2()
    return info.uordblks + info.hblkhd, info.fordblks


def described() -> str:
    """The C heap in words, for the worker's report of what it holds."""
    sizes = heap()
    if sizes is None:
        return "C heap unknown"
    used, free = sizes
    return f"C heap {used / 2**20:.1f} MB in use, {free / 2**20:.1f} MB free in its arenas"
