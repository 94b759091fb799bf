"""``gen verify``: re-prove a dataset folder, streaming its items and Parquet rows.

The order: the manifest (a path that is not a hopvista dataset is a
:class:`~hopvista.errors.UserError`), its ``files`` (hashes, unlisted files, links), then each
line of ``items.jsonl`` in lockstep with the Parquet row of the same position, then what
needs every item (counts, shares, balance, the images folder). Memory holds one item and one
batch of rows at a time, plus counters and the set of ids.

A dataset of an older format version (see :mod:`hopvista.model.migrate`) is checked as the
current version: each line is migrated before the item checks, while the Parquet rows and the
files are compared with what that version wrote.

Every problem goes to ``report`` as one printable line naming its file, line, item or field;
what the verifier cannot prove (the images' pixels, wording it can only judge by its words)
goes to ``note``, once each, so that an OK says exactly what was proved. Whatever a corrupt
dataset holds, a check that fails unexpectedly becomes a problem of that item (or stage),
never an exception out of :func:`verify_into`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from hopvista.domain import Synonyms
from hopvista.errors import UserError, one_line
from hopvista.model.dataset import read_manifest
from hopvista.model.format import FORMAT_VERSION
from hopvista.model.migrate import migrate_item
from hopvista.model.strict_json import parse_strict
from hopvista.program.executor import Context
from hopvista.program.fields import Malformed
from hopvista.verify.augmented import is_augmented, verify_augmented
from hopvista.verify.balance import Tally, check_balance, check_counts, check_shares
from hopvista.verify.checks import (
    check_chart_needed,
    check_item,
    check_names,
    numbers_not_read,
)
from hopvista.verify.consistency import (
    check_identity,
    check_inputs,
    check_provenance,
    check_statements,
)
from hopvista.verify.defences import check_proxies
from hopvista.verify.files import check_files
from hopvista.verify.images import Images, check_images
from hopvista.verify.jsonl import Line, read_lines
from hopvista.verify.manifest import Expect, expectations, held_to_pack
from hopvista.verify.notes import (
    FACT_NOTE,
    IMAGE_NOTE,
    NUMBERS_NOTE,
    PROXY_NOTE,
    Notes,
    fields_note,
)
from hopvista.verify.paraphrase import (
    PARAPHRASE_NOTE,
    SynonymsVerdict,
    check_paraphrases,
    judge_synonyms,
)
from hopvista.verify.parquet import Row, compare_row, iter_rows, shard_names
from hopvista.verify.paths import FILE, file_problem, walk
from hopvista.verify.schema import check_shape, undeclared_fields
from hopvista.verify.structure import check_structure
from hopvista.verify.wording import (
    WordingVerdict,
    check_wording,
    content_differences,
    differences,
    installed_pack,
    judge_wording,
    pack_by_columns,
    unheld_note,
)
from hopvista.version import __version__

ITEMS = "items.jsonl"
Report = Callable[[str], None]

def _guarded(stage: str, report: Report, check: Callable[[], None]) -> None:
    """Run one check; an unexpected failure is reported as a problem of ``stage``."""
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - a verifier reports, it never crashes
        report(f"{stage}: could not be checked ({type(exc).__name__}: {str(exc)[:160]})")


class _Run:
    """The state of one verification: what the manifest expects and what the items gave."""

    def __init__(self, root: Path, expect: Expect, verdict: WordingVerdict,
                 report: Report, notes: Notes) -> None:
        self.root, self.expect, self.report, self.notes = root, expect, report, notes
        self.verdict, self.wording = verdict, verdict.wording
        self.synonyms: SynonymsVerdict = SynonymsVerdict(Synonyms.default())
        self.built_by: Any = None
        self.columns_found = False
        self.manifest: dict[str, Any] = {}
        self.tally = Tally()
        self.ids: set[str] = set()
        self.image_paths: set[str] = set()
        self.malformed = 0
        self.lines = 0
        self.rows = 0

    def line(self, line: Line, row: Row | None) -> None:
        """Check one line of items.jsonl and the Parquet row at its position."""
        self.lines += 1
        if row is not None:
            self.rows += 1
        where = f"{ITEMS}:{line.number}"
        if not line.newline:
            self.report(f"{where}: the last line has no newline")
        original = self._parse(line, where)
        if original is None:
            self.malformed += 1
            return
        name = original.get("id")
        label = f"item {name}" if isinstance(name, str) and 0 < len(name) <= 120 else \
            f"item on line {line.number}"
        problems: list[str] = []
        images: Images | None = None
        item = original
        try:
            if self.expect.version != FORMAT_VERSION:
                item = migrate_item(original, self.manifest)
            check_shape(item)
        except Exception as exc:  # noqa: BLE001 - Malformed, or anything a corrupt item causes
            self.malformed += 1
            reason = str(exc) if isinstance(exc, (Malformed, ValueError)) else \
                type(exc).__name__
            problems.append(f"malformed item: {reason[:300]}")
        else:
            images = self._item(item, line.number - 1, problems)
        for problem in problems:
            self.report(f"{label}: {problem}")
        if row is not None:
            self._compare(row, original, item, images)

    def _compare(self, row: Row, original: dict[str, Any], item: dict[str, Any],
                 images: Images | None) -> None:
        try:
            problems = compare_row(row, original, item, images, self.expect.version)
        except Exception as exc:  # noqa: BLE001 - reported as a problem of this row
            problems = [f"{row.shard} row {row.index}: could not be compared "
                        f"({type(exc).__name__})"]
        for problem in problems:
            self.report(problem)

    def _parse(self, line: Line, where: str) -> dict[str, Any] | None:
        if line.text is None:
            self.report(f"{where}: {line.problem}")
            return None
        if not line.text.strip():
            self.report(f"{where}: empty line")
            return None
        try:
            item = parse_strict(line.text)
        except ValueError as exc:
            self.report(f"{where}: not valid JSON: {str(exc)[:160]}")
            return None
        if not isinstance(item, dict):
            self.report(f"{where}: not an item (a JSON object)")
            return None
        return item

    def _item(self, item: dict[str, Any], index: int, problems: list[str]) -> Images | None:
        """Every check of a well-formed item; returns its image bytes for the Parquet row."""
        if item["id"] in self.ids:
            problems.append("duplicate id")
        self.ids.add(item["id"])
        self.image_paths.update(image["path"] for image in item["images"])
        images: Images | None = None
        try:
            self.tally.add(item)
            problems += check_identity(item, index, self.expect)
            problems += check_inputs(item) + check_statements(item, self.expect)
            problems += check_structure(item)
            problems += check_provenance(item, self.expect)
            images = check_images(item, self.root, self.expect.images, self.expect.version,
                                  problems)
            problems += self._proofs(item)
        except Exception as exc:  # noqa: BLE001 - reported as a problem of this item
            problems.append(f"malformed item: {type(exc).__name__}: {str(exc)[:160]}")
        return images

    def _proofs(self, item: dict[str, Any]) -> list[str]:
        self._builtin_by_columns(item)
        problems = check_wording(item, self.wording) + check_names(item)
        if any(s.get("paraphrase") is not None for s in item["statements"]):
            problems += self._paraphrases(item)
        for op in undeclared_fields(item):
            self.notes(fields_note(op))
        if any("fact" in s["program"]["claim"] or s["program"]["select"]["op"] == "fact"
               for s in item["statements"]):
            self.notes(FACT_NOTE)
        if self.expect.margins is not None:
            try:
                context = Context(item, *self.expect.margins)
            except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
                return [*problems, f"inputs cannot be read: {type(exc).__name__}: {exc}"]
            problems += check_item(item, context, self.expect.version)
        problems += check_proxies(item, self.expect.defences)
        if self.expect.identities is not None:
            problems += check_chart_needed(item, self.expect.identities, self.expect.related)
            if numbers_not_read(item) is not None:
                self.notes(NUMBERS_NOTE)
        return problems

    def _paraphrases(self, item: dict[str, Any]) -> list[str]:
        """The paraphrased statements re-proved, with the installed pack's synonyms when the
        dataset is that pack's, else the recorded ones verify accepted."""
        pack = installed_pack(self.verdict.builtin)
        synonyms = pack.synonyms() if pack is not None else self.synonyms.synonyms
        words = self.wording.words if self.wording is not None else None
        self.notes(PARAPHRASE_NOTE)
        return check_paraphrases(item, words, synonyms)

    def _builtin_by_columns(self, item: dict[str, Any]) -> None:
        """The first item whose columns are an installed pack's: the dataset is then held to
        that pack's identities, related columns and margins, and (made by this hopvista in
        this format) to its wording, whatever it calls its domain or whichever pack's
        identities or related columns its manifest records."""
        if self.columns_found:
            return
        pack = pack_by_columns(item)
        if pack is None:
            return
        self.columns_found = True
        if pack.name == self.verdict.builtin:
            return
        if self.verdict.builtin is not None:
            self.report(f"manifest.json: config.identities or config.related are the installed "
                        f"pack {self.verdict.builtin!r}'s, but its items show the columns of "
                        f"the installed pack {pack.name!r}")
        self.verdict = WordingVerdict(self.wording, builtin=pack.name)
        self.expect = held_to_pack(self.expect, pack)
        found = content_differences(self.expect.config, pack, self.expect.domain,
                                    self.expect.version)
        if self.expect.version == FORMAT_VERSION and self.built_by == __version__:
            found += differences(self.wording, pack, self.expect.domain)
        else:
            self.notes(unheld_note(pack.name, self.expect.version, self.built_by))
        for problem in found:
            self.report(problem + " (its items show that pack's columns)")

    def finish(self, extra_rows: int, manifest: dict[str, Any]) -> None:
        """What needs every item: row count, counts, shares, balance, the images folder."""
        rows = self.rows + extra_rows
        if rows != self.lines:
            self.report(f"data: {rows} readable Parquet row(s) for {self.lines} line(s) of "
                        f"{ITEMS}")
        complete = self.malformed == 0
        for problem in check_counts(self.lines, self.tally if complete else None, manifest,
                                    self.expect.count):
            self.report(problem)
        if complete:
            for problem in check_shares(self.tally, manifest):
                self.report(problem)
            for problem in check_balance(self.tally, self.expect.types):
                self.report(f"balance: {problem}")
        self._image_folder()

    def _image_folder(self) -> None:
        """Every file under images/ is an image an item lists (none without images)."""
        folder = self.root / "images"
        if self.expect.images is None or not folder.is_dir() or folder.is_symlink():
            return
        for name, kind in walk(folder):
            if kind != FILE:
                continue  # reported by the files check
            if not self.expect.images:
                self.report(f"images/{name}: an image, but the build has none")
            elif f"images/{name}" not in self.image_paths:
                self.report(f"images/{name}: not the image of an item")


def older_format_note(version: int) -> str:
    """What is not checked of a dataset that says it was made in an older format: the rules
    later formats added (it is held to its own format's, as such a build was made)."""
    later = f"format {FORMAT_VERSION}" if version + 1 == FORMAT_VERSION else \
        f"formats {version + 1} to {FORMAT_VERSION}"
    return f"the rules {later} added (docs/format.md, section 1): the manifest says the " \
        f"dataset was made in format {version}, and it is held to that format's rules"


def _lines(root: Path, report: Report) -> Iterator[Line]:
    problem = file_problem(root, ITEMS)
    if problem is not None:
        report(f"{ITEMS}: {problem}")
        return
    try:
        yield from read_lines(root / ITEMS)
    except OSError as exc:
        report(f"{ITEMS}: cannot be read ({exc.strerror})")


def _safe_rows(rows: Iterator[Row], report: Report) -> Iterator[Row]:
    """``rows``, ending with a problem instead of an exception if reading fails unexpectedly."""
    try:
        yield from rows
    except Exception as exc:  # noqa: BLE001 - a verifier reports, it never crashes
        report(f"data: reading the Parquet rows failed ({type(exc).__name__}: "
               f"{str(exc)[:160]})")


def verify_into(root: Path, report: Report, *, note: Report | None = None,
                source: Path | None = None) -> int:
    """Re-prove the dataset folder ``root``, passing each problem to ``report`` as one line
    and each thing it cannot prove to ``note`` (once each).

    ``source`` is the input a ``gen augment`` dataset was made from, to compare its items
    with. Returns the number of lines of items.jsonl. Raises
    :class:`~hopvista.errors.UserError` only when ``root`` is not a hopvista dataset at all
    (no folder, no readable manifest of a supported format version), or ``source`` cannot be
    used with it.
    """
    def clean(problem: str) -> None:
        report(one_line(problem))

    notes = Notes(None if note is None else lambda text: note(one_line(text)))
    manifest = read_manifest(root)
    if manifest.get("kind") == "shard":
        raise UserError(f"{root}: a shard of a build (gen build --shard); join the shards with "
                        "gen merge, then verify the dataset")
    if is_augmented(manifest):
        return verify_augmented(root, manifest, clean, notes, source)
    if source is not None:
        raise UserError(f"--source {source}: {root} is a build, re-proved from its own "
                        "programs; --source is for a dataset gen augment made from an "
                        "existing one")
    _guarded("manifest.json files", clean, lambda: check_files(root, manifest, clean))
    expect = expectations(manifest, clean)
    packages = manifest.get("packages")
    built_by = packages.get("hopvista") if isinstance(packages, dict) else None
    verdict = judge_wording(expect.config, expect.domain, expect.version, built_by)
    pack = installed_pack(verdict.builtin)
    if pack is not None:
        expect = held_to_pack(expect, pack)
    for problem in verdict.problems:
        clean(problem)
    for text in verdict.notes:
        notes(text)
    if expect.version < FORMAT_VERSION:
        notes(older_format_note(expect.version))
    if expect.images:
        notes(IMAGE_NOTE)
    if expect.defences:
        notes(PROXY_NOTE)
    run = _Run(root, expect, verdict, clean, notes)
    run.synonyms = judge_synonyms(expect.config)
    for problem in run.synonyms.problems:
        clean(problem)
    if pack is None:
        for text in run.synonyms.notes:
            notes(text)
    run.manifest, run.built_by = manifest, built_by
    rows = _safe_rows(iter_rows(root, shard_names(root, clean), expect.version, clean), clean)
    for line in _lines(root, clean):
        row = next(rows, None)
        _guarded(f"{ITEMS}:{line.number}", clean, partial(run.line, line, row))
    extra = sum(1 for _ in rows)
    _guarded("dataset", clean, lambda: run.finish(extra, manifest))
    return run.lines


def verify_dataset(root: Path) -> tuple[int, list[str]]:
    """Re-prove a dataset folder. Returns (items.jsonl lines, every problem)."""
    problems: list[str] = []
    checked = verify_into(root, problems.append)
    return checked, problems
