"""The layers of ../shared/DESIGN.md, read from the source: imports only
point down (core <- net <- tui), and no two modules import each other,
directly or round a circle, counting every import statement (those inside
functions and under TYPE_CHECKING too: a circle is one however it is
deferred). A screen asks the app by messages and is handed what it needs
(attributes down, messages up); it never imports the app."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "net", "tui", "themes")
# What each layer may import of the others.
ALLOWED = {
    "core": {"core"},
    "net": {"core", "net"},
    "themes": {"themes"},
    "tui": {"core", "net", "tui", "themes"},
}


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imported(path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The project modules ``path`` imports, wherever the statement is."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                if whole in known:
                    yield whole
                elif node.module in known:
                    yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imported(path, known)) - {name} for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_imports_only_point_down() -> None:
    wrong = [
        f"{name} imports {other}"
        for name, others in graph().items()
        for other in sorted(others)
        if other.split(".")[0] not in ALLOWED[name.split(".")[0]]
    ]
    assert wrong == []


def test_no_import_circles() -> None:
    assert circles(graph()) == []


def test_a_circle_is_found() -> None:
    """The check itself: a circle of three, and one of two beside a tree."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d", "f"}, "f": set()}
    assert circles(edges) == [["a", "b", "c"], ["d", "e"]]


# net's sub-packages, lowest first: each may import its own and those before
# it (net's basics, the modules directly in net/, come first; the test hook
# reads every layer). A peer's process becomes the authority when it wins an
# election, so the peer builds on the authority, never the reverse.
NET_LAYERS = (
    "net",
    "net.protocol",
    "net.lan",
    "net.election",
    "net.authority",
    "net.peer",
    "net.dealer",
)
NET_ANYTHING = {"net.testhooks"}


def net_package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else "net"


def test_net_s_layers_only_point_down() -> None:
    net = {name: others for name, others in graph().items() if name.startswith("net.")}
    # every module of net/ is in a layer: a new sub-package is placed, not ignored
    assert sorted({net_package(name) for name in net} - set(NET_LAYERS)) == []
    wrong = [
        f"{name} imports {other}"
        for name, others in net.items()
        if name not in NET_ANYTHING
        for other in sorted(others)
        if other.startswith("net.")
        and NET_LAYERS.index(net_package(other)) > NET_LAYERS.index(net_package(name))
    ]
    assert wrong == []
