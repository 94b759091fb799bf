"""How statements are worded: paraphrase diversity, words per statement, surface cues per label.

Pure functions over a dataset's items in their JSON form (``items.jsonl``, or
``Item.model_dump(mode="json")``, as ``gen audit`` reads them). A statement an LLM paraphrased
carries a ``paraphrase`` record (docs/format.md): ``template`` is the pack's rendering,
``kept`` the attempt whose text is ``text`` (``null``: every attempt was rejected and ``text``
is the template).

- **WPD** and **LD** (Liu and Soh, 2022, "Towards Better Characterization of Paraphrases") of
  each kept paraphrase against its template: how far the shared lemmas moved, and what share
  of the two texts' lemmas is not shared (:func:`wpd`, :func:`ld`).
- **Words per statement** by level, of the final texts and of the templates, beside FCMR's.
- **Surface cues per label**: the rate (or mean) of each cue of :data:`CUES` among true and
  among false statements' final texts, and a permutation test of the difference within each
  statement type; a cue whose difference is beyond chance gives the label away to a reader of
  the wording alone.
"""

from __future__ import annotations

import bisect
import math
import re
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from hopvista.errors import UserError
from hopvista.rng import derive
from hopvista.verify.meaning import WORD_SENSES, negating, words_of

LEVELS = ("easy", "medium", "hard")

#: FCMR's Table 6 (Appendix C.1): WPD and LD of its paraphrases and of two paraphrase corpora.
REFERENCE_DIVERSITY: dict[str, tuple[float, float]] = {
    "FCMR": (0.20, 0.45), "MRPC": (0.12, 0.42), "PAWS": (0.07, 0.13)}
#: FCMR's words per statement by level (only Hard is known: 38.9).
FCMR_WORDS: dict[str, float] = {"hard": 38.9}

#: The significance level of the cue test, shared out over the cues tested (Bonferroni).
CUE_ALPHA = 0.05
#: Label permutations of the cue test.
PERMUTATIONS = 2000

# -- WPD and LD --------------------------------------------------------------------------------

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
#: Tokens as spaCy's English tokenizer mostly cuts them: a number as written ("1,234.5"), a
#: word, a clitic ("'s", "n't") and each punctuation mark or symbol alone.
_TOKEN = re.compile(r"""
      \d+(?:[.,]\d+)*          # a number as written: 2022, 1,234.5, 12.5
    | [^\W\d_]+(?=n't)         # "does" of "doesn't"
    | n't | '[^\W\d_]+         # a clitic: n't, 's, 're
    | [^\W_]+                  # a word (letters and digits: Q4, FY2022)
    | [^\w\s] | _              # a punctuation mark or symbol
    """, re.VERBOSE | re.IGNORECASE)


def tokens(text: str) -> list[str]:
    """The tokens of ``text``, punctuation included (:data:`_TOKEN`)."""
    return _TOKEN.findall(text.translate(_APOSTROPHES))


@lru_cache(maxsize=65536)
def lemma(token: str) -> str:
    """The lemma of one token, case-folded (simplemma's English dictionary; "n't" is
    "not")."""
    try:
        import simplemma  # heavy: loads its English dictionary
    except ImportError:
        raise UserError("WPD and LD lemmatise words with simplemma, which is not installed: "
                        "pip install simplemma") from None
    if token.lower() == "n't":
        return "not"
    return str(simplemma.lemmatize(token, lang="en")).casefold()


def lemmas(text: str) -> list[str]:
    """The lemma of each token of ``text``, in order."""
    return [lemma(token) for token in tokens(text)]


def _positions(lemmata: Sequence[str]) -> dict[str, list[float]]:
    """Each lemma's positions, the first token at 0 and the last at 1."""
    last = len(lemmata) - 1
    found: dict[str, list[float]] = {}
    for index, word in enumerate(lemmata):
        found.setdefault(word, []).append(index / last)
    return found


def _shift(many: Sequence[float], few: Sequence[float]) -> float:
    """How far a lemma moved: the mean, over its positions in the text where it occurs more
    often (``many``), of the distance to its nearest position in the other (``few``, in
    increasing order, as :func:`_positions` lists them)."""
    def nearest(p: float) -> float:
        at = bisect.bisect_left(few, p)
        return min(abs(p - few[i]) for i in (at - 1, at) if 0 <= i < len(few))

    return sum(nearest(p) for p in many) / len(many)


def wpd(source: str, paraphrase: str) -> float:
    """Word Position Deviation of ``paraphrase`` against ``source``: the mean, over the
    lemmas both share, of how far the lemma moved between the two texts' relative positions
    (0: the shared words in the same places; 1: no word shared). A text of one token or none
    gives 0."""
    first, second = lemmas(source), lemmas(paraphrase)
    if len(first) < 2 or len(second) < 2:
        return 0.0
    left, right = _positions(first), _positions(second)
    shifts = [_shift(left[w], right[w]) if len(left[w]) >= len(right[w])
              else _shift(right[w], left[w]) for w in left if w in right]
    return sum(shifts) / len(shifts) if shifts else 1.0


def _words(lemmata: Iterable[str]) -> set[str]:
    return {w for w in lemmata if any(c.isalnum() for c in w)}


def ld(source: str, paraphrase: str) -> float:
    """Lexical Deviation of ``paraphrase`` against ``source``: the share of the two texts'
    distinct lemmas (punctuation left out) that only one of them has (1 when neither has
    any)."""
    first, second = _words(lemmas(source)), _words(lemmas(paraphrase))
    union = first | second
    return 1 - len(first & second) / len(union) if union else 1.0


# -- the statements of a dataset ---------------------------------------------------------------

@dataclass(frozen=True)
class Worded:
    """One statement as worded: its level, label, type, final text and template."""

    level: str
    label: bool
    type: str
    text: str
    template: str
    paraphrase: Mapping[str, Any] | None


def worded(items: Iterable[Mapping[str, Any]]) -> list[Worded]:
    """Every statement of ``items`` (JSON dicts), in order (:class:`UserError` naming the
    item and statement whose ``paraphrase`` record has no template text)."""
    found = []
    for item in items:
        for number, s in enumerate(item.get("statements") or (), start=1):
            record = s.get("paraphrase")
            found.append(Worded(str(item.get("difficulty")), bool(s["label"]), str(s["type"]),
                                s["text"], _template(item, number, s), record))
    return found


def _template(item: Mapping[str, Any], number: int, statement: Mapping[str, Any]) -> str:
    """The statement's template text: its paraphrase record's, or its text."""
    record = statement.get("paraphrase")
    if record is None:
        return str(statement["text"])
    template = record.get("template") if isinstance(record, Mapping) else None
    if not isinstance(template, str) or not template:
        raise UserError(f"item {item.get('id')}, statement {number}: paraphrase.template is "
                        "not a text")
    return template


def word_count(text: str) -> int:
    """The words of ``text``: its whitespace-separated pieces holding a letter or digit."""
    return sum(1 for piece in text.split() if any(c.isalnum() for c in piece))


@dataclass(frozen=True)
class Spread:
    """A mean and a median."""

    mean: float
    median: float


def _spread(values: Sequence[float]) -> Spread | None:
    return Spread(statistics.fmean(values), statistics.median(values)) if values else None


@dataclass(frozen=True)
class LevelWords:
    """Words per statement at one level: of the final texts, of the templates, FCMR's."""

    level: str
    statements: int
    text: float
    template: float
    fcmr: float | None


def words_by_level(statements: Sequence[Worded]) -> list[LevelWords]:
    """Mean words per statement at each level present, in Easy, Medium, Hard order."""
    rows = []
    for level in LEVELS:
        at = [s for s in statements if s.level == level]
        if at:
            rows.append(LevelWords(level, len(at),
                                   statistics.fmean(word_count(s.text) for s in at),
                                   statistics.fmean(word_count(s.template) for s in at),
                                   FCMR_WORDS.get(level)))
    return rows


# -- surface cues ------------------------------------------------------------------------------

#: Words that negate outright (the rest of the verifier's negating words hedge or qualify).
NEGATORS = frozenset({"not", "no", "nor", "never", "neither", "none", "nobody", "nothing",
                      "nowhere", "cannot", "without"})
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _phrases(*keys: str) -> tuple[tuple[str, ...], ...]:
    """The word-map phrases of ``keys`` (every sense), as word tuples."""
    return tuple(tuple(phrase.split()) for key in keys for sense in WORD_SENSES[key].values()
                 for phrase in sorted(sense))


_SUPERLATIVES = _phrases("order") + (("best",), ("worst",))
_COMPARISONS = _phrases("cmp")
_DIRECTIONS = _phrases("direction", "direction_verb")


def _says(words: Sequence[str], phrases: Iterable[tuple[str, ...]]) -> bool:
    """Whether ``words`` hold one of ``phrases`` (a run of whole words)."""
    joined = f" {' '.join(words)} "
    return any(f" {' '.join(phrase)} " in joined for phrase in phrases)


def _negation(words: Sequence[str]) -> bool:
    return any(w in NEGATORS or w.endswith("n't") for w in negating(words))


def _hedge(words: Sequence[str]) -> bool:
    return any(w not in NEGATORS and not w.endswith("n't") for w in negating(words))


@dataclass(frozen=True)
class Cue:
    """A surface feature of a statement's text: a yes/no (``share``) or a count (``mean``)."""

    name: str
    kind: str
    measure: Callable[[str, list[str]], float]
    """The cue of a text, given the text and its words (:func:`words_of`)."""


#: The cues measured, in report order.
CUES: tuple[Cue, ...] = (
    Cue("negation (not, no, never, n't, ...)", "share",
        lambda text, words: float(_negation(words))),
    Cue("hedge or qualifier (may, if, but, ...)", "share",
        lambda text, words: float(_hedge(words))),
    Cue("'only'", "share", lambda text, words: float("only" in words)),
    Cue("superlative (highest, least, ...)", "share",
        lambda text, words: float(_says(words, _SUPERLATIVES))),
    Cue("comparison (greater than, below, ...)", "share",
        lambda text, words: float(_says(words, _COMPARISONS))),
    Cue("direction (increased, falling, ...)", "share",
        lambda text, words: float(_says(words, _DIRECTIONS))),
    Cue("numbers written", "mean", lambda text, words: float(len(_NUMBER.findall(text)))),
    Cue("length in words", "mean", lambda text, words: float(word_count(text))),
)


@dataclass(frozen=True)
class CueRow:
    """One cue among true and among false statements, and the test of their difference."""

    cue: str
    kind: str
    true: float
    false: float
    p: float
    """Two-sided permutation p-value (1.0 when the cue is the same in every statement)."""
    separates: bool


@dataclass(frozen=True)
class CueBalance:
    """Every cue's rate per label, and which separate the labels beyond chance."""

    statements: int
    true: int
    false: int
    permutations: int
    seed: int
    alpha: float
    tested: int
    """Cues that vary between statements (the Bonferroni divisor)."""
    rows: tuple[CueRow, ...]

    def verdict(self) -> str:
        """One line: that no cue separates the labels, or each cue that does, with its two
        rates."""
        leaks = [row for row in self.rows if row.separates]
        if not self.true or not self.false:
            return "surface cues not tested: every statement has the same label"
        if not leaks:
            return "no cue separates the labels beyond chance"
        return "; ".join(f"the cue {row.cue} separates the labels: {_cue_value(row, row.true)}"
                         f" of true statements, {_cue_value(row, row.false)} of false (p = "
                         f"{row.p:.4f}, below {self.alpha:g} over {self.tested} cues)"
                         for row in leaks)


def _cue_value(row: CueRow, value: float) -> str:
    return f"{100 * value:.1f}%" if row.kind == "share" else f"a mean of {value:.1f}"


def _permuted_within(labels: np.ndarray, strata: np.ndarray, rng: np.random.Generator,
                     count: int) -> np.ndarray:
    """``count`` copies of ``labels``, each shuffled within every stratum."""
    draws = np.tile(labels, (count, 1))
    for stratum in np.unique(strata):
        where = np.flatnonzero(strata == stratum)
        draws[:, where] = rng.permuted(draws[:, where], axis=1)
    return draws


def _difference(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Mean of each column of ``values`` over true statements minus over false, per row of
    ``labels`` (or for the one labelling ``labels``)."""
    true = labels.sum(axis=-1, keepdims=True)
    difference: np.ndarray = (labels @ values) / true \
        - ((1 - labels) @ values) / (labels.shape[-1] - true)
    return difference


#: Label permutations drawn at once (memory: this many copies of the labels).
_BATCH = 200


def _extreme_counts(values: np.ndarray, labels: np.ndarray, strata: np.ndarray,
                    rng: np.random.Generator, permutations: int) -> np.ndarray:
    """Per column of ``values``: how many of ``permutations`` shufflings of ``labels``
    within ``strata`` give a difference at least as large as the observed one."""
    observed = np.abs(_difference(values, labels)) - 1e-12
    counts = np.zeros(values.shape[1], dtype=np.int64)
    for start in range(0, permutations, _BATCH):
        shuffled = _permuted_within(labels, strata, rng, min(_BATCH, permutations - start))
        counts += (np.abs(_difference(values, shuffled)) >= observed).sum(axis=0)
    return counts


def cue_balance(statements: Sequence[Worded], *, seed: int = 0,
                permutations: int = PERMUTATIONS, alpha: float = CUE_ALPHA) -> CueBalance:
    """Each cue of :data:`CUES` among true and false statements' final texts; a cue separates
    the labels when the permutation test (labels shuffled within each statement type, from
    the stream ``audit/cues`` of ``seed``) gives a p-value below ``alpha`` over the cues
    tested."""
    labels = np.array([s.label for s in statements], dtype=float)
    true = int(labels.sum())
    false = len(statements) - true
    read = [(s.text, words_of(s.text)) for s in statements]
    values = np.array([[cue.measure(text, words) for text, words in read] for cue in CUES],
                      dtype=float).reshape(len(CUES), len(statements))
    varies = [bool(len(statements)) and bool(np.ptp(row) > 0) for row in values]
    tested = sum(varies)
    p_values = [1.0] * len(CUES)
    if true and false and tested:
        types = {kind: n for n, kind in enumerate(sorted({s.type for s in statements}))}
        strata = np.array([types[s.type] for s in statements])
        rng = derive(seed, "audit", "cues", len(statements))
        extreme = _extreme_counts(values.T, labels, strata, rng, permutations)
        p_values = [float((1 + e) / (1 + permutations)) if v else 1.0
                    for e, v in zip(extreme, varies, strict=True)]
    rows = []
    for cue, row, p in zip(CUES, values, p_values, strict=True):
        on_true = float(row[labels == 1].mean()) if true else math.nan
        on_false = float(row[labels == 0].mean()) if false else math.nan
        rows.append(CueRow(cue.name, cue.kind, on_true, on_false, p,
                           bool(tested) and p < alpha / tested))
    return CueBalance(len(statements), true, false, permutations, seed, alpha, tested,
                      tuple(rows))


# -- the whole measurement ---------------------------------------------------------------------

@dataclass(frozen=True)
class WordingReport:
    """How a dataset's statements are worded: paraphrases, words per level, cues per label."""

    statements: int
    paraphrased: int
    """Statements with a ``paraphrase`` record."""
    kept: int
    """Of those, the ones whose text is a paraphrase (the rest kept their template)."""
    fallback: int
    wpd: Spread | None
    """Of the kept paraphrases against their templates (``None``: none kept)."""
    ld: Spread | None
    words: tuple[LevelWords, ...]
    cues: CueBalance

    def render(self) -> str:
        """The report as ``gen audit`` prints it, after the solvers."""
        lines = [f"wording: {self.statements} statements, {self.paraphrased} with a paraphrase "
                 f"record ({self.kept} kept, {self.fallback} kept their template)"]
        lines += self._diversity_lines() + [""] + self._word_lines() + [""] + self._cue_lines()
        return "\n".join(lines)

    def _diversity_lines(self) -> list[str]:
        if self.wpd is None or self.ld is None:
            return ["paraphrase diversity: no kept paraphrase (WPD and LD not measured)"]
        names = list(REFERENCE_DIVERSITY)
        lines = ["paraphrase diversity of the kept paraphrases against their templates "
                 "(Liu and Soh 2022; FCMR Table 6):",
                 f"{'':<6}{'mean':>8}{'median':>8}" + "".join(f"{n:>8}" for n in names)]
        for index, (name, spread) in enumerate((("WPD", self.wpd), ("LD", self.ld))):
            lines.append(f"{name:<6}{spread.mean:>8.3f}{spread.median:>8.3f}"
                         + "".join(f"{REFERENCE_DIVERSITY[n][index]:>8.2f}" for n in names))
        return lines

    def _word_lines(self) -> list[str]:
        lines = ["words per statement:",
                 f"{'level':<8}{'n':>6}{'text':>8}{'template':>10}{'FCMR':>8}"]
        lines += [f"{row.level:<8}{row.statements:>6}{row.text:>8.1f}{row.template:>10.1f}"
                  f"{'-' if row.fcmr is None else f'{row.fcmr:.1f}':>8}" for row in self.words]
        return lines

    def _cue_lines(self) -> list[str]:
        cues = self.cues
        lines = [f"surface cues per label in the final texts ({cues.true} true, {cues.false} "
                 f"false; permutation test within statement types, {cues.permutations} draws, "
                 f"seed {cues.seed}):",
                 f"{'cue':<40}{'true':>10}{'false':>10}{'p':>8}"]
        for row in cues.rows:
            lines.append(f"{row.cue:<40}{_cell(row, row.true):>10}{_cell(row, row.false):>10}"
                         f"{row.p:>8.4f}")
        lines.append(cues.verdict())
        return lines


def _cell(row: CueRow, value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{100 * value:.1f}%" if row.kind == "share" else f"{value:.2f}"


def measure_wording(items: Iterable[Mapping[str, Any]], *, seed: int = 0) -> WordingReport:
    """Paraphrase diversity, words per statement and cue balance of ``items`` (JSON dicts)."""
    statements = worded(items)
    paraphrased = [s for s in statements if s.paraphrase is not None]
    kept = [s for s in paraphrased if s.paraphrase and s.paraphrase.get("kept") is not None]
    return WordingReport(
        statements=len(statements), paraphrased=len(paraphrased), kept=len(kept),
        fallback=len(paraphrased) - len(kept),
        wpd=_spread([wpd(s.template, s.text) for s in kept]),
        ld=_spread([ld(s.template, s.text) for s in kept]),
        words=tuple(words_by_level(statements)),
        cues=cue_balance(statements, seed=seed))


def diversity_section(items: Iterable[Mapping[str, Any]]) -> str | None:
    """The dataset card's subsection "How the statements read" of ``items`` (JSON dicts),
    under its "Paraphrases" section: WPD and LD beside FCMR's Table 6, words per statement by
    level beside FCMR's, and the cue-balance verdict; ``None`` when no statement carries a
    paraphrase record."""
    report = measure_wording(items)
    if not report.paraphrased:
        return None
    lines = ["### How the statements read", ""]
    if report.wpd is not None and report.ld is not None:
        names = list(REFERENCE_DIVERSITY)
        lines += ["Diversity of the kept paraphrases against their templates (Liu and Soh, "
                  "2022; higher is more diverse), beside FCMR's Table 6:", "",
                  "| measure | mean | median | " + " | ".join(names) + " |",
                  "|---|---|---|" + "---|" * len(names)]
        for index, (name, spread) in enumerate((("WPD (word position deviation)", report.wpd),
                                                ("LD (lexical deviation)", report.ld))):
            lines.append(f"| {name} | {spread.mean:.3f} | {spread.median:.3f} | "
                         + " | ".join(f"{REFERENCE_DIVERSITY[n][index]:.2f}" for n in names)
                         + " |")
        lines.append("")
    lines += ["Words per statement:", "",
              "| level | statements | final text | template | FCMR |", "|---|---|---|---|---|"]
    lines += [f"| {row.level} | {row.statements} | {row.text:.1f} | {row.template:.1f} | "
              f"{'–' if row.fcmr is None else f'{row.fcmr:.1f}'} |" for row in report.words]
    lines += ["", f"Surface cues per label in the final texts (`gen audit`): "
                  f"{report.cues.verdict()}."]
    return "\n".join(lines)
