"""How-to questions are answered with the procedure's steps, not the document's intro."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.steps import list_items, procedure
from agent.state import Passage
from tests.unit.offline_ask import ask

E = OfflineEngine()

INTRO = ("This runbook describes how a service is deployed to production. "
         "It applies to every service on the shared platform.")
STEPS = ("1. **Announce** the deploy in #deploys with the change ticket number.\n"
         "2. **Build and tag** the release image.\n"
         "3. **Canary** in production with 5% of traffic.\n"
         "4. **Promote** to 100% after 15 minutes.")
MISSED = ("- Forgetting to announce the deploy.\n"
          "- Promoting before the canary window has passed.")
OTHER = ("1. Open the expense form.\n2. Attach the receipts.\n3. Submit it to your manager.")


def passage(chunk_id: int, text: str, heading: list[str], *, doc_id: str = "deploy",
            title: str = "Production Deploy Procedure", rank: int = 0) -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=doc_id, title=title, source=f"{doc_id}.md",
                   doc_type="runbook", heading_path=heading, text=text, score=1.0,
                   rank=rank, round=1, sub_id="q1")


def deploy_pool() -> list[Passage]:
    title = "Production Deploy Procedure"
    return [passage(1, INTRO, [title], rank=0),
            passage(2, MISSED, [title, "Frequently missed steps"], rank=1),
            passage(3, STEPS, [title, "Deploy steps"], rank=2),
            passage(4, OTHER, ["Expenses", "How to file"], doc_id="exp", title="Expenses",
                    rank=3)]


def test_how_do_i_question_quotes_the_numbered_steps_in_order() -> None:
    draft = ask("How do I deploy a service to production?", deploy_pool())
    assert not draft["refused"]
    texts = [s["text"] for s in draft["sentences"]]
    assert texts[0].startswith("1. Announce the deploy")
    assert [t.split(".")[0] for t in texts] == ["1", "2", "3", "4"]
    assert all(s["cites"] == [3] for s in draft["sentences"])
    assert "This runbook describes" not in draft["text"]


def test_steps_come_from_the_document_that_fits_the_question() -> None:
    # The expense form's list is a procedure too, but of another document.
    draft = ask("How do I deploy a service to production?", deploy_pool())
    assert "receipts" not in draft["text"]


def test_chinese_how_question_takes_the_steps_under_the_matching_heading() -> None:
    title = "Redis 内存满了怎么办"
    pool = [passage(1, "当 Redis 实例的内存接近上限时，写入会开始失败。本手册说明排查与处理步骤。",
                    [title], doc_id="redis", title=title),
            passage(2, "- 所有缓存 key 必须设置 TTL；\n- 监控告警阈值：内存使用率 80% 预警。",
                    [title, "5. 预防"], doc_id="redis", title=title, rank=1),
            passage(3, "1. **检查淘汰策略**：缓存实例应使用 allkeys-lru。\n"
                       "2. **清理大 key**：用 UNLINK 异步删除。\n3. **扩容**：将实例规格提升一档。",
                    [title, "2. 立即止损"], doc_id="redis", title=title, rank=2)]
    draft = ask("Redis内存满了怎么办", pool)
    assert [s["text"][:2] for s in draft["sentences"]] == ["1.", "2.", "3."]
    assert "检查淘汰策略" in draft["text"]
    assert "TTL" not in draft["text"]


def test_without_a_list_a_how_question_falls_back_to_sentences() -> None:
    draft = ask("How do I deploy a service to production?",
                [passage(1, INTRO + " Deploys run on weekdays only.", ["Deploy"])])
    assert not draft["refused"]
    assert draft["sentences"]
    assert draft["sentences"][0]["cites"] == [1]


def test_list_items_keep_their_markers_and_drop_emphasis() -> None:
    assert list_items(STEPS)[1] == "2. Build and tag the release image."
    assert list_items("Prose line.\n（1）第一步\n• bullet") == ["（1）第一步", "• bullet"]


def test_no_procedure_without_two_items() -> None:
    assert procedure(["deploy"], [passage(1, "1. Only one step here.", ["Deploy"])]) is None
