from __future__ import annotations

import os
from pathlib import Path

import pytest

from hopvista.domain import DomainPack, resolve_pack
from hopvista.sources import load_world
from hopvista.world import World


@pytest.fixture(scope="session")
def pack() -> DomainPack:
    return resolve_pack("financial")


@pytest.fixture(scope="session")
def world(pack: DomainPack) -> World:
    return load_world("synthetic", pack, 11)


@pytest.fixture(scope="session")
def sec_data() -> Path:
    """The real SEC filings (shared/data/sec), found through HOPVISTA_SEC_DATA."""
    value = os.environ.get("HOPVISTA_SEC_DATA")
    if not value:
        pytest.skip("HOPVISTA_SEC_DATA is not set (point it at shared/data/sec)")
    return Path(value)
