"""Paraphrased statements re-proved: the record says how the text came to be, and it holds.

A statement a build paraphrased (``gen build --paraphrase``) records the pack's rendering
(``paraphrase.template``, checked by :mod:`hopvista.verify.wording` as any text is), every
attempt and the guard's checks of the text it kept. ``gen verify`` holds each such statement
to this:

* its text is the syntactic pass of the kept attempt (or the template, no attempt kept);
* the kept attempt passed the guard when it was made, and the judge said "same";
* the guard (:func:`hopvista.verify.guard.guard`), run again on the text against the
  template, passes, and gives the checks the record holds.

The synonyms the guard accepts are the installed pack's when the dataset is that pack's;
otherwise those the manifest records (``config.llm.synonyms``), each judged first by
:mod:`hopvista.verify.meaning`: a word synonym of another sense, or one that negates or
hedges, is refused (reported, and not used), as is a column synonym that negates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hopvista.domain import WORD_MAPS, Synonyms
from hopvista.verify.guard import guard
from hopvista.verify.meaning import negating, phrase_verdict, shown, unreadable, words_of

WHERE = "manifest.json: config.llm.synonyms"
#: What verify does not prove of a paraphrased statement.
PARAPHRASE_NOTE = ("that a kept paraphrase means what its template means beyond what the "
                   "guard checks (values, entities, columns, the senses of its words, "
                   "negations): the judge's verdict is recorded, verify asks no model")
#: Most phrases a recorded list of synonyms may hold.
MAX_SYNONYMS = 64
MAX_PHRASE_CHARS = 200


@dataclass(frozen=True)
class SynonymsVerdict:
    """The recorded synonyms verify accepts, what it refused (``problems``) and what it
    cannot vouch for (``notes``)."""

    synonyms: Synonyms
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _phrases(value: Any) -> list[str] | None:
    if not isinstance(value, list) or len(value) > MAX_SYNONYMS or not all(
            isinstance(p, str) and 0 < len(p) <= MAX_PHRASE_CHARS for p in value):
        return None
    return value


def _column_problem(phrase: str) -> str | None:
    unread = unreadable(phrase)
    if unread is not None:
        return unread
    bad = negating(words_of(phrase))
    return f"holds {bad[0]!r}: a column's name does not negate or hedge" if bad else None


def judge_synonyms(config: Mapping[str, Any]) -> SynonymsVerdict:
    """The synonyms a dataset's manifest records (``config.llm.synonyms``), judged: the
    built-in English ones when it records none."""
    llm = config.get("llm")
    recorded = llm.get("synonyms") if isinstance(llm, Mapping) else None
    if recorded is None:
        return SynonymsVerdict(Synonyms.default())
    if not isinstance(recorded, Mapping) or not isinstance(recorded.get("columns", {}), Mapping) \
            or not isinstance(recorded.get("words", {}), Mapping):
        return SynonymsVerdict(Synonyms.default(), (
            f"{WHERE}: expected {{columns: {{key: [phrase, ...]}}, words: {{map: {{key: "
            "[phrase, ...]}}}}",))
    problems: list[str] = []
    columns: dict[str, tuple[str, ...]] = {}
    for key, value in recorded.get("columns", {}).items():
        phrases = _phrases(value)
        if phrases is None:
            problems.append(f"{WHERE}.columns.{str(key)[:40]}: expected at most "
                            f"{MAX_SYNONYMS} phrases")
            continue
        kept = []
        for i, phrase in enumerate(phrases):
            why = _column_problem(phrase)
            if why is None:
                kept.append(phrase)
            else:
                problems.append(f"{WHERE}.columns.{key}[{i}] {shown(phrase, 40)}: {why}")
        columns[key] = tuple(kept)
    words = Synonyms.default().words
    doubts: list[str] = []
    for name, entries in recorded.get("words", {}).items():
        if name not in WORD_MAPS or not isinstance(entries, Mapping):
            problems.append(f"{WHERE}.words.{str(name)[:40]}: not a word map "
                            f"({', '.join(WORD_MAPS)}) of phrases")
            continue
        for key, value in entries.items():
            phrases = _phrases(value)
            if key not in WORD_MAPS[name] or phrases is None:
                problems.append(f"{WHERE}.words.{name}[{str(key)[:20]!r}]: expected an entry "
                                f"of {', '.join(WORD_MAPS[name])} with at most "
                                f"{MAX_SYNONYMS} phrases")
                continue
            kept = []
            for i, phrase in enumerate(phrases):
                why, known = phrase_verdict(name, key, phrase)
                if why is not None:
                    problems.append(f"{WHERE}.words.{name}[{key!r}][{i}] {shown(phrase, 40)} "
                                    f"{why}: refused, it does not say {key!r}")
                    continue
                kept.append(phrase)
                if not known:
                    doubts.append(f"{name}[{key!r}] {shown(phrase, 40)}")
            words[name][key] = tuple(kept)
    notes = []
    if columns:
        notes.append("whether the column synonyms the manifest records name their columns "
                     "(config.llm.synonyms.columns): checked for negations only")
    if doubts:
        notes.append(f"the meaning of {len(doubts)} word synonym(s) the installed packs do "
                     f"not use ({', '.join(doubts[:3])}{', …' if len(doubts) > 3 else ''}): no "
                     "other sense and no negating word was found")
    return SynonymsVerdict(Synonyms(columns=columns, words=words), tuple(problems),
                           tuple(notes))


def check_paraphrases(item: dict[str, Any], words: Mapping[str, Mapping[str, str]] | None,
                      synonyms: Synonyms) -> list[str]:
    """Each paraphrased statement of ``item``: its text is the kept attempt's (or the
    template), the kept attempt was judged "same", and the guard passes again with the
    recorded checks. One problem each, naming the statement."""
    problems = []
    for n, statement in enumerate(item["statements"], start=1):
        record = statement.get("paraphrase")
        if record is None:
            continue
        where = f"statement {n} ({statement['type']})"
        problems += [f"{where}: {p}" for p in
                     _statement_problems(statement, record, item, words, synonyms)]
    return problems


def _statement_problems(statement: dict[str, Any], record: dict[str, Any],
                        item: dict[str, Any], words: Mapping[str, Mapping[str, str]] | None,
                        synonyms: Synonyms) -> list[str]:
    text, template, kept = statement["text"], record["template"], record["kept"]
    if kept is None:
        if text != template:
            return ["text is not paraphrase.template, though paraphrase.kept is null (no "
                    "attempt kept)"]
        if record["checks"]:
            return ["paraphrase.checks are recorded, though no attempt was kept"]
        return []
    attempt = record["attempts"][kept - 1]
    problems = []
    if text != attempt["syntactic"]:
        problems.append(f"text is not the syntactic pass of the kept attempt {kept}")
    if attempt["guard"]:
        problems.append(f"the kept attempt {kept} failed the guard when it was made "
                        f"({shown(attempt['guard'][0], 60)})")
    judge = attempt.get("judge")
    verdict = judge.get("verdict") if isinstance(judge, dict) else None
    if verdict != "same":
        problems.append(f"the judge said {verdict!r} of the kept attempt {kept}, not 'same'")
    result = guard(text, template, statement, item, words, synonyms)
    problems += [f"the paraphrase {p}" for p in result.problems]
    if not result.problems and list(result.checks) != list(record["checks"]):
        missing = [c for c in result.checks if c not in record["checks"]]
        extra = [c for c in record["checks"] if c not in result.checks]
        problems.append("paraphrase.checks are not the guard's checks of the text (" + (
            f"the guard checks {shown(missing[0], 50)}" if missing else
            f"the guard does not check {shown(extra[0], 50)}" if extra else
            "the same checks in another order or number") + ")")
    return problems
