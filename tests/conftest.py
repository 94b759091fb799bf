from __future__ import annotations

import os

# One thread per test process for BLAS and OpenMP (numpy, scipy, scikit-learn): the tests run
# one process per core, and pools of a thread per core in each process spin against each
# other (an audit's logistic regression takes ten times as long). Set before numpy loads;
# the gen subprocesses that tests start inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.domain import DomainPack, resolve_pack
from hopvista.sources import load_world
from hopvista.themes.tables import RANGE_KEYS, get_theme
from hopvista.world import World

# A bug must show as a traceback in the tests (gen otherwise prints one line and saves the
# traceback to a file), so that "no traceback" checks cannot pass over an internal error.
os.environ["HOPVISTA_TRACEBACK"] = "1"


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


def build_dataset(out: Path, *args: str) -> None:
    """``gen build financial --out OUT ARGS``, which must succeed."""
    assert main(["build", "financial", "--out", str(out), *args]) == 0


def read_items(path: Path) -> list[dict[str, Any]]:
    """The items of a dataset folder."""
    return [json.loads(line) for line in
            (path / "items.jsonl").read_text(encoding="utf-8").split("\n") if line]


def reseal(root: Path, items: list[dict[str, Any]]) -> None:
    """Write ``items`` back into the dataset ``root`` with the Parquet rows, file hashes and
    counts to match: a consistent forgery."""
    import hashlib
    import shutil

    from hopvista.model import Item
    from hopvista.output.parquet import ParquetShards, item_line

    lines = [item_line(Item.model_validate(i)) for i in items]
    (root / "items.jsonl").write_text("".join(line + "\n" for line in lines))
    shutil.rmtree(root / "data")
    shards = ParquetShards(root, len(items))
    for raw, line in zip(items, lines, strict=True):
        shards.add(Item.model_validate(raw), line)
    shards.close()
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["files"] = {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                         for p in sorted(root.rglob("*")) if p.is_file()
                         and p.name != "manifest.json"}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))


def shared_build(tmp_path_factory: pytest.TempPathFactory, name: str, *args: str) -> Path:
    """``gen build financial ARGS`` built once per test run into the run's folder ``name``
    and shared by the xdist workers (under a lock; a build writes its folder atomically, so
    a finished one has its manifest). Tests only read it."""
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    out = root / name / "X"
    with FileLock(str(root / f"{name}.lock")):
        if not (out / "manifest.json").exists():
            build_dataset(out, *args)
    return out


@pytest.fixture(scope="session")
def hard48(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's reference build: 48 Hard items, seed 7, with images. Made by two worker
    processes (the bytes of one), so that a test worker waiting for it lends its core."""
    return shared_build(tmp_path_factory, "hard48", "--hops", "3", "-n", "48", "--seed", "7",
                        "--workers", "2")


@pytest.fixture(scope="session")
def six(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six items of every level with table and chart images (seed 3)."""
    return shared_build(tmp_path_factory, "six", "-n", "6", "--seed", "3")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Chromium launched as gen launches it (skipped, saying why, where there is
    no Playwright driver or no Chromium); closed after the test module."""
    from hopvista.errors import UserError
    from hopvista.render.browser import acquire_playwright, launch_browser, release_playwright

    try:
        playwright = acquire_playwright()
    except Exception as exc:  # pragma: no cover - no Playwright driver
        pytest.skip(f"no Playwright: {exc}")
    try:
        try:
            launched = launch_browser(playwright)
        except UserError as exc:
            pytest.skip(f"no Chromium: {exc}")
        yield launched
        launched.close()
    finally:
        release_playwright()


SHARED_IMAGE_BUILDS = ("hard48", "six")


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Tests on a shared build with images belong to the slow tier (marked before ``-m``
    selects); the selected tests are then ordered by :func:`_order_by_cost`."""
    for item in items:
        if set(SHARED_IMAGE_BUILDS) & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    yield
    _order_by_cost(items)


# -- the order in which xdist hands out test files ------------------------------------------
#
# ``--dist loadfile`` gives each worker a whole file at a time, in collection order (this
# conftest turns off xdist's own reordering, which goes by the number of tests). The files
# are ordered by their recorded cost, longest first, so that no long file starts last while
# the other workers have nothing left to do. tests/costs.json holds each file's seconds per
# tier; HOPVISTA_TEST_COSTS=tests/costs.json with the README's test command records them
# again. A file it does not know costs 0.1 s per quick test and 1 s per slow one.

COSTS = Path(__file__).with_name("costs.json")
UNKNOWN = {"quick": 0.1, "slow": 1.0}  # seconds per test of a file not in costs.json


def _tier(keywords: Any) -> str:
    return "slow" if "slow" in keywords else "quick"


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def _recorded_costs() -> dict[str, dict[str, float]]:
    try:
        costs: dict[str, dict[str, float]] = json.loads(COSTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return costs


def _order_by_cost(items: list[pytest.Item]) -> None:
    """Sort ``items`` file by file, the costliest file first (a stable sort: the tests of a
    file keep their order, files of equal cost theirs)."""
    costs = _recorded_costs()
    tiers: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    for item in items:
        name = item.nodeid.split("::")[0]
        tiers.setdefault(name, set()).add(_tier(item.keywords))
        counts[name] = counts.get(name, 0) + 1
    cost = {name: sum(costs.get(tier, {}).get(name, UNKNOWN[tier] * counts[name])
                      for tier in found) for name, found in tiers.items()}
    items.sort(key=lambda item: -cost[item.nodeid.split("::")[0]])


_SPENT: dict[str, dict[str, float]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add a test phase's time to its file's cost (in the process that sees every report:
    xdist's controller, or pytest without workers)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    tier = _SPENT.setdefault(_tier(report.keywords), {})
    name = report.nodeid.split("::")[0]
    tier[name] = tier.get(name, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """With HOPVISTA_TEST_COSTS=PATH, write the files' costs measured in this session to
    PATH (those of a tier that did not run are kept)."""
    path = os.environ.get("HOPVISTA_TEST_COSTS")
    if not path or os.environ.get("PYTEST_XDIST_WORKER") or not _SPENT:
        return
    target = Path(path)
    try:
        costs = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        costs = {}
    for tier, spent in _SPENT.items():
        costs[tier] = {name: round(seconds, 1) for name, seconds in sorted(spent.items())}
    target.write_text(json.dumps(costs, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def default_style(name: str) -> dict[str, Any]:
    """The unsampled style of a table theme: its first font and the middle of each range."""
    theme = get_theme(name)
    style: dict[str, Any] = {"theme": theme.name, "font": theme.fonts[0]}
    for key in RANGE_KEYS:
        low, high = getattr(theme, key)
        style[key] = (low + high) // 2
    style["accent"] = theme.accents[0]
    return style
