"""MMTabReal's published answer scores, reproduced: ``gen eval --metric mmtabreal``.

MMTabReal's ``Eval/eval.py`` scores a short answer against its gold by bags of words, not by
value. Both sides are lowercased; every ASCII punctuation character is *deleted* (so ``-12``
reads ``12`` and ``12.5`` reads ``125``); the text is split on whitespace; NLTK's English
stop words are dropped (``no``, ``not`` and ``all`` among them); each word is Porter-stemmed
(NLTK's extended mode). Then:

- **EM** (``mmtabreal_em``): the two *sets* of words are equal (order and repeats ignored; two
  answers of stop words only are equal);
- **SS** (``mmtabreal_ss``): the larger of the share of predicted words that are a character
  substring of some gold word and the share of gold words that are one of some predicted
  word (0 when either side has no word left);
- **F1** (``mmtabreal_f1``): token F1 over the two *multisets* of words.

An empty prediction scores 0 on all three. These are the published figures' definitions,
kept exactly — including where they differ from hopvista's own ``em`` / ``ss`` / ``f1``
(docs/eval.md lists the cases) — so that a score can be set beside the paper's.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from hopvista.model import Item

METRIC_NAMES = ("mmtabreal_em", "mmtabreal_ss", "mmtabreal_f1")

_NLTK_ENGLISH = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that
these those am is are was were be been being have has had having do does did doing a an the and
but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here
there when where why how all any both each few more most other some such no nor not only own
same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn
doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn
"""
STOP_WORDS = frozenset(_NLTK_ENGLISH.split())
"""NLTK's English stop words (nltk_data ``corpora/stopwords/english``, from Snowball) that
can match: the corpus's entries holding an apostrophe never do, as the apostrophe is deleted
before the lookup. Shipped here because NLTK downloads its corpus at run time."""

_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")


@cache
def _stemmer() -> Callable[[str], str]:
    from nltk.stem.porter import PorterStemmer  # imported here: it takes a second

    return PorterStemmer().stem  # type: ignore[no-any-return]


def words(text: str) -> list[str]:
    """``text`` as MMTabReal's ``preprocess_text`` leaves it: lowercased, ASCII punctuation
    deleted, stop words dropped, Porter-stemmed — as a list of words."""
    stem = _stemmer()
    plain = _PUNCTUATION.sub("", text.lower())
    return [stem(word) for word in plain.split() if word not in STOP_WORDS]


def exact_match(gold: str, prediction: str) -> float:
    """MMTabReal's EM: the sets of words are equal."""
    return float(set(words(gold)) == set(words(prediction)))


def substring_match(gold: str, prediction: str) -> float:
    """MMTabReal's SS: the larger of the two shares of words found inside the other side's."""
    golds, preds = set(words(gold)), set(words(prediction))
    if not golds or not preds:
        return 0.0
    in_gold = sum(any(p in g for g in golds) for p in preds) / len(preds)
    in_prediction = sum(any(g in p for p in preds) for g in golds) / len(golds)
    return max(in_gold, in_prediction)


def token_f1(gold: str, prediction: str) -> float:
    """MMTabReal's F1: harmonic mean of precision and recall of the multisets of words."""
    golds, preds = words(gold), words(prediction)
    common = sum((Counter(golds) & Counter(preds)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(preds), common / len(golds)
    return 2 * precision * recall / (precision + recall)


def mmtabreal_metrics(gold: str, prediction: str) -> dict[str, float]:
    """The three scores of ``prediction`` against ``gold``, 0 for an empty prediction."""
    if not prediction:
        return dict.fromkeys(METRIC_NAMES, 0.0)
    return {"mmtabreal_em": exact_match(gold, prediction),
            "mmtabreal_ss": substring_match(gold, prediction),
            "mmtabreal_f1": token_f1(gold, prediction)}


def gold_text(item: Item) -> str:
    """The item's answer as MMTabReal's script reads a gold value: ``str()`` of the value as
    the dataset holds it (a number as written, a list in its brackets), a boolean as
    ``Yes`` / ``No``."""
    answer: Any = item.answer
    if isinstance(answer, bool):
        return "Yes" if answer else "No"
    return str(answer)


def score(item: Item, response: str, parsed: Any, rule: str | None) -> dict[str, float]:
    """The three scores of the reply ``response`` to ``item`` (:func:`prediction_text`)."""
    return mmtabreal_metrics(gold_text(item), prediction_text(response, parsed, rule))


def prediction_text(response: str, parsed: Any, rule: str | None) -> str:
    """What MMTabReal's script would score of a reply: the answer the parser read, or the
    whole reply when it found no answer in it (no marker, JSON or box: its last line)."""
    if parsed is None or rule in (None, "last line", "unparseable", "unscorable"):
        return response.strip()
    return parsed if isinstance(parsed, str) else str(parsed)
