"""``BuildConfig``: everything that determines a build's bytes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hopvista.domain import DomainPack, check_columns, resolve_pack
from hopvista.errors import UserError
from hopvista.llm.facts import FactsSettings
from hopvista.llm.settings import ParaphraseSettings
from hopvista.model.balance import LEVEL_NAMES
from hopvista.sources import SOURCES, SourceOptions


@dataclass(frozen=True)
class BuildConfig:
    """Everything that determines a build's bytes (``out`` and ``workers`` do not)."""

    domain: str
    levels: tuple[int, ...] = (1, 2, 3)
    count: int = 48
    seed: int = 0
    source: str | None = None
    images: bool = True
    data: str | None = None
    years: tuple[int, int] | None = None
    periods: int | None = None
    defences: bool = True
    """Whether generation defeats proxy solvers: the proxy-agreement axis of the
    plan. Off only to make a deliberately leaky dataset, e.g. to test ``gen audit``."""
    llm: ParaphraseSettings | None = None
    """The paraphrase stage (``--paraphrase``, ``--judge``), or ``None`` for none."""
    facts: FactsSettings | None = None
    """LLM fact extraction from the world's documents (``--llm-facts``), or ``None``."""
    structures: tuple[str, ...] = ()
    """The structure types items' tables are shown in (``--structure``), shares balanced by
    the plan; none: every table one flat grid, and no item records attributes."""

    def options(self) -> SourceOptions:
        """What the source is told."""
        return SourceOptions(data=Path(self.data) if self.data else None, years=self.years)

    def source_name(self, pack: DomainPack) -> str:
        """The source to build from: ``--source``, else the pack's default."""
        return self.source or pack.spec.source

    def pack(self) -> DomainPack:
        """The domain pack as the build uses it: adapted by its source (a panel's columns
        come from its data) and with ``periods`` applied. Reads from disk only when a file
        changed since the last call (packs and worlds are cached by the callers)."""
        pack = resolve_pack(self.domain)
        pack = SOURCES.get(self.source_name(pack)).pack_for(pack, self.options())
        check_columns(pack)
        if self.periods is None:
            return pack
        if not pack.has_periods:
            raise UserError(f"--periods {self.periods}: domain {pack.name!r} has no period "
                            "axis")
        instance = pack.spec.instance.model_copy(update={"periods": self.periods})
        return replace(pack, spec=pack.spec.model_copy(update={"instance": instance}))

    def to_json(self, pack: DomainPack) -> dict[str, Any]:
        """The config as the manifest records it (the data folder as the user named it)."""
        return {"domain": pack.name, "source": self.source_name(pack),
                "data": self.data, "years": list(self.years) if self.years else None,
                "hops": [LEVEL_NAMES[lv] for lv in self.levels], "count": self.count,
                "seed": self.seed, "images": self.images, "defences": self.defences,
                "instance": pack.spec.instance.model_dump(),
                "decidability": pack.spec.decidability.model_dump(),
                "identities": [identity.text for identity in pack.identities],
                "related": [list(group) for group in pack.spec.related],
                "types_enabled": list(pack.types),
                "wording": pack.wording_json()} | self._llm_json(pack) | (
                    {"structures": list(self.structures)} if self.structures else {})

    def _llm_json(self, pack: DomainPack) -> dict[str, Any]:
        """``llm``: the LLM steps' models, prompts and parameters (nothing without them)."""
        llm = self.llm.to_json(pack) if self.llm is not None else {}
        if self.facts is not None:
            llm = llm | {"facts": self.facts.to_json(pack)}
        return {"llm": llm} if llm else {}
