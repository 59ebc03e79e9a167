"""Reading rules for threads, sections and sums: a pronoun whose antecedent the same message
names, an ellipsis after an ellipsis, a pointer to a numbered section, an FAQ question in
several sentences, a noun that names a sum of money, a hyphen read as a space, the asker's
hedges, a question for what to provide, and one for what the rules allow in a case."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.answer_kinds import asked_kinds, holds_kind
from agent.offline.kinds import asked_value
from agent.offline.layout import quotable_units
from agent.offline.pointers import is_section, section_pointed
from agent.offline.topic import asks_again, refers_back
from agent.question_shape import asks_things
from agent.state import Passage, Turn, Understanding
from agent.text import content_terms, split_sentences, term_hits
from tests.unit.offline_ask import ask

E = OfflineEngine()


def passage(chunk_id: int, text: str, heading: list[str], *, doc_id: str, title: str,
            rank: int = 0) -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=doc_id, title=title, source=f"{doc_id}.md",
                   doc_type="document", heading_path=heading, text=text, score=1.0,
                   rank=rank, round=1, sub_id="q1")


def understand(question: str, history: list[Turn]) -> Understanding:
    return E.understand({"question": question, "history": history})


def answered(question: str, rewritten: str, entities: list[str], answer: str) -> Turn:
    return Turn(question=question, rewritten=rewritten, entities=entities, answer=answer,
                cited=[], refused=False, route="single_retrieval")


# ------------------------------------------------- a pronoun the message resolves itself

def test_a_pronoun_whose_antecedent_an_earlier_sentence_names_is_no_follow_up() -> None:
    assert refers_back("My badge stopped working. Who do I ask to replace it?", "en", 5) is None
    assert refers_back("我的工牌坏了。它可以补办吗？", "zh", 3) is None


def test_a_pronoun_after_an_acknowledgement_still_points_back() -> None:
    assert refers_back("Thanks. Who do I ask to replace it?", "en", 2) == "firm"
    assert refers_back("I tried that. Is it still broken?", "en", 2) == "firm"
    assert refers_back("好的，谢谢。它可以补办吗？", "zh", 2) == "firm"
    assert refers_back("Who do I ask to replace it?", "en", 2) == "firm"


def test_a_self_contained_question_keeps_its_own_words_in_a_thread() -> None:
    earlier = answered("How often must I change my VPN certificate?",
                       "How often must I change my VPN certificate?",
                       ["vpn", "certificate", "change"], "Every 180 days.")
    u = understand("My laptop was stolen on a trip. Who do I report it to?", [earlier])
    assert not u["is_followup"]
    assert "certificate" not in u["query"]


# ------------------------------------------------------------ an ellipsis after an ellipsis

def test_an_ellipsis_asks_the_earlier_question_again() -> None:
    assert asks_again("那如果磁盘满了呢？", "zh")
    assert asks_again("what about contractors?", "en")
    assert not asks_again("磁盘满了怎么办呢？", "zh")
    assert not asks_again("Is it the same for contractors?", "en")


def test_an_ellipsis_after_an_ellipsis_replaces_the_earlier_case() -> None:
    first = answered("Kafka 消息积压怎么办", "Kafka 消息积压怎么办", ["kafka", "消息", "积压"],
                     "先扩容消费者。")
    second = answered("如果扩容消费者还是不行呢", "kafka，消息，积压，如果扩容消费者还是不行呢",
                      ["扩容", "消费者"], "扩容消费者无效时，检查分区数。")
    u = understand("那磁盘快满了呢？", [first, second])
    assert u["is_followup"]
    assert "kafka" in u["query"]
    assert "扩容" not in u["query"]
    assert "消费者" not in u["query"]


def test_an_ellipsis_after_a_plain_question_keeps_that_question_s_topic() -> None:
    first = answered("年假怎么申请？", "年假怎么申请？", ["年假", "申请"],
                     "在 HR 系统提交年假申请。")
    u = understand("如果主管在休假呢？", [first])
    assert "年假" in u["query"]


# --------------------------------------------------------- a pointer to a numbered section

def test_a_pointer_to_a_numbered_section_is_read() -> None:
    assert section_pointed("磁盘使用率超过 85%：说明日志堆积，见第 3 节。") == "3"
    assert section_pointed("If the queue keeps growing, see section 5.") == "5"
    assert section_pointed("详见《日志管理规范》。") is None
    section = passage(1, "x", ["日志堆积处理", "3. 清理日志"], doc_id="a", title="日志堆积处理")
    assert is_section(section, "3")
    assert not is_section(section, "31")
    assert not is_section(passage(2, "x", ["3 things"], doc_id="a", title="t"), "3")


def test_the_section_a_pointer_names_answers_in_its_place() -> None:
    title = "Elasticsearch 磁盘告警处理"
    check = passage(1, "- 磁盘使用率超过 85%：说明分片过多或日志堆积，见第 3 节。",
                    [title, "1. 先看指标"], doc_id="es", title=title, rank=0)
    fix = passage(2, "日志堆积时，删除 30 天以前的索引，并把保留期改为 14 天。",
                  [title, "3. 日志堆积"], doc_id="es", title=title, rank=1)
    draft = ask("Elasticsearch 日志堆积、磁盘使用率很高呢？", [check, fix])
    assert draft["sentences"][0]["text"].startswith("日志堆积时，删除 30 天以前的索引")


# ------------------------------------------------------------ an FAQ question in sentences

def test_no_sentence_of_an_faq_question_is_quoted() -> None:
    text = ("**My badge is broken. How do I get a new one?**\n"
            "Bring the old badge to reception; a new one is printed while you wait.")
    units = [u.text for u in quotable_units(text, split_sentences)]
    assert "My badge is broken." not in units
    assert any(u.startswith("Bring the old badge") for u in units)


# ------------------------------------------------------------------- a sum of money asked

def test_a_noun_that_names_a_sum_asks_for_an_amount() -> None:
    for question in ("差旅补助是多少？", "培训费用大概多少", "What is the meal allowance?"):
        value = asked_value(question)
        assert value is not None, question
        assert value.search("CNY 120"), question
        assert value.search("120 元"), question
    # a budget may be a share, and "涨多少" a rise: no sum is asked
    assert asked_value("明年调薪预算是多少？") is None
    assert asked_value("工资涨多少？") is None
    # a measure word of its own is read first
    value = asked_value("补贴多少天发一次？")
    assert value is not None
    assert value.search("30 天")


def test_a_sum_given_in_the_other_language_answers_a_chinese_question() -> None:
    pointer = passage(1, "节假日加班的餐费补贴按《Travel Policy》执行。", ["加班"],
                      doc_id="holidays", title="节假日安排", rank=0)
    rule = passage(2, "Overtime meals on public holidays: an allowance of CNY 60 per day.",
                   ["Meals"], doc_id="travel", title="Travel Policy", rank=1)
    question = "加班餐费补贴是多少？"
    u = E.understand({"question": question, "history": []})
    # what the KB's dictionary step gives (agent.nodes.understand)
    english = {"加班": ["overtime"], "餐费": ["meals"], "补贴": ["allowance"]}
    u = Understanding(**{**u, "translated_terms": english, "translated_senses": english})
    draft = E.generate({"question": question, "understanding": u, "route": "single_retrieval",
                        "queries": [u["query"]], "passages": [pointer, rule], "attempt": 0,
                        "rejected": []})
    assert not draft["refused"]
    assert "CNY 60" in draft["sentences"][0]["text"]


# --------------------------------------------------------------------- a hyphen as a space

def test_a_hyphen_joins_a_phrase_as_a_space_does() -> None:
    text = "Follow-up visits are booked by the clinic."
    assert term_hits(["复诊"], text, {"复诊": ["follow up"]}) == {"复诊"}
    assert term_hits(["复诊"], "Follow the visitor rules.", {"复诊": ["follow up"]}) == set()


# ------------------------------------------------------------------- the asker's hedges

def test_a_hedge_before_the_verb_is_no_topic_word() -> None:
    assert content_terms("试用期一般是多久？") == ["试用期"]
    assert "通常" not in content_terms("报销通常要几天到账？")
    # a modifier of the noun is part of what is asked about
    assert "一般" in content_terms("一般纳税人怎么认定？")


# --------------------------------------------------------------- what to provide or bring

def test_a_question_for_what_to_provide_is_answered_by_the_list_its_heading_names() -> None:
    title = "Visitor Guide"
    listed = passage(1, "1. A government-issued photo ID.\n2. The host's name and phone number.\n"
                        "3. A signed confidentiality form.",
                     [title, "What a visitor must bring"], doc_id="visitors", title=title)
    other = passage(2, "Visitors sign in at reception and wear the badge at all times.",
                    [title, "At reception"], doc_id="visitors", title=title, rank=1)
    assert asks_things("What must a visitor bring?")
    assert asks_things("访客要带哪些证件？")
    assert not asks_things("What is the visitor policy?")
    draft = ask("What must a visitor bring?", [listed, other])
    texts = [s["text"] for s in draft["sentences"]]
    assert any("photo ID" in t for t in texts)
    assert any("confidentiality form" in t for t in texts)


# ------------------------------------------------------- what the rules allow in a case

def test_whether_something_may_be_done_in_a_case_asks_what_the_rules_allow() -> None:
    assert asked_kinds("Can I still merge a feature during the audit week?") == ["permission"]
    assert asked_kinds("盘点期间能领用笔记本吗？") == ["permission"]
    assert asked_kinds("Am I allowed to expense a gym membership?") == ["permission"]
    # how to get something, asked as "can I": no rule is asked for; nor by a time that is
    # no case ("什么时候", "2 个小时", "当时")
    assert asked_kinds("Can I get a loaner laptop?") == []
    assert asked_kinds("培训要 2 个小时，能带笔记本吗？") == []
    assert asked_kinds("当时能不能先重启？") == []
    assert holds_kind(["permission"], "盘点期间除报废设备外不接受任何领用申请。")
    assert holds_kind(["permission"], "Merges need release-manager approval that week.")
    assert not holds_kind(["permission"], "盘点时间：6月28日 至 6月30日。")


def test_a_rule_for_the_case_answers_before_the_case_s_dates() -> None:
    title = "2027 盘点安排"
    dates = passage(1, "- 年中盘点：6月28日 9:00 至 6月30日 18:00；\n"
                       "- 年终盘点：12月27日 9:00 至 12月29日 18:00。",
                    [title, "盘点时间"], doc_id="stocktake", title=title)
    rule = passage(2, "盘点期间除报废设备外不接受任何笔记本领用申请，急需设备的请联系 IT 服务台。",
                   [title], doc_id="stocktake", title=title, rank=1)
    draft = ask("年中盘点期间能领用笔记本吗？", [dates, rule])
    assert draft["sentences"][0]["text"].startswith("盘点期间除报废设备外不接受")
