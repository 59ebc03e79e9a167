"""A question asking to summarise one named thing: its document's key sentences, in order."""

from __future__ import annotations

from agent.offline.digest import asks_summary
from agent.state import Passage
from tests.unit.offline_ask import ask


def _doc(doc_id: str, title: str, text: str, chunk: int = 0, rank: int = 0) -> Passage:
    return Passage(chunk_id=chunk, doc_id=doc_id, title=title, source=doc_id,
                   doc_type="document", heading_path=[], text=text, score=1.0, rank=rank,
                   round=1, sub_id="q1")


_OPENING = ("原告杭州青禾物业服务有限公司与被告杭州米兰烘焙有限公司物业服务合同纠纷一案，本院于"
            "2024年10月9日立案后，依法适用简易程序，公开开庭进行了审理。")
_CLAIMS = "原告向本院提出诉讼请求：1.判令被告支付物业费64800元；2.判令被告支付滞纳金9000元。"
_REASONS = ("本院认为：被告拖欠物业费，应予支付；滞纳金约定过高，本院酌情调整为3000元。依照"
            "《中华人民共和国民法典》第九百四十四条之规定，判决如下：")
_HOLDINGS = ["一、被告杭州米兰烘焙有限公司于本判决生效之日起十日内向原告支付物业费64800元；",
             "二、被告杭州米兰烘焙有限公司于本判决生效之日起十日内向原告支付滞纳金3000元；",
             "三、驳回原告的其他诉讼请求。"]
_TAIL = "案件受理费850元，由被告负担。\n审判员　陈思远\n二〇二五年一月二十日"
_TITLE = "杭州青禾物业服务有限公司与杭州米兰烘焙有限公司物业服务合同纠纷一审民事判决书"

JUDGMENT = _doc("j-1", _TITLE, "\n".join(["民事判决书", _OPENING, _CLAIMS, _REASONS,
                                          *_HOLDINGS, "", _TAIL]))
OTHER = _doc("j-2", "宁波海晟贸易有限公司与宁波港联物流有限公司运输合同纠纷一审民事判决书",
             "原告宁波海晟贸易有限公司与被告宁波港联物流有限公司运输合同纠纷一案，本院依法审理。"
             "判决如下：\n一、被告赔偿原告货损12000元。\n二、驳回原告的其他诉讼请求。",
             chunk=5, rank=1)


def test_a_judgment_is_summarised_by_what_it_decides_in_order() -> None:
    draft = ask("概括一下青禾物业和米兰烘焙物业费纠纷的判决内容。", [JUDGMENT, OTHER])
    assert not draft["refused"]
    assert [s["text"] for s in draft["sentences"]] == _HOLDINGS, draft["text"]
    assert all(s["cites"] == [1] for s in draft["sentences"])
    # The opening sentence shares the most words with the question, but decides nothing.
    assert "立案" not in draft["text"]


def test_holdings_cut_between_two_chunks_are_joined_once() -> None:
    first = _doc("j-1", _TITLE, "\n".join([_OPENING, _REASONS, *_HOLDINGS[:2]]), chunk=10)
    second = _doc("j-1", _TITLE, "\n".join([*_HOLDINGS[1:], "", _TAIL]), chunk=11, rank=1)
    draft = ask("请总结米兰烘焙物业服务合同纠纷案的判决结果", [second, first])
    assert [s["text"] for s in draft["sentences"]] == _HOLDINGS, draft["text"]
    assert [s["cites"] for s in draft["sentences"]] == [[2], [2], [1]]


REPORT = _doc("r-1", "Ardley Foods plc — Half-year report for the six months ended 30 June 2024",
              "Ardley Foods plc — Half-year report for the six months ended 30 June 2024\n"
              "1. Overview\nArdley Foods plc makes chilled ready meals for UK retailers.\n"
              "2. Results\nRevenue for the half year was £184.2 million, up 6.1% on the prior "
              "period. Operating profit was £12.5 million.\n"
              "3. Significant events\n"
              "On 14 February 2024, the group opened a second kitchen in Leeds at a cost of "
              "£9 million.\n"
              "In May 2024 the group completed the purchase of Marlow Soups Ltd for £22 million.\n"
              "On 2 August 2024, after the period end, the group signed a supply contract with "
              "a discount chain.\n"
              "4. Outlook\nThe Board expects trading in the second half to be in line with "
              "the first.")
MEMO = _doc("r-2", "Ardley Foods plc — supplier code of conduct",
            "Suppliers to Ardley Foods plc must meet the group's standards on labour and food "
            "safety.", chunk=3, rank=1)


def test_a_report_period_is_summarised_by_its_dated_events_in_that_period() -> None:
    draft = ask("Summarize Ardley Foods' significant events in the first half of 2024.",
                [REPORT, MEMO])
    texts = [s["text"] for s in draft["sentences"]]
    assert len(texts) == 2, draft["text"]
    assert texts[0].startswith("On 14 February 2024")
    assert "Marlow Soups Ltd for £22 million" in texts[1]
    # The results are no event, and August is after the asked half.
    assert "Revenue" not in draft["text"]
    assert "2 August 2024" not in draft["text"]
    assert all(s["cites"] == [1] for s in draft["sentences"])


ZH_REPORT = _doc("r-3", "江南晨光食品股份有限公司2025年半年度报告（摘要）",
                 "江南晨光食品股份有限公司2025年半年度报告（摘要）\n"
                 "报告期内，公司实现营业收入8.62亿元，同比增长4.3%。\n"
                 "2025年2月18日，公司完成对湖州禾润农业有限公司60%股权的收购，交易对价为1.2亿元。\n"
                 "2025年5月，公司向特定对象发行股票募集资金3.5亿元，用于新建冷链仓储中心。\n"
                 "2025年9月，公司董事会审议通过了中期利润分配方案。")


def test_a_chinese_half_year_is_summarised_by_its_events() -> None:
    draft = ask("简要概括一下晨光食品2025年上半年的重大事项", [ZH_REPORT, MEMO])
    texts = [s["text"] for s in draft["sentences"]]
    assert len(texts) == 2, draft["text"]
    assert "湖州禾润农业" in texts[0]
    assert "3.5亿元" in texts[1]
    assert "营业收入" not in draft["text"]
    assert "9月" not in draft["text"]


def test_summary_questions_are_told_from_questions_about_a_summary() -> None:
    assert asks_summary("概括一下这起租赁纠纷的判决内容")
    assert asks_summary("Can you summarise the 2024 interim report?")
    assert asks_summary("Give me a short overview of the rollout plan")
    assert asks_summary("这起纠纷法院最后怎么判的？")
    assert not asks_summary("项目总结会在哪天开？")
    assert not asks_summary("怎么判断磁盘是不是满了？")
    assert not asks_summary("Where is the summary table of on-call rotations?")
    assert not asks_summary("How do I export the weekly summary report?")


def test_other_questions_over_a_judgment_are_left_to_the_ranked_answer() -> None:
    draft = ask("青禾物业和米兰烘焙的纠纷是哪天立案的？", [JUDGMENT, OTHER])
    assert "2024年10月9日" in draft["sentences"][0]["text"], draft["text"]


def test_an_english_judgment_is_summarised_by_its_orders() -> None:
    judgment = _doc(
        "e-1", "Penrose Bakeries Ltd v Allcott Lettings Ltd — Judgment",
        "IN THE COUNTY COURT AT NORWICH\nPenrose Bakeries Ltd v Allcott Lettings Ltd\n"
        "The claimant Penrose Bakeries Ltd brought a claim against Allcott Lettings Ltd for "
        "the return of a deposit on a commercial lease.\nThe landlord argued the deposit "
        "covered repairs.\nFor these reasons, IT IS ORDERED that:\n"
        "1. The defendant shall repay the deposit of £18,500 to the claimant within 14 days.\n"
        "2. The defendant shall pay the claimant's costs, assessed at £4,200.\n\n"
        "Dated 9 October 2025")
    draft = ask("Summarise the judgment in Penrose Bakeries v Allcott Lettings", [judgment, MEMO])
    texts = [s["text"] for s in draft["sentences"]]
    assert len(texts) == 2, draft["text"]
    assert "£18,500" in texts[0]
    assert "£4,200" in texts[1]
