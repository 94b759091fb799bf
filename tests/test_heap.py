"""hopvista.building.heap: freed memory goes back to the system."""

from __future__ import annotations

import sys

import psutil
import pytest

from hopvista.building import heap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_trim_returns_memory_freed_inside_the_heap() -> None:
    """Blocks freed below one still in use stay with the process until trimmed."""
    if heap._libc() is None:
        pytest.skip("this C library has no malloc_trim (musl)")
    blocks = [bytes(64 * 1024) for _ in range(3200)]  # 200 MB, under malloc's mmap size
    keep = bytes(64 * 1024)  # allocated after them: the heap cannot shrink from its top
    del blocks
    process = psutil.Process()
    before = process.memory_info().rss
    assert heap.trim()
    after = process.memory_info().rss
    assert before - after > 100 * 2**20, (before, after)
    assert len(keep) == 64 * 1024
