"""``BuildConfig``: everything that determines a build's bytes."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hopvista.domain import DomainPack, resolve_pack
from hopvista.plan import LEVEL_NAMES
from hopvista.sources import SourceOptions


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

    def options(self) -> SourceOptions:
        """What the source is told."""
        return SourceOptions(data=Path(self.data) if self.data else None, years=self.years)

    def pack(self) -> DomainPack:
        """The domain pack, with ``periods`` applied."""
        pack = resolve_pack(self.domain)
        if self.periods is None:
            return pack
        instance = pack.spec.instance.model_copy(update={"periods": self.periods})
        return replace(pack, spec=pack.spec.model_copy(update={"instance": instance}))

    def to_json(self, pack: DomainPack) -> dict[str, Any]:
        """The config as the manifest records it (the data folder as the user named it)."""
        return {"domain": pack.name, "source": self.source or pack.spec.source,
                "data": self.data, "years": list(self.years) if self.years else None,
                "hops": [LEVEL_NAMES[lv] for lv in self.levels], "count": self.count,
                "seed": self.seed, "images": self.images,
                "instance": pack.spec.instance.model_dump(),
                "decidability": pack.spec.decidability.model_dump(),
                "identities": [identity.text for identity in pack.identities],
                "wording": {"forms": pack.words.forms, "words": pack.words.words,
                            "nouns": list(pack.spec.entity.nouns),
                            "question": pack.spec.question}}
