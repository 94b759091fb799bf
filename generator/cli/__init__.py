"""The ``gen`` command line: one module per subcommand; it parses and calls the Python API."""
