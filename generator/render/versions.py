"""What made a build's images, for its manifest: Chromium's version and the font files of the
families its images were drawn in, found on a helper thread while the build runs (each takes
a subprocess: ``chromium --version``, ``fc-match``) rather than after its last item.

Start it only once the build's worker processes exist: a process that forks while one of its
threads runs a subprocess can hand the child a lock that is never released.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from hopvista.themes.fonts import font_manifest


class RenderVersions:
    """Chromium's version, then each new font family's entry, looked up on one thread."""

    def __init__(self) -> None:
        # heavy: playwright
        from hopvista.render.browser import chromium_version

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopvista-versions")
        self._chromium = self._pool.submit(chromium_version)
        self._fonts: dict[str, Future[dict[str, Any]]] = {}

    def add(self, family: str) -> None:
        """Look the font files of ``family`` up (once)."""
        if family not in self._fonts:
            self._fonts[family] = self._pool.submit(_font_entry, family)

    def result(self) -> dict[str, Any]:
        """The manifest's ``render``: ``{"chromium", "fonts"}`` (fonts in sorted order; an
        error found looking one up, e.g. a family not installed, is raised here)."""
        try:
            return {"chromium": self._chromium.result(),
                    "fonts": {f: self._fonts[f].result() for f in sorted(self._fonts)}}
        finally:
            self.close()

    def close(self) -> None:
        """Stop the thread (lookups not started are dropped); safe to call twice."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def _font_entry(family: str) -> dict[str, Any]:
    return dict(font_manifest([family])[family])
