"""Page templates for the ``screenshot`` variant: a table (and its question, and its chart when
the item has one) inside a realistic page or application window.

Each template is a Jinja2 file here (``NAME.html.j2``), rendered with autoescaping on. Its
variables: ``css`` (the table theme's CSS, trusted), ``tables`` (the rendered table panels,
trusted markup), ``question`` (text, escaped by the template), ``chart_src`` (a ``data:`` URL
of the chart PNG, or ``None``), ``title`` (a window or tab title), ``width_px`` (the window's
width). The element with ``id="hv-root"`` is what the screenshot shows: the whole window.
"""
