"""Offline ``route``: rules. Knowledge questions always search."""

from __future__ import annotations

import re

from agent import messages
from agent.question_shape import has_relative_clause, is_chitchat, is_comparison, is_composed
from agent.state import ClarifyRequest, Facets, RouteDecision, RouteInput
from agent.text import content_terms, norm, term_set

_THANKS = re.compile(r"(thank|thx|cheers|谢|感谢)", re.I)
# Nouns so broad that, alone, they do not say what to look for.
_VAGUE = frozenset([
    "报告", "文档", "资料", "制度", "规定", "政策", "流程", "手册", "预案", "数据", "系统", "问题",
    "东西", "信息", "内容", "事情", "文件", "说明",
    "report", "reports", "document", "documents", "doc", "docs", "policy",
    "policies", "process", "procedure", "manual", "runbook", "data", "system", "systems", "issue",
    "issues", "problem", "problems", "stuff", "info", "file", "files", "thing", "things",
])


# Words that need an argument to name a topic: an action ("怎么申请？" apply for what?) or an
# attribute ("What's the limit?" the limit of what?). Alone, they ask about nothing yet.
_UNSAID = frozenset([
    "申请", "办理", "提交", "报名", "处理", "操作", "审批", "开通", "预约", "登记", "设置",
    "apply", "application", "request", "submit", "register", "approve", "approval", "setup",
    "上限", "下限", "额度", "标准", "价格", "费用", "钱", "金额", "期限", "多久", "时间", "要求",
    "条件", "多长", "多少", "规则",
    "limit", "limits", "cap", "maximum", "minimum", "price", "cost", "costs", "fee", "fees",
    "amount", "deadline", "rule", "rules", "requirement", "requirements", "standard",
])


def is_multi_question(question: str) -> bool:
    """Two questions in one message (a multi-hop chain like "哪个预案？预案里…？")."""
    marks = re.findall(r"[?？]", question.strip().rstrip("?？"))
    return len(marks) >= 1


def clarify_options(question: str, facets: Facets, limit: int = 3) -> list[str]:
    """Up to ``limit`` choices from the KB: titles sharing a term, else doc types, else titles."""
    terms = set(content_terms(question)) | term_set(question)
    scored = []
    for title in facets["titles"]:
        overlap = len(terms & term_set(title))
        if overlap:
            scored.append((-overlap, title))
    options = [t for _, t in sorted(scored)][:limit]
    if len(options) < 2:
        options = [d for d in facets["doc_types"] if d not in options][:limit] or options
    if len(options) < 2:
        options = facets["titles"][:limit]
    return options[:limit]


def is_underspecified(question: str) -> bool:
    """No topic at all, or only broad nouns, bare actions and attributes ("报告", "the
    policy?", "怎么申请？", "What's the limit?")."""
    # A lone Latin letter is a clitic left by tokenizing ("what's" -> "s"), not a topic.
    terms = [t for t in content_terms(question) if len(t) > 1 or not t.isascii()]
    if not terms:
        return len(norm(question)) > 0
    return all(t in _VAGUE or t in _UNSAID for t in terms) and len(terms) <= 2


def route(inp: RouteInput) -> RouteDecision:
    question = inp["question"]
    u = inp["understanding"]
    if is_chitchat(question):
        return RouteDecision(route="direct_answer", reason="greeting or chit-chat",
                             clarification=None)
    if is_underspecified(question) and not u["is_followup"]:
        options = clarify_options(" ".join([question, *u["expansions"]]), inp["facets"])
        lang = u["language"]
        text = messages.CLARIFY[lang] if options else messages.CLARIFY_NO_OPTIONS[lang]
        return RouteDecision(route="clarify", reason="under-specified question",
                             clarification=ClarifyRequest(question=text, options=options))
    if is_comparison(question):
        return RouteDecision(route="multi_retrieval", reason="comparison", clarification=None)
    if is_multi_question(question):
        return RouteDecision(route="multi_retrieval", reason="several questions in one",
                             clarification=None)
    return RouteDecision(route="single_retrieval", reason="knowledge question",
                         clarification=None)


__all__ = ["clarify_options", "has_relative_clause", "is_chitchat", "is_comparison",
           "is_composed", "route"]
