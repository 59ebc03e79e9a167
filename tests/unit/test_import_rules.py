"""Import rules of the code base, read from the source by grimp (no module is executed).

Imports under ``if TYPE_CHECKING:`` are left out: they never run. Imports inside functions
count: a deferred import that closes a cycle is still a cycle."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import grimp
import pytest


def _build() -> grimp.ImportGraph:
    return grimp.build_graph("bot", "agent", "store", exclude_type_checking_imports=True,
                             cache_dir=None)


@cache
def _graph() -> grimp.ImportGraph:
    return _build()


def _cycles(package: str, graph: grimp.ImportGraph | None = None) -> list[str]:
    graph = graph or _graph()
    found = []
    for module in sorted(m for m in graph.modules if m.split(".")[0] == package):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported.split(".")[0] != package:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                found.append(" -> ".join((module, *back)))
    return found


@pytest.mark.parametrize("package", ["agent", "bot", "store"])
def test_no_import_cycle(package: str) -> None:
    assert _cycles(package) == []


def test_cycle_finder_sees_a_cycle() -> None:
    # the rule above is only worth something if the finder reports a cycle that exists
    graph = _build()
    graph.add_import(importer="agent.types", imported="agent.api")
    assert "agent.types -> agent.api -> agent.types" in _cycles("agent", graph)


def test_agent_value_types_are_a_leaf() -> None:
    imported = _graph().find_modules_directly_imported_by("agent.types")
    assert not [m for m in imported if m.split(".")[0] in ("agent", "bot", "store")]


def test_the_conversation_core_imports_no_chat_sdk() -> None:
    graph = _graph()
    core = sorted(m for m in graph.modules if m.startswith("bot.conversations"))
    assert core
    for module in core:
        for imported in graph.find_modules_directly_imported_by(module):
            assert not imported.startswith(("slack_sdk", "slack_bolt", "bot.slack",
                                            "bot.teams", "microsoft")), (module, imported)


def _nodes_importing_the_offline_engine(graph: grimp.ImportGraph) -> list[str]:
    nodes = sorted(m for m in graph.modules if m.startswith("agent.nodes"))
    assert nodes
    return [f"{node} -> {imported}" for node in nodes
            for imported in graph.find_modules_directly_imported_by(node)
            if imported == "agent.offline" or imported.startswith("agent.offline.")]


def test_graph_nodes_ask_their_engine_not_the_offline_rules() -> None:
    # a node that imports the offline engine's rules decides the same way whichever engine
    # runs; it asks ``ctx.engine`` or reads a neutral module (agent.text, agent.question_shape)
    assert _nodes_importing_the_offline_engine(_graph()) == []


def test_the_node_rule_sees_an_offline_import() -> None:
    graph = _build()
    graph.add_import(importer="agent.nodes.finalize", imported="agent.offline.steps")
    assert _nodes_importing_the_offline_engine(graph) == [
        "agent.nodes.finalize -> agent.offline.steps"]


def test_agent_never_imports_the_bot() -> None:
    graph = _graph()
    assert not graph.chain_exists(importer="agent", imported="bot", as_packages=True)


def _store_tables() -> set[str]:
    from store import migrations

    sql = "\n".join(migrations.MIGRATIONS)
    made = set(re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", sql))
    made |= set(re.findall(r"RENAME TO (\w+)", sql))
    return made


def _sql_on_store_tables(source: str, tables: set[str]) -> list[str]:
    names = "|".join(sorted(tables))
    # SQL keywords in capitals, as this code base writes them (prose says "from documents")
    statement = re.compile(rf"\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\s+(?:{names})\b")
    return [node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and statement.search(node.value)]


def test_the_bot_writes_no_sql_against_store_tables() -> None:
    tables = _store_tables()
    assert {"documents", "turns", "deliveries", "bot_messages"} <= tables
    found = {str(path): hits for path in sorted(Path("bot").rglob("*.py"))
             if (hits := _sql_on_store_tables(path.read_text(encoding="utf-8"), tables))}
    assert found == {}


def test_the_sql_rule_sees_a_query() -> None:
    source = 'rows = conn.execute("SELECT 1 FROM documents d WHERE d.is_latest")'
    assert _sql_on_store_tables(source, _store_tables())


def test_every_module_imports() -> None:
    # mypy is told to ignore missing imports (for untyped libraries), so an import of a
    # module that was moved away shows only here
    import importlib
    import pkgutil

    import agent
    import bot
    import store

    for package in (agent, bot, store):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(info.name)


# The text toolkit: each concern has one home; another module defining a function of that
# kind keeps a private copy that drifts from it (three stemmers once disagreed).
TEXT_TOOLKIT: dict[str, tuple[str, re.Pattern[str]]] = {
    "language detector": ("store/tokenize.py",
                          re.compile(r"^(?:lang(?:uage)?_of|is_chinese|has_cjk)$")),
    # the words of a text (jieba for Chinese runs, Latin words lower-cased); the multi-hop
    # chain still reads names with its own private _words and _stem (not yet moved here)
    "tokenizer": ("store/tokenize.py", re.compile(r"^(?:tokens|words|tokenize)$")),
}


def _defined_elsewhere(owner: str, name: re.Pattern[str], sources: dict[str, str]) -> list[str]:
    return [f"{path}: {node.name}" for path, source in sources.items() if path != owner
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef) and name.match(node.name)]


def _sources() -> dict[str, str]:
    return {str(p): p.read_text(encoding="utf-8")
            for package in ("agent", "bot", "store") for p in sorted(Path(package).rglob("*.py"))}


@pytest.mark.parametrize("concern", sorted(TEXT_TOOLKIT))
def test_the_text_toolkit_has_one_home_per_concern(concern: str) -> None:
    owner, name = TEXT_TOOLKIT[concern]
    assert _defined_elsewhere(owner, name, _sources()) == []


def test_the_toolkit_rule_sees_a_private_copy() -> None:
    owner, name = TEXT_TOOLKIT["language detector"]
    copy = {"agent/x.py": "def lang_of(text):\n    return 'en'\n"}
    assert _defined_elsewhere(owner, name, copy) == ["agent/x.py: lang_of"]
