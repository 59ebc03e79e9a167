"""The sample knowledge base parses and carries the scenarios the demo and tests rely on."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from store.glossary import GLOSSARY_FILE
from store.readers import ReadFailure, plan, read_plan

KB = Path(__file__).resolve().parents[2] / "samples" / "kb"
DOC_TYPES = {"runbook", "policy", "report", "faq"}
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ACL = re.compile(r"\A(public|user:\w+|channel:\w+|group:\w+)\Z")


def _markdown() -> list[Path]:
    return sorted(KB.glob("*.md"))


def _front_matter(path: Path) -> dict[str, Any]:
    match = _FRONT.match(path.read_text(encoding="utf-8"))
    assert match, f"{path.name}: no YAML front matter"
    data = yaml.safe_load(match.group(1))
    assert isinstance(data, dict), f"{path.name}: front matter is not a mapping"
    return data


def _size(text: str) -> int:
    """Words for English, characters / 2 for Chinese (roughly comparable lengths)."""
    cjk = len(_CJK.findall(text))
    latin = len(re.findall(r"[A-Za-z0-9]+", text))
    return cjk // 2 + latin


def test_sample_kb_has_between_20_and_30_documents() -> None:
    docs = [p for p in KB.iterdir() if p.suffix in {".md", ".txt", ".html"}]
    assert 20 <= len(docs) <= 30
    assert {p.suffix for p in docs} == {".md", ".txt", ".html"}


@pytest.mark.parametrize("path", _markdown(), ids=lambda p: p.name)
def test_markdown_front_matter_has_title_doc_type_and_valid_acl(path: Path) -> None:
    meta = _front_matter(path)
    assert isinstance(meta.get("title"), str)
    assert meta["title"].strip()
    assert meta.get("doc_type") in DOC_TYPES
    for principal in meta.get("acl", ["public"]):
        assert _ACL.match(principal), f"{path.name}: bad acl entry {principal!r}"


@pytest.mark.parametrize("path", sorted(p for p in KB.iterdir() if p.name != GLOSSARY_FILE),
                         ids=lambda p: p.name)
def test_documents_are_between_150_and_800_words(path: Path) -> None:
    assert 150 <= _size(path.read_text(encoding="utf-8")) <= 800


def test_both_languages_and_every_doc_type_are_present() -> None:
    metas = [_front_matter(p) for p in _markdown()]
    chinese = [m for m in metas if _CJK.search(m["title"])]
    english = [m for m in metas if not _CJK.search(m["title"])]
    assert len(chinese) >= 8
    assert len(english) >= 8
    assert {m["doc_type"] for m in metas} == DOC_TYPES


def test_some_documents_are_restricted_to_groups_channels_and_users() -> None:
    principals = {a for p in _markdown() for a in _front_matter(p).get("acl", [])}
    assert {"group:finance", "channel:C0PRIVATE", "user:U0ADMIN"} <= principals


def test_alert_runbook_points_to_the_policy_that_answers_the_second_hop() -> None:
    runbook = (KB / "alert-storm-runbook.md").read_text(encoding="utf-8")
    policy = (KB / "change-management-policy.md").read_text(encoding="utf-8")
    assert "回滚" in runbook
    assert "《变更管理制度》" in runbook
    assert "二次审批" not in runbook  # the answer must need the second hop
    assert _front_matter(KB / "change-management-policy.md")["title"] == "变更管理制度"
    assert "回滚需要二次审批" in policy


def test_redis_runbook_has_a_persistence_section_for_the_follow_up() -> None:
    text = (KB / "redis-memory-runbook.md").read_text(encoding="utf-8")
    assert re.search(r"^## .*持久化.*RDB/AOF", text, re.MULTILINE)


def test_injection_document_carries_instructions_and_a_channel_ping() -> None:
    text = (KB / "supplier-onboarding-notes.md").read_text(encoding="utf-8")
    assert "Ignore all previous instructions" in text
    assert "<!channel>" in text


def test_the_ingest_reader_reads_every_sample_with_its_title_type_and_acl() -> None:
    items = list(read_plan(plan([KB])))
    failures = [i for i in items if isinstance(i, ReadFailure)]
    assert failures == []
    docs = {Path(d.source).name: d for d in items if not isinstance(d, ReadFailure)}
    assert len(docs) == len([p for p in KB.iterdir() if p.suffix in {".md", ".txt", ".html"}])
    assert docs["change-management-policy.md"].title == "变更管理制度"
    assert docs["change-management-policy.md"].doc_type == "policy"
    assert docs["salary-adjustment-2027.md"].acl == ("user:U0ADMIN", "channel:C0PRIVATE")
    assert docs["finance-q3-2026-briefing.md"].acl == ("group:finance",)
    assert docs["returns-report-2026-q3.md"].acl == ("public",)
    assert docs["holiday-schedule-2026.html"].title == "2026年节假日安排与封网时间"


def _readme_demo_questions() -> list[str]:
    readme = (KB.parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("Try:", 1)[1].split("```", 2)[1]
    return [line.removeprefix(">").strip() for line in block.splitlines()
            if line.startswith(">")]


def test_readme_english_demo_questions_use_words_of_the_sample_documents() -> None:
    corpus = " ".join(p.read_text(encoding="utf-8").lower() for p in KB.iterdir())
    english = [q for q in _readme_demo_questions() if not _CJK.search(q)]
    assert english
    for question in english:
        words = {w for w in re.findall(r"[a-z]{5,}", question.lower())} - {"which", "where"}
        missing = sorted(w for w in words if w not in corpus)
        assert not missing, f"{question!r}: {missing} appear in no sample document"
