"""Giving freed memory back to the system (glibc's ``malloc_trim``; elsewhere nothing).

glibc keeps memory a process has freed for its next allocations, in the middle of its heap
too, where the system never sees it returned. A build's processes free a lot of it: each chart
draws into megabytes of buffers, each Parquet row group holds the images of its rows. A
worker that trims every few items stays ~20 MB smaller (measured over 200 items).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache
from typing import Any


@cache
def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None  # musl has none


def trim() -> bool:
    """Return the heap's free memory to the system; ``False`` where that is not possible."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
