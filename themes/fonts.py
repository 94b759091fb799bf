"""Fonts: FCMR's sixteen chart fonts, their free stand-ins, and how to find them.

FCMR (Appendix B.7) drew chart text from sixteen fonts, most of them Microsoft's. hopvista uses
free substitutes that Debian ships (metric twins where one exists). A family is resolved to a
font *file* and checked: a missing family raises :class:`~hopvista.errors.UserError` naming the
package to install, never a silent fallback to a default font.

Resolution is hopvista's own and the same on every machine with the same packages: among the
upright faces fontconfig lists for the family, the normal width wins, then the weight closest to
regular, then the path and face index (files under the home directory last). matplotlib's own
lookup is not trusted with it: its per-user font cache lists faces in the order the directories
happened to be scanned, and ``findfont`` breaks ties by that order (EB Garamond 08 vs 12). The
chosen file is registered in matplotlib under a family name of its own
(:func:`matplotlib_families`) that matches that one face only.

fontconfig (``fc-list``, ``fc-match`` and Chromium, hence tables and plotly) is run with
:func:`fontconfig_env`: the system configuration without its per-user parts, so fonts in
``~/.fonts`` or ``~/.local/share/fonts`` and settings in ``~/.config/fontconfig`` change nothing
(a user's copy of a family with a higher version would otherwise win in Chromium).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from hopvista.errors import UserError


@dataclass(frozen=True)
class ChartFont:
    """One FCMR font and the free family drawn in its place."""

    requested: str
    """The font FCMR names, e.g. ``"Arial"``."""
    family: str
    """The installed substitute, e.g. ``"Liberation Sans"``."""
    package: str
    """The Debian package that provides the substitute."""


_FCMR = (
    ChartFont("Arial", "Liberation Sans", "fonts-liberation"),
    ChartFont("Verdana", "DejaVu Sans", "fonts-dejavu-core"),
    ChartFont("Times New Roman", "Liberation Serif", "fonts-liberation"),
    ChartFont("Courier New", "Liberation Mono", "fonts-liberation"),
    ChartFont("Georgia", "DejaVu Serif", "fonts-dejavu-core"),
    ChartFont("Comic Sans MS", "Comic Neue", "fonts-comic-neue"),
    ChartFont("Tahoma", "DejaVu Sans Condensed", "fonts-dejavu-extra"),
    ChartFont("Cambria", "Caladea", "fonts-crosextra-caladea"),
    ChartFont("Microsoft YaHei", "Noto Sans CJK SC", "fonts-noto-cjk"),
    # Nirmala UI's Latin letters are a Segoe-like sans. Noto Sans Devanagari has no Latin
    # letters at all (every chart character would come from a fallback font), so Nirmala UI
    # maps to Noto Sans, the Latin member of the same Noto design.
    ChartFont("Nirmala UI", "Noto Sans", "fonts-noto-core"),
    ChartFont("Calibri", "Carlito", "fonts-crosextra-carlito"),
    ChartFont("Consolas", "Inconsolata", "fonts-inconsolata"),
    ChartFont("Segoe UI", "Open Sans", "fonts-open-sans"),
    ChartFont("Garamond", "EB Garamond", "fonts-ebgaramond"),
    ChartFont("Century Schoolbook", "TeX Gyre Schola", "fonts-texgyre"),
    ChartFont("Book Antiqua", "TeX Gyre Pagella", "fonts-texgyre"),
)

FCMR_FONTS: dict[str, ChartFont] = {font.requested: font for font in _FCMR}
"""The sixteen FCMR chart fonts in the paper's order, keyed by the name FCMR uses."""

FALLBACK_FAMILY = "DejaVu Sans"
"""Per-glyph fallback for characters a chart font lacks: the system's copy (fonts-dejavu-core),
like every family here, not the one bundled with matplotlib."""

# Debian packages of other families the renderers use (table themes), for error messages.
_OTHER_PACKAGES = {
    "DejaVu Sans Mono": "fonts-dejavu-core",
    "Roboto": "fonts-roboto",
    "Latin Modern Roman": "fonts-lmodern",
    "Latin Modern Sans": "fonts-lmodern",
    "CMU Serif": "fonts-cmu",
    "CMU Sans Serif": "fonts-cmu",
    "Lato": "fonts-lato",
    "Inter": "fonts-inter",
    "STIX Two Text": "fonts-stix",
    "Noto Sans Devanagari": "fonts-noto-core",
    "Noto Serif": "fonts-noto-core",
    "Noto Sans Mono": "fonts-noto-mono",
}


def substitute(requested: str) -> ChartFont:
    """The FCMR font ``requested`` (e.g. ``"Arial"``) with its substitute and package."""
    try:
        return FCMR_FONTS[requested]
    except KeyError:
        raise ValueError(f"{requested!r} is not one of FCMR's chart fonts: "
                         f"{', '.join(FCMR_FONTS)}") from None


def package_for(family: str) -> str | None:
    """The Debian package that provides ``family``, when hopvista knows it."""
    for font in _FCMR:
        if font.family.casefold() == family.casefold():
            return font.package
    for name, package in _OTHER_PACKAGES.items():
        if name.casefold() == family.casefold():
            return package
    return None


def _install_hint(family: str) -> str:
    package = package_for(family)
    if package is None:
        return f"install a package that provides it (try `apt-cache search {family}`)"
    return f"install it with `apt-get install {package}` (Debian/Ubuntu package {package})"


# -- fontconfig, isolated from the user's home ---------------------------------------------

_DEFAULT_SYSTEM_CONFIG = Path("/etc/fonts/fonts.conf")
"""fontconfig's usual system configuration, used when ``fc-conflist`` cannot name it."""

_CONFIG_HEADER = ('<?xml version="1.0"?>\n'
                  '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n')


def _home_dirs() -> list[Path]:
    homes = [Path.home()]
    if os.environ.get("XDG_DATA_HOME"):
        homes.append(Path(os.environ["XDG_DATA_HOME"]))
    return [home for home in homes if home != Path(home.anchor)]


def _under_home(path: str | Path) -> bool:
    return any(Path(path).is_relative_to(home) for home in _home_dirs())


def _system_config() -> Path | None:
    """The system's ``fonts.conf`` as the fontconfig tools on PATH know it."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("FONTCONFIG_FILE", "FONTCONFIG_PATH")}
    listed = ""
    if shutil.which("fc-conflist") is not None:
        listed = subprocess.run(["fc-conflist"], env=env, capture_output=True, text=True,
                                check=False).stdout
    for line in listed.splitlines():
        path = Path(line[2:].split(": ", 1)[0])
        if line.startswith("+ ") and path.name == "fonts.conf" and not _under_home(path):
            return path
    return _DEFAULT_SYSTEM_CONFIG if _DEFAULT_SYSTEM_CONFIG.is_file() else None


def _per_user(element: ET.Element) -> bool:
    """A font directory or configuration include under the user's home."""
    text = (element.text or "").strip()
    return element.tag in ("dir", "include") and (
        element.get("prefix") == "xdg" or text.startswith("~"))


def _drop_per_user(root: ET.Element) -> None:
    for parent in list(root.iter()):
        for child in list(parent):
            if _per_user(child):
                parent.remove(child)


def _private_dir() -> Path:
    """A directory only this user can write to, for the generated configuration."""
    path = Path(tempfile.gettempdir()) / f"hopvista-fontconfig-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = path.lstat()
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022:
        return path
    return Path(tempfile.mkdtemp(prefix="hopvista-fontconfig-"))


def _write_config(directory: Path, stem: str, root: ET.Element) -> Path:
    """``root`` as a configuration file named by its content (writers race harmlessly)."""
    text = _CONFIG_HEADER + ET.tostring(root, encoding="unicode") + "\n"
    path = directory / f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.conf"
    if not path.is_file():
        partial = directory / f".{path.name}.{os.getpid()}.{threading.get_ident()}"
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    return path


def _included(path: Path, directory: Path) -> Path | None:
    """``path`` itself, a copy without its per-user parts, or ``None`` when nothing is left."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return path  # fontconfig reports it as it would without hopvista
    before = len(list(root.iter()))
    _drop_per_user(root)
    if len(list(root.iter())) == before:
        return path
    if all(child.tag == "description" for child in root):
        return None
    return _write_config(directory, path.stem, root)


def _expand_include(element: ET.Element, base: Path, directory: Path) -> list[ET.Element]:
    """An ``<include>`` as includes of single files, each without per-user parts.

    A directory include loads its ``[0-9]*.conf`` files in name order, as fontconfig does.
    """
    target = Path((element.text or "").strip())
    if not target.is_absolute():
        target = base / target
    files = sorted(target.glob("[0-9]*.conf")) if target.is_dir() else [target]
    includes = []
    for file in files:
        kept = _included(file, directory) if file.is_file() else file
        if kept is not None:
            include = ET.Element("include", {"ignore_missing": element.get("ignore_missing",
                                                                           "no")})
            include.text = str(kept)
            includes.append(include)
    return includes


def _isolated_config(system: Path, directory: Path) -> ET.Element:
    """``system``'s configuration without per-user parts, its includes made absolute."""
    root = ET.parse(system).getroot()
    _drop_per_user(root)
    children: list[ET.Element] = []
    for element in root:
        if element.get("prefix") == "relative":  # to the system's folder, not the copy's
            element.text = str(system.parent / (element.text or "").strip())
            del element.attrib["prefix"]
        if element.tag == "include" and element.get("prefix") in (None, "default"):
            children.extend(_expand_include(element, system.parent, directory))
        else:
            children.append(element)
    root[:] = children
    return root


@cache
def _isolated_env() -> tuple[tuple[str, str], ...]:
    system = _system_config()
    if system is None:
        return ()
    directory = _private_dir()
    try:
        config = _write_config(directory, "fonts", _isolated_config(system, directory))
    except (ET.ParseError, OSError):  # fontconfig reports a broken configuration itself
        return ()
    return ("FONTCONFIG_FILE", str(config)), ("FONTCONFIG_PATH", str(system.parent))


def fontconfig_env() -> dict[str, str]:
    """Environment variables under which fontconfig reads the system configuration only.

    Set them for every process that finds fonts through fontconfig (Chromium for tables and
    for plotly, ``fc-match``): fonts and settings under the user's home are then ignored.
    ``FONTCONFIG_FILE`` names a generated file that loads the system's ``fonts.conf`` and
    ``conf.d`` without their per-user font directories and includes. Empty when fontconfig's
    system configuration cannot be found (fontconfig then runs as configured).
    """
    env = dict(_isolated_env())
    if env and not Path(env["FONTCONFIG_FILE"]).is_file():  # a cleaned temporary directory
        _isolated_env.cache_clear()
        env = dict(_isolated_env())
    return env


def _fontconfig(*args: str) -> str:
    """The output of a fontconfig tool run under :func:`fontconfig_env`."""
    if shutil.which(args[0]) is None:
        raise UserError(f"{args[0]} is not installed: install it with `apt-get install "
                        "fontconfig` (Chromium finds fonts through fontconfig)")
    result = subprocess.run(list(args), capture_output=True, text=True, check=False,
                            env={**os.environ, **fontconfig_env()})
    if result.returncode != 0:
        raise UserError(f"{' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


# -- resolving a family to one face of one file ------------------------------------------

# fontconfig's scales: slant 0 is roman, width 100 normal, weight 80 regular.
_FC_ROMAN = 0.0
_FC_NORMAL_WIDTH = 100.0
_FC_REGULAR = 80.0
_LIST_FORMAT = ("%{file}\\t%{index}\\t%{slant}\\t%{width}\\t%{weight}\\t%{postscriptname}\\t"
                "%{family}\\n")


@dataclass(frozen=True)
class _Face:
    """One face as fontconfig lists it."""

    path: str
    index: int
    slant: float
    width: float
    weight: float
    postscript: str
    families: frozenset[str]
    """Every family name of the face, casefolded."""

    def preference(self) -> tuple[bool, float, float, float, str, int]:
        """Smaller is better: system files, normal width, the weight closest to regular
        (the lighter of two as close), then the path and face index."""
        return (_under_home(self.path), abs(self.width - _FC_NORMAL_WIDTH),
                abs(self.weight - _FC_REGULAR), self.weight, self.path, self.index)


def _parse_face(line: str) -> _Face | None:
    parts = line.split("\t")
    if len(parts) != 7:
        return None
    path, index, slant, width, weight, postscript, families = parts
    try:
        numbers = int(index), float(slant), float(width), float(weight)
    except ValueError:  # a variable font's ranges: fontconfig lists its named instances too
        return None
    names = frozenset(name.replace("\\", "").strip().casefold() for name in families.split(","))
    return _Face(path, numbers[0], numbers[1], numbers[2], numbers[3], postscript, names)


@cache
def _faces() -> tuple[_Face, ...]:
    """Every scalable face fontconfig knows (system configuration only)."""
    listed = _fontconfig("fc-list", "--format", _LIST_FORMAT, ":scalable=true")
    return tuple(face for face in map(_parse_face, listed.splitlines()) if face is not None)


@dataclass(frozen=True)
class ResolvedFont:
    """A family as hopvista draws it: the file, the face in it, and its weight."""

    family: str
    path: str
    face_index: int
    weight: int
    """The face's OpenType weight (400 regular; Inconsolata's only face is 500)."""


def _open_face(path: str, face_index: int) -> Any:
    """An FT2Font for one face (matplotlib < 3.10 opens face 0 only)."""
    from matplotlib import ft2font

    if face_index:
        return ft2font.FT2Font(path, face_index=face_index)
    return ft2font.FT2Font(path)


def _weight(path: str, face_index: int) -> int:
    table = _open_face(path, face_index).get_sfnt_table("OS/2")
    return int(table["usWeightClass"]) if table else 400


@cache
def resolve_font(family: str) -> ResolvedFont:
    """The face ``family`` is drawn from: the same on every machine with the same packages.

    Chosen among the upright faces fontconfig lists for ``family`` (system configuration
    only, see :func:`fontconfig_env`) by :meth:`_Face.preference`, never by the order of a
    cache. Raises :class:`UserError` naming the family and the package to install when no
    such face exists.
    """
    wanted = family.casefold()
    upright = [face for face in _faces()
               if wanted in face.families and face.slant == _FC_ROMAN]
    if not upright:
        raise UserError(f"font family {family!r} is not installed: {_install_hint(family)} "
                        "(hopvista uses the system's fonts only, never fonts in the home "
                        "directory)")
    best = min(upright, key=_Face.preference)
    return ResolvedFont(family, best.path, best.index, _weight(best.path, best.index))


def font_file(family: str) -> Path:
    """The font file ``family`` is drawn from (raises :class:`UserError`)."""
    return Path(resolve_font(family).path)


# -- matplotlib draws exactly the resolved faces -----------------------------------------

_REGISTERED: dict[str, list[Any]] = {}
"""Alias -> the matplotlib font list it was added to (re-added if that list is replaced)."""
_REGISTER_LOCK = threading.Lock()


_WEIGHT_NAMES = {100: "ultralight", 200: "light", 400: "normal", 500: "medium",
                 600: "semibold", 700: "bold", 800: "heavy", 900: "black"}


def matplotlib_weight(weight: int) -> int | str:
    """``weight`` as matplotlib names it, where it has a name (400: ``"normal"``): findfont
    scores a face's weight a perfect match only when both are the same name, and only a
    perfect match ends its scan of every installed face early."""
    return _WEIGHT_NAMES.get(weight, weight)


def _register(font: ResolvedFont, weight: int) -> str:
    """A family name that matplotlib resolves to ``font``'s face only, with ``weight``."""
    from matplotlib import font_manager

    key = f"{font.path}\0{font.face_index}\0{weight}"
    alias = f"hopvista {font.family} {hashlib.sha256(key.encode()).hexdigest()[:12]}"
    manager = font_manager.fontManager
    with _REGISTER_LOCK:
        if _REGISTERED.get(alias) is not manager.ttflist:
            if all(entry.name != alias for entry in manager.ttflist):
                # First in the list: findfont scores entries in order and stops at a perfect
                # score, which a query naming the alias gets from it (the same weight name,
                # upright, scalable) instead of after scoring every system font (~9 ms; a
                # chart's font sizes and themes make a few such queries new to its cache).
                # An entry whose name a query does not name scores 10 or more for that query,
                # so no other query's answer changes (a best below 10 stays the best; at 10
                # or more matplotlib falls back to its default), and findfont's cache stays
                # valid: no query made so far names the new alias.
                manager.ttflist.insert(0, font_manager.FontEntry(
                    fname=font.path, index=font.face_index, name=alias,
                    weight=matplotlib_weight(weight), size="scalable"))
            _REGISTERED[alias] = manager.ttflist
    return alias


def matplotlib_families(family: str, fallback: bool) -> list[str]:
    """matplotlib ``font.family`` names that draw exactly the faces hopvista resolved.

    The first name matches :func:`resolve_font` ``(family)``'s face and nothing else; with
    ``fallback``, the second matches :data:`FALLBACK_FAMILY`'s face, for characters the
    family lacks. Both carry ``family``'s weight, so one ``font.weight`` selects both.
    """
    font = resolve_font(family)
    names = [_register(font, font.weight)]
    if fallback:
        names.append(_register(resolve_font(FALLBACK_FAMILY), font.weight))
    return names


# -- fontconfig's own answer (what Chromium draws) ---------------------------------------

def _fc_escape(name: str) -> str:
    return "".join("\\" + c if c in "\\-:,=" else c for c in name)


@cache
def _fc_match(name: str) -> tuple[tuple[str, ...], str, int]:
    """fontconfig's best match for ``name``: its family names, file and face index."""
    shown = _fontconfig("fc-match", "-f", "%{family}\\n%{file}\\n%{index}", _fc_escape(name))
    lines = shown.split("\n")
    if len(lines) < 3:
        raise UserError(f"fc-match gave no font for font family {name!r}")
    families = tuple(part.replace("\\", "").strip() for part in lines[0].split(","))
    return families, lines[1], int(lines[2] or 0)


def fontconfig_family(name: str) -> str:
    """The family fontconfig (hence Chromium) draws for ``name``; it must be ``name`` itself.

    Raises :class:`UserError` naming the family and its package when fontconfig would
    substitute another family (its answer for anything it does not have).
    """
    families, path, _ = _fc_match(name)
    for family in families:
        if family.casefold() == name.casefold():
            return family
    raise UserError(f"font family {name!r} is not installed for fontconfig (it would draw "
                    f"{families[0]!r} from {path}): {_install_hint(name)}")


def fontconfig_face(name: str) -> tuple[str, int]:
    """The file and face index fontconfig (hence Chromium) draws ``name`` from.

    Raises :class:`UserError` when fontconfig would draw another family.
    """
    fontconfig_family(name)
    _, path, index = _fc_match(name)
    return path, index


@cache
def _charset(name: str) -> frozenset[int] | None:
    """The code points the face fontconfig gives Chromium for ``name`` has glyphs for
    (``None``: no such font)."""
    try:
        path, index = fontconfig_face(name)
    except UserError:
        return None
    return frozenset(_open_face(path, index).get_charmap())


def covers(name: str, text: str) -> bool:
    """Whether the font Chromium draws as ``name`` has a glyph for every character of
    ``text`` (white space aside): a table in that font needs no fallback."""
    charset = _charset(name)
    return charset is not None and _needed(text) <= charset


def lacking(name: str, text: str) -> str:
    """The characters of ``text`` (white space aside, sorted, once each) the font Chromium
    draws as ``name`` has no glyph for (all of them when it is not installed)."""
    charset = _charset(name) or frozenset()
    return "".join(sorted(chr(code) for code in _needed(text) - charset))


@lru_cache(maxsize=64)
def _needed(text: str) -> frozenset[int]:
    """The code points of ``text`` a font must have (white space aside)."""
    return frozenset(ord(char) for char in set(text) if not char.isspace())


def fontconfig_file(name: str) -> Path:
    """The file fontconfig draws ``name`` from (raises :class:`UserError` when missing)."""
    return Path(fontconfig_face(name)[0])


def is_system_face(postscript_name: str) -> bool:
    """Whether a face with this PostScript name is among the system's fonts.

    Chromium reports the PostScript name of every face it draws; a name this says no to is a
    face from outside fontconfig's system configuration (a browser started without
    :func:`fontconfig_env`, drawing a font from the user's home).
    """
    return any(face.postscript == postscript_name for face in _faces())


# -- versions and the manifest -----------------------------------------------------------

def _sfnt_version(path: str, face_index: int) -> str:
    table: dict[tuple[int, int, int, int], bytes] = _open_face(path, face_index).get_sfnt()
    for key in ((3, 1, 0x409, 5), (1, 0, 0, 5)):
        raw = table.get(key)
        if raw is not None:
            text = raw.decode("utf-16-be" if key[0] == 3 else "mac_roman")
            return text.strip()
    for (platform, _, _, name_id), raw in sorted(table.items()):
        if name_id == 5:
            return raw.decode("utf-16-be" if platform in (0, 3) else "latin-1").strip()
    return "unknown"


@cache
def file_version(path: str, face_index: int = 0) -> str:
    """The version string (name table entry 5) of a font file, e.g. ``"Version 2.1.0"``."""
    return _sfnt_version(path, face_index)


def _file_entry(path: str, face_index: int) -> dict[str, Any]:
    return {"file": path, "face_index": face_index, "version": file_version(path, face_index)}


def font_manifest(families: Iterable[str]) -> dict[str, Any]:
    """How each family is drawn, for the manifest, in sorted family order.

    ``{family: {"file", "face_index", "version"}}`` describes the face hopvista resolves the
    family to (the one matplotlib and seaborn draw). When fontconfig, hence Chromium (tables,
    plotly), would draw another face, the entry also holds ``"fontconfig": {"file",
    "face_index", "version"}``. Raises :class:`UserError` for a family either lacks.
    """
    manifest: dict[str, Any] = {}
    for family in sorted(set(families)):
        font = resolve_font(family)
        entry = _file_entry(font.path, font.face_index)
        path, index = fontconfig_face(family)
        if (path, index) != (font.path, font.face_index):
            entry["fontconfig"] = _file_entry(path, index)
        manifest[family] = entry
    return manifest
@lru_cache(maxsize=64)
def _charmap(path: str, face_index: int) -> frozenset[int]:
    return frozenset(int(c) for c in _open_face(path, face_index).get_charmap())


def missing_glyphs(family: str, text: str) -> str:
    """The characters of ``text`` that ``family`` has no glyph for (sorted, no duplicates)."""
    resolved = resolve_font(family)
    covered = _charmap(resolved.path, resolved.face_index)
    return "".join(sorted({c for c in text if not c.isspace() and ord(c) not in covered}))
