"""``proxy:NAME``: the audit's solvers as models, so a report can put a real model's
``no-chart`` run beside the strongest shortcut on the same items (FCMR Table 8's check).

NAME is ``no-chart``, ``no-table`` or ``no-text`` (each withholds that modality and imputes
it from the others), ``prior`` (label priors) or ``blind`` (the wording classifier); see
:mod:`hopvista.audit`. They are cross-fitted over the evaluated items exactly as ``gen audit``
does (5 folds, seed 0: what an item is answered with was learned on the other folds, never
from its own withheld values), so they answer three-statement items only; any other item is
an error of the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hopvista.audit.blind import solve_blind
from hopvista.audit.data import Margins, with_folds
from hopvista.audit.solvers import solve_no_chart, solve_no_table, solve_no_text, solve_prior
from hopvista.errors import UserError
from hopvista.eval.backends import MODELS, ModelError, check_options
from hopvista.eval.baselines import chart_margins
from hopvista.model import Item
from hopvista.model.dataset import Dataset

FOLDS = 5
SEED = 0
NAMES = ("no-chart", "no-table", "no-text", "prior", "blind")


@MODELS.register("proxy")
class ProxyBaseline:
    """One of ``gen audit``'s solvers."""

    def __init__(self, options: Mapping[str, str]) -> None:
        check_options("proxy", options, ("model",))
        self.name = options.get("model", "")
        if self.name not in NAMES:
            raise UserError(f"--model proxy:NAME: NAME is one of {', '.join(NAMES)}, "
                            f"not {self.name!r}")
        self.answers: dict[str, str] = {}

    def prepare(self, items: Sequence[Item], dataset: Dataset) -> None:
        """Run the solver over ``items``, cross-fitted."""

        margins = Margins(*chart_margins(dataset))
        audited = with_folds([item.model_dump(mode="json") for item in items], FOLDS, SEED)
        if len(audited) < FOLDS:
            raise UserError(f"proxy:{self.name}: needs at least {FOLDS} three-statement "
                            f"items to cross-fit on, got {len(audited)}")
        if self.name == "blind":
            predictions = solve_blind(audited)
        elif self.name == "prior":
            predictions = solve_prior(audited)
        else:
            solver = {"no-chart": solve_no_chart, "no-table": solve_no_table,
                      "no-text": solve_no_text}[self.name]
            predictions = solver(audited, margins)
        for item, answers in zip(audited, predictions, strict=True):
            true = [str(k + 1) for k, answer in enumerate(answers) if answer.label]
            self.answers[str(item.data["id"])] = ", ".join(true) or "none"

    def answer_item(self, item: Item) -> str:
        """The solver's answer for ``item``."""
        if item.id not in self.answers:
            raise ModelError(f"proxy:{self.name} answers three-statement items only")
        return self.answers[item.id]
