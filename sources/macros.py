"""A pack's Jinja2 text templates (``<pack>/text/<file>.j2``) for sources that write text:
macros whose output lines are the alternatives of one sentence (the synthetic financial and
materials worlds use them). They are data: they render in
:class:`hopvista.sandbox.PackEnvironment`, each module and each macro call within its bounds."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import jinja2

from hopvista import sandbox
from hopvista.errors import UserError
from hopvista.yamlfile import read_text


class Templates:
    """The macros of the named ``.j2`` files of one folder."""

    def __init__(self, folder: Path, files: tuple[str, ...]) -> None:
        if not folder.is_dir():
            raise UserError(f"{folder}: the source needs this folder of text templates")
        self.folder = folder
        self.modules: dict[str, Any] = {}
        words: set[str] = set()
        for name in files:
            source = self._read(name)
            words.update(re.findall(r"[a-z]+", source.lower()))
            try:
                self.modules[name] = sandbox.module_of(_compiled(source))
            except sandbox.TEMPLATE_ERRORS as exc:
                raise UserError(f"{self._where(name, exc)}: "
                                f"{sandbox.describe(exc, with_line=False)}") from None
        #: every lower-case word of the files, comments included (coined brand names must
        #: avoid them; the world depends on this set, so it is kept exactly as it was)
        self.vocabulary = frozenset(words)

    def _read(self, name: str) -> str:
        """The source of template ``name``; a :class:`UserError` when it is no regular file,
        too large or not UTF-8."""
        return read_text(self.path(name), sandbox.MAX_SOURCE_CHARS * 4, "template")

    def _where(self, file: str, exc: BaseException) -> str:
        line = sandbox.template_line(exc)
        return f"{self.path(file)}{f':{line}' if line else ''}"

    def path(self, file: str) -> Path:
        """The path of template ``file`` (a name without ``.j2``)."""
        return self.folder / f"{file}.j2"

    def macro(self, file: str, name: str) -> jinja2.runtime.Macro | None:
        """Macro ``name`` of ``file``, or ``None`` if the file defines none of that name."""
        fn = getattr(self.modules[file], name, None)
        return fn if isinstance(fn, jinja2.runtime.Macro) else None

    def lines(self, file: str, macro: str, *args: Any) -> list[str]:
        """The alternatives of one macro, whitespace-normalised, empty lines dropped."""
        fn = self.macro(file, macro)
        if fn is None:
            raise UserError(f"{self.path(file)}: no macro {macro!r}")
        try:
            out = sandbox.call_macro(fn, *args)
        except sandbox.TEMPLATE_ERRORS as exc:
            raise UserError(f"{self._where(file, exc)}: macro {macro!r}: "
                            f"{sandbox.describe(exc, with_line=False)}") from None
        lines = [" ".join(line.split()) for line in out.splitlines()]
        lines = [line for line in lines if line]
        if not lines:
            raise UserError(f"{self.path(file)}: macro {macro!r} renders nothing")
        return lines


_ENV = sandbox.PackEnvironment(lstrip_blocks=True)


@functools.lru_cache(maxsize=32)
def _compiled(source: str) -> jinja2.Template:
    """A text template compiled in the sandbox (once per source text and process)."""
    return _ENV.from_string(source)


@functools.lru_cache(maxsize=8)
def load_templates(folder: Path, files: tuple[str, ...]) -> Templates:
    """The templates ``files`` of ``folder``, loaded once per process."""
    return Templates(folder, files)
