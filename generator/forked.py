"""Work done beside this process: a function run in a forked child, its result collected later.

The child starts with this process's memory (nothing is pickled to reach it), so a large
read-only input costs nothing to hand over; only the result comes back, pickled through a
pipe. Where ``fork`` is not available the work runs here, when its result is asked for.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Forked(Generic[T]):
    """``work()`` running in a forked child from construction; :meth:`result` waits for it.

    The child ignores interrupts (the parent decides; the child dies with it, however it
    dies) and an exception it raises is raised again by :meth:`result`. A caller that will
    not ask for the result (it failed meanwhile) calls :meth:`stop`.
    """

    def __init__(self, work: Callable[[], T]) -> None:
        self._work: Callable[[], T] | None = work
        self._process: multiprocessing.process.BaseProcess | None = None
        if sys.platform != "linux":
            return
        context = multiprocessing.get_context("fork")
        self._reader, writer = context.Pipe(duplex=False)
        parent = os.getpid()

        def run() -> None:
            from hopvista.workers import worker_signals

            worker_signals(parent)
            try:
                answer: tuple[bool, object] = (True, work())
            except BaseException as exc:  # noqa: BLE001 - raised again in the parent
                answer = (False, exc)
            writer.send(answer)

        self._process = context.Process(target=run, name="hopvista-forked", daemon=True)
        self._process.start()
        writer.close()
        self._work = None

    def result(self) -> T:
        """The work's result (its exception raised here)."""
        if self._process is None:
            work, self._work = self._work, None
            if work is None:
                raise RuntimeError("the result was already taken")
            return work()
        try:
            ok, value = self._reader.recv()
        except EOFError:
            self._process.join()
            raise RuntimeError(
                f"a helper process ended without an answer (exit code "
                f"{self._process.exitcode})") from None
        finally:
            self._process.join()
            self._reader.close()
        if not ok:
            raise value
        return cast(T, value)

    def stop(self) -> None:
        """Give the work up: the child is ended and waited for."""
        self._work = None
        if self._process is not None and self._process.exitcode is None:
            self._process.terminate()
            self._process.join()
            self._reader.close()
