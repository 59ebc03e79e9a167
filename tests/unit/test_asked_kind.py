"""The sentence that answers holds the kind of thing asked for: a command line for "用什么命令"
/ "what command", a stated meaning for "是什么意思" / "what does … mean"; a sentence that only
says when its steps apply ("当 … 时，按以下步骤处理。") is the document's scope, not an
answer. The documents and questions are written for these tests."""

from __future__ import annotations

from agent.offline.asked import (
    asks_command,
    asks_meaning,
    holds_command,
    holds_meaning,
    holds_value,
)
from agent.offline.kinds import asked_value
from agent.offline.scope import describes_document
from agent.state import Passage
from tests.unit.offline_ask import ask

QUEUE = """# 消息队列积压排查

当消费组的积压超过 10 万条，或者消费延迟持续 5 分钟以上时，按以下步骤处理。

## 1. 查看积压

```bash
mqadmin consumerProgress -g <group> -n <nameserver>
mqadmin queryMsgById -i <msgId> -n <nameserver>
```

消费组的积压一般集中在少数队列上，先看每个队列的差值。

## 2. 常见状态

| 状态 | 含义 | 处理 |
|---|---|---|
| `CONSUME_FAILED`（错误码 207） | 消费逻辑抛出异常被重试 | 查看消费端日志，修复后重置位点 |
| `NOT_ONLINE` | 消费组没有在线实例 | 检查消费端是否启动 |

## 3. 扩容

积压持续增长时，增加消费端实例数，实例数不要超过队列数。
"""

PRINTING = [
    ("Print room guide", "Use this guide when a print job is stuck or the printer shows an error."),
    ("Listing waiting jobs", "Stuck jobs usually come from a driver that lost its connection to "
                             "the print server.\n\n```bash\nlpstat -o\n```"),
    ("Clearing the queue", "Clearing the queue drops every waiting job, so tell the people on "
                           "the floor first.\n\n```bash\ncancel -a prn-3f\n```"),
]


def _passage(text: str, title: str, rank: int = 0) -> Passage:
    return Passage(chunk_id=rank + 1, doc_id=title, title=title, source=f"{title}.md",
                   doc_type="runbook", heading_path=[title], text=text, score=1.0, rank=rank,
                   round=1, sub_id="q1")


def test_asking_for_a_command_is_read_in_either_language() -> None:
    assert asks_command("看消费进度用啥命令")
    assert asks_command("清空打印队列的命令是什么？")
    assert asks_command("Which command lists the waiting print jobs?")
    # An order given by someone is no command line.
    assert not asks_command("是谁下达命令撤离的？")
    assert not asks_command("how do I clear the print queue?")


def test_a_command_is_a_code_line_or_a_code_span_with_arguments() -> None:
    assert holds_command("mqadmin consumerProgress -g <group> -n <nameserver>")
    assert holds_command("Run `lpstat -o` to list the waiting jobs.")
    assert holds_command("cancel -a prn-3f")
    assert not holds_command("```bash")
    assert not holds_command("Paper jams are cleared from the rear tray.")
    assert not holds_command("实例数不要超过 `队列数`。")


def test_a_command_question_is_answered_by_the_code_line() -> None:
    draft = ask("查看消费组的积压用什么命令？", [_passage(QUEUE, "消息队列积压排查")])
    assert not draft["refused"]
    assert draft["text"].startswith("mqadmin consumerProgress"), draft["text"]


def test_code_stays_out_of_answers_that_ask_no_command() -> None:
    draft = ask("消息积压了怎么扩容？", [_passage(QUEUE, "消息队列积压排查")])
    assert "mqadmin" not in draft["text"], draft["text"]


def test_asking_what_something_means() -> None:
    assert asks_meaning("错误码 207 是什么意思")
    assert asks_meaning("What does an amber light mean?")
    assert not asks_meaning("年假是什么时候清零？")
    assert holds_meaning("An amber light on the front panel means the toner is below 5%.")
    assert not holds_meaning("Paper jams are cleared from the rear tray.")


def test_a_meaning_question_is_answered_by_the_row_that_says_it() -> None:
    draft = ask("消费组一直报错误码 207 是什么意思", [_passage(QUEUE, "消息队列积压排查")])
    assert not draft["refused"]
    assert draft["text"].startswith("`CONSUME_FAILED`（错误码 207）"), draft["text"]
    assert "消费逻辑抛出异常" in draft["text"][:200]
    # The sentence that says when the steps apply holds the topic's words, not the meaning.
    assert "按以下步骤处理" not in draft["text"], draft["text"]


def test_a_sentence_announcing_the_steps_is_the_documents_scope() -> None:
    assert describes_document("当消费组的积压超过 10 万条，或者消费延迟持续 5 分钟以上时，"
                              "按以下步骤处理。")
    assert describes_document("If the tunnel drops twice in an hour, follow the steps below.")
    assert not describes_document("积压持续增长时，增加消费端实例数，实例数不要超过队列数。")


def test_an_english_command_question_is_answered_by_the_line_under_its_heading() -> None:
    # A line of code says what it does by its section's heading ("Clearing the queue").
    passages = [Passage(chunk_id=n + 1, doc_id="print", title="Print room guide",
                        source="print.md", doc_type="runbook",
                        heading_path=["Print room guide", heading], text=text, score=1.0,
                        rank=n, round=1, sub_id="q1")
                for n, (heading, text) in enumerate(PRINTING)]
    draft = ask("What command clears the print queue?", passages)
    assert draft["text"].startswith("cancel -a prn-3f"), draft["text"]


TRAINING = """# Graduate Programme

## Rotations

Graduates spend up to three days a week on their home team during a rotation.
Each rotation lasts 4 months, and a graduate does three rotations in the programme.
"""


def test_a_count_per_week_does_not_answer_how_long_something_lasts() -> None:
    value = asked_value("How long does a rotation last?")
    assert value is not None
    assert not holds_value(value, "Graduates spend up to three days a week on their home team.",
                           "How long does a rotation last?")
    assert holds_value(value, "Each rotation lasts 4 months.", "How long does a rotation last?")
    # ...but it answers a question that asks for a count per week.
    asked = "How many days a week are graduates on their home team?"
    rate = asked_value(asked)
    assert rate is not None
    assert holds_value(rate, "Graduates spend up to three days a week on their home team.", asked)
    zh = "轮岗一次多长时间？"
    assert not holds_value(asked_value(zh) or rate, "每周最多 3 天在本组", zh)
    # A count asked as a count is answered by a yearly allowance: not a duration question.
    days = "调休假有几天？"
    allowance = asked_value(days)
    assert allowance is not None
    assert holds_value(allowance, "每年可享受五天调休假。", days)


def test_how_long_is_answered_by_the_duration_not_the_weekly_count() -> None:
    draft = ask("how long are graduates on a rotation?",
                [_passage(TRAINING, "Graduate Programme")])
    assert draft["text"].startswith("Each rotation lasts 4 months"), draft["text"]


BACKUPS = """# 对象存储备份

## 常用命令

```bash
# 列出昨天的快照
snapctl list --bucket finance --since 1d
# 把快照恢复到临时库
snapctl restore --snapshot <id> --target tmp-db
```
"""


def test_a_code_line_is_about_the_comment_above_it() -> None:
    draft = ask("把快照恢复到临时库用什么命令？", [_passage(BACKUPS, "对象存储备份")])
    assert draft["text"].startswith("snapctl restore"), draft["text"]
