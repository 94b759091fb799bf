"""Work beside the process: a forked child's result, its errors, giving it up."""

from __future__ import annotations

import os
import sys
import time

import pytest

from hopvista.forked import Forked

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork is used on Linux only")


def test_the_result_is_computed_in_a_child_from_this_process_memory() -> None:
    big = list(range(200_000))  # reaches the child without being pickled
    forked = Forked(lambda: (os.getpid(), sum(big)))
    pid, total = forked.result()
    assert pid != os.getpid() and total == sum(big)


def test_an_error_in_the_child_is_raised_by_result() -> None:
    def fail() -> None:
        raise ValueError("no such column 'revenue'")

    with pytest.raises(ValueError, match="no such column 'revenue'"):
        Forked(fail).result()


def test_a_child_that_dies_without_an_answer_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="exit code 3"):
        Forked(lambda: os._exit(3)).result()


def test_a_child_given_up_is_ended() -> None:
    forked = Forked(lambda: time.sleep(60))
    started = time.monotonic()
    forked.stop()
    assert time.monotonic() - started < 10
    assert forked._process is not None and forked._process.exitcode is not None


def test_without_fork_the_work_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    forked = Forked(os.getpid)
    assert forked.result() == os.getpid()
