"""Hostile packs: a domain pack, its text templates and a prompt file are data a user
downloads. Known template-injection payloads, rendered through every field a pack can template,
never run code (a marker file is never created): each is refused with one line naming the file
(and the field), exit 2, quickly, or renders as harmless text; YAML bombs and oversized YAML
files are refused at once; benign packs keep their bytes."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

import hopvista.templates
import hopvista.themes.tables
from hopvista.cli.main import main
from hopvista.domain import PackSpec, load_pack, resolve_pack
from hopvista.eval.backends import MODELS, Prompt
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.sources.materials.text import TEMPLATE_FILES
from hopvista.sources.synthetic.plan import CLAIMS, load_plan
from tests.conftest import build_dataset

TEMPLATES = Path(hopvista.templates.__file__).parent
QUICK_SECONDS = 20.0
"""What "refused quickly" means here (a bounded render takes well under a second or two)."""

# Payloads that would run a command or write a file if any code ran: "MARKER" stands for the
# marker file's path. Every one must be refused.
CODE = {
    "cycler-globals": "{{ cycler.__init__.__globals__.os.system('touch MARKER') }}",
    "joiner-popen": "{{ joiner.__init__.__globals__.os.popen('touch MARKER').read() }}",
    "namespace-globals": "{{ namespace.__init__.__globals__.os.system('touch MARKER') }}",
    "lipsum-globals": "{{ lipsum.__globals__['os'].system('touch MARKER') }}",
    "self-import": "{{ self.__init__.__globals__.__builtins__.__import__('os')"
                   ".system('touch MARKER') }}",
    "self-context": "{{ self._TemplateReference__context.cycler.__init__.__globals__.os"
                    ".system('touch MARKER') }}",
    "subclasses-popen": "{% for c in ''.__class__.__mro__[1].__subclasses__() %}"
                        "{% if c.__name__ == 'Popen' %}{{ c(['touch', 'MARKER']) }}{% endif %}"
                        "{% endfor %}",
    "subclasses-fileio": "{% for c in ().__class__.__base__.__subclasses__() %}"
                         "{% if c.__name__ == 'FileIO' %}{{ c('MARKER', 'w') }}{% endif %}"
                         "{% endfor %}",
    "attr-filter": "{{ (lipsum|attr('__globals__'))['os'].system('touch MARKER') }}",
    "attr-chain": "{{ ((cycler|attr('__init__'))|attr('__globals__'))['os']"
                  ".popen('touch MARKER').read() }}",
    "getitem-dunder": "{{ cycler['__init__']['__globals__']['os']['system']('touch MARKER') }}",
    "str-format": "{{ '{0.__init__.__globals__[os].system}'.format(cycler) }}"
                  "{{ '{0.system}'.format(cycler) }}",
    "format-filter": "{{ '%s'|format(cycler.__init__.__globals__.os.system('touch MARKER')) }}",
    "request-application": "{{ request.application.__globals__.__builtins__"
                           ".__import__('os').popen('touch MARKER').read() }}",
    "config-class": "{{ config.__class__.__init__.__globals__['os'].popen('touch MARKER')"
                    ".read() }}",
    "map-attribute": "{{ ([cycler]|map(attribute='__init__')|map(attribute='__globals__')"
                     "|list)[0].os.system('touch MARKER') }}",
    "builtins-open": "{{ self.__init__.__globals__.__builtins__.open('MARKER', 'w')"
                     ".write('x') }}",
    "builtins-eval": "{{ self.__init__.__globals__.__builtins__"
                     ".eval(\"__import__('os').system('touch MARKER')\") }}",
    "macro-function": "{% macro m() %}{% endmacro %}"
                      "{{ m._func.__globals__['os'].system('touch MARKER') }}",
    "generator-frame": "{{ range(1).gi_frame.f_globals['__builtins__'].__import__('os')"
                       ".system('touch MARKER') }}",
    "string-method": "{{ 'touch MARKER'.__class__.__mro__[1].__subclasses__() }}",
    "dict-class": "{{ dict.__init__.__globals__ }}{{ dict.mro()[1].__subclasses__() }}",
    "include-passwd": "{% include '/etc/passwd' %}",
    "import-passwd": "{% import '/etc/passwd' as p %}{{ p }}",
    "from-import": "{% from '/etc/passwd' import x %}",
    "extends-passwd": "{% extends '/etc/passwd' %}",
}
# Payloads that would run for long or fill memory without a bound. Every one must be refused.
WORK = {
    "range-list": "{{ range(10**9)|list|length }}",
    "range-loop": "{% for i in range(10**9) %}x{% endfor %}",
    "nested-loops": "{% for a in range(99999) %}{% for b in range(99999) %}"
                    "{% for c in range(99999) %}x{% endfor %}{% endfor %}{% endfor %}",
    "repeated-string": "{{ 'a' * 10**9 }}",
    "repeated-list": "{{ ([1] * 10**8)|length }}",
    "joined-strings": "{% set a = 'a' * 999999 %}{{ a ~ a ~ a }}",
    "huge-power": "{{ 9**999999 }}",
    "huge-product": "{% set n = 10**1000 %}{{ n * n * n * n * n }}",
    "recursive-macro": "{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(1) }}",
    "exponential-macro": "{% macro m(n) %}{% if n %}{{ m(n - 1) ~ m(n - 1) }}{% endif %}x"
                         "{% endmacro %}{{ m(40) }}",
    "block-output": "{% set a = 'a' * 999999 %}{% set b %}{% for i in range(999) %}{{ a ~ i }}"
                    "{% endfor %}{% endset %}{{ b|length }}",
    "filter-work": "{% set a = ('a' * 9999)|list %}{% for i in range(99999) %}"
                   "{{ a|sort|length }}{% endfor %}",
    "padding-filter": "{{ 'x'|center(10**9) }}",
    "percent-format": "{{ '%0999999999d' % 1 }}",
    "recursive-loop": "{% for x in [[1]] recursive %}{{ loop(x) }}{% endfor %}",
    "deep-nesting": "{{ " + "(" * 3000 + "1" + ")" * 3000 + " }}",
    "long-source": "{# " + "x" * 300_000 + " #}",
}
# Payloads that are only text once rendered: a pack that holds them builds.
HARMLESS = {
    "raw-block": "{% raw %}{{ cycler.__init__.__globals__.os.system('touch MARKER') }}"
                 "{% endraw %}",
    "comment": "{# {{ cycler.__init__.__globals__.os.system('touch MARKER') }} #}",
    "dunder-text": "{{ '__class__ __globals__ os.system touch MARKER' }}",
    "self": "{{ self }}",
}
REFUSED = CODE | WORK


@MODELS.register("hostile-packs-echo")
class EchoModel:
    """Answers "none" to every prompt (the sweep needs a model that reads prompts)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        pass

    def answer(self, prompt: Prompt) -> str:
        return "none"


def _payload(template: str, marker: Path) -> str:
    return template.replace("MARKER", str(marker))


# --- the fields a pack can template --------------------------------------------------------

Loc = tuple[str | int, ...]


def _string_leaves(value: Any, loc: Loc) -> Iterator[Loc]:
    """The strings of a templated field: every key of a mapping, the first of a list."""
    if isinstance(value, str):
        yield loc
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _string_leaves(item, (*loc, key))
    elif isinstance(value, list) and value:
        yield from _string_leaves(value[0], (*loc, 0))


def templated_fields(pack: str) -> list[Loc]:
    """Every templated field of ``pack``'s ``domain.yaml``: the string leaves of the fields
    the pack model (:class:`PackSpec`) declares as Jinja2 (the question, every statement
    type's forms), so a new templated field is swept by being declared."""
    spec = resolve_pack(pack).spec
    fields = [name for name, info in PackSpec.model_fields.items()
              if "Jinja2" in (info.description or "")]
    return [loc for name in fields for loc in _string_leaves(getattr(spec, name), (name,))]


def text_files(pack: str) -> list[str]:
    """The text template files the pack's source renders (its plan's sections and claims for
    the synthetic source; the materials source's files)."""
    if pack == "financial":
        plan, _ = load_plan(TEMPLATES / "financial")
        return [*plan.sections, CLAIMS]
    return list(TEMPLATE_FILES)


def test_the_sweep_covers_every_statement_type_and_the_question() -> None:
    fields = templated_fields("financial")
    assert {loc[1] for loc in fields if loc[0] == "forms"} == set(STATEMENT_TYPES.names())
    assert ("question",) in fields
    assert set(text_files("financial")) >= {"business", "mdna", "claims"}


# --- packs with a payload in one field -------------------------------------------------------

def _custom_pack(tmp_path: Path, pack: str) -> Path:
    """A copy of the built-in ``pack`` as a user's pack folder (name ``my<pack>``)."""
    folder = tmp_path / f"my{pack}"
    shutil.copytree(TEMPLATES / pack, folder)
    domain = folder / "domain.yaml"
    domain.write_text(domain.read_text().replace(f"name: {pack}", f"name: my{pack}", 1))
    return folder


def _set_field(domain: Path, loc: Loc, payload: str) -> int:
    """Append ``payload`` to the field at ``loc`` of ``domain``; return the field's line."""
    data = yaml.load(domain.read_text(), Loader=yaml.CSafeLoader)
    parent = data
    for part in loc[:-1]:
        parent = parent[part]
    parent[loc[-1]] = parent[loc[-1]] + payload
    text = yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True,
                     width=1 << 30)
    domain.write_text(text)
    node = yaml.compose(text, Loader=yaml.CSafeLoader)
    line = 0
    for part in loc:
        if isinstance(part, int):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            key, node = next((k, v) for k, v in node.value if k.value == part)
            line = key.start_mark.line + 1
    return line


def _set_macros(template: Path, payload: str) -> None:
    """Append ``payload`` to the first line of every macro of ``template`` (its first
    alternative), so that whichever macro the source calls renders it."""
    source = template.read_text()
    edited, count = re.subn(r"(\{%-?\s*macro\b[^%]*%\}[ \t]*\n[ \t]*\n?[^\n]*)",
                            lambda m: m.group(1) + payload, source)
    assert count, template
    template.write_text(edited)


def _refused(capsys: pytest.CaptureFixture[str], args: list[str], marker: Path,
             out: Path, names: str) -> str:
    """Run ``gen ARGS``; it must exit 2 quickly with one line beginning with ``names``,
    create no marker and write nothing to ``out``. The line is returned."""
    start = time.monotonic()
    code = main(args)
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert code == 2, (args, err)
    assert not marker.exists(), "the payload ran code"
    assert not out.exists()
    assert took < QUICK_SECONDS, took
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"gen: error: {names}"), (lines[0], names)
    return lines[0]


def _sweep_domain(tmp_path: Path, capsys: pytest.CaptureFixture[str], payload: str,
                  fields: list[Loc]) -> None:
    marker = tmp_path / "PWNED"
    for loc in fields:
        here = tmp_path / "-".join(map(str, loc)).replace("+", "_")
        folder = _custom_pack(here, "financial")
        line = _set_field(folder / "domain.yaml", loc, _payload(payload, marker))
        dotted = ".".join(map(str, loc))
        _refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out",
                          str(here / "out")], marker, here / "out",
                 f"{folder / 'domain.yaml'}:{line}: field '{dotted}'")


def _sweep_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], payload: str,
                pack: str, files: list[str]) -> None:
    marker = tmp_path / "PWNED"
    for name in files:
        here = tmp_path / f"{pack}-{name}"
        folder = _custom_pack(here, pack)
        template = folder / "text" / f"{name}.j2"
        _set_macros(template, _payload(payload, marker))
        _refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out",
                          str(here / "out")], marker, here / "out", str(template))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile-prompts") / "ds"
    build_dataset(out, "-n", "3", "--seed", "3", "--no-images")
    return out


def _prompt_file(tmp_path: Path, payload: str) -> Path:
    prompt = tmp_path / "prompt.j2"
    builtin = (TEMPLATES / "prompts" / "three_statement.j2").read_text()
    prompt.write_text(builtin + payload + "\n")
    return prompt


@pytest.mark.parametrize("payload", list(CODE), ids=list(CODE))
def test_code_payloads_run_in_no_form_nor_the_question(
        payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _sweep_domain(tmp_path, capsys, CODE[payload], templated_fields("financial"))


@pytest.mark.parametrize("payload", list(CODE), ids=list(CODE))
def test_code_payloads_run_in_no_text_template(
        payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _sweep_text(tmp_path, capsys, CODE[payload], "financial", text_files("financial"))


@pytest.mark.parametrize("payload", list(REFUSED), ids=list(REFUSED))
def test_payloads_are_refused_in_a_prompt_file(
        payload: str, tmp_path: Path, dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "PWNED"
    prompt = _prompt_file(tmp_path, _payload(REFUSED[payload], marker))
    out = tmp_path / "run"
    line = _refused(capsys, ["eval", str(dataset), "--model", "hostile-packs-echo",
                             "--prompt", str(prompt), "--out", str(out), "--quiet"],
                    marker, out, "")
    assert str(prompt) in line


@pytest.mark.parametrize("payload", list(WORK), ids=list(WORK))
def test_unbounded_payloads_are_refused_in_a_form_the_question_and_a_text_template(
        payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _sweep_domain(tmp_path, capsys, WORK[payload], [("forms", "CT", 0), ("question",)])
    _sweep_text(tmp_path, capsys, WORK[payload], "financial", ["business"])


#: The bounds belong to the environment every field renders in (the code payloads above show
#: that every field uses it): two kinds of unbounded work are enough to sweep every field with.
EVERY_FIELD_WORK = ("nested-loops", "repeated-string")


@pytest.mark.slow
@pytest.mark.parametrize("payload", EVERY_FIELD_WORK)
def test_unbounded_payloads_are_refused_in_every_field(
        payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _sweep_domain(tmp_path, capsys, WORK[payload], templated_fields("financial"))
    _sweep_text(tmp_path, capsys, WORK[payload], "financial", text_files("financial"))


@pytest.mark.slow
@pytest.mark.parametrize("payload", [*CODE, *EVERY_FIELD_WORK])
def test_payloads_are_refused_in_the_materials_pack(
        payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "PWNED"
    forms = [loc for loc in templated_fields("materials") if loc[0] == "forms"]
    for loc in (forms[0], ("question",)):
        here = tmp_path / "-".join(map(str, loc)).replace("+", "_")
        folder = _custom_pack(here, "materials")
        line = _set_field(folder / "domain.yaml", loc, _payload(REFUSED[payload], marker))
        _refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out",
                          str(here / "out")], marker, here / "out",
                 f"{folder / 'domain.yaml'}:{line}: field '{'.'.join(map(str, loc))}'")
    _sweep_text(tmp_path, capsys, REFUSED[payload], "materials", text_files("materials"))


def _everywhere(tmp_path: Path, pack: str, payload: str) -> Path:
    """A copy of ``pack`` with ``payload`` in every templated field and every text macro."""
    folder = _custom_pack(tmp_path, pack)
    for loc in templated_fields(pack):
        _set_field(folder / "domain.yaml", loc, payload)
    for name in text_files(pack):
        _set_macros(folder / "text" / f"{name}.j2", payload)
    return folder


@pytest.mark.parametrize("payload", ["raw-block"])
def test_a_harmless_payload_in_every_field_builds(payload: str, tmp_path: Path) -> None:
    _harmless_build(tmp_path, "financial", payload)


@pytest.mark.slow
@pytest.mark.parametrize("pack", ["financial", "materials"])
@pytest.mark.parametrize("payload", list(HARMLESS), ids=list(HARMLESS))
def test_harmless_payloads_in_every_field_build(pack: str, payload: str,
                                                tmp_path: Path) -> None:
    _harmless_build(tmp_path, pack, payload)


def _harmless_build(tmp_path: Path, pack: str, payload: str) -> None:
    marker = tmp_path / "PWNED"
    folder = _everywhere(tmp_path, pack, _payload(HARMLESS[payload], marker))
    out = tmp_path / "out"
    assert main(["build", str(folder), "-n", "3", "--no-images", "--out", str(out)]) == 0
    assert not marker.exists()
    if payload == "raw-block":
        assert "cycler.__init__.__globals__" in (out / "items.jsonl").read_text()


@pytest.mark.parametrize("payload", list(HARMLESS), ids=list(HARMLESS))
def test_a_harmless_prompt_file_evaluates(payload: str, tmp_path: Path, dataset: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "PWNED"
    prompt = _prompt_file(tmp_path, _payload(HARMLESS[payload], marker))
    assert main(["eval", str(dataset), "--model", "hostile-packs-echo", "--prompt",
                 str(prompt), "--setting", "chart-as-table", "--out", str(tmp_path / "run"),
                 "--quiet"]) == 0
    assert not marker.exists()


def test_a_form_refused_only_on_real_values_fails_the_build_naming_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A form that passes the load-time check (on stand-in values) but goes past a bound on
    the values of a real statement fails the build: one line naming the file, the line and
    the field; nothing is written."""
    folder = _custom_pack(tmp_path, "financial")
    bomb = "{% if entity|length > 9 %}{% for i in range(99999) %}{% for j in range(9) %}" \
           "{% endfor %}{% endfor %}{% endif %}"  # the stand-in value is '<entity>'
    line = _set_field(folder / "domain.yaml", ("forms", "RK", 0), bomb)
    data = yaml.load((folder / "domain.yaml").read_text(), Loader=yaml.CSafeLoader)
    data["forms"]["RK"] = data["forms"]["RK"][:1]
    (folder / "domain.yaml").write_text(yaml.dump(data, Dumper=yaml.CSafeDumper,
                                                  sort_keys=False, width=1 << 30))
    load_pack(folder)  # the load-time check passes
    out = tmp_path / "out"
    _refused(capsys, ["build", str(folder), "-n", "6", "--hops", "1", "--no-images", "--out",
                      str(out)], tmp_path / "PWNED", out,
             f"{folder / 'domain.yaml'}:{line}: field 'forms.RK.0': refused")


# --- YAML -----------------------------------------------------------------------------------

BOMB = """\
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def _yaml_refused(capsys: pytest.CaptureFixture[str], args: list[str], path: Path,
                  words: str, line: int | None = None) -> None:
    """``gen ARGS`` exits 2 within seconds, with one line naming ``path`` (and ``line``)."""
    start = time.monotonic()
    code = main(args)
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert code == 2, err
    assert took < 10, took
    lines = err.strip().splitlines()
    where = f"{path}:{line}:" if line is not None else str(path)
    assert len(lines) == 1 and lines[0].startswith(f"gen: error: {where}"), err
    assert words in lines[0], lines[0]


def test_an_alias_bomb_in_domain_yaml_is_refused_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _custom_pack(tmp_path, "financial")
    domain = folder / "domain.yaml"
    text = domain.read_text()
    at = text.index("question: |-")
    domain.write_text(text[:at] + BOMB + text[at:])
    line = text[:at].count("\n") + 6  # the first alias past the bound: f's
    out = tmp_path / "out"
    _yaml_refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out", str(out)],
                  domain, "aliases repeat more than", line)
    assert not out.exists()


def _panel_data(tmp_path: Path, domain: str) -> Path:
    """A data folder for ``gen build panel --data``: the skeleton's panel.csv and texts, and
    a partial ``domain.yaml``."""
    data = tmp_path / "data"
    data.mkdir()
    for name in ("panel.csv", "texts.jsonl"):
        shutil.copy(TEMPLATES / "skeleton" / name, data / name)
    (data / "domain.yaml").write_text(domain)
    return data


@pytest.mark.parametrize("where", ["plan", "catalogue", "panel", "theme", "prices"])
def test_every_users_yaml_refuses_an_alias_bomb(
        where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Besides domain.yaml: a text folder's plan.yaml, a materials catalogue, a panel data
    folder's partial domain.yaml, a theme's front matter and a --prices table are all read
    by the bounded reader."""
    from hopvista.errors import UserError
    from hopvista.themes.tables import read_theme_folder

    out = tmp_path / "out"
    if where in ("plan", "catalogue"):
        folder = _custom_pack(tmp_path, "financial" if where == "plan" else "materials")
        path = folder / ("text/plan.yaml" if where == "plan" else "materials.yaml")
        path.write_text(BOMB + path.read_text())
        _yaml_refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out",
                               str(out)], path, "aliases repeat more than", 6)
    elif where == "panel":
        data = _panel_data(tmp_path, BOMB)
        _yaml_refused(capsys, ["build", "panel", "--data", str(data), "-n", "3",
                               "--no-images", "--out", str(out)], data / "domain.yaml",
                      "aliases repeat more than", 6)
    elif where == "theme":
        themes = tmp_path / "themes"
        themes.mkdir()
        path = themes / "bomb.css"
        path.write_text("/* hopvista-theme\n" + BOMB + "*/\n:root { }\n")
        with pytest.raises(UserError) as exc:
            read_theme_folder(themes)
        assert str(path) in str(exc.value) and "aliases repeat more than" in str(exc.value)
    else:
        path = tmp_path / "prices.yaml"
        path.write_text(BOMB)
        _yaml_refused(capsys, ["eval", str(tmp_path), "--model", "random", "--prices",
                               str(path), "--out", str(out)], Path(f"--prices {path}"),
                      "aliases repeat more than", 6)
    assert not out.exists()


@pytest.mark.parametrize("payload", ["cycler-globals", "subclasses-popen", "nested-loops"])
def test_a_panel_data_folders_wording_is_data_too(
        payload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "PWNED"
    text = yaml.safe_dump({"question": "About {{ names }}: " + _payload(REFUSED[payload],
                                                                        marker)})
    data = _panel_data(tmp_path, text)
    out = tmp_path / "out"
    _refused(capsys, ["build", "panel", "--data", str(data), "-n", "3", "--no-images",
                      "--out", str(out)], marker, out,
             f"{data / 'domain.yaml'}:1: field 'question'")


def test_an_oversized_yaml_file_is_refused_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _custom_pack(tmp_path, "financial")
    domain = folder / "domain.yaml"
    with domain.open("a") as handle:
        handle.write("# padding\n" * 3_000_000)
    out = tmp_path / "out"
    _yaml_refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out", str(out)],
                  domain, "too large")
    assert not out.exists()


def test_a_yaml_nested_too_deeply_or_recursive_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _custom_pack(tmp_path, "financial")
    domain = folder / "domain.yaml"
    original = domain.read_text()
    for extra, words in (("deep: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested"),
                         ("loop: &loop [1, *loop]\n", "alias inside its own anchor")):
        domain.write_text(extra + original)
        _yaml_refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out",
                               str(tmp_path / "out")], domain, words)


@pytest.mark.parametrize("value,words", [
    ("9" * 5000, "cannot read this int"),
    ("0b" + "1" * 20000, "cannot read this int"),
    ("2001-13-45", "cannot read this timestamp"),
    ("!!int 'x'", "cannot read this int"),
    ("!!timestamp 'x'", "cannot read this timestamp"),
    ("\"a\x00b\"", "invalid YAML"),
], ids=["long-int", "long-binary-int", "13th-month", "tagged-int", "tagged-time", "nul"])
def test_a_yaml_value_that_cannot_be_built_is_one_line(
        value: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _custom_pack(tmp_path, "financial")
    domain = folder / "domain.yaml"
    text = domain.read_text()
    line = text[:text.index("\ntitle:")].count("\n") + 2
    domain.write_text(re.sub(r"\ntitle:[^\n]*", lambda _: f"\ntitle: {value}", text, count=1))
    _yaml_refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out",
                           str(tmp_path / "out")], domain, words,
                  None if words == "invalid YAML" else line)


def test_a_fifo_for_a_yaml_file_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    folder = _custom_pack(tmp_path, "financial")
    plan = folder / "text" / "plan.yaml"
    plan.unlink()
    os.mkfifo(plan)
    _yaml_refused(capsys, ["build", str(folder), "-n", "3", "--no-images", "--out",
                           str(tmp_path / "out")], plan, "not a regular file")


@pytest.mark.parametrize("where", ["pack", "data"])
def test_a_fifo_for_a_domain_yaml_is_named_not_taken_for_no_pack(
        where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pack folder's domain.yaml, or a panel data folder's, that is a named pipe is refused
    as such (not read as if the folder had none, and never waited on)."""
    if where == "pack":
        folder = tmp_path / "pack"
        folder.mkdir()
        args = ["build", str(folder)]
    else:
        folder = tmp_path / "data"
        shutil.copytree(Path(__file__).parent / "data" / "panels" / "clubs", folder)
        args = ["build", "panel", "--data", str(folder)]
    os.mkfifo(folder / "domain.yaml")
    _yaml_refused(capsys, [*args, "-n", "3", "--no-images", "--out", str(tmp_path / "out")],
                  folder / "domain.yaml", "not a regular file")


# --- benign packs keep their bytes ----------------------------------------------------------

# sha256 of items.jsonl of `gen build PACK -n 9 --seed 7 --no-images`, from the code before
# pack templates rendered in the sandbox and user YAML was read by the bounded reader.
BENIGN = {
    "financial": "be3927c5741fd36f50ab729137cf536966a4cc1de4f4f90fffb34c0ad6f987b2",
    "materials": "c53c8d116034a4b7951bb4778a90e67806b185b1323581ed6b13d522827c9575",
    "skeleton": "c213100621a1e1102b429a83f7f9844f025a9012f7b8a5c9f2d61979d3a36f73",
    "rich": "8b3e4416e6d7f7a48902b0c2e6dc253473b40b8bdc5eb17c86294be8cde15ede",
}
# The skeleton with forms and a question that use what a benign pack may: set, a macro,
# filters, if/else, ~, and the question's statements.
RICH = [
    ("name: orchards", "name: rich"),
    ('"The {{ noun }} with {{ column }} {{ cmp }} {{ threshold }} in {{ period }} is '
     '{{ entity }}."',
     '"{% set who = entity %}{% macro the(x) %}the {{ x|lower }}{% endmacro %}'
     '{{ the(noun)|capitalize }} with {{ column }} {{ cmp }} {{ threshold }} in {{ period }} '
     'is {{ who|trim }}."'),
    ('"The {{ noun }} with the {{ order }} {{ column }} in {{ period }} is {{ entity }}."',
     '"{% if order == \'highest\' %}Top{% else %}Bottom{% endif %}: the {{ noun }} with the '
     '{{ order }} {{ column ~ \'\' }} in {{ period }} is {{ entity|default(\'?\') }}."'),
    ("about {{ names }}.",
     "about {{ names|replace(', ', '; ') }} ({{ statements|length }} statements, "
     "{{ plural|title }})."),
]


@pytest.mark.parametrize("pack", list(BENIGN))
def test_benign_packs_keep_their_bytes(pack: str, tmp_path: Path) -> None:
    if pack in ("skeleton", "rich"):
        assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 0
        target = tmp_path / "orchards"
        if pack == "rich":
            domain = target / "domain.yaml"
            text = domain.read_text()
            for old, new in RICH:
                assert old in text, old
                text = text.replace(old, new, 1)
            domain.write_text(text)
        target_name = str(target)
    else:
        target_name = pack
    out = tmp_path / "out"
    assert main(["build", target_name, "-n", "9", "--seed", "7", "--no-images", "--out",
                 str(out)]) == 0
    assert hashlib.sha256((out / "items.jsonl").read_bytes()).hexdigest() == BENIGN[pack]


# --- Table themes: a theme file cannot hide, move or add content ----------------------------
# A theme file dropped into $HOPVISTA_THEMES is data a user downloads too. Its CSS is held to
# a whitelist when the themes load, before any build work: whatever could make the image lie
# about the table is refused with one line naming the file, the line and the property.

THEME_HEAD = """/* hopvista-theme
name: downloaded
description: A theme from the internet.
fonts: [Liberation Sans]
accents: ["#704214"]
weight: 1000
*/
:root { --hv-bg: #f4ecd8; }
"""
THEME_LINE = THEME_HEAD.count("\n") + 2
"""The line of the first hostile declaration: each case below puts it on its second line."""

# name: (CSS whose second line hides, moves or adds content; what the message names)
HIDING: dict[str, tuple[str, str]] = {
    "visibility": (".hv-table td { color: #000000;\n  visibility: hidden; }", "'visibility'"),
    "opacity": (".hv-num {\n  opacity: 0; }", "'opacity'"),
    "display": (".hv-table tbody tr {\n  display: none; }", "'display'"),
    "transform": (".hv-num {\n  transform: translateX(-400px); }", "'transform'"),
    "position": (".hv-num {\n  position: relative; left: 300px; }", "'position'"),
    "text-indent": (".hv-num {\n  text-indent: -9999px; }", "'text-indent'"),
    "clip-path": (".hv-num {\n  clip-path: inset(50%); }", "'clip-path'"),
    "filter": (".hv-num {\n  filter: blur(6px); }", "'filter'"),
    "before-content": ("\n.hv-num::before { content: '-'; }", "selector '.hv-num::before'"),
    "after-content": ("\n.hv-num:after { content: '0'; }", "selector '.hv-num:after'"),
    "first-letter": ("\n.hv-num::first-letter { color: #f4ecd8; }",
                     "selector '.hv-num::first-letter'"),
    "url": (".hv-table {\n  background: url(https://example.com/track.png); }", "url()"),
    "import": ("\n@import url(https://example.com/theme.css);", "'@import'"),
    "font-face": ("\n@font-face { font-family: X; src: url(https://example.com/x.woff); }",
                  "'@font-face'"),
    "media": ("\n@media print { .hv-num { visibility: hidden; } }", "'@media'"),
    "expression": (".hv-num {\n  color: expression(document.body); }", "expression()"),
    "important": (".hv-num {\n  color: #000000 !important; }", "'!important'"),
    "font-size-0": (".hv-num {\n  font-size: 0; }", "'font-size'"),
    "font-size-nested": (".hv-table { font-size: 0.7em; }\n.hv-table td { font-size: 0.7em; }",
                         "'font-size'"),
    "line-height-0": (".hv-table td {\n  line-height: 0; }", "'line-height'"),
    "letter-spacing": (".hv-num {\n  letter-spacing: -0.6em; }", "'letter-spacing'"),
    "negative-margin": (".hv-caption {\n  margin-top: -80px; }", "'margin-top'"),
    "width": (".hv-root {\n  width: 20px; overflow: hidden; }", "'width'"),
    "custom-property": (".hv-root {\n  --hv-size: 1px; }", "'--hv-size'"),
    "transparent": (".hv-num {\n  color: transparent; }", "'color'"),
    "alpha": (".hv-num {\n  color: rgba(0, 0, 0, 0.05); }", "'color'"),
    "page-colour": (".hv-num {\n  color: #f4ecd8; }", "'color'"),
    "var-page-colour": (".hv-num {\n  color: var(--hv-bg); }", "'color'"),
    "near-page-colour": (".hv-num {\n  color: color-mix(in srgb, var(--hv-bg) 96%, #000000); }",
                         "'color'"),
    "accent-on-accent": (".hv-table thead th { background: var(--hv-accent);\n"
                         "  color: var(--hv-accent); }", "'color'"),
    "background-like-text": (".hv-table td { color: #ffffff; background: #000000; }\n"
                             ".hv-table td.hv-num { background: #ffffff; }", "'background'"),
    "caption-outside-the-table": (".hv-table { border: 1px solid #000000; background: #000000;"
                                  "\n  color: #ffffff; }", "'color'"),
    "late-rows": (".hv-table tr:nth-child(n+40) td {\n  color: #f4ecd8; }", "'color'"),
    "row-headings-in-variants": (".hv-table tbody th {\n  color: #fefefe; }", "'color'"),
    "through-the-page": ("\ndiv > .hv-root .hv-num { color: #fefefe; }",
                         "selector 'div > .hv-root .hv-num'"),
    "variant-panels": (".hv-panel td {\n  color: #f4ecd8; }", "'color'"),
    "transparent-root": (":root { --hv-bg: #111111; }\n.hv-root { color: #eeeeee; "
                         "background: transparent; }", "'background'"),
    "outside-the-table": ("\nbody { color: #ffffff; }", "selector 'body'"),
    "sibling-of-the-table": ("\n.hv-root ~ div { color: #ffffff; }",
                             "selector '.hv-root ~ div'"),
    "escaped-name": (".hv-num {\n  vis\\ibility: hidden; }", "'visibility'"),
}
"""Each case: CSS whose second line would hide, move or add content, and what the one-line
refusal names (the property, selector, at-rule or function)."""


@pytest.fixture
def user_themes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder named by $HOPVISTA_THEMES that the table-theme registry reads at its next
    lookup, as a fresh process would; the registry is as it was after the test."""
    from hopvista.themes.tables import TABLE_THEMES, THEMES_ENV

    folder = tmp_path / "themes"
    folder.mkdir()
    TABLE_THEMES.names()  # the built-in themes are in
    monkeypatch.setenv(THEMES_ENV, str(folder))
    monkeypatch.setattr(TABLE_THEMES, "_entries", dict(TABLE_THEMES._entries))
    monkeypatch.setattr(TABLE_THEMES, "_origins", dict(TABLE_THEMES._origins))
    monkeypatch.setattr(TABLE_THEMES, "_loaded", False)
    return folder


def _theme_file(folder: Path, css: str) -> Path:
    path = folder / "downloaded.css"
    path.write_text(THEME_HEAD + css + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("case", list(HIDING))
def test_a_theme_that_would_hide_move_or_add_content_is_refused(
        case: str, user_themes: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    css, names = HIDING[case]
    path = _theme_file(user_themes, css)
    out = tmp_path / "out"
    line = _refused(capsys, ["build", "financial", "-n", "3", "--no-images", "--out",
                             str(out)], tmp_path / "PWNED", out, f"{path}:{THEME_LINE}: ")
    assert names in line and "in a theme" in line, line


BENIGN_THEME = """.hv-root { color: #2b2b2b; line-height: 1.25; }
.hv-caption { font-style: italic; text-align: left; font-size: 0.9em; padding-bottom: 0.3em; }
.hv-table { border-top: 2px solid var(--hv-accent); border-bottom: 2px solid #2b2b2b; }
.hv-table thead th { background: #3b2a1a; color: #fdf6e3; font-weight: bold;
  padding-top: calc(var(--hv-pad-y) + 2px); }
.hv-table tbody tr:nth-child(even) td { background: color-mix(in srgb, var(--hv-accent) 8%,
  #ffffff); }
.hv-table td + td { border-left: 1px dotted #999999; }
.hv-num { text-align: right; font-variant-numeric: tabular-nums; letter-spacing: 0.02em; }
"""


def test_a_benign_user_theme_builds(user_themes: Path, tmp_path: Path) -> None:
    """Colours, type, borders and spacing: the theme loads and items draw it."""
    _theme_file(user_themes, BENIGN_THEME)
    out = tmp_path / "out"
    build_dataset(out, "-n", "3", "--no-images")
    themes = [item["variant"]["style"]["table"]["theme"]
              for item in map(json.loads, (out / "items.jsonl").read_text().splitlines())]
    assert "downloaded" in themes


@pytest.mark.slow
def test_a_benign_user_theme_renders_every_cell(user_themes: Path) -> None:
    from hopvista.errors import UserError
    from hopvista.render.table import TableRenderer
    from tests.conftest import default_style

    _theme_file(user_themes, BENIGN_THEME)
    table = {"entity_label": "Company", "period_label": "Year",
             "columns": [{"key": "rev", "label": "Revenue", "unit": "USD m"}],
             "rows": [{"entity": "A", "year": 2023, "values": {"rev": "1,234"}},
                      {"entity": "A", "year": 2024, "values": {"rev": "1,301"}},
                      {"entity": "B", "year": 2024, "values": {"rev": "87"}}]}
    try:
        renderer = TableRenderer().open()
    except UserError as exc:
        pytest.skip(f"no Chromium: {exc}")
    with renderer:
        png, layout = renderer.render(table, {"A": "Alpha", "B": "Beta"},
                                      default_style("downloaded"))
    assert png.startswith(b"\x89PNG")
    texts = {(c["row"], c["col"]): c["text"] for c in layout["cells"]}
    assert texts[(1, 2)] == "1,234" and texts[(3, 0)] == "Beta"
    assert all(c["box"][2] > 0 and c["box"][3] > 0 for c in layout["cells"])


# The built-in themes are trusted, and held to the same whitelist here: a new built-in theme
# is checked by being added. Only the Excel theme's active-cell decoration (a fill handle
# drawn after the cell, an outline, the corner's gradient, the heading cells' widths) goes
# beyond it.
BUILTIN_EXCEPTIONS = {
    "excel": ["'min-width'", "'min-width'", "'background'", "'position'", "'outline'",
              "'outline-offset'", "'.hv-table th.hv-head.hv-active::after'"],
}


def test_the_builtin_themes_keep_to_what_a_theme_file_may_do() -> None:
    from hopvista.themes.tables import FRONT_MATTER_TAG, builtin_themes
    from hopvista.themes.tables.policy import theme_css_problems

    for theme in builtin_themes():
        text = (Path(hopvista.themes.tables.__file__).parent / str(theme.css_file)).read_text()
        assert FRONT_MATTER_TAG in text
        css = theme.stylesheet()
        offset = text[:len(text) - len(css)].count("\n")
        problems = theme_css_problems(theme, css, theme.origin, offset)
        expected = BUILTIN_EXCEPTIONS.get(theme.name, [])
        assert len(problems) == len(expected), (theme.name, problems)
        for problem, names in zip(problems, expected, strict=True):
            assert names in problem, (problem, names)


def test_a_theme_at_its_limits_loads_quickly_and_one_beyond_is_refused(tmp_path: Path) -> None:
    """400 rules checked against 64 accent colours take a moment, not a hang; more rules
    or accents are refused in one line."""
    from hopvista.errors import UserError
    from hopvista.themes.tables import read_theme_folder

    accents = ", ".join(f'"#{i:02x}{i:02x}{i:02x}"' for i in range(64))
    rules = "\n".join(f".hv-table tr:nth-child({i}n) td {{ color: #000000; background: "
                      f"#ffffff; border: 1px solid var(--hv-accent); }}" for i in range(399))
    head = THEME_HEAD.replace('accents: ["#704214"]', f"accents: [{accents}]")
    path = tmp_path / "big.css"
    path.write_text(head + rules + "\n")
    start = time.monotonic()
    [theme] = read_theme_folder(tmp_path)
    assert theme.name == "downloaded" and time.monotonic() - start < QUICK_SECONDS
    for text in (head + rules + "\n.hv-num { color: #000000; }\n",
                 head.replace('"#3f3f3f"', '"#3f3f3f", "#404040"') + rules):
        path.write_text(text)
        with pytest.raises(UserError, match=f"^{re.escape(str(path))}: "):
            read_theme_folder(tmp_path)


@pytest.mark.parametrize("font", ["D050000L", "Noto Sans Symbols2", "Noto Color Emoji"])
def test_a_theme_may_not_draw_text_in_a_symbol_font(
        font: str, user_themes: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A font that maps letters and digits to pictures would pass the renderer's fallback
    check (every glyph comes from the font asked for) while the image shows no figures."""
    path = user_themes / "downloaded.css"
    path.write_text(THEME_HEAD.replace("fonts: [Liberation Sans]", f"fonts: [{font}]"))
    out = tmp_path / "out"
    line = _refused(capsys, ["build", "financial", "-n", "3", "--no-images", "--out",
                             str(out)], tmp_path / "PWNED", out,
                    f"{path}: front matter field 'fonts'")
    assert font in line
