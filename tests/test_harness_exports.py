"""gen export: the Inspect AI task runs with inspect-ai's offline mock model, the lmms-eval task
folder loads (with lmms-eval's own loader where it is installed) and scores, VLMEvalKit's TSV
reads back as VLMEvalKit reads it; prompts and references are gen eval's; bad input is one line.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.eval.backends import Prompt, PromptImage
from hopvista.eval.prompts import DEFAULT_SETTING, SETTINGS, build_prompt, default_template
from hopvista.harness import export
from hopvista.harness.common import MARKER
from hopvista.model import ITEM_KINDS, Item, load

GOLDEN = Path(__file__).parent / "golden" / "format6"
"""A small dataset without images (text-only settings), read only."""


@pytest.fixture(scope="module")
def dataset(six: Path) -> Path:
    """Six items with table and chart images."""
    return six


def _prompts(path: Path, setting: str) -> list[tuple[Item, Prompt, str]]:
    """What gen eval would send for each item, and the reference answer."""
    data = load(path)
    return [(item, build_prompt(item, data, SETTINGS[setting], default_template(item.kind)),
             ITEM_KINDS.get(item.kind).reference(item)) for item in data]


def _wrong(reference: str) -> str:
    return "none" if reference != "none" else "1, 2, 3"


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"exported_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- bad input -----------------------------------------------------------------------------------

def _one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    err = capsys.readouterr().err
    assert exit_info.value.code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def _exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_an_unknown_format_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    err = _one_line_error(capsys, "export", str(GOLDEN), "--format", "helm", "--out",
                          str(tmp_path / "x"))
    assert "--format" in err and "helm" in err
    with pytest.raises(UserError, match="no format 'helm'"):
        export(GOLDEN, "helm", tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_a_path_that_is_not_a_dataset_is_one_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("hello")
    err = _exit_2(capsys, "export", str(tmp_path / "notes"), "--format", "inspect", "--out",
                  str(tmp_path / "x"))
    assert "not a hopvista dataset" in err
    err = _exit_2(capsys, "export", str(tmp_path / "missing"), "--format", "inspect", "--out",
                  str(tmp_path / "x"))
    assert "missing" in err
    assert not (tmp_path / "x").exists()


def test_a_folder_that_is_not_an_export_is_left_alone(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    err = _exit_2(capsys, "export", str(GOLDEN), "--format", "lmms-eval", "--setting",
                  "no-chart", "--out", str(out))
    assert "not empty" in err and str(out) in err
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]
    assert (out / "thesis.tex").read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["mine"]  # no staging folder left
    (tmp_path / "file").write_text("x")
    assert "not a folder" in _exit_2(capsys, "export", str(GOLDEN), "--format", "inspect",
                                     "--setting", "no-chart", "--out", str(tmp_path / "file"))


def test_a_setting_the_dataset_cannot_give_is_one_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    err = _exit_2(capsys, "export", str(GOLDEN), "--format", "inspect", "--out",
                  str(tmp_path / "x"))  # table-json: a chart image, from a build without
    assert "--no-images" in err
    err = _exit_2(capsys, "export", str(GOLDEN), "--format", "vlmevalkit", "--setting",
                  "no-chart", "--out", str(tmp_path / "x"))
    assert "no image" in err
    assert not (tmp_path / "x").exists() and list(tmp_path.iterdir()) == []


def test_an_earlier_export_is_replaced_in_one_step(tmp_path: Path) -> None:
    out = tmp_path / "task"
    export(GOLDEN, "lmms-eval", out, setting="no-chart")
    first = json.loads((out / MARKER).read_text())
    assert first["harness"] == "lmms-eval" and first["items"] == 6
    export(GOLDEN, "inspect", out, setting="chart-as-table", limit=2)
    second = json.loads((out / MARKER).read_text())
    assert (second["harness"], second["setting"], second["items"]) == \
        ("inspect", "chart-as-table", 2)
    assert not (out / "hopvista.yaml").exists()  # nothing of the old export is left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["task"]


# -- lmms-eval -------------------------------------------------------------------------------------

def _lmms_task_functions(folder: Path) -> tuple[dict[str, Any], Any]:
    """The task's YAML as lmms-eval reads it (``!function utils.NAME`` is NAME of the utils.py
    beside the YAML, in every release; lmms-eval 0.7.3 then resolves a relative local
    ``data_files`` against the YAML's folder, earlier releases against the working folder, and
    neither touches an absolute one) and the test split loaded with ``datasets`` as lmms-eval
    loads it."""
    import datasets
    import yaml

    utils = _module(folder / "utils.py")

    class Loader(yaml.SafeLoader):
        pass

    def function(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        module, name = loader.construct_scalar(node).split(".")  # type: ignore[arg-type]
        assert module == "utils"
        return getattr(utils, name)

    Loader.add_constructor("!function", function)
    config = yaml.load((folder / "hopvista.yaml").read_text(), Loader=Loader)  # noqa: S506
    assert config["dataset_path"] == "parquet"
    files = config["dataset_kwargs"]["data_files"]
    assert all(os.path.isabs(path) for path in files.values())  # wherever lmms-eval runs
    docs = datasets.load_dataset("parquet", data_files=files, split=config["test_split"])
    return config, docs


def _check_lmms_folder(folder: Path, expected: list[tuple[Item, Prompt, str]]) -> None:
    config, docs = _lmms_task_functions(folder)
    assert config["task"] == "hopvista" and config["output_type"] == "generate_until"
    metrics = [m["metric"] for m in config["metric_list"]]
    assert "accuracy" in metrics
    assert len(docs) == len(expected)
    for doc, (item, prompt, reference) in zip(docs, expected, strict=True):
        assert doc["id"] == item.id
        assert config["doc_to_text"](doc) == prompt.text
        assert config["doc_to_target"](doc) == reference
        visuals = config["doc_to_visual"](doc)
        assert len(visuals) == len(prompt.images)
        messages = config["doc_to_messages"](doc)
        content = messages[0]["content"]
        assert [c.get("text") for c in content] == \
            [p if isinstance(p, str) else None for p in prompt.parts]
        right = config["process_results"](doc, [f"Reasoning...\nAnswer: {reference}"])
        wrong = config["process_results"](doc, [f"Answer: {_wrong(reference)}"])
        assert right["accuracy"] == 1.0 and wrong["accuracy"] == 0.0
        assert set(right) <= set(metrics) and set(wrong) <= set(metrics)


def test_lmms_eval_folder_loads_and_scores_text_only(tmp_path: Path) -> None:
    out = tmp_path / "lmms"
    assert main(["export", str(GOLDEN), "--format", "lmms-eval", "--setting", "no-chart",
                 "--out", str(out)]) == 0
    _check_lmms_folder(out, _prompts(GOLDEN, "no-chart"))


@pytest.mark.slow
def test_lmms_eval_folder_with_images(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "lmms"
    assert main(["export", str(dataset), "--format", "lmms-eval", "--setting", "interleaved",
                 "--out", str(out)]) == 0
    expected = _prompts(dataset, "interleaved")
    _check_lmms_folder(out, expected)
    _, docs = _lmms_task_functions(out)
    for doc, (_, prompt, _) in zip(docs, expected, strict=True):
        assert doc["image_roles"] == [image.role for image in prompt.images]
        assert "[image: table]" in doc["prompt"] and "[image: chart]" in doc["prompt"]


@pytest.mark.slow
def test_lmms_eval_task_loads_with_its_own_loader(dataset: Path, tmp_path: Path) -> None:
    pytest.importorskip("lmms_eval.tasks", reason="lmms-eval (and torch, which its task loader "
                        "imports) is not installed: the YAML, utils and data are checked "
                        "without it in the other lmms-eval tests")
    from lmms_eval.tasks import TaskManager

    out = tmp_path / "lmms"
    export(dataset, "lmms-eval", out, setting="interleaved")
    manager = TaskManager(include_path=str(out), include_defaults=False)
    assert "hopvista" in manager.all_tasks
    tasks = manager.load_task_or_group(["hopvista"])
    task = tasks["hopvista"]
    docs = list(task.test_docs())
    expected = _prompts(dataset, "interleaved")
    assert len(docs) == len(expected)
    for doc, (_, prompt, reference) in zip(docs, expected, strict=True):
        assert task.doc_to_text(doc) == prompt.text
        assert task.doc_to_target(doc) == reference
        assert task.process_results(doc, [f"Answer: {reference}"])["accuracy"] == 1.0
        assert task.process_results(doc, [f"Answer: {_wrong(reference)}"])["accuracy"] == 0.0


def _lmms_defaults(generation_kwargs: dict[str, Any]) -> dict[str, Any]:
    """What lmms-eval's ``TaskConfig`` makes of a YAML's ``generation_kwargs`` (the same in
    every release from 0.2.4 to 0.7.3): ``until`` is set to ``["\\n\\n"]`` when absent."""
    kwargs = dict(generation_kwargs)
    kwargs.setdefault("until", ["\n\n"])
    return kwargs


def _cut(answer: str, until: list[str]) -> str:
    """An answer as the backends that honour ``until`` keep it (qwen2_vl, glm4v, cambrian...:
    ``for term in until: if len(term) > 0: ans = ans.split(term)[0]``)."""
    for term in until:
        if len(term) > 0:
            answer = answer.split(term)[0]
    return answer


def test_lmms_eval_task_runs_from_anywhere_and_no_stop_cuts_a_reasoned_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    export(GOLDEN, "lmms-eval", tmp_path / "lmms", setting="no-chart")
    moved = tmp_path / "elsewhere" / "task"
    shutil.move(tmp_path / "lmms", moved)
    monkeypatch.chdir(tmp_path / "elsewhere")  # not the task's folder
    config, docs = _lmms_task_functions(moved)
    assert len(docs) == 6
    kwargs = _lmms_defaults(config["generation_kwargs"])
    assert kwargs["until"] == [] and kwargs["max_new_tokens"] >= 1024
    doc = docs[0]
    reference = config["doc_to_target"](doc)
    reasoned = f"Statement 1: the table says so.\n\nStatement 2: ...\n\nAnswer: {reference}"
    kept = _cut(reasoned, kwargs["until"])
    assert kept == reasoned
    assert config["process_results"](doc, [kept])["accuracy"] == 1.0
    # what lmms-eval would have made of the YAML without an explicit ``until``:
    assert _cut(reasoned, _lmms_defaults({})["until"]) == "Statement 1: the table says so."
    readme = (moved / "README.md").read_text()
    assert "--include_path" in readme and "--tasks hopvista" in readme
    assert "gen eval" in readme and "--setting no-chart" in readme


# -- VLMEvalKit ------------------------------------------------------------------------------------

def _toliststr(value: Any) -> list[str]:
    """What VLMEvalKit's ``toliststr`` makes of a cell: a list literal is a list of strings."""
    if isinstance(value, str) and len(value) > 1 and value[0] == "[" and value[-1] == "]":
        return [str(x) for x in ast.literal_eval(value)]
    return [str(value)]


@pytest.mark.slow
def test_vlmevalkit_tsv_reads_back_as_vlmevalkit_reads_it(dataset: Path, tmp_path: Path
                                                          ) -> None:
    import pandas as pd
    from PIL import Image

    out = tmp_path / "vlm"
    assert main(["export", str(dataset), "--format", "vlmevalkit", "--setting", "interleaved",
                 "--out", str(out)]) == 0
    [tsv] = out.glob("*.tsv")
    name = tsv.stem
    assert name.startswith("HopVista_OpenEnded_interleaved_")
    assert "openended" in name.lower()  # VLMEvalKit's DATASET_TYPE then says VQA, not MCQ
    assert name.endswith(hashlib.sha256(tsv.read_bytes()).hexdigest()[:12])
    readme = (out / "README.md").read_text()
    assert f"--data {name}" in readme and "--mode infer" in readme and "score.py" in readme
    table = pd.read_csv(tsv, sep="\t")  # vlmeval.smp.load of a .tsv
    for column in ("index", "image", "image_path", "question", "answer", "category"):
        assert column in table.columns
    expected = _prompts(dataset, "interleaved")
    assert len(table) == len(expected)
    assert table["index"].dtype.kind == "i" and len(set(table["index"])) == len(table)
    for (_, row), (item, prompt, reference) in zip(table.iterrows(), expected, strict=True):
        assert row["id"] == item.id
        assert row["question"] == prompt.text
        assert str(row["answer"]) == reference
        assert row["category"] == item.difficulty
        images = _toliststr(row["image"])
        paths = _toliststr(row["image_path"])
        assert len(images) == len(paths) == len(prompt.images) == 2
        for encoded, image in zip(images, prompt.images, strict=True):
            png = base64.b64decode(encoded)
            assert png == image.png == (dataset / item.image(image.role).path).read_bytes()
            with Image.open(io.BytesIO(png)) as picture:
                assert picture.format == "PNG"

    # score.py scores a VLMEvalKit prediction file with hopvista's scorer
    predictions = table[["index", "question", "answer"]].copy()
    predictions["prediction"] = [f"Answer: {ref}" if k % 2 == 0 else f"Answer: {_wrong(ref)}"
                                 for k, (_, _, ref) in enumerate(expected)]
    predictions.to_csv(tmp_path / "model_HopVista.tsv", sep="\t", index=False)
    result = subprocess.run([sys.executable, str(out / "score.py"),
                             str(tmp_path / "model_HopVista.tsv")],
                            capture_output=True, text=True, check=True)
    summary = json.loads(result.stdout)
    assert summary["items"] == 6 and summary["accuracy"] == pytest.approx(0.5)
    assert "set_accuracy" in summary["metrics"]


def _vlmevalkit_image_files(out: Path) -> set[str]:
    """Where VLMEvalKit writes an export's images: ``images/NAME/IMAGE_PATH`` under its data
    root (``ImageBaseDataset.img_root`` and ``dump_image``)."""
    import pandas as pd

    [tsv] = out.glob("*.tsv")
    table = pd.read_csv(tsv, sep="\t")
    return {f"images/{tsv.stem}/{path}" for cell in table["image_path"]
            for path in _toliststr(cell)}


@pytest.mark.slow
def test_two_vlmevalkit_exports_of_different_data_never_share_an_image_path(
        dataset: Path, tmp_path: Path) -> None:
    export(dataset, "vlmevalkit", tmp_path / "a", limit=2)
    export(dataset, "vlmevalkit", tmp_path / "b", limit=3)
    export(dataset, "vlmevalkit", tmp_path / "c", limit=2, setting="interleaved")
    export(dataset, "vlmevalkit", tmp_path / "d", limit=2)
    a, b, c = (_vlmevalkit_image_files(tmp_path / x) for x in "abc")
    assert a and b and c
    assert not a & b and not a & c and not b & c
    assert a == _vlmevalkit_image_files(tmp_path / "d")  # the same content, the same name


# -- the same prompts as gen eval ------------------------------------------------------------------

Shown = list[tuple[str, str | bytes]]
"""A prompt as a model gets it: ``("text", ...)`` and ``("image", PNG bytes)`` in order."""


def _requests_of_gen_eval(dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          limit: int) -> list[Shown]:
    """What ``gen eval`` sends an OpenAI-compatible endpoint for the first items, in its
    default setting."""
    from tests.scripted_server import Script, serve

    script = Script({"": ["Answer: none"]})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-harness")
    with serve(script) as url:
        assert main(["eval", str(dataset), "--model", "openai:scripted", "--base-url", url,
                     "--limit", str(limit), "--concurrency", "1", "--out",
                     str(tmp_path / "run"), "--quiet"]) == 0
    shown: list[Shown] = []
    for body in script.bodies:
        [message] = body["messages"]
        parts: Shown = []
        for part in message["content"]:
            if part["type"] == "text":
                parts.append(("text", part["text"]))
            else:
                encoded = part["image_url"]["url"].split(",", 1)[1]
                parts.append(("image", base64.b64decode(encoded)))
        shown.append(parts)
    return shown


@pytest.mark.slow
def test_every_export_sends_the_prompt_gen_eval_sends_in_its_default_setting(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    sent = _requests_of_gen_eval(dataset, tmp_path, monkeypatch, limit=3)
    assert len(sent) == 3 and all(any(k == "image" for k, _ in p) for p in sent)
    for fmt in ("inspect", "lmms-eval", "vlmevalkit"):
        assert main(["export", str(dataset), "--format", fmt, "--limit", "3", "--out",
                     str(tmp_path / fmt)]) == 0
        marker = json.loads((tmp_path / fmt / MARKER).read_text())
        assert marker["setting"] == DEFAULT_SETTING
        assert f"--setting {DEFAULT_SETTING}" in (tmp_path / fmt / "README.md").read_text()

    folder = tmp_path / "inspect"
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert [[("text", p["text"]) if "text" in p else ("image", (folder / p["image"]).read_bytes())
             for p in sample["parts"]] for sample in samples] == sent

    rows = pq.read_table(tmp_path / "lmms-eval" / "data" / "test.parquet").to_pylist()
    assert [[("text", p["text"]) if "text" in p else ("image", row["images"][p["image"]]["bytes"])
             for p in json.loads(row["parts"])] for row in rows] == sent

    import pandas as pd

    [tsv] = (tmp_path / "vlmevalkit").glob("*.tsv")
    for (_, row), parts in zip(pd.read_csv(tsv, sep="\t").iterrows(), sent, strict=True):
        # VLMEvalKit shows the images first, then the question with each image's place marked
        assert [base64.b64decode(x) for x in _toliststr(row["image"])] == \
            [value for kind, value in parts if kind == "image"]
        texts = [value for kind, value in parts if kind == "text"]
        position = 0
        for text in texts:
            assert isinstance(text, str)
            position = row["question"].index(text, position) + len(text)


# -- Inspect AI ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_inspect_task_runs_with_the_mock_model(dataset: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed")
    import inspect_ai
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    out = tmp_path / "inspect"
    assert main(["export", str(dataset), "--format", "inspect", "--out", str(out)]) == 0
    expected = _prompts(dataset, DEFAULT_SETTING)  # gen eval's default setting
    by_text = {"".join(p for p in prompt.parts if isinstance(p, str)): (k, prompt, reference)
               for k, (_, prompt, reference) in enumerate(expected)}
    seen: list[int] = []

    def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        content = messages[-1].content
        k, prompt, reference = by_text["".join(c.text for c in content if c.type == "text")]
        # the message is gen eval's prompt: the same text and images in the same order
        shown: list[str | PromptImage] = []
        for c in content:
            if c.type == "text":
                shown.append(c.text)
            else:
                head, encoded = c.image.split(",", 1)
                assert head == "data:image/png;base64"
                shown.append(PromptImage(base64.b64decode(encoded), ""))
        assert [p if isinstance(p, str) else p.png for p in shown] == \
            [p if isinstance(p, str) else p.png for p in prompt.parts]
        seen.append(k)
        said = reference if k % 2 == 0 else _wrong(reference)
        output = ModelOutput.from_content(model="mockllm", content=f"Thinking.\nAnswer: {said}")
        # usage given: the mock model would otherwise count tokens with tiktoken, which
        # downloads its encoding on first use (there is no network here)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    monkeypatch.chdir(out)  # as a user runs it: inspect eval task.py
    logs = inspect_ai.eval("task.py", model=get_model("mockllm/model", custom_outputs=answer),
                           log_dir=str(tmp_path / "logs"), display="none")
    log = logs[0]
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == len(expected) == 6
    assert sorted(seen) == list(range(6))
    ids = [item.id for item, _, _ in expected]
    for sample in log.samples:
        k = ids.index(str(sample.id))
        assert sample.target == expected[k][2]
        assert sample.scores is not None
        score = sample.scores["hopvista_scorer"]
        assert isinstance(score.value, dict)
        assert score.value["accuracy"] == ("C" if k % 2 == 0 else "I")
        assert score.value["set_accuracy"] == (1.0 if k % 2 == 0 else 0.0)
    assert log.results is not None
    aggregated = {s.name: s.metrics for s in log.results.scores}
    assert aggregated["accuracy"]["accuracy"].value == pytest.approx(0.5)
    # every metric of the item kind is aggregated, not only accuracy
    assert aggregated["set_accuracy"]["mean"].value == pytest.approx(0.5)
    assert "statement_accuracy" in aggregated and "parsed" in aggregated
    assert list((tmp_path / "logs").iterdir())  # the log file


def test_inspect_task_file_is_the_same_for_every_dataset(tmp_path: Path) -> None:
    """Item text is data: the task file never holds any of it."""
    export(GOLDEN, "inspect", tmp_path / "a", setting="no-chart")
    export(GOLDEN, "inspect", tmp_path / "b", setting="chart-as-table", limit=1)
    task = (tmp_path / "a" / "task.py").read_text()
    assert task == (tmp_path / "b" / "task.py").read_text()
    for line in (tmp_path / "a" / "samples.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert record["id"] not in task
    assert os.access(tmp_path / "a" / "task.py", os.R_OK)
