"""No import cycle anywhere in the tree (extractors/ and pipeline/, module-level and function-level imports alike;
imports only for type checking aside), and extractors/ never imports pipeline/."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(tree: ast.AST):
    """The import nodes of a module, leaving out those under `if TYPE_CHECKING:` (never run)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING":
            todo.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        todo.extend(ast.iter_child_nodes(node))


def _graph(roots: tuple[str, ...] = ("extractors", "pipeline")) -> dict[str, set[str]]:
    mods = {}
    for root in roots:
        for p in (ROOT / root).rglob("*.py"):
            name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = p
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in _imports(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1] if node.level else []
                b = ".".join(base + ([node.module] if node.module else []))
                targets = [b] + [f"{b}.{a.name}" for a in node.names]
            graph[m] |= {t for t in targets if t in mods and t != m}
            if m.startswith("extractors"):
                assert not any(t == "pipeline" or t.startswith("pipeline.") for t in targets), f"{m} imports pipeline"
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        stack.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                return stack[stack.index(w):] + [w]
            if w not in state and (found := visit(w)):
                return found
        state[v] = 2
        stack.pop()
        return None

    for v in sorted(graph):
        if v not in state and (found := visit(v)):
            return found
    return None


def test_no_import_cycle_anywhere():
    graph = _graph()
    assert "extractors.novel.attribution.attributor" in graph and "extractors.novel.text.quotes" in graph["extractors.novel.attribution.attributor"]
    assert "pipeline.engine.job" in graph and "pipeline.batch" in graph["pipeline.engine.job"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


KINDS = ("novel", "tv", "script", "wiki")


def test_outside_a_source_kind_only_its_public_init_is_used():
    """The contract is the door: pipeline/ and the shared extractors modules reach a kind through the registry or
    the kind's `__init__` (its public names), never one of its modules (benchmarks measure internals on purpose)."""
    graph = _graph()
    bad = []
    for m, targets in graph.items():
        own = next((k for k in KINDS if m.startswith(f"extractors.{k}")), None)
        for t in targets:
            kind = next((k for k in KINDS if t.startswith(f"extractors.{k}.")), None)
            if kind and kind != own:
                bad.append(f"{m} -> {t}")
    assert graph["pipeline.voices"] >= {"extractors.tv"}
    assert not bad, bad


def test_the_door_test_sees_a_private_import(tmp_path):
    """`from extractors.tv.asr import x` is an edge to the module (what the door test refuses)."""
    tree = ast.parse("from extractors.tv.asr import load_model\nfrom extractors.tv import decode_audio\n")
    names = [(n.module, [a.name for a in n.names]) for n in _imports(tree)]
    assert ("extractors.tv.asr", ["load_model"]) in names


def test_only_the_command_line_imports_commands():
    """Layers go one way: engines, the studio and every stage call orchestration and stage functions; only the
    command-line modules (pipeline.cli, pipeline.cli_app, pipeline.commands.*) import pipeline.commands."""
    graph = _graph()
    top = ("pipeline.commands", "pipeline.cli")
    bad = [f"{m} -> {t}" for m, targets in graph.items() if not m.startswith(top)
           for t in targets if t.startswith("pipeline.commands")]
    assert not bad, bad
