"""Every user-facing string the bot writes in its own words, in Chinese and English, for
every surface.

The agent writes answers, refusals and stage lines; these are the bot's own words (help,
apologies, notes). Never put exception text in any of them. Texts are plain, with
``backticks`` for codes; a surface renders them (Slack's mrkdwn reads them as they are).
Wording that differs per surface (how to ask, how to vote) is a table per surface name.
"""

from __future__ import annotations

from typing import Any, Literal

Lang = Literal["zh", "en"]

THINKING = {"zh": "思考中…", "en": "Thinking…"}

ASSISTANT_STATUS = {"zh": "正在查找资料…", "en": "is looking through the documents…"}

HELP_SLACK = {
    "zh": (
        "我是知识库助手，根据公司文档回答问题并给出引用。\n"
        "• 在频道里 @我 提问，我会在该消息的话题里回答；"
        "之后在话题里直接回复即可追问，无需再 @我。\n"
        "• 也可以私聊我提问。\n"
        "• 对回答点 :+1: 或 :-1: 帮我改进。\n"
        "• `/ragbot help` 查看命令。"
    ),
    "en": (
        "I answer questions from the company's documents, with citations.\n"
        "• @mention me in a channel and I answer in that message's thread; reply in the "
        "thread to ask a follow-up, no new @mention needed.\n"
        "• You can also ask me in a DM.\n"
        "• React with :+1: or :-1: on an answer to help me improve.\n"
        "• `/ragbot help` lists the commands."
    ),
}

HELP_ANY = {
    "zh": (
        "我是知识库助手，根据公司文档回答问题并给出引用。\n"
        "• 直接向我提问；在同一个对话里继续回复即可追问。\n"
        "• 对回答点赞或点踩帮我改进。"
    ),
    "en": (
        "I answer questions from the company's documents, with citations.\n"
        "• Ask me a question; reply in the same conversation to ask a follow-up.\n"
        "• Vote on an answer to help me improve."
    ),
}

# Per surface name; a surface without its own wording gets HELP_ANY.
HELP: dict[str, dict[str, str]] = {"slack": HELP_SLACK}

APOLOGY = {
    "zh": "抱歉，处理这个问题时出错了。请稍后再试；如需排查，请提供追踪编号 `{trace_id}`。",
    "en": "Sorry, something went wrong while answering. Please try again later; "
          "if you report it, mention trace id `{trace_id}`.",
}

RESTARTED = {
    "zh": "抱歉，我在回答时重启了，没能完成这个问题，请重新提问。（追踪编号 `{trace_id}`）",
    "en": "Sorry, I was restarted before I could finish this answer; please ask again. "
          "(trace id `{trace_id}`)",
}

# Sent only to the asker (ephemeral), and only when the asker may read those documents.
RESTRICTED = {
    "zh": "（仅你可见）你有权限查看的资料可能回答这个问题，但它们受权限限制，"
          "不能在这个对话中使用。请在私聊中问我。",
    "en": "(Only you can see this.) Documents you may read could answer this, but they are "
          "restricted and can't be used in this conversation. Ask me in a DM.",
}

TRUNCATED = {
    "zh": "你的消息超过 {limit} 个字符，我只读取了前 {limit} 个字符。",
    "en": "Your message was longer than {limit} characters; I only read the first {limit}.",
}

CONTEXT_EXPIRED = {
    "zh": "这个对话较早的内容已过保留期限被删除；我把这条消息当作新问题来回答。",
    "en": "This conversation's earlier context has expired; answering as a new question.",
}

CLARIFY_HINT = {
    "zh": "点选一个选项，或直接在话题里回复。",
    "en": "Pick an option, or reply in this thread.",
}

CLARIFY_CHOSEN = {"zh": "你选择了：{option}", "en": "You chose: {option}"}

CLARIFY_EXPIRED = {
    "zh": "这个澄清问题已经回答过了；如有新问题请在话题里回复。",
    "en": "That question was already answered; reply in the thread to ask something new.",
}

SOURCES = {"zh": "来源", "en": "Sources"}

CONTINUED = {"zh": "（续）", "en": "(continued)"}


# ---------------------------------------------------------------- admin commands
# (English: admins configure the bot in English; the command words are English too)

HELP_TEXT = (
    "*ragbot commands*\n"
    "• `/ragbot status [kb]`: whether I am up; for admins also the documents, chunks, model "
    "and sources of the knowledge bases, and any reindex in progress\n"
    "• `/ragbot reindex [kb]` (admins): re-read and re-embed a knowledge base in the "
    "background; questions keep being answered from the current index until it is done\n"
    "• `/ragbot help`: this message\n"
    "Ask questions by mentioning me in a channel or in a DM; react 👍 or 👎 to an answer "
    "to tell me how it went."
)


def refusal_text(action: str) -> str:
    """What a non-admin gets for an admin-only command."""
    return (f":no_entry: `/ragbot {action}` is for ragbot admins only. "
            "Ask an admin to run it, or to add your Slack user id to RAGBOT_ADMINS.")


# What a non-admin's ``/ragbot status`` shows: knowledge base names, sizes and sources say
# what restricted material exists, so they are for admins only.
PUBLIC_STATUS = (":white_check_mark: ragbot is up and answering questions: mention me in a "
                 "channel or send me a DM. Knowledge base details are shown to ragbot admins.")


def reindex_ack_text(kb: str) -> str:
    return (f":hourglass_flowing_sand: Reindex of `{kb}` requested. It runs in the background; "
            "I'll post progress and the result here. Questions are answered from the current "
            "index meanwhile.")


def cache_text(stats: dict[str, Any] | None) -> str:
    """The answer cache's hit rate in words ("answer cache 40% hits (12 of 30)")."""
    if not stats or not stats.get("lookups"):
        return "answer cache not used yet"
    return (f"answer cache {stats['hits'] / stats['lookups']:.0%} hits "
            f"({stats['hits']} of {stats['lookups']})")


def status_text(kbs: list[dict[str, Any]], active: list[dict[str, Any]],
                missing: str | None = None) -> str:
    """The ``/ragbot status`` message from ``kb_status`` dicts and active reindex jobs."""
    if missing:
        return f"Knowledge base `{missing}` does not exist. " + (
            "Known: " + ", ".join(f"`{k['name']}`" for k in kbs) if kbs else
            "None exists yet: create one with `ragbot ingest PATH --kb NAME`.")
    if not kbs:
        return "No knowledge base yet: create one with `ragbot ingest PATH --kb NAME`."
    running = {j["kb"]: j["status"] for j in active}
    lines = ["*Knowledge bases*"]
    for s in kbs:
        state = {"doing": " — :arrows_counterclockwise: reindex running",
                 "todo": " — :hourglass: reindex queued"}.get(running.get(s["name"], ""), "")
        last = (s.get("last_ingest_at") or "never")[:19].replace("T", " ")
        lines.append(f"• `{s['name']}`: {s['documents']} documents, {s['chunks']} chunks, "
                     f"{s['embed_model']} ({s['embed_dim']}d), generation {s['generation']}, "
                     f"last ingest {last}, {cache_text(s.get('answer_cache'))}{state}")
    if not active:
        lines.append("No reindex running.")
    return "\n".join(lines)


def command_failed_text(action: str, ref: str) -> str:
    """The apology for a command that failed after its ack, with the log reference."""
    return f"Sorry, `/ragbot {action}` failed. If you report it, mention reference `{ref}`."


def no_such_kb_text(kb: str) -> str:
    return (f"Knowledge base `{kb}` does not exist, so there is nothing to reindex. "
            "See `/ragbot status` for the names.")


def already_queued_text(kb: str) -> str:
    return (f"A reindex of `{kb}` is already queued (its result goes to whoever asked "
            "first); follow it with `/ragbot status`.")


def pick(table: dict[Lang, str] | dict[str, str], lang: str, **values: object) -> str:
    """The ``lang`` entry of ``table`` (English when unknown), formatted with ``values``."""
    text = table.get(lang) or table["en"]  # type: ignore[call-overload]
    return text.format(**values) if values else text


def help_text(surface: str, lang: str) -> str:
    """The help message for ``surface`` in ``lang``."""
    return pick(HELP.get(surface, HELP_ANY), lang)
