"""plotly export in a page of the table renderer's own Chromium: no second browser.

kaleido draws a figure by loading plotly.js and its page script (``kaleido_scopes.js``) into a
Chromium it starts, and calling ``kaleido_scopes.plotly``. :class:`PlotlyPage` does the same
in a page of a context hopvista already runs (the table renderer's: every request aborted),
with the same two scripts inlined; the PNG is byte for byte kaleido's
(``test_a_build_exports_plotly_with_kaleidos_bytes``), and a worker keeps one Chromium
instead of two. Playwright's sync API belongs to
the thread that started it: call :meth:`export` from that thread only.
"""

from __future__ import annotations

import base64
import json
from functools import cache
from pathlib import Path
from typing import Any

PAGE_HEAD = ('<!DOCTYPE html>\n<html>\n    <head>\n        <style id="head-style"></style>\n'
             '        <title>Kaleido-fier</title>\n')
CALL = "([spec, topojson, stepper]) => kaleido_scopes.plotly(spec, topojson, stepper)" \
       ".then(JSON.stringify)"


@cache
def _scripts() -> str:
    import kaleido
    import plotly

    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    scopes_js = Path(kaleido.__file__).parent / "vendor" / "kaleido_scopes.js"
    return "".join(f"<script>{path.read_text(encoding='utf-8')}</script>"
                   for path in (plotly_js, scopes_js))


class PlotlyPage:
    """A page that exports plotly figures, in ``context`` (a browser context that allows
    JavaScript and aborts every network request: the page needs none, its scripts are
    inline), e.g. the table renderer's, whose renderer process it then shares."""

    def __init__(self, context: Any) -> None:
        self._page = context.new_page()
        self._page.set_content(PAGE_HEAD + _scripts() + '</head><body style="{margin: 0; '
                               'padding: 0;}"><img id="kaleido-image" /></body></html>')

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
