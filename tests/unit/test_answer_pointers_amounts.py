"""Sentences that point elsewhere, amounts inside a band, and command lines: which
sentence answers (original documents, not from any evaluation set)."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.amounts import asked_amounts, bands, covering_floor
from agent.offline.pointers import is_pointer, pointed_documents
from agent.offline.ranking import _is_code
from agent.state import Passage
from tests.unit.offline_ask import ask

E = OfflineEngine()


def doc(n: int, text: str, title: str, rank: int = 0) -> Passage:
    return Passage(chunk_id=n, doc_id=f"doc-{n}", title=title, source=f"doc-{n}.md",
                   doc_type="policy", heading_path=[], text=text, score=1.0, rank=rank,
                   round=1, sub_id="q1")


def test_amounts_are_read_in_numerals_and_digits() -> None:
    assert asked_amounts("四千块的发票谁签字？") == [4000.0]
    assert asked_amounts("Who signs a CNY 12,500 invoice?") == [12500.0]
    assert asked_amounts("1.5万元的采购") == [15000.0]
    assert asked_amounts("How many days of leave?") == []


def test_bands_and_the_tightest_one_holding_the_amount() -> None:
    assert bands("5000 元以上：采购经理签字") == [(5000.0, float("inf"))]
    assert bands("1000 元至 5000 元：主管签字") == [(1000.0, 5000.0)]
    assert bands("Invoices under CNY 1,000 need no signature.") == [(0.0, 1000.0)]
    assert covering_floor([4000.0], "1000 元至 5000 元：主管签字") == 1000.0
    assert covering_floor([4000.0], "5000 元以上：采购经理签字") is None


def test_the_sentence_whose_band_holds_the_amount_answers_first() -> None:
    text = ("发票签字规则如下。\n- 1000 元以下：无需签字；\n- 1000 元至 5000 元：部门主管签字；\n"
            "- 5000 元以上：还需采购经理签字；\n- 200 元以上的发票须为电子发票。")
    draft = ask("四千块的发票谁签字？", [doc(1, text, "发票签字规则")])
    assert draft["sentences"][0]["text"].startswith("1000 元至 5000 元")


def test_pointers_are_recognised_and_followed_to_a_document_in_the_pool() -> None:
    assert is_pointer("访客登记的具体步骤见《前台访客手册》。")
    assert is_pointer("For printer drivers, see the Office Printing Guide.")
    assert is_pointer("This guide describes how badges are issued.")
    assert not is_pointer("Badges are issued at the front desk within one day.")
    badge = doc(1, "遗失工牌需当天报告，具体步骤见《Lost Badge Procedure》。", "门禁制度")
    steps = doc(2, "1. Report the loss at the front desk.\n2. Pay the card fee.\n"
                   "3. Collect the new badge next day.", "Lost Badge Procedure", rank=1)
    assert pointed_documents([badge, steps], "doc-1") == ["doc-2"]


def test_a_procedure_comes_from_the_document_the_best_one_points_to() -> None:
    policy = doc(1, "Lost badges must be reported on the day they go missing; the steps are "
                    "in the Lost Badge Procedure, see the Lost Badge Procedure.\n"
                    "- Badges are personal.\n"
                    "- Badges are not lent.", "Badge Policy")
    steps = doc(2, "1. Report the lost badge at the front desk.\n2. Pay the card fee.\n"
                   "3. Collect the new badge the next day.", "Lost Badge Procedure", rank=1)
    draft = ask("How do I replace a lost badge?", [policy, steps])
    assert [s["cites"] for s in draft["sentences"]] == [[2], [2], [2]]


def test_command_lines_are_code_and_prose_about_flags_is_not() -> None:
    assert _is_code("backupctl restore --db orders --at 02:00")
    assert _is_code("svc -v status")
    assert not _is_code("Run the restore with the --dry-run flag first.")
    assert not _is_code("Backups run nightly at 02:00.")


def test_long_steps_open_with_their_leads_on_one_line_then_every_step_in_order() -> None:
    text = ("## 处理步骤\n"
            "1. **确认告警来源**：登录监控平台，查看最近 30 分钟内触发告警的主机列表和级别，"
            "并与值班群里的告警记录逐条核对。\n"
            "2. **隔离故障节点**：在负载均衡控制台把出错的节点摘除，避免用户请求继续落到它上面。\n"
            "3. **收集现场日志**：把应用日志、系统日志和磁盘使用明细打包上传到工单，"
            "注明发生时间、影响范围和已做操作。\n"
            "4. **恢复并观察**：重启服务后把节点加回负载均衡，持续观察十五分钟确认指标回落。\n"
            "5. **复盘改进**：在三个工作日内提交复盘报告，列出根因、改进项和每一项的负责人。")
    draft = ask("磁盘告警怎么处理？", [doc(1, text, "磁盘告警处理手册")])
    first = draft["sentences"][0]["text"]
    assert first == "确认告警来源；隔离故障节点；收集现场日志；恢复并观察；复盘改进"
    assert [s["text"][:2] for s in draft["sentences"][1:]] == ["1.", "2.", "3.", "4.", "5."]
    assert E.verify({"question": "磁盘告警怎么处理？", "draft": draft,
                     "passages": [doc(1, text, "磁盘告警处理手册")]})["supported"]
    assert draft["text"].splitlines()[1].startswith("1.")


def test_sub_items_under_a_step_stay_out_of_the_leads_line() -> None:
    text = ("## 采购步骤\n"
            "1. **提交需求**：在采购系统中填写物品名称、数量、预算和期望到货日期，附上比价记录。\n"
            "2. **审批**：\n"
            "   - 5000 元以下：部门负责人审批；\n"
            "   - 5000 元以上：部门负责人 + 财务经理审批；\n"
            "3. **下单**：采购专员在审批通过后两个工作日内向供应商下单，"
            "并把订单号和预计到货时间回填到采购系统，方便申请人随时查看进度。\n"
            "4. **验收入库**：到货后由申请人和行政部共同验收，核对型号、数量和外观，"
            "签字后由行政部登记资产编号并贴上资产标签。")
    draft = ask("办公设备采购怎么办理？", [doc(1, text, "办公设备采购流程")])
    assert draft["sentences"][0]["text"] == "提交需求；审批；下单；验收入库", draft["text"]
    assert [s["text"][:2] for s in draft["sentences"][1:]] == ["1.", "2.", "- ", "- ", "3.",
                                                               "4."]
