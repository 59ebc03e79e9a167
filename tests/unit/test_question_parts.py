"""A question in two parts is answered part by part; "which document" by its title."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.asked import value_pattern
from agent.offline.parts import asks_which_document, question_parts
from agent.state import Passage

E = OfflineEngine()


def _doc(doc_id: str, title: str, text: str) -> Passage:
    return Passage(chunk_id=hash(doc_id) % 1000, doc_id=doc_id, title=title, source=doc_id,
                   doc_type="document", heading_path=[], text=text, score=1.0, rank=0, round=1,
                   sub_id="q1")


def test_parts_need_words_of_their_own() -> None:
    assert question_parts("办公室咖啡机坏了几台？厂家对坏得多的型号怎么处理？") == [
        "办公室咖啡机坏了几台？", "厂家对坏得多的型号怎么处理？"]
    assert question_parts("我在杭州。出差住宿标准是多少？") == []
    assert question_parts("How long is the warranty?") == []


def test_which_document_questions() -> None:
    assert asks_which_document("停电时该看哪个应急预案？")
    assert asks_which_document("Which runbook covers disk alerts?")
    assert not asks_which_document("Which floor is the gym on?")


def test_a_share_asks_for_a_percentage() -> None:
    pattern = value_pattern("坏掉的咖啡机里电源故障占多少？")
    assert pattern is not None
    assert pattern.search("电源故障占 23%。")
    assert not pattern.search("共有 23 台。")
    english = value_pattern("What share of tickets is about printers?")
    assert english is not None
    assert english.search("About 40% of tickets concern printers.")


def test_each_part_is_answered_from_its_own_passage() -> None:
    q = "上个月咖啡机坏了几台？厂家对坏得多的咖啡机型号怎么处理？"
    u = E.understand({"question": q, "history": []})
    passages = [
        _doc("report", "十月设备报告", "办公室咖啡机坏了请在服务台报修。"
             "十月共有 12 台咖啡机损坏，其中 8 台是 A 型号。饮水机一切正常。"),
        _doc("policy", "设备供应商政策", "损坏较多的咖啡机型号由采购部通知厂家召回并更换。"
             "厂家每季度巡检一次。"),
    ]
    draft = E.generate({"question": q, "understanding": u, "route": "multi_retrieval",
                        "queries": [u["query"]], "attempt": 0, "rejected": [],
                        "passages": passages})
    assert not draft["refused"]
    # The parts' answers come first, in the order asked; support may follow.
    assert [s["cites"] for s in draft["sentences"]][:2] == [[1], [2]]
    assert "12 台" in draft["sentences"][0]["text"]
    assert "召回" in draft["sentences"][1]["text"]


def test_which_document_is_answered_by_its_title() -> None:
    q = "机房停电时该参考哪个应急预案？预案里的切换操作需要谁批准？"
    u = E.understand({"question": q, "history": []})
    passages = [
        _doc("power", "机房停电应急预案",
             "机房停电时，请按本预案处置。切换到备用电源前通知值班经理。"),
        _doc("approvals", "变更审批规定", "切换操作需要值班经理批准后执行。"),
    ]
    draft = E.generate({"question": q, "understanding": u, "route": "multi_retrieval",
                        "queries": [u["query"]], "attempt": 0, "rejected": [],
                        "passages": passages})
    assert draft["sentences"][0]["text"] == "《机房停电应急预案》"
    assert "值班经理批准" in draft["text"]


def test_two_questions_joined_in_one_sentence_are_two_parts() -> None:
    assert question_parts("What is the hotel limit in Shanghai, and who approves an exception?") \
        == ["What is the hotel limit in Shanghai", "who approves an exception?"]
    assert question_parts("How much does a parking permit cost and can visitors park on site?") \
        == ["How much does a parking permit cost", "can visitors park on site?"]
    assert question_parts("出差住宿标准是多少，超标了找谁审批？") == [
        "出差住宿标准是多少", "超标了找谁审批？"]
    # a relative clause after a comma asks nothing of its own
    assert question_parts("What is the policy for laptops, which are company property?") == []
    assert question_parts("Which had more returns, the lamp or the fan?") == []


def test_each_clause_of_a_joined_question_is_answered() -> None:
    q = "How much is a hotel in Shanghai capped at, and who approves an exception?"
    hotels = _doc("travel", "Travel Policy",
                  "Hotels in Shanghai and Beijing are capped at CNY 900 a night.\n"
                  "Hotels in other cities are capped at CNY 600 a night.\n"
                  "Meals on travel days are covered up to CNY 200.")
    exceptions = _doc("exceptions", "Policy Exceptions",
                      "An exception to any travel cap is approved by the finance director.\n"
                      "Exceptions are recorded in the expense system.")
    u = E.understand({"question": q, "history": []})
    draft = E.generate({"question": q, "understanding": u, "route": "single_retrieval",
                        "queries": [u["query"]], "passages": [hotels, exceptions],
                        "attempt": 0, "rejected": []})
    assert "CNY 900" in draft["text"], draft["text"]
    assert "finance director" in draft["text"], draft["text"]


def test_two_members_of_a_series_are_two_parts() -> None:
    assert question_parts("2023年和2024年的滨湖读书月，哪一届的参展书目更多？两届各有多少种？") == [
        "2023年的滨湖读书月，哪一届的参展书目更多？两届各有多少种？",
        "2024年的滨湖读书月，哪一届的参展书目更多？两届各有多少种？"]
    assert question_parts("第三届和第四届港城龙舟赛分别有多少支队伍？") == [
        "第三届港城龙舟赛有多少支队伍？", "第四届港城龙舟赛有多少支队伍？"]
    assert question_parts("Which sold more tickets, the 2023 or the 2024 Harbor Jazz Night?") == [
        "Which sold more tickets, the 2023 Harbor Jazz Night?",
        "Which sold more tickets, the 2024 Harbor Jazz Night?"]
    # Two members of different shapes, or nothing asked of each, are one question.
    assert question_parts("2024年和第三届有什么关系？") == []
    assert question_parts("2023年和2024年的营收合计多少？") == []


def test_each_member_is_answered_from_its_own_report() -> None:
    # Two near-duplicate reports: the first ranks first for both years on its words alone.
    q = "2023年和2024年的滨湖灯会，哪一届的主塔更高？两届主塔各高多少米？"
    u = E.understand({"question": q, "history": []})
    passages = [
        _doc("fair-2023", "第五届滨湖灯会闭幕", "2023年滨湖灯会闭幕。滨湖灯会主塔高16米，"
             "由滨湖灯彩社制作。下一届灯会的日期将另行公布。"),
        _doc("fair-2024", "第六届滨湖灯会开幕", "2024年滨湖灯会开幕。本届主塔高20米。"
             "市民可免费入场。"),
    ]
    draft = E.generate({"question": q, "understanding": u, "route": "multi_retrieval",
                        "queries": [u["query"]], "attempt": 0, "rejected": [],
                        "passages": passages})
    assert not draft["refused"]
    assert [s["cites"] for s in draft["sentences"]][:2] == [[1], [2]], draft["text"]
    assert "16米" in draft["sentences"][0]["text"]
    assert "20米" in draft["sentences"][1]["text"]


def test_the_second_member_is_answered_in_the_first_members_unit() -> None:
    # "多少" names no unit; the March answer's "万件" tells the June sentence from the one
    # about June's couriers.
    q = "青禾快递2024年3月和2025年6月的单月包裹量分别是多少？"
    u = E.understand({"question": q, "history": []})
    passages = [
        _doc("parcels-2024", "青禾快递一季度包裹量", "青禾快递4月公布2024年一季度数据。"
             "其中3月单月包裹量达86万件，创历史新高。"),
        _doc("parcels-2025", "青禾快递上半年包裹量",
             "2025年上半年，截至6月底，青禾快递的快递员增至约900名。其中6月处理92万件。"),
    ]
    draft = E.generate({"question": q, "understanding": u, "route": "multi_retrieval",
                        "queries": [u["query"]], "attempt": 0, "rejected": [],
                        "passages": passages})
    assert "86万件" in draft["sentences"][0]["text"], draft["text"]
    assert "92万件" in draft["sentences"][1]["text"], draft["text"]
