"""Error classes of wrong answers: FCMR's seven and MMTabReal's eight, by rule and by a judge.

``gen eval ... --error-classes`` gives every wrong answer (an answered item that is not
correct) an ``error_classes`` field in its result line::

    {"fcmr": [...], "mmtabreal": [...], "by": "rule" | "judge" | null}

FCMR (section 6.2, Appendix D) sorts failures into :data:`FCMR_CLASSES`, MMTabReal (section 5,
Appendix D) into :data:`MMTABREAL_CLASSES`, each failure under its primary cause; both
papers' annotators did it by hand. Here the classes are decided **by rule** where the run
itself decides them, in this order (the first rule that applies):

1. **unknown**: the answer says the question cannot be answered ("unknown", "cannot be
   determined", "not enough information", "I cannot tell", ...; MMTabReal's Table 10 counts
   these apart). Both lists hold :data:`UNKNOWN`.
2. **the stage protocol** (a result with ``stages``): each statement's first failing stage per
   modality (:data:`STAGE_CLASSES`; the statement type part of that modality picks FCMR's
   trend, ranking, condition or value class).
3. **markup attribution** (``markup_failure``): marker hijacked, coordinate error, logical
   failure (:data:`MARKUP_CLASSES`).
4. **the answer sets**: a three-statement answer naming a strict subset of the true
   statements, a list answer a strict subset of the answer's elements or a text answer a
   strict part of it is a *partial answer*; a strict superset is *extra information*. FCMR
   calls both a condition satisfaction and selection error.

What no rule decides has empty lists and ``"by": null``, unless ``--judge openai:MODEL``
is given: then a judge model is asked (at ``--judge-url``, else at ``--base-url``), with
``templates/prompts/error_judge.j2`` (the item's question, the reference answer, the model's
reply and, for three statements, each statement with its truth and the model's verdict), for
one class of each taxonomy as JSON. Its replies are cached beside the answers (a rerun asks
nothing twice) and costed with the run's prices; the result records its prompt id, tokens
and cost. A reply that is not a JSON object with a
known class of each taxonomy, or a request that fails, leaves the lists empty and says why
in ``"unreadable"``: every such answer is counted once, in the summary's
``judge.unreadable`` (a failed request is asked again by the next run; a cached unreadable
reply is not).

The summary gains ``error_classes`` (:func:`error_summary`): the count of each class, how many
were decided by rule, by the judge or not at all, the share of "unknown" answers, the judge's
requests, tokens and cost, and FCMR's Table 4: per difficulty and modality, the statements
read from it, those judged wrong (a wrong statement counts under every modality it reads) and,
with the stage protocol, those whose first failure lies in it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jinja2

from hopvista import sandbox
from hopvista.errors import UserError
from hopvista.eval.backends import Model, ModelError, Prompt, Reply, load_model, split_spec
from hopvista.eval.cache import ResponseCache, prompt_digest, request_key
from hopvista.eval.openai_model import endpoint
from hopvista.eval.parse import answer_segment
from hopvista.eval.prices import Prices
from hopvista.eval.replies import checked_reply
from hopvista.model import Item
from hopvista.model.answers import element_key, normalise_text, read_json_object, read_list
from hopvista.model.kinds import ITEM_KINDS, THREE_STATEMENT

__all__ = ["FCMR_CLASSES", "MMTABREAL_CLASSES", "UNKNOWN", "ErrorJudge", "classify",
           "error_summary", "judge_model", "rule_classes"]

FCMR_CLASSES: dict[str, str] = {
    "trend assessment": "misreading an increasing or decreasing trend, chiefly in charts",
    "ranking/ordering": "misjudging which entity ranks first or last, or an ordering",
    "condition satisfaction & selection": "failing to find the entities that meet a "
    "condition, misapplying it, or saying none exists when one does",
    "data/value interpretation": "misreading data: sums, negative values, small "
    "differences, magnitudes, confused columns",
    "company/entity confusion": "assigning one company's or entity's data to another",
    "information extraction & reasoning": "extracting a fact wrongly, misunderstanding a "
    "text, or concluding what the details gathered do not support",
    "problem understanding & condition ignoring": "misreading the instructions, considering "
    "only some of the conditions, or ignoring a modality the question needs",
}
"""FCMR's error categories (section 6.2 and Appendix D.1–D.7), with its definitions."""

MMTABREAL_CLASSES: dict[str, str] = {
    "entity disambiguation": "an image is misidentified, so its content is interpreted wrong",
    "entity identification": "an image is not recognised at all",
    "reasoning": "the inputs are identified right but the reasoning over them is flawed",
    "visual attributes": "a visual detail (shape, colour, pattern, marker) is missed or "
    "misread",
    "structure": "rows, columns or the hierarchy of the table are misunderstood",
    "mathematics": "a number is read or computed wrong (counting, calculation)",
    "partial answer": "the answer is incomplete: an essential part is missing",
    "extra information": "the answer adds details that are wrong or not in the inputs",
}
"""MMTabReal's error types (section 5, (a)–(h)), with its definitions."""

TAXONOMIES = {"fcmr": FCMR_CLASSES, "mmtabreal": MMTABREAL_CLASSES}
UNKNOWN = "unknown"
"""The class of an answer that says the question cannot be answered (in both lists)."""
JUDGE_TEMPLATE = "error_judge"
"""The built-in judge prompt: ``templates/prompts/error_judge.j2``."""
MAX_SHOWN_REPLY = 6000
"""The most characters of a model's reply shown to the judge (its end: where answers are)."""

PARTIAL, EXTRA = "partial answer", "extra information"
SELECTION = "condition satisfaction & selection"
TYPE_MODALITY = {"FC": "text", "AR": "table", "CT": "table", "RK": "chart", "TR": "chart"}
"""The modality each part of a financial statement type (``FC+AR+RK``) reads."""

STAGE_CLASSES: dict[str, tuple[str, str]] = {
    "planning": ("problem understanding & condition ignoring", "reasoning"),
    "identification": ("problem understanding & condition ignoring", "structure"),
    "retrieval": ("data/value interpretation", "mathematics"),
    "reasoning": ("information extraction & reasoning", "reasoning"),
}
"""The classes of a statement's first failing stage, before its statement type refines them
(:func:`_stage_classes`)."""

MARKUP_CLASSES: dict[str, tuple[str, str]] = {
    "marker hijacked": ("company/entity confusion", "visual attributes"),
    "coordinate error": ("data/value interpretation", "structure"),
    "logical failure": ("information extraction & reasoning", "reasoning"),
}
"""The classes of each markup attribution (:func:`hopvista.eval.runner.markup_failure`)."""

_UNKNOWN = re.compile(
    r"\b(unknown|not known|unanswerable|cannot be (?:determined|answered|known|told)|"
    r"can ?not (?:determine|tell|answer|be determined)|can't (?:determine|tell|answer)|"
    r"unable to (?:determine|tell|answer)|(?:not|in)sufficient (?:information|data)|"
    r"not enough (?:information|data)|no (?:information|data) (?:is )?(?:given|available|"
    r"provided))\b", re.I)


@dataclass(frozen=True)
class Classes:
    """The classes of one wrong answer in each taxonomy."""

    fcmr: tuple[str, ...]
    mmtabreal: tuple[str, ...]

    def field(self, by: str | None, **extra: Any) -> dict[str, Any]:
        """The result line's ``error_classes``."""
        return {"fcmr": list(self.fcmr), "mmtabreal": list(self.mmtabreal), "by": by, **extra}


NONE = Classes((), ())


def is_wrong(result: Mapping[str, Any]) -> bool:
    """Whether a result line is a wrong answer (answered, not correct)."""
    return result.get("error") is None and not result.get("correct")


def says_unknown(response: str | None) -> bool:
    """Whether the answer in ``response`` says the question cannot be answered."""
    if not response:
        return False
    segment, _ = answer_segment(response)
    return bool(_UNKNOWN.search(segment))


def rule_classes(item: Item, result: Mapping[str, Any]) -> Classes | None:
    """The classes the rules give the wrong answer of ``result`` (see the module docstring);
    ``None`` when no rule decides them (or the answer is not wrong)."""
    if not is_wrong(result):
        return None
    if says_unknown(result.get("response")):
        return Classes((UNKNOWN,), (UNKNOWN,))
    for rule in (_by_stages, _by_markup, _by_answer_sets):
        found = rule(item, result)
        if found is not None:
            return found
    return None


def _by_stages(item: Item, result: Mapping[str, Any]) -> Classes | None:
    stages = result.get("stages")
    if not isinstance(stages, list):
        return None
    fcmr: list[str] = []
    mmtabreal: list[str] = []
    for entry in stages:
        if not isinstance(entry, dict):
            continue
        number = entry.get("statement")
        statement = item.statements[number - 1] if isinstance(number, int) and \
            1 <= number <= len(item.statements) else None
        kind = statement.type if statement is not None else ""
        failures = entry.get("modalities")
        pairs = [(m, f) for m, f in failures.items() if f is not None] \
            if isinstance(failures, dict) else []
        if not pairs and entry.get("first_failure") is not None:
            pairs = [("", entry["first_failure"])]
        for modality, stage in pairs:
            found = _stage_classes(str(stage), kind, modality)
            if found is not None:
                fcmr.append(found[0])
                mmtabreal.append(found[1])
    if not fcmr:
        return None
    return Classes(tuple(dict.fromkeys(fcmr)), tuple(dict.fromkeys(mmtabreal)))


def _stage_classes(stage: str, statement_type: str, modality: str) -> tuple[str, str] | None:
    """FCMR's and MMTabReal's class of a statement failing at ``stage`` in ``modality``:
    a retrieval or reasoning failure on a trend or ranking part is a trend or ranking error,
    a reasoning failure on a condition part a selection error, on arithmetic a mathematics
    one, a chart misread a visual attribute."""
    if stage not in STAGE_CLASSES:
        return None
    fcmr, mmtabreal = STAGE_CLASSES[stage]
    parts = [p for p in statement_type.split("+") if TYPE_MODALITY.get(p) == modality] \
        if modality else statement_type.split("+")
    part = parts[0] if len(parts) == 1 else ""
    if stage in ("retrieval", "reasoning"):
        fcmr = {"TR": "trend assessment", "RK": "ranking/ordering"}.get(part, fcmr)
        if part == "FC":
            fcmr = "information extraction & reasoning"
    if stage == "retrieval" and modality == "chart":
        mmtabreal = "visual attributes"
    if stage == "retrieval" and modality == "text":
        mmtabreal = "reasoning"
    if stage == "reasoning" and part == "CT":
        fcmr = SELECTION
    if stage == "reasoning" and part == "AR":
        fcmr, mmtabreal = "data/value interpretation", "mathematics"
    return fcmr, mmtabreal


def _by_markup(item: Item, result: Mapping[str, Any]) -> Classes | None:
    found = MARKUP_CLASSES.get(str(result.get("markup_failure")))
    return None if found is None else Classes((found[0],), (found[1],))


def _by_answer_sets(item: Item, result: Mapping[str, Any]) -> Classes | None:
    parsed = result.get("parsed")
    if parsed is None:
        return None
    relation = _relation(item, parsed)
    if relation is None:
        return None
    return Classes((SELECTION,), (relation,))


def _relation(item: Item, parsed: Any) -> str | None:
    """:data:`PARTIAL` or :data:`EXTRA` when the answer is a strict part or a strict
    superset of the item's; ``None`` otherwise (or when the answer type has no parts)."""
    if item.kind == THREE_STATEMENT.name:
        if not isinstance(parsed, list) or not isinstance(item.answer, list):
            return None
        said, truth = set(parsed), set(item.answer)
    elif item.answer_type == "list":
        said = {element_key(e) for e in read_list(parsed)}
        truth = {element_key(e) for e in read_list(item.answer)}
    elif item.answer_type == "text" and isinstance(parsed, str):
        shown, gold = normalise_text(parsed), normalise_text(str(item.answer))
        if shown and shown != gold and f" {shown} " in f" {gold} ":
            return PARTIAL
        if gold and shown != gold and f" {gold} " in f" {shown} ":
            return EXTRA
        return None
    else:
        return None
    if said < truth:
        return PARTIAL
    if said > truth:
        return EXTRA
    return None


# -- the judge --------------------------------------------------------------------------------


def judge_model(spec: str, options: Mapping[str, str], url: str | None = None) -> Model:
    """The judge ``--judge`` names: ``openai:MODEL`` at ``url`` (``--judge-url``), else at
    the run's ``--base-url``, with the run's ``timeout`` and ``max_retries``; ``UserError``
    naming the flag for anything else."""
    name, given = split_spec(spec)
    if name != "openai" or not given.get("model"):
        raise UserError(f"--judge {spec[:80]!r}: expected openai:MODEL")
    sent = {key: value for key, value in options.items()
            if key in ("base_url", "timeout", "max_retries")}
    if url is not None:
        sent["base_url"] = endpoint(url, "--judge-url")
    model = load_model(name, {**sent, **given})
    if not isinstance(model, Model):
        raise UserError(f"--judge {spec[:80]!r}: not a model that answers prompts")
    return model


_ENV = sandbox.PackEnvironment(keep_trailing_newline=False, trim_blocks=False)


@lru_cache(maxsize=4)
def _template(source: str) -> jinja2.Template:
    return _ENV.from_string(source)


def judge_prompt(item: Item, result: Mapping[str, Any], template: str) -> Prompt:
    """What the judge is asked about the wrong answer of ``result`` (text only)."""
    response = str(result.get("response") or "")
    parsed = result.get("parsed")
    predicted = {k: s.get("predicted") for k, s in enumerate(result.get("statements") or ())}
    variables = {
        "question": item.question,
        "reference": ITEM_KINDS.get(item.kind).reference(item),
        "response": response[-MAX_SHOWN_REPLY:],
        "parsed": None if parsed is None else
        parsed if isinstance(parsed, str) else json.dumps(parsed, ensure_ascii=False),
        "statements": [{"number": k + 1, "text": s.text, "type": s.type,
                        "modalities": list(s.modalities), "label": s.label,
                        "predicted": predicted.get(k)} for k, s in enumerate(item.statements)],
        "fcmr_classes": [{"name": n, "definition": d} for n, d in FCMR_CLASSES.items()],
        "mmtabreal_classes": [{"name": n, "definition": d} for n, d in
                              MMTABREAL_CLASSES.items()],
    }
    try:
        text = _template(template).render(**variables)
    except sandbox.TEMPLATE_ERRORS as exc:
        raise UserError(f"{item.id}: error judge template: "
                        f"{sandbox.describe(exc, sorted(variables))}") from None
    return Prompt((text,))


def read_verdict(text: str) -> Classes | str:
    """The classes in a judge's reply, or why it cannot be read (``"not JSON"``,
    ``"unknown fcmr class"``, ...)."""
    found = read_json_object(text)
    if found is None:
        return "not JSON"
    picked: dict[str, str] = {}
    for taxonomy, classes in TAXONOMIES.items():
        value = found.get(taxonomy)
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, str):
            return f"no {taxonomy} class"
        name = " ".join(value.lower().split())
        if name not in classes:
            return f"unknown {taxonomy} class"
        picked[taxonomy] = name
    return Classes((picked["fcmr"],), (picked["mmtabreal"],))


@dataclass(frozen=True)
class ErrorJudge:
    """A model that labels what the rules leave, its prompt template, where its replies are
    cached and what they cost."""

    model: Model
    spec: str
    template: str
    cache: ResponseCache
    prices: Prices

    def label(self, item: Item, result: Mapping[str, Any]) -> dict[str, Any]:
        """The ``error_classes`` field the judge gives the wrong answer of ``result``."""
        prompt = judge_prompt(item, result, self.template)
        digest = prompt_digest(prompt)
        identity = getattr(self.model, "cache_identity", None)
        key = request_key(identity() if callable(identity) else {"model": self.spec}, digest)
        reply = self.cache.get(key)
        cached = reply is not None
        if reply is None:
            try:
                reply = checked_reply(self.model.answer(prompt))
            except ModelError as exc:
                why = " ".join(str(exc).split())[:200] or type(exc).__name__
                return NONE.field("judge", unreadable=f"request failed: {why}",
                                  judge=_usage(digest, False, None, None))
            self.cache.put(key, reply)
        verdict = read_verdict(reply.text)
        usage = _usage(digest, cached, reply, None if cached else
                       self.prices.cost(self.spec, reply))
        if isinstance(verdict, str):
            return NONE.field("judge", unreadable=verdict, judge=usage)
        return verdict.field("judge", judge=usage)


def _usage(digest: str, cached: bool, reply: Reply | None, cost: float | None
           ) -> dict[str, Any]:
    return {"prompt_id": digest[:16], "cached": cached,
            "tokens": {"input": reply.input_tokens if reply else None,
                       "output": reply.output_tokens if reply else None},
            "cost": cost}


def classify(results: Sequence[dict[str, Any]], items: Sequence[Item],
             judge: ErrorJudge | None = None, concurrency: int = 1) -> list[dict[str, Any]]:
    """``results`` (in the order of ``items``) with ``error_classes`` on every wrong answer
    and each statement's ``modalities``: new lines, the judge asked ``concurrency`` at a time
    for what no rule decides."""
    lines = [_with_modalities(item, result) for item, result in zip(items, results,
                                                                     strict=True)]
    undecided: list[int] = []
    for index, (item, line) in enumerate(zip(items, lines, strict=True)):
        if not is_wrong(line):
            continue
        found = rule_classes(item, line)
        if found is not None:
            line["error_classes"] = found.field("rule")
        elif judge is None:
            line["error_classes"] = NONE.field(None)
        else:
            undecided.append(index)
    if judge is not None and undecided:
        with ThreadPoolExecutor(max_workers=max(1, concurrency),
                                thread_name_prefix="gen-eval-judge") as pool:
            labels = pool.map(lambda i: judge.label(items[i], lines[i]), undecided)
            for index, label in zip(undecided, labels, strict=True):
                lines[index]["error_classes"] = label
    return lines


def _with_modalities(item: Item, result: dict[str, Any]) -> dict[str, Any]:
    line = dict(result)
    if item.statements and isinstance(result.get("statements"), list):
        line["statements"] = [{**entry, "modalities": list(statement.modalities)}
                              for entry, statement in zip(result["statements"],
                                                          item.statements, strict=False)]
    return line


# -- the summary ------------------------------------------------------------------------------


def error_summary(results: Sequence[Mapping[str, Any]], run: Mapping[str, Any]
                  ) -> dict[str, Any] | None:
    """The summary's ``error_classes`` (see the module docstring); ``None`` for a run that
    did not classify its errors."""
    asked = run.get("error_classes")
    if not isinstance(asked, dict):
        return None
    answered = [r for r in results if r.get("error") is None]
    wrong = [r for r in answered if not r.get("correct")]
    fields = [r["error_classes"] for r in wrong if isinstance(r.get("error_classes"), dict)]
    counts = {taxonomy: _counts(fields, taxonomy) for taxonomy in TAXONOMIES}
    unknown = sum(UNKNOWN in (f.get("fcmr") or ()) for f in fields)
    summary: dict[str, Any] = {
        "wrong": len(wrong),
        "by_rule": sum(f.get("by") == "rule" for f in fields),
        "by_judge": sum(f.get("by") == "judge" and not f.get("unreadable") for f in fields),
        "unclassified": sum(not f.get("fcmr") and not f.get("mmtabreal") for f in fields),
        "unknown": unknown,
        "unknown_rate": round(unknown / len(answered), 6) if answered else None,
        **counts,
        "by_modality": _by_modality(answered),
    }
    if asked.get("judge"):
        summary["judge"] = _judge_figures(str(asked["judge"]), fields)
    return summary


def _counts(fields: Sequence[Mapping[str, Any]], taxonomy: str) -> dict[str, int]:
    names = [*TAXONOMIES[taxonomy], UNKNOWN]
    found: dict[str, int] = dict.fromkeys(names, 0)
    for f in fields:
        for name in f.get(taxonomy) or ():
            if name in found:
                found[name] += 1
    return found


def _judge_figures(spec: str, fields: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    asked = [f for f in fields if f.get("by") == "judge"]
    usages = [f.get("judge") or {} for f in asked]
    costs = [u["cost"] for u in usages if isinstance(u.get("cost"), (int, float))]
    reasons: dict[str, int] = defaultdict(int)
    for f in asked:
        if f.get("unreadable"):
            reasons[str(f["unreadable"]).split(":")[0]] += 1
    return {
        "model": spec,
        "asked": len(asked),
        "cached": sum(bool(u.get("cached")) for u in usages),
        "unreadable": sum(reasons.values()),
        "unreadable_kinds": dict(sorted(reasons.items())),
        "tokens": {side: sum((u.get("tokens") or {}).get(side) or 0 for u in usages)
                   for side in ("input", "output")},
        "cost": round(sum(costs), 6) if costs else None,
    }


def _by_modality(answered: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """FCMR's Table 4 per difficulty and modality: statements that read it, those judged
    wrong (or left unjudged), and those whose first failing stage lies in it."""
    table: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for r in answered:
        level = str(r.get("difficulty"))
        failed_in = _failing_modalities(r)
        for k, s in enumerate(r.get("statements") or ()):
            for modality in s.get("modalities") or ():
                cell = table[level].setdefault(modality, {"statements": 0, "wrong": 0,
                                                          "attributed": 0})
                cell["statements"] += 1
                cell["wrong"] += s.get("predicted") != s.get("label")
                cell["attributed"] += modality in failed_in.get(k + 1, ())
    return {level: {m: {**cell, "rate": round(cell["wrong"] / cell["statements"], 6)}
                    for m, cell in sorted(cells.items())}
            for level, cells in sorted(table.items())}


def _failing_modalities(result: Mapping[str, Any]) -> dict[int, set[str]]:
    """Per statement number, the modalities where the stage protocol found a failure."""
    out: dict[int, set[str]] = {}
    for entry in result.get("stages") or ():
        if isinstance(entry, dict) and isinstance(entry.get("modalities"), dict):
            out[entry.get("statement", 0)] = {m for m, f in entry["modalities"].items()
                                              if f is not None}
    return out
