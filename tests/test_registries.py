"""Perturbation, model and theme registries filled from outside the package: by decorator, and
by a third-party package's entry point found without importing it."""

from __future__ import annotations

import signal
import sys
import textwrap
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageOps
from pydantic import BaseModel, Field

from hopvista.augment import PERTURBATIONS, Perturbation, Perturbed, perturbation
from hopvista.errors import UserError
from hopvista.eval.backends import MODELS, Prompt, PromptImage, load_model
from hopvista.registry import Registry
from hopvista.rng import stream
from hopvista.themes.charts import CHART_LIBRARIES
from hopvista.themes.tables import TABLE_THEMES
from hopvista.themes.visuals import VISUAL_KINDS


class ShiftParams(BaseModel):
    """How far the image may move."""

    max_px: int = Field(3, ge=0, le=20)


@pytest.fixture
def shift() -> Iterator[Perturbation[Any]]:
    def sample(rng: np.random.Generator, size: tuple[int, int],
               params: ShiftParams) -> dict[str, Any]:
        return {"dx": int(rng.integers(-params.max_px, params.max_px + 1))}

    @perturbation("test-shift", ShiftParams, sample)
    def apply(image: Image.Image, params: ShiftParams, drawn: Mapping[str, Any]) -> Perturbed:
        """Moves the image by a few pixels, filling with white."""
        moved = Image.new(image.mode, image.size, "white")
        moved.paste(image, (drawn["dx"], 0))
        return Perturbed(moved, dict(drawn))

    yield PERTURBATIONS.get("test-shift")
    PERTURBATIONS.unregister("test-shift")


def test_a_perturbation_registered_outside_is_found_and_runs(
        shift: Perturbation[Any]) -> None:
    assert "test-shift" in PERTURBATIONS.names()
    assert shift.description == "Moves the image by a few pixels, filling with white."
    assert shift.schema()["properties"]["max_px"]["maximum"] == 20
    image = ImageOps.expand(Image.new("RGB", (20, 10), "black"), border=2, fill="red")
    before = image.tobytes()
    first = shift.run(image, stream(1, "item-1", "shift", "perturbation"), {"max_px": 5})
    again = shift.run(image, stream(1, "item-1", "shift", "perturbation"), {"max_px": 5})
    assert image.tobytes() == before  # the input is left alone
    assert first.image.tobytes() == again.image.tobytes() and first.record == again.record
    assert first.record["name"] == "test-shift" and first.record["params"] == {"max_px": 5}
    assert -5 <= first.record["drawn"]["dx"] <= 5
    with pytest.raises(UserError, match="test-shift.*max_px"):
        shift.run(image, stream(1, "item-1", "shift", "perturbation"), {"max_px": 99})


def test_a_perturbation_breaking_its_contract_is_named() -> None:
    def bad(image: Image.Image, params: ShiftParams, drawn: Mapping[str, Any]) -> Perturbed:
        return Perturbed(image, {"when": object()})

    def bad_draw(rng: np.random.Generator, size: tuple[int, int],
                 params: ShiftParams) -> dict[str, Any]:
        return {"when": rng}

    broken = Perturbation("test-bad", "bad record", ShiftParams, bad)
    with pytest.raises(TypeError, match="test-bad.*record is not JSON"):
        broken.run(Image.new("RGB", (4, 4)), np.random.default_rng(0))
    unjson = Perturbation("test-bad", "bad sample", ShiftParams, bad, bad_draw)
    with pytest.raises(TypeError, match="test-bad.*sample must return JSON"):
        unjson.run(Image.new("RGB", (4, 4)), np.random.default_rng(0))


def test_a_model_registered_outside_is_found_and_answers() -> None:
    @MODELS.register("test-first")
    class FirstStatement:
        """Always claims statement 1 (a test model)."""

        def __init__(self, options: Mapping[str, str]) -> None:
            self.prefix = options.get("prefix", "")

        def answer(self, prompt: Prompt) -> str:
            return f"{self.prefix}1 ({len(prompt.images)} images)"

    try:
        model = load_model("test-first", {"prefix": "> "})
        png = PromptImage(b"\x89PNG...", "table")
        assert isinstance(model, FirstStatement)
        assert model.answer(Prompt(("Which are true?", png))) == "> 1 (1 images)"
        assert MODELS.get("test-first") is FirstStatement
        MODELS.register("test-none", lambda options: object())  # type: ignore[arg-type,return-value]
        with pytest.raises(TypeError, match="test-none"):
            load_model("test-none")
    finally:
        MODELS.unregister("test-first")
        MODELS.unregister("test-none")
    with pytest.raises(UserError, match="unknown model 'test-first'"):
        load_model("test-first")


# -- entry points --------------------------------------------------------------------------

PLUGINS = {
    "perturbations": ('''
        from pydantic import BaseModel
        from hopvista.augment import Perturbed, perturbation

        class Nothing(BaseModel):
            pass

        @perturbation("ep-identity", Nothing)
        def identity(image, params, drawn):
            """Leaves the image as it is."""
            return Perturbed(image, {})
    ''', PERTURBATIONS, "ep-identity"),
    "models": ('''
        from hopvista.eval.backends import MODELS

        @MODELS.register("ep-none")
        class AlwaysNone:
            """Answers none."""
            def __init__(self, options):
                pass
            def answer(self, prompt):
                return "none"
    ''', MODELS, "ep-none"),
    "table_themes": ('''
        from hopvista.themes.tables import TABLE_THEMES, Theme

        TABLE_THEMES.register("ep-plain", Theme(
            "ep-plain", ("Liberation Sans",), "A plug-in theme.",
            css=":root { --hv-bg: #ffffff; }"))
    ''', TABLE_THEMES, "ep-plain"),
    "chart_libraries": ('''
        from hopvista.render.libraries import BUILTIN_KINDS, draw_matplotlib
        from hopvista.themes.charts import CHART_LIBRARIES, ChartLibrary

        CHART_LIBRARIES.register("ep-mpl", ChartLibrary(
            "ep-mpl", "matplotlib, open spines only", BUILTIN_KINDS,
            {True: ("open",), False: ("open",)}, draw_matplotlib, ("matplotlib",)))
    ''', CHART_LIBRARIES, "ep-mpl"),
    "visual_kinds": ('''
        from hopvista.themes.visuals import VISUAL_KINDS
        from hopvista.themes.visuals.badge import Badge

        class Crest(Badge):
            """A badge by another name."""
            name = "ep-crest"

        VISUAL_KINDS.register("ep-crest", Crest())
    ''', VISUAL_KINDS, "ep-crest"),
}


@pytest.mark.parametrize("group", list(PLUGINS))
def test_a_third_party_entry_point_is_found_without_import(
        group: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source, registry, name = PLUGINS[group]
    module = f"hv_test_plugin_{group}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    info = tmp_path / f"hv_test_plugin_{group}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: hv-test-plugin-{group}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[hopvista.{group}]\n{name} = {module}\n")
    assert isinstance(registry, Registry)
    registry.names()  # built-ins loaded first, as in any process
    monkeypatch.syspath_prepend(str(tmp_path))  # the plug-in is installed
    monkeypatch.setattr(registry, "_loaded", False)  # a fresh process would scan now
    assert module not in sys.modules
    try:
        assert name in registry.names()
        assert module in sys.modules
        if group == "models":  # a class entry: its origin is the plug-in's module
            assert registry.origin(name) == module
    finally:
        registry.unregister(name)
        sys.modules.pop(module, None)


def test_a_broken_entry_point_is_a_user_error(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    info = tmp_path / "hv_test_broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hv-test-broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hopvista.models]\nbroken = hv_no_such_module\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(MODELS, "_loaded", False)
    with pytest.raises(UserError, match="broken.*hopvista.models"):
        MODELS.names()
    monkeypatch.setattr(MODELS, "_loaded", True)


def test_a_registry_loads_once_while_several_threads_ask(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads that look an entry up while the built-ins are still importing wait for them
    (the evaluator asks from several threads) instead of finding the entry missing."""
    import threading
    import types

    from hopvista.registry import Registry

    registry: Registry[int] = Registry("test thing", "test_slow_things",
                                       builtins=("hv_slow_builtins",))
    holder = types.ModuleType("hv_slow_holder")
    holder.REGISTRY = registry  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "hv_slow_holder", holder)
    (tmp_path / "hv_slow_builtins.py").write_text(
        "import time\nimport hv_slow_holder\ntime.sleep(0.3)\n"
        "hv_slow_holder.REGISTRY.register('late', 7)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found: list[object] = []
    start = threading.Barrier(6)

    def ask() -> None:
        start.wait()
        try:
            found.append(registry.get("late"))
        except UserError as exc:
            found.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sys.modules.pop("hv_slow_builtins", None)
    assert found == [7] * 6


def test_a_forked_child_does_not_inherit_a_held_registry_lock() -> None:
    """A worker forked while another thread of the parent holds a registry's lock (a load
    under way) loads the registry itself instead of waiting forever for a thread it has not
    got."""
    import os
    import threading

    from hopvista.registry import Registry

    registry: Registry[int] = Registry("test thing", "test_fork_things")
    registry.register("here", 1)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with registry._lock:
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # the child: must answer at once
            os._exit(0 if registry.get("here") == 1 else 1)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung on the registry's lock")
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        release.set()
        thread.join()
