"""The package's import graph: no circle among its modules, counting the imports written inside
functions, and few of those, each saying why it waits.

The graph is read from the source (every ``import`` statement, wherever it is written; imports
under ``if TYPE_CHECKING:`` are never run and are left out), through the package-dir mapping in
pyproject.toml, so it covers the built-in sources, templates, themes and augmentations too.
import-linter checks the layers (pyproject.toml, run by CI); this checks what it does not.
"""

from __future__ import annotations

import ast
import tomllib
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_DEFERRED = 40
#: What a deferred import's comment must begin with: why it is not at the top of the module.
REASONS = ("# heavy:", "# start-up:")


@dataclass(frozen=True)
class Import:
    """One import of a package module by another."""

    importer: str
    imported: str
    path: Path
    line: int
    deferred: bool


def _modules(root: Path = ROOT) -> dict[str, Path]:
    config = tomllib.loads((root / "pyproject.toml").read_text())
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    found: dict[str, Path] = {}
    for package, folder in mapping.items():
        for path in (root / folder).rglob("*.py"):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            found.setdefault(name, path)
    return found


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return hidden


def _in_functions(tree: ast.Module) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inside.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return inside


def _targets(node: ast.Import | ast.ImportFrom, importer: str, path: Path,
             modules: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = importer.split(".")
            if path.name != "__init__.py":
                package.pop()
            package = package[:len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                 for alias in node.names]
    targets = []
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != importer:
            targets.append(name)
    return targets


def package_imports(root: Path = ROOT) -> list[Import]:
    """Every import of one of the package's modules by another, wherever it is written."""
    modules = _modules(root)
    found: list[Import] = []
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hidden, inside = _type_checking_nodes(tree), _in_functions(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in hidden:
                found.extend(Import(importer, target, path, node.lineno, id(node) in inside)
                             for target in _targets(node, importer, path, modules))
    return found


def test_the_graph_covers_every_package_folder() -> None:
    importers = {i.importer.split(".")[1] for i in package_imports() if "." in i.importer}
    assert {"sources", "themes", "augment", "program", "verify",
            "generation", "building"} <= importers


def import_circle(root: Path = ROOT) -> list[str] | None:
    """A circle of imports among the package's modules, or ``None``."""
    graph: dict[str, set[str]] = {}
    for found in package_imports(root):
        graph.setdefault(found.importer, set()).add(found.imported)
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        return list(exc.args[1])
    return None


def test_no_module_imports_itself_through_others() -> None:
    circle = import_circle()
    assert circle is None, f"import circle: {' -> '.join(circle or [])}"


def test_a_circle_through_an_import_inside_a_function_is_found(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools]\npackage-dir = {"pkg" = "src"}\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    (tmp_path / "src" / "a.py").write_text("from pkg import b\n")
    (tmp_path / "src" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
        "def later():\n    from pkg.a import thing\n")
    circle = import_circle(tmp_path)
    assert circle is not None and {"pkg.a", "pkg.b"} <= set(circle)


def _line_and_comment_above(found: Import) -> str:
    """The import's line and the comment lines right above it."""
    lines = found.path.read_text(encoding="utf-8").splitlines()
    start = found.line - 1
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return "\n".join(lines[start:found.line])


def test_few_imports_wait_inside_functions_and_each_says_why() -> None:
    deferred = {(i.path, i.line): i for i in package_imports() if i.deferred}
    where = [f"{i.path.relative_to(ROOT)}:{i.line}" for i in deferred.values()]
    assert len(deferred) <= MAX_DEFERRED, \
        f"{len(deferred)} imports of package modules inside functions: {', '.join(where)}"
    unexplained = [f"{i.path.relative_to(ROOT)}:{i.line}" for i in deferred.values()
                   if not any(reason in _line_and_comment_above(i) for reason in REASONS)]
    assert not unexplained, \
        f"imports inside functions without '# heavy: …' or '# start-up: …': {unexplained}"


def test_the_engine_keeps_few_loose_modules() -> None:
    """Each stage is a package; at most twelve modules (the package's own ``__init__``
    included) sit loose at the top of ``generator/``."""
    loose = sorted(p.name for p in (ROOT / "generator").glob("*.py"))
    assert len(loose) <= 12, loose
