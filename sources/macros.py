"""A pack's Jinja2 text templates (``<pack>/text/<file>.j2``) for sources that write text:
macros whose output lines are the alternatives of one sentence (the synthetic financial and
materials worlds use them)."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import jinja2

from hopvista.errors import UserError


class Templates:
    """The macros of the named ``.j2`` files of one folder."""

    def __init__(self, folder: Path, files: tuple[str, ...]) -> None:
        if not folder.is_dir():
            raise UserError(f"{folder}: the source needs this folder of text templates")
        self.folder = folder
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)),
                                 autoescape=False, undefined=jinja2.StrictUndefined,
                                 lstrip_blocks=True)
        self.modules: dict[str, Any] = {}
        words: set[str] = set()
        for name in files:
            path = self.path(name)
            try:
                words.update(re.findall(r"[a-z]+", path.read_text(encoding="utf-8").lower()))
                self.modules[name] = env.get_template(f"{name}.j2").module
            except (jinja2.TemplateNotFound, FileNotFoundError):
                raise UserError(f"{path}: file not found") from None
            except jinja2.TemplateSyntaxError as exc:
                raise UserError(f"{path}:{exc.lineno}: {exc.message}") from None
            except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError) as exc:
                raise UserError(f"{path}: {exc}") from None
            except UnicodeDecodeError as exc:
                raise UserError(f"{path}: not UTF-8 text ({exc.reason})") from None
            except OSError as exc:
                raise UserError(f"{path}: cannot read it: {exc.strerror}") from None
        #: every lower-case word of the files, comments included (coined brand names must
        #: avoid them; the world depends on this set, so it is kept exactly as it was)
        self.vocabulary = frozenset(words)

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
            out = str(fn(*args))
        except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError) as exc:
            raise UserError(f"{self.path(file)}: macro {macro!r}: {exc}") from None
        lines = [" ".join(line.split()) for line in out.splitlines()]
        lines = [line for line in lines if line]
        if not lines:
            raise UserError(f"{self.path(file)}: macro {macro!r} renders nothing")
        return lines


@functools.lru_cache(maxsize=8)
def load_templates(folder: Path, files: tuple[str, ...]) -> Templates:
    """The templates ``files`` of ``folder``, loaded once per process."""
    return Templates(folder, files)
