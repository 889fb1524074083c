"""The layer rules of design.md, checked on the import statements of a package (its AST, not its runtime).

Every ``import`` counts, at module level or inside a function: a function-level import still ties the two
modules together, it only hides the circle until the function runs. Imports under ``if TYPE_CHECKING:``
count too: a model that names its renderer's module for types while the renderer imports the model back is
still two modules that cannot be read, tested or moved apart (``Import.runs`` tells them apart for reports).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    """One import statement: who imports what, and whether it runs (False under TYPE_CHECKING)."""

    importer: str
    imported: str
    line: int
    runs: bool


def module_name(root: Path, path: Path) -> str:
    """``root/a/b.py`` -> ``pkg.a.b`` and ``root/a/__init__.py`` -> ``pkg.a`` (root is the package dir)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name."""
    return {module_name(root, path): path for path in sorted(root.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Line numbers of every statement inside an ``if TYPE_CHECKING:`` body."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                for inner in ast.walk(stmt):
                    if hasattr(inner, "lineno"):
                        lines.add(inner.lineno)
    return lines


def _absolute(name: str, module: str, is_package: bool, level: int) -> str:
    """Resolve a relative ``from ..x import y`` against the importing module."""
    if level == 0:
        return name
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> list[str]:
    """The modules an import statement loads: ``from a import b`` is module ``a.b`` when that exists."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = _absolute(node.module or "", module, is_package, node.level)
    found = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
    return found or [base]


def imports_of(root: Path) -> list[Import]:
    """Every import statement of every module under ``root``, anywhere in the file."""
    modules = package_modules(root)
    known = set(modules)
    found: list[Import] = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        hidden = _type_checking_lines(tree)
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(node, module, is_package, known):
                    found.append(Import(module, target, node.lineno, node.lineno not in hidden))
    return found


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@dataclass(frozen=True)
class Rule:
    """Modules under ``importers`` must not import anything under ``forbidden`` (those under ``exempt`` may)."""

    why: str
    importers: tuple[str, ...]
    forbidden: tuple[str, ...]
    exempt: tuple[str, ...] = ()

    def broken_by(self, imp: Import) -> bool:
        if any(_within(imp.importer, pkg) for pkg in self.exempt):
            return False
        return any(_within(imp.importer, pkg) for pkg in self.importers) and any(
            _within(imp.imported, pkg) for pkg in self.forbidden
        )


def layer_rules(pkg: str) -> list[Rule]:
    """design.md's layers for package ``pkg``: data flows down, Textual only in ui/."""
    below_ops = tuple(f"{pkg}.{name}"
                      for name in ("remote", "engines", "bench", "config", "sim", "fleet", "gateway"))
    everything_but_ui = (pkg,)
    return [
        Rule("only ui/ imports Textual", everything_but_ui, ("textual", "textual_plotext"), (f"{pkg}.ui",)),
        Rule("nothing below ops/ imports ops/, ui/ or cli/", below_ops, (f"{pkg}.ops", f"{pkg}.ui", f"{pkg}.cli")),
        Rule("ops/ imports neither cli/ nor ui/", (f"{pkg}.ops",), (f"{pkg}.cli", f"{pkg}.ui")),
        Rule("ui/ does not import cli/", (f"{pkg}.ui",), (f"{pkg}.cli",)),
        Rule("ui/ knows an engine package through the registry only (mtptui.engines.registry.dashboard)",
             (f"{pkg}.ui",), (f"{pkg}.engines.vllm",)),
        Rule("the demo is a host like any other: only cli/ starts it", (pkg,),
             (f"{pkg}.demo",), (f"{pkg}.cli", f"{pkg}.demo")),
        Rule("the engine knowledge reads no file and no host config (bytes and argv in, a FlagSet out)",
             (f"{pkg}.engines",), (f"{pkg}.config.loader", f"{pkg}.config.files")),
    ]


def layer_violations(root: Path) -> list[str]:
    """One line per import that breaks a layer rule."""
    rules = layer_rules(root.name)
    return [
        f"{imp.importer}:{imp.line} imports {imp.imported} ({rule.why})"
        for imp in imports_of(root)
        for rule in rules
        if rule.broken_by(imp)
    ]


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package modules it imports, anywhere in its text."""
    known = set(package_modules(root))
    graph: dict[str, set[str]] = {module: set() for module in known}
    for imp in imports_of(root):
        if imp.imported in known and imp.imported != imp.importer:
            graph[imp.importer].add(imp.imported)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def folder_graph(root: Path, under: str) -> dict[str, set[str]]:
    """Folder -> the folders it imports, below the dotted package ``under`` (e.g. ``pkg.engines.sglang``).

    A module counts for the folder it sits in; an import between a folder and one of its own sub-folders is not an
    edge (a package's ``__init__`` names its modules), so a circle here is two sibling rooms that lean on each other.
    """
    modules = package_modules(root)

    def folder(module: str) -> str:
        return ".".join(modules[module].relative_to(root.parent).parent.parts)

    graph: dict[str, set[str]] = {folder(m): set() for m in modules if _within(folder(m), under) and folder(m) != under}
    for imp in imports_of(root):
        if imp.importer not in modules or imp.imported not in modules:
            continue
        a, b = folder(imp.importer), folder(imp.imported)
        if a in graph and b in graph and not _within(a, b) and not _within(b, a):
            graph[a].add(b)
    return graph
