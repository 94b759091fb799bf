"""plotly export in a page of the table renderer's own Chromium: no second browser.

kaleido draws a figure by loading plotly.js and its page script (``kaleido_scopes.js``) into a
Chromium it starts, and calling ``kaleido_scopes.plotly``. :class:`PlotlyPage` does the same
in a page of a context hopvista already runs (the table renderer's: every request aborted);
the PNG is byte for byte kaleido's (``test_a_build_exports_plotly_with_kaleidos_bytes``), and
a worker keeps one Chromium instead of two.

The page is kaleido's own: a ``file:`` document whose two scripts Chromium reads from the
installed packages. Its three URLs, under :data:`PAGE_ROOT` (no such folder exists), are
answered by the page's route: the document from memory, the scripts by sending the request on
to the packages' files; any other request falls through to the context's route, which aborts
it. The scripts' ~5 MB then never pass through Python or the Playwright driver (which kept
~25 MB more for good when they were inlined). Playwright's sync API belongs to the thread
that started it: call :meth:`export` from that thread only.
"""

from __future__ import annotations

import base64
import json
from functools import cache
from pathlib import Path
from typing import Any

from hopvista.errors import UserError

PAGE_ROOT = "file:///hopvista-plotly/"
PAGE_URL = PAGE_ROOT + "page.html"
PAGE_HEAD = ('<!DOCTYPE html>\n<html>\n    <head>\n        <style id="head-style"></style>\n'
             '        <title>Kaleido-fier</title>\n')
PAGE_BODY = '</head><body style="{margin: 0; padding: 0;}"><img id="kaleido-image" /></body></html>'
CALL = "([spec, topojson, stepper]) => kaleido_scopes.plotly(spec, topojson, stepper)" \
       ".then(JSON.stringify)"


@cache
def script_files() -> dict[str, str]:
    """The page's scripts, in load order: ``{name under PAGE_ROOT: file URI}``."""
    import kaleido
    import plotly

    files = {"plotly.min.js": Path(plotly.__file__).parent / "package_data" / "plotly.min.js",
             "kaleido_scopes.js": Path(kaleido.__file__).parent / "vendor" / "kaleido_scopes.js"}
    for path in files.values():
        if not path.is_file():
            raise UserError(f"{path} is missing: reinstall plotly and kaleido "
                            "(pip install --force-reinstall plotly kaleido)")
    return {name: path.resolve().as_uri() for name, path in files.items()}


def page_html() -> str:
    """The page's document: kaleido's, its scripts named under :data:`PAGE_ROOT`."""
    return PAGE_HEAD + "".join(f'<script src="{name}"></script>' for name in script_files()) \
        + PAGE_BODY


class PlotlyPage:
    """A page that exports plotly figures, in ``context`` (a browser context that allows
    JavaScript and aborts every network request), e.g. the table renderer's, whose renderer
    process it then shares."""

    def __init__(self, context: Any) -> None:
        scripts = script_files()
        html = page_html()

        def serve(route: Any) -> None:
            url = route.request.url
            name = url[len(PAGE_ROOT):]
            if url == PAGE_URL:
                route.fulfill(body=html, content_type="text/html; charset=utf-8")
            elif name in scripts:
                route.continue_(url=scripts[name])
            else:
                route.fallback()  # the context's route: aborted

        self._page = context.new_page()
        self._page.route(PAGE_ROOT + "**", serve)
        try:
            self._page.goto(PAGE_URL, wait_until="load")
        finally:
            self._page.unroute(PAGE_ROOT + "**", serve)

    def export(self, figure: dict[str, Any], width: int, height: int, fmt: str) -> bytes:
        """The figure as ``fmt`` (``png`` or ``svg``) bytes of ``width`` x ``height``."""
        from plotly.utils import PlotlyJSONEncoder

        spec = {"format": fmt, "width": width, "height": height, "scale": 1,
                "data": json.loads(json.dumps(figure, cls=PlotlyJSONEncoder))}
        reply = json.loads(self._page.evaluate(CALL, [spec, None, False]))
        if reply.get("code", 0) != 0 or "result" not in reply:
            raise RuntimeError(f"plotly export failed: {str(reply.get('message'))[:200]}")
        result = reply["result"]
        return result.encode("utf-8") if fmt == "svg" else base64.b64decode(result)

    def close(self) -> None:
        """Close the page (its context and browser stay)."""
        self._page.close()
