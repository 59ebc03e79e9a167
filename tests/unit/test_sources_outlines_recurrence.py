"""Three answer rules: the kind of document a question names as its source, a runbook
written as numbered sections answered as its course, and "how often" answered only by a
period that recurs."""

from __future__ import annotations

from agent.offline.answerable import missing_constraint
from agent.offline.sources import named_source, of_kind
from agent.offline.steps import outline
from agent.offline.verify import sentence_supported
from agent.state import Passage, Sentence
from tests.unit.offline_ask import ask


def passage(chunk_id: int, text: str, heading: list[str], *, doc_id: str, title: str,
            doc_type: str = "document", rank: int = 0) -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=doc_id, title=title, source=f"{doc_id}.md",
                   doc_type=doc_type, heading_path=heading, text=text, score=1.0,
                   rank=rank, round=1, sub_id="q1")


# ------------------------------------------------------------------ a named source

def test_the_source_a_question_names_is_read_in_either_language() -> None:
    assert named_source("Per the travel policy, can interns book a hotel?").kind == "policy"
    assert named_source("What does the handbook actually say about parking?").kind == "guide"
    assert named_source("根据《访客管理规定》，访客要提前多久登记？").kind == "policy"
    assert named_source("预案里怎么说的，要先通知谁？").kind == "runbook"
    assert named_source("年假可以按半天请吗？") is None
    assert named_source("How do I report a phishing email?") is None


def test_the_last_source_named_is_the_one_asked() -> None:
    question = ("The audit report says a playbook told the team to rotate the keys. "
                "According to that playbook, who approves the rotation?")
    assert named_source(question).word == "playbook"


def test_a_document_is_of_a_kind_by_its_type_title_or_file_name() -> None:
    by_type = passage(1, "x", [], doc_id="a", title="Printer jams", doc_type="runbook")
    by_title = passage(2, "x", [], doc_id="b", title="Visitor Handbook")
    by_name = passage(3, "x", [], doc_id="visitor-policy", title="访客管理")
    assert of_kind(by_type, "runbook")
    assert of_kind(by_title, "guide")
    assert of_kind(by_name, "policy")
    assert not of_kind(by_name, "report")


def test_the_policy_asked_for_answers_before_a_report_that_mentions_it() -> None:
    report = passage(1, "The visitor policy would have allowed the guard to admit the courier "
                        "after a phone check with the host, but the guard did not know it.",
                     ["Lessons"], doc_id="incident-lobby", title="Lobby incident report",
                     doc_type="report", rank=0)
    policy = passage(2, "A courier without a badge is admitted after the host confirms the "
                        "delivery by phone.",
                     ["Couriers"], doc_id="visitor-policy", title="Visitor Policy",
                     doc_type="policy", rank=1)
    question = ("What does the policy actually say - can the guard admit a courier after a "
                "phone check?")
    draft = ask(question, [report, policy])
    assert draft["sentences"][0]["cites"] == [2]
    # Unnamed, the report that repeats the question's words comes first.
    plain = ask("Can the guard admit a courier without a badge after a phone check?",
                [report, policy])
    assert plain["sentences"][0]["cites"] == [1]


# ------------------------------------------------------------------ numbered sections

TITLE = "打印机故障排查手册"


def printer_pool() -> list[Passage]:
    def p(n: int, text: str, heading: str | None) -> Passage:
        return passage(n, text, [TITLE, *([heading] if heading else [])], doc_id="printer",
                       title=TITLE, doc_type="runbook", rank=n - 1)
    return [p(1, "打印机连续三次卡纸或者显示脱机时，按以下步骤处理。", None),
            p(2, "```bash\nlpstat -p\n```\n先在电脑上确认打印队列里没有卡住的任务。", "1. 看队列"),
            p(3, "| 指示灯 | 含义 | 处理 |\n|---|---|---|\n| 红灯常亮 | 卡纸 | 打开前盖取出纸张 |\n"
                 "| 橙灯闪烁 | 缺墨 | 更换墨盒 |", "2. 按指示灯处理"),
            p(4, "如果以上都不行：\n1. 关机后拔掉电源等待 30 秒；\n2. 重新开机并打印测试页。",
              "3. 重启")]


def test_a_runbook_in_numbered_sections_is_outlined_in_order() -> None:
    steps = outline(printer_pool(), "printer")
    assert steps is not None
    assert [s["text"] for s in steps] == [
        "1. 看队列：先在电脑上确认打印队列里没有卡住的任务。",
        "2. 按指示灯处理：红灯常亮：含义 卡纸；处理 打开前盖取出纸张",
        "3. 重启：关机后拔掉电源等待 30 秒"]
    assert [s["cites"] for s in steps] == [[2], [3], [4]]


def test_sections_that_skip_a_number_are_not_outlined() -> None:
    pool = [x for x in printer_pool() if x["chunk_id"] != 3]
    assert outline(pool, "printer") is None


def test_a_how_question_on_the_runbooks_subject_gets_its_course() -> None:
    draft = ask("打印机老是卡纸怎么排查？", printer_pool())
    texts = [s["text"] for s in draft["sentences"]]
    assert any(t.startswith("1. 看队列") for t in texts)
    assert any(t.startswith("3. 重启") for t in texts)
    assert "按以下步骤处理" not in draft["text"]


def test_a_heading_and_a_point_from_several_sections_are_supported() -> None:
    pool = printer_pool()
    steps = outline(pool, "printer") or []
    assert all(sentence_supported(s, pool) for s in steps)
    leads = Sentence(text="看队列；按指示灯处理；重启", cites=[2, 3, 4])
    assert sentence_supported(leads, pool)
    assert not sentence_supported(Sentence(text="看队列；联系厂商", cites=[2, 3, 4]), pool)


# ------------------------------------------------------------------ how often

def wifi_pool() -> list[Passage]:
    title = "办公网络安全规定"
    return [passage(1, "访客 Wi-Fi 密码一旦外泄，必须在 2 小时内更换。", ["3. 访客网络"],
                    doc_id="net", title=title),
            passage(2, "员工 Wi-Fi 证书有效期为 1 年，到期前自动续签。", ["2. 员工网络"],
                    doc_id="net", title=title),
            passage(3, "网络设备每周日 03:00 自动重启。", ["4. 设备"], doc_id="net", title=title)]


def test_how_often_is_not_answered_by_a_deadline_after_an_event() -> None:
    assert missing_constraint("访客 Wi-Fi 密码多久更换一次？", wifi_pool()) == "多久一次"


def test_how_often_is_answered_by_a_period_in_either_language() -> None:
    assert missing_constraint("员工 Wi-Fi 证书多久续签一次？", wifi_pool()) is None
    english = [passage(1, "Guest Wi-Fi passwords are changed every Monday.", [],
                       doc_id="net-en", title="Network rules")]
    assert missing_constraint("How often are guest Wi-Fi passwords changed?", english) is None
    # A rate is how often too.
    rate = [passage(1, "Guests may use the meeting rooms on two days a week.", [],
                    doc_id="rooms", title="Meeting rooms")]
    assert missing_constraint("How often can guests use the meeting rooms?", rate) is None
    assert missing_constraint("访客多久可以用一次会议室？",
                              [passage(1, "访客一周两天可以使用会议室。", [], doc_id="rooms",
                                       title="会议室")]) is None
    deadline = [passage(1, "If a guest Wi-Fi password leaks, it is changed within 2 hours.",
                        [], doc_id="net-en", title="Network rules")]
    assert missing_constraint("How often are guest Wi-Fi passwords changed?",
                              deadline) == "how often"


def test_a_period_of_something_else_named_in_the_question_does_not_count() -> None:
    # The guest register is filed weekly: it names the guests, not their Wi-Fi password.
    pool = [*wifi_pool(), passage(4, "访客登记表每周归档一次。", ["5. 访客登记"], doc_id="net",
                                  title="办公网络安全规定")]
    assert missing_constraint("访客 Wi-Fi 密码多久更换一次？", pool) == "多久一次"
    # Said of the password itself, the period answers.
    pool.append(passage(5, "访客 Wi-Fi 密码每月 1 日更换。", ["3. 访客网络"], doc_id="net",
                        title="办公网络安全规定"))
    assert missing_constraint("访客 Wi-Fi 密码多久更换一次？", pool) is None


# ------------------------------------------------------------------ bold leads

def test_long_steps_open_with_the_words_their_document_sets_in_bold() -> None:
    title = "Onboarding a new laptop"
    steps = ("1. **Unbox** the laptop and plug in the charger before you switch it on for the "
             "first time, so the firmware update does not stop halfway.\n"
             "2. **Enrol** it in device management by signing in with your company account; "
             "the enrolment profile installs the VPN and the printer drivers.\n"
             "3. **Encrypt the disk** when the security prompt appears after the restart, and "
             "keep the recovery key it shows in the password manager.")
    pool = [passage(1, steps, [title, "Setup steps"], doc_id="laptop", title=title)]
    draft = ask("How do I onboard a new laptop?", pool)
    assert draft["sentences"][0]["text"] == "Unbox; Enrol; Encrypt the disk"
    assert [s["text"][:2] for s in draft["sentences"][1:]] == ["1.", "2.", "3."]
