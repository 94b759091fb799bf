"""Facts extracted from document chunks by an LLM, kept only where the chunk proves them.

``gen build ... --llm-facts MODEL`` asks the model, once per chunk of the world's documents,
for checkable claims about the chunk's entity as JSON (``templates/prompts/facts.j2``, or a
pack's ``prompts/facts.j2``): ``{"facts": [{"claim": ..., "needle": ...}]}``. The model only
proposes; each claim is held to the rules the rule-based extractors obey and kept only when
all hold (:func:`claim_problem`):

- the claim is a third-person predicate that can follow any entity's name ("operates 1,234
  stores in 12 countries"), and the needle is a short phrase of the chunk, copied verbatim;
- every number, date and proper name of the claim occurs in that chunk;
- the claim names neither the entity (nor "the <noun>") nor any other entity of the world;
- it negates or hedges nothing the chunk's sentence stating it does not
  (:func:`hopvista.verify.meaning.negating`), and it keeps the needle's distinctive tokens
  (what ``gen verify`` requires of a statement's wording of a fact);
- it writes none of the entity's table values (the table would decide it);
- no other entity's text contains the needle (the rule FC statements draw facts by:
  :func:`hopvista.generation.instance.usable_facts`).

A reply that is not JSON of that shape, and each claim that breaks a rule, is dropped and
counted by reason in the world's provenance (``source.llm_facts`` in the manifest).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from os import PathLike
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.generation.instance import needle_occurs
from hopvista.llm.client import LlmClient, LlmReplyError, LlmRequestError, LlmSpec, Usage
from hopvista.llm.prompts import PromptTemplate, prompt_template
from hopvista.llm.settings import (
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    LlmRun,
    check_limits,
    checked_model,
    checked_url,
    open_cache,
    price_table,
)
from hopvista.program.stated_numbers import stated_values
from hopvista.reading import as_read
from hopvista.sources.prose.names import entity_names
from hopvista.sources.prose.words import is_adverb, verb_like, words
from hopvista.sources.sec.facts import name_forms, normalise_needle
from hopvista.verify.meaning import negating, unreadable, words_of
from hopvista.verify.wording import fact_problem, needle_tokens
from hopvista.world import Chunk, Entity, Fact, World

__all__ = ["CLAIMS_PER_CHUNK", "DROP_REASONS", "FACTS_PARAMETERS", "FACT_DRAWS",
           "LLM_FACT_KIND", "ChunkRules", "Claim", "FactTally", "FactsSettings", "ask_claims",
           "chunk_rules", "chunk_variables", "claim_problem", "facts_world", "kept_facts",
           "llm_facts_notices", "parse_claims", "with_llm_facts"]

#: The most claims one chunk is asked for (and the most read from one reply).
CLAIMS_PER_CHUNK = 5
#: How many draws a chunk is asked for at most while its replies are not the JSON asked for.
FACT_DRAWS = 2
#: What each fact-extraction request is sent with.
FACTS_PARAMETERS: dict[str, Any] = {"temperature": 0}
#: The kind of every fact an LLM proposed (its key is ``llm:<normalised needle>``).
LLM_FACT_KIND = "llm"
MAX_CLAIM_WORDS = 45
MAX_NEEDLE_WORDS = 10

#: Why a claim (or a whole reply) was dropped, as the provenance counts it.
DROP_REASONS: dict[str, str] = {
    "malformed_reply": "the reply was not JSON of the asked shape",
    "not_predicate": "not a third-person predicate",
    "unreadable": "invisible characters or look-alike letters",
    "needle_not_verbatim": "the needle is not a phrase of the chunk",
    "needle_not_distinctive": "the needle is too short, too long or has no distinctive word",
    "number_not_in_chunk": "a number of the claim is not in the chunk",
    "name_not_in_chunk": "a name or date of the claim is not in the chunk",
    "names_entity": "the claim names its own entity",
    "names_other_entity": "the claim names another entity",
    "negation_added": "a negation or hedge the chunk's sentence lacks",
    "loses_needle": "the claim lacks the needle's numbers or names",
    "states_table_value": "the claim writes a value of the table",
    "other_entity_text": "another entity's text contains the needle",
    "duplicate": "the same needle as a fact already kept",
}


@dataclass(frozen=True)
class Claim:
    """One claim an LLM proposed: a third-person predicate and its verbatim needle."""

    claim: str
    needle: str


def _text_field(entry: Mapping[str, Any], key: str, k: int) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"fact {k + 1}: {key!r} must be a non-empty string")
    return " ".join(value.split())


def parse_claims(reply: Any) -> tuple[Claim, ...]:
    """The claims of a parsed JSON reply: ``{"facts": [{"claim": ..., "needle": ...}, ...]}``
    (a bare list of such objects too), at most :data:`CLAIMS_PER_CHUNK`.

    Raises :class:`ValueError` for any other shape, so the reply is counted as malformed.
    """
    entries = reply.get("facts") if isinstance(reply, dict) else reply
    if not isinstance(entries, list):
        raise ValueError('expected {"facts": [...]}')
    claims = []
    for k, entry in enumerate(entries[:CLAIMS_PER_CHUNK]):
        if not isinstance(entry, dict):
            raise ValueError(f"fact {k + 1} is not an object")
        claims.append(Claim(_text_field(entry, "claim", k).rstrip("."),
                            _text_field(entry, "needle", k)))
    return tuple(claims)


@dataclass(frozen=True)
class ChunkRules:
    """What the rules need of a chunk's world: the entity's names and table values, the
    other entities' names and texts."""

    chunk: Chunk
    names: tuple[str, ...]
    """The entity's names (display name, aliases), as :func:`entity_names` reads them."""
    nouns: tuple[str, ...]
    ticker: str | None
    others: tuple[tuple[str, ...], ...]
    """Each other entity's names."""
    other_texts: tuple[str, ...]
    values: tuple[tuple[tuple[Decimal, ...], int], ...] = field(default=())
    """The entity's table values, per column, with the column's precision."""


def _aliases(world: World, entity: Entity) -> list[str]:
    """The names a source records for an entity beside its display name (SEC: brands)."""
    companies = world.provenance.get("companies")
    record = companies.get(entity.id) if isinstance(companies, dict) else None
    aliases = record.get("aliases") if isinstance(record, dict) else None
    return [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []


def _names(world: World, entity: Entity) -> tuple[str, ...]:
    return tuple(dict.fromkeys([entity.name, *_aliases(world, entity)]))


def chunk_rules(world: World, chunk: Chunk, nouns: Sequence[str]) -> ChunkRules:
    """The rules' view of ``chunk`` in ``world`` (``nouns``: what the pack calls an entity)."""
    entity = world.entity(chunk.entity)
    values = tuple(
        (tuple(v for v in series if v is not None), world.columns[key].precision)
        for key, series in world.values.get(chunk.entity, {}).items() if key in world.columns)
    return ChunkRules(
        chunk=chunk, names=_names(world, entity), nouns=tuple(nouns),
        ticker=entity.attributes.get("ticker") or None,
        others=tuple(_names(world, e) for e in world.entities if e.id != entity.id),
        other_texts=tuple(c.text for e, chunks in world.chunks.items() if e != entity.id
                          for c in chunks),
        values=values)


_FIRST_PERSON = re.compile(r"\b(?:we|us|our|ours|I|my|me|you|your)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NUMBER_WORDS = words("""
one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety
hundred thousand million billion trillion dozen
""")
_PROPER = re.compile(r"(?<![\w'’])[A-Z][\w'’&.\-]*|\b\w*[a-z][A-Z]\w*")


def _verb_first(words: Sequence[str]) -> bool:
    """Whether the claim's first word, after at most two adverbs ("also", "subsequently"), is
    a finite verb for a third-person subject."""
    k = 0
    while k < min(2, len(words) - 1) and is_adverb(words[k]):
        k += 1
    return verb_like(words[k].strip(",;"), plural_ok=False)


def _predicate_problem(claim: Claim) -> bool:
    words = claim.claim.split()
    return (not 3 <= len(words) <= MAX_CLAIM_WORDS or not claim.claim[:1].islower()
            or not _verb_first(words)
            or _FIRST_PERSON.search(claim.claim) is not None
            or re.search("[\"“”]", claim.claim) is not None)


def _verbatim(needle: str, text: str) -> bool:
    """Whether ``needle`` is a phrase of ``text``: as whole words, and character for character
    as a reader sees both (``gen verify`` finds the sentence that states a fact so)."""
    return needle_occurs(needle, text) and as_read(needle) in as_read(text)


def _distinctive(needle: str) -> bool:
    words = needle.split()
    if not 1 <= len(words) <= MAX_NEEDLE_WORDS or not needle_tokens(needle):
        return False
    return len(words) >= 2 or re.search(r"[a-z][A-Z]|\d", needle) is not None


def _numbers_missing(claim: str, text: str) -> bool:
    numbers = _NUMBER.findall(claim)
    spelled = [w for w in re.findall(r"[a-z]+", claim.lower()) if w in _NUMBER_WORDS]
    return any(not needle_occurs(n.rstrip(".,"), text) for n in [*numbers, *spelled])


def _names_missing(claim: str, text: str) -> bool:
    read = as_read(text).replace("’", "'")
    for match in _PROPER.finditer(claim.replace("’", "'")):
        name = re.sub(r"'s$", "", match.group(0)).rstrip(".'-&")
        if name and re.search(r"(?<!\w)" + re.escape(as_read(name)) + r"(?!\w)", read) is None:
            return True
    return False


@dataclass(frozen=True)
class _NameMatcher:
    """Every form of an entity's names a claim must not contain (:func:`entity_names`'
    ``forbidden`` and :func:`name_forms`), read as :func:`names_in` reads them: a name of
    five letters or more also inside a word, case ignored; a shorter one as a whole word."""

    long: tuple[str, ...]
    short: re.Pattern[str] | None

    def found_in(self, text: str) -> bool:
        """Whether ``text`` contains one of the forms."""
        text = text.replace("’", "'")
        low = text.lower()
        return any(name in low for name in self.long) or (
            self.short is not None and self.short.search(text) is not None)


@functools.lru_cache(maxsize=4096)
def _name_matcher(names: tuple[str, ...], ticker: str | None) -> _NameMatcher:
    forms = {n.replace("’", "'") for n in
             (*entity_names(names, (), "").forbidden, *name_forms(names)) if len(n) >= 2}
    short = [r"(?i:(?<!\w)" + re.escape(n) + r"(?!\w))" for n in sorted(forms) if len(n) < 5]
    if ticker:
        short.append(r"(?<![\w$])" + re.escape(ticker) + r"(?!\w)")
    return _NameMatcher(tuple(sorted({n.lower() for n in forms if len(n) >= 5})),
                        re.compile("|".join(short)) if short else None)


@functools.lru_cache(maxsize=256)
def _noun_pattern(nouns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not nouns:
        return None
    return re.compile(r"\bthe\s+(?:" + "|".join(re.escape(n) for n in nouns) + r")\b",
                      re.IGNORECASE)


def _names_entity(text: str, names: tuple[str, ...], nouns: tuple[str, ...],
                  ticker: str | None) -> bool:
    """Whether ``text`` names the entity of ``names`` (or says "the <noun>" of ``nouns``)."""
    nouns_said = _noun_pattern(nouns)
    return _name_matcher(names, ticker).found_in(text) or (
        nouns_said is not None and nouns_said.search(text) is not None)


def _sentence_negations(needle: str, text: str) -> set[str]:
    """The negating words of the chunk's sentences that contain ``needle`` (as ``gen verify``
    splits and reads them)."""
    read, phrase = as_read(text), as_read(needle)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", read) if phrase in s]
    return {w for s in sentences or [read] for w in negating(words_of(s))}


def _loses_needle(claim: str, needle: str) -> bool:
    seen = as_read(claim).lower()
    return any(as_read(t).lower() not in seen for t in needle_tokens(needle))


def _states_values(claim: str, values: Iterable[tuple[tuple[Decimal, ...], int]]) -> bool:
    return any(series and stated_values(claim, series, precision)
               for series, precision in values)


def claim_problem(claim: Claim, rules: ChunkRules) -> str | None:
    """The first rule ``claim`` breaks (a key of :data:`DROP_REASONS`), or ``None`` when the
    chunk proves it and no other entity's text does."""
    text = rules.chunk.text
    if _predicate_problem(claim):
        return "not_predicate"
    if unreadable(claim.claim) is not None or unreadable(claim.needle) is not None:
        return "unreadable"
    if not _verbatim(claim.needle, text):
        return "needle_not_verbatim"
    if not _distinctive(claim.needle):
        return "needle_not_distinctive"
    if _numbers_missing(claim.claim, text):
        return "number_not_in_chunk"
    if _names_missing(claim.claim, text):
        return "name_not_in_chunk"
    both = f"{claim.claim} | {claim.needle}"
    if _names_entity(both, rules.names, rules.nouns, rules.ticker):
        return "names_entity"
    if any(_names_entity(both, names, (), None) for names in rules.others):
        return "names_other_entity"
    if set(negating(words_of(claim.claim))) - _sentence_negations(claim.needle, text):
        return "negation_added"
    if _loses_needle(claim.claim, claim.needle):
        return "loses_needle"
    if _states_values(claim.claim, rules.values):
        return "states_table_value"
    if any(needle_occurs(claim.needle, other) for other in rules.other_texts):
        return "other_entity_text"
    if fact_problem(claim.claim, claim.needle, {"inputs": {"text": [{"text": text}]}}):
        return "negation_added"  # what verify refuses beyond the rules above: a hedge
    return None


class FactTally:
    """Claims asked for, kept and dropped by reason, over all chunks."""

    def __init__(self) -> None:
        self.chunks = 0
        self.claims = 0
        self.kept = 0
        self.dropped: Counter[str] = Counter()

    def to_json(self) -> dict[str, Any]:
        """The tally as the manifest records it (reasons sorted)."""
        return {"chunks": self.chunks, "claims": self.claims, "kept": self.kept,
                "dropped": dict(sorted(self.dropped.items()))}


def kept_facts(claims: Sequence[Claim], rules: ChunkRules, taken: set[str],
               tally: FactTally) -> list[Fact]:
    """The facts of ``claims`` that hold (:func:`claim_problem`), in the reply's order; a
    needle already in ``taken`` (normalised: the entity's facts so far) is a duplicate.
    ``taken`` and ``tally`` are updated."""
    chunk = rules.chunk
    facts = []
    for claim in claims:
        tally.claims += 1
        problem = claim_problem(claim, rules)
        key = normalise_needle(claim.needle)
        if problem is None and key in taken:
            problem = "duplicate"
        if problem is not None:
            tally.dropped[problem] += 1
            continue
        taken.add(key)
        tally.kept += 1
        sentence = _stating_sentence(claim.needle, chunk.text)
        facts.append(Fact(entity=chunk.entity, chunk=chunk.id, kind=LLM_FACT_KIND,
                          key=f"{LLM_FACT_KIND}:{key}", needle=claim.needle,
                          claim=claim.claim, sentence=sentence))
    return facts


def _stating_sentence(needle: str, text: str) -> str:
    """The sentence of ``text`` that holds ``needle`` (the whole text if none alone does)."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        if needle in sentence:
            return sentence.strip()
    return text


def chunk_variables(world: World, chunk: Chunk, pack: DomainPack) -> dict[str, Any]:
    """The variables of ``facts.j2`` for one chunk."""
    entity = pack.spec.entity
    return {"text": chunk.text, "name": world.entity(chunk.entity).name,
            "singular": entity.singular, "plural": entity.plural, "section": chunk.section,
            "limit": CLAIMS_PER_CHUNK}


def ask_claims(client: LlmClient, prompt: str, chunk_id: str) -> tuple[Claim, ...] | None:
    """The claims the model proposes for one chunk; another draw while a reply is not the
    JSON asked for, ``None`` when none of :data:`FACT_DRAWS` is. A request that fails for
    good is a :class:`UserError` naming the chunk (the answers so far stay cached)."""
    for draw in range(FACT_DRAWS):
        try:
            return client.ask_json(prompt, draw=draw, check=parse_claims)
        except LlmReplyError:
            continue
        except LlmRequestError as exc:
            raise UserError(f"--llm-facts {client.spec.model}: chunk {chunk_id}: {exc}; "
                            "run the build again to ask the rest (answers so far are "
                            "cached)") from None
    return None


def _replies(client: LlmClient, prompts: Sequence[tuple[str, str]], concurrency: int
             ) -> list[tuple[Claim, ...] | None]:
    """:func:`ask_claims` of each ``(prompt, chunk id)``, ``concurrency`` at a time, in
    order; the first failure cancels what was not asked yet."""
    bar = tqdm(total=len(prompts), desc="facts", unit="chunk", disable=None, file=sys.stderr)
    pool = ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="llm-facts")
    try:
        futures: list[Future[tuple[Claim, ...] | None]] = [
            pool.submit(ask_claims, client, prompt, chunk_id) for prompt, chunk_id in prompts]
        for future in futures:
            future.add_done_callback(lambda _: bar.update())
        return [future.result() for future in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()


def with_llm_facts(world: World, pack: DomainPack, client: LlmClient, prompt: PromptTemplate,
                   *, rule_facts: bool = True, concurrency: int = 1) -> World:
    """``world`` with the facts the model proposes for each of its chunks that hold
    (:func:`claim_problem`), after the rule-based ones (or instead of them, without
    ``rule_facts``); its provenance gains ``llm_facts``: the model, the prompt's SHA-256, what
    was kept and dropped (by reason) and every fact kept."""
    chunks = [chunk for own in world.chunks.values() for chunk in own]
    prompts = [(prompt.render(chunk_variables(world, chunk, pack)), chunk.id)
               for chunk in chunks]
    replies = _replies(client, prompts, concurrency)
    nouns = pack.spec.entity.noun_list()
    tally = FactTally()
    taken: dict[str, set[str]] = {
        entity: {normalise_needle(f.needle) for c in own for f in c.facts} if rule_facts
        else set() for entity, own in world.chunks.items()}
    made: dict[str, list[Fact]] = {}
    for chunk, claims in zip(chunks, replies, strict=True):
        tally.chunks += 1
        if claims is None:
            tally.dropped["malformed_reply"] += 1
            continue
        made[chunk.id] = kept_facts(claims, chunk_rules(world, chunk, nouns),
                                    taken[chunk.entity], tally)
    new_chunks = {
        entity: [dataclasses.replace(
            chunk, facts=(*(chunk.facts if rule_facts else ()), *made.get(chunk.id, ())))
            for chunk in own]
        for entity, own in world.chunks.items()}
    record = {"model": client.spec.model, "prompt_sha256": prompt.sha256,
              "rule_facts": "kept" if rule_facts else "left out", **tally.to_json(),
              "facts": [{"entity": f.entity, "chunk": f.chunk, "needle": f.needle,
                         "claim": f.claim} for c in chunks for f in made.get(c.id, ())]}
    return dataclasses.replace(world, chunks=new_chunks, cache={},
                               provenance={**world.provenance, "llm_facts": record})


def llm_facts_notices(world: World) -> list[str]:
    """What the model's facts gave, where the world has them: one line."""
    record = world.provenance.get("llm_facts")
    if not isinstance(record, dict):
        return []
    dropped = record.get("dropped", {})
    why = ", ".join(f"{n} {DROP_REASONS.get(k, k)}" for k, n in
                    sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0])))
    return [f"llm facts ({record['model']}): {record['chunks']} chunks, {record['claims']} "
            f"claims, {record['kept']} kept" + (f"; dropped: {why}" if why else "")
            + " (manifest.json, source.llm_facts)"]


@dataclass(frozen=True)
class FactsSettings(LlmRun):
    """What a build's LLM fact extraction is asked to do (``--llm-facts MODEL``). Only the
    model, endpoint, parameters, prompt and whether the rule-based facts stay fix the bytes
    (the manifest's ``config.llm.facts``); how it runs (:class:`LlmRun`) does not."""

    spec: LlmSpec
    rule_facts: bool = True
    """Whether the rule-based facts stay beside the model's (``--llm-facts-only``: not)."""

    @classmethod
    def make(cls, model: str | None, *, url: str | None = None, only: bool = False,
             concurrency: int = DEFAULT_CONCURRENCY, cache: str | PathLike[str] | None = None,
             prices: str | PathLike[str] | None = None, timeout: float = DEFAULT_TIMEOUT,
             retries: int = DEFAULT_RETRIES) -> FactsSettings | None:
        """The settings of the flags given, checked (``UserError`` naming the flag); ``None``
        without ``--llm-facts``."""
        if model is None:
            for flag, given in (("--facts-url", url is not None), ("--llm-facts-only", only)):
                if given:
                    raise UserError(f"{flag} applies to LLM fact extraction: give "
                                    "--llm-facts MODEL")
            return None
        check_limits(concurrency, timeout, retries)
        return cls(LlmSpec("facts", checked_model(model, "--llm-facts"),
                           checked_url(url, "--facts-url"), dict(FACTS_PARAMETERS)),
                   rule_facts=not only, concurrency=concurrency,
                   cache=None if cache is None else Path(cache),
                   prices=None if prices is None else Path(prices), timeout=timeout,
                   retries=retries)

    def to_json(self, pack: DomainPack) -> dict[str, Any]:
        """The manifest's ``config.llm.facts``: what fixes the facts (no key)."""
        return self.spec.to_json() | {
            "prompts": {"facts": prompt_template("facts", pack).to_json()},
            "rule_facts": self.rule_facts}


def facts_world(world: World, pack: DomainPack, settings: FactsSettings) -> World:
    """``world`` with the model's facts (:func:`with_llm_facts`) asked through the answer
    cache; what the build needed (requests, tokens, cost: the same on a rerun from the
    cache) goes in its provenance, what this run sent and found cached on stderr."""
    if not pack.spec.documents:
        raise UserError(f"--llm-facts: domain {pack.name!r} has no documents "
                        "(documents: false), so there is no text to extract facts from")
    cache = open_cache(settings.cache)
    prices = price_table(settings.prices)
    usage = Usage()
    client = LlmClient(settings.spec, cache, prices, usage, timeout=settings.timeout,
                       retries=settings.retries)
    made = with_llm_facts(world, pack, client, prompt_template("facts", pack),
                          rule_facts=settings.rule_facts, concurrency=settings.concurrency)
    print(f"gen: LLM requests for facts: {usage.summary()}", file=sys.stderr)
    record = made.provenance["llm_facts"]
    needed = {"usage": usage.to_json(prices).get("facts", {})}
    return dataclasses.replace(made, provenance={
        **made.provenance, "llm_facts": record | needed if isinstance(record, dict) else needed})
