"""The package is a stack of floors: a module imports only from its own floor or the ones below,
and no two packages import each other (read from the source with `ast`, so lazy imports inside
functions count too)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "paperfind"

# Bottom first. A package may import its own floor and every floor below it.
FLOORS: list[set[str]] = [
    {"paperfind", "text", "limits"},  # `paperfind` is the package root (its version)
    {"model", "cards"},  # the shapes passed between stages
    {"catalog"},  # venues and institutions
    {"store"},
    {"ingest"},  # readers, and the run that writes their records to the store
    {"index"},
    {"embed"},
    {"search"},
    {"milvus"},  # a search backend on a Milvus server
    {"settings"},
    {"rank"},
    {"core"},
    {"web", "cli"},
]

# Upward edges someone is removing; each names the item that removes it. Remove the entry with
# the edge: an entry whose edge is gone fails the test too, so the list cannot go stale.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {
    # (importing module, imported module): "who removes it". Empty since house-index moved the
    # embedding loop out of index/vectors.py (the index -> embed edges).
}


def _package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "paperfind":
        return None
    return parts[1] if len(parts) > 1 else "paperfind"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> list[tuple[str, str]]:
    """(importing module, imported module) for every import of a paperfind module."""
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges += [(module, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".")[: None if is_package else -1]
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                edges.append((module, target))
    return [(a, b) for a, b in edges if _package(b) is not None]


def _floor(package: str) -> int:
    for level, packages in enumerate(FLOORS):
        if package in packages:
            return level
    raise AssertionError(f"package paperfind.{package} is on no floor of tests/test_layers.py")


def test_every_package_is_on_a_floor() -> None:
    for path in PACKAGE.iterdir():
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").exists():
            _floor(path.name.removesuffix(".py"))


def test_no_module_imports_from_a_higher_floor() -> None:
    upward = set()
    for source, target in imports():
        if _floor(_package(target)) > _floor(_package(source)):
            upward.add((source, target))
    unexplained = sorted(upward - KNOWN_EXCEPTIONS.keys())
    assert unexplained == [], "imports from a higher floor:\n" + "\n".join(f"{a} -> {b}" for a, b in unexplained)
    gone = sorted(KNOWN_EXCEPTIONS.keys() - upward)
    assert gone == [], f"known exceptions whose import is gone (remove them from the list): {gone}"


def test_no_two_packages_import_each_other() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for source, target in imports():
        a, b = _package(source), _package(target)
        if a != b and (source, target) not in KNOWN_EXCEPTIONS:
            graph[a].add(b)
    cycles = []
    for start in list(graph):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    assert cycles == []


def test_no_two_modules_of_a_package_import_each_other() -> None:
    """Within a package too (ingest/run.py and ingest/readahead.py used to)."""
    graph: dict[str, set[str]] = defaultdict(set)
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    for source, target in imports():
        while target not in modules and "." in target:
            target = target.rsplit(".", 1)[0]  # `from pkg.mod import name` names the module
        if source != target and target in modules and not (source + ".").startswith(target + "."):
            graph[source].add(target)
    circles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a in graph.get(b, ()) and a < b)
    assert circles == []
