"""Every user-facing string the agent produces, in Chinese and English."""

from __future__ import annotations

from agent.state import Language, Stage

REFUSAL = {
    "zh": "根据现有资料无法回答。",
    "en": "I can't answer that from the available documents.",
}

# The question narrows to something the documents never mention ("the apparel line").
REFUSAL_MISSING = {
    "zh": "根据现有资料无法回答：资料中没有提到“{term}”。",
    "en": "I can't answer that from the available documents: they do not mention \"{term}\".",
}

# The passage that matches the question best is an instruction planted in a document
# (store.suspicious): say so rather than repeat it or answer from something else.
REFUSAL_INJECTED = {
    "zh": "根据现有资料无法回答：最相关的段落看起来是混入文档的指令（例如索要密码或要求忽略规则），"
          "不予引用。",
    "en": "I can't answer that from the available documents: the passage that matches looks "
          "like an instruction planted in a document (asking for passwords or to ignore "
          "rules), so I won't repeat it.",
}

# A comparison of two named things (agent.offline.versus): the verdict from the two values
# found, or why there is none.
COMPARE_VERDICT = {
    "zh": "{winner}{word}：{vw}；{loser}为{vl}。",
    "en": "{winner} is {word}: {vw}, against {vl} for {loser}.",
}
# The verdict's word when the question's own ("更长", "longer") is not a plain comparative.
COMPARE_WORD = {
    "zh": {"earlier": "更早", "later": "更晚", "higher": "更高", "lower": "更低"},
    "en": {"earlier": "earlier", "later": "later", "higher": "higher", "lower": "lower"},
}
COMPARE_DIFFERENCE = {
    "zh": "{a}为{va}，{b}为{vb}，相差{diff}。",
    "en": "{a}: {va}; {b}: {vb}; a difference of {diff}.",
}
COMPARE_SAME = {
    "zh": "{a}与{b}相同：均为{value}。",
    "en": "{a} and {b} are the same: {value}.",
}
COMPARE_UNLIKE = {
    "zh": "{a}为{va}，{b}为{vb}，单位不同，无法直接比较。",
    "en": "{a}: {va}; {b}: {vb}. They are in different units, so they cannot be compared directly.",
}
COMPARE_MISSING = {
    "zh": "无法比较：资料中{found}为{value}，但没有找到{missing}的相应信息。",
    "en": ("I can't compare them: the documents give {value} for {found}, "
           "but nothing for {missing}."),
}

# Said after REFUSAL_MISSING, before the closest passage found: what the documents do say.
FOUND_INSTEAD = {
    "zh": "资料中最接近的内容是：",
    "en": "The closest the documents come is this:",
}

# Two current documents give different values for what was asked; both are quoted after it.
DISAGREE = {
    "zh": "资料之间说法不一致，以下两处都引用，请向文档负责人确认：",
    "en": "The documents disagree on this; both are quoted below, so check with their owners:",
}

REFUSAL_WITH_SOURCES = {
    "zh": "根据现有资料无法回答。可能相关的资料：",
    "en": "I can't answer that from the available documents. Sources that may be related:",
}

GREETING = {
    "zh": "你好！我是知识库助手，可以根据公司文档回答问题并给出引用。请直接提问。",
    "en": "Hi! I answer questions from the company's documents, with citations. "
          "Ask me anything about them.",
}

THANKS = {
    "zh": "不客气！还有其他问题随时问我。",
    "en": "You're welcome! Ask me anything else about the documents.",
}

CLARIFY = {
    "zh": "你的问题比较宽泛，想了解哪一方面？",
    "en": "Your question is broad. Which of these do you mean?",
}

CLARIFY_NO_OPTIONS = {
    "zh": "能具体说明一下你想问什么吗？例如涉及的系统、文档或时间。",
    "en": "Could you say a bit more about what you need, such as the system, document or time?",
}

# Document types as clarify options for a Chinese asker (an English one reads the types
# as they are); a type not listed is shown as it is.
DOC_TYPE_LABELS_ZH = {
    "policy": "制度政策", "runbook": "运维手册", "faq": "常见问题", "report": "报告",
    "procedure": "操作流程", "guide": "指南", "manual": "手册", "notes": "笔记",
}

_STAGES: dict[Stage, dict[Language, str]] = {
    "understanding": {"zh": "理解问题…", "en": "Understanding the question…"},
    "searching": {"zh": "检索中…", "en": "Searching…"},
    "evaluating": {"zh": "评估检索结果…", "en": "Checking what was found…"},
    "writing": {"zh": "撰写回答…", "en": "Writing the answer…"},
    "verifying": {"zh": "核对引用…", "en": "Checking citations…"},
}


def stage_message(stage: Stage, language: Language, round_: int | None = None,
                  max_rounds: int | None = None) -> str:
    """The status line for ``stage``, e.g. "检索中 (第 2/3 轮)…" or "Searching (round 2 of 3)…"."""
    if stage == "searching" and round_ is not None and max_rounds is not None:
        if language == "zh":
            return f"检索中 (第 {round_}/{max_rounds} 轮)…"
        return f"Searching (round {round_} of {max_rounds})…"
    return _STAGES[stage][language]
