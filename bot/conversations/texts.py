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

HELP_TEAMS = {
    "zh": (
        "我是知识库助手，根据公司文档回答问题并给出引用。\n\n"
        "- 私聊我直接提问；在频道里 @我 提问，之后在该回复链里直接回复即可追问。\n"
        "- 私聊和群聊里，发送“新问题”开始新的对话（安静一段时间后也会自动开始）。\n"
        "- 点回答下方的 👍/👎 帮我改进。\n"
        "- 命令：help、status、reindex [知识库]（仅管理员）。"
    ),
    "en": (
        "I answer questions from the company's documents, with citations.\n\n"
        "- Ask me in a 1:1 chat, or @mention me in a channel; reply in that chain to "
        "follow up, no new mention needed.\n"
        "- In 1:1 and group chats, say \"new\" to start a new conversation (one also "
        "starts after a quiet spell).\n"
        "- Use 👍/👎 under an answer to help me improve.\n"
        "- Commands: help, status, reindex [kb] (admins)."
    ),
}

# Per surface name; a surface without its own wording gets HELP_ANY.
HELP: dict[str, dict[str, str]] = {"slack": HELP_SLACK, "teams": HELP_TEAMS}

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
# In the asker's language like every text here: the command text's
# (``store.tokenize.language_of``), so
# ``/ragbot 状态`` answers in Chinese. The job reports carry the language of the command.

# Chinese command words, for askers who type them; the English ones always work.
COMMAND_WORDS = {"帮助": "help", "状态": "status", "重建索引": "reindex"}

HELP_TEXT = {
    "zh": (
        "*ragbot 命令*\n"
        "• `/ragbot 状态 [知识库]`（`status`）：我是否在线；管理员还能看到各知识库的文档数、"
        "分块数、模型、来源以及正在进行的重建索引\n"
        "• `/ragbot 重建索引 [知识库]`（`reindex`，仅管理员）：在后台重新读取并嵌入知识库；"
        "完成前仍用当前索引回答问题\n"
        "• `/ragbot 帮助`（`help`）：显示本消息\n"
        "在频道里 @我 或私聊我提问；对回答点 👍 或 👎 告诉我效果如何。"
    ),
    "en": (
        "*ragbot commands*\n"
        "• `/ragbot status [kb]`: whether I am up; for admins also the documents, chunks, "
        "model and sources of the knowledge bases, and any reindex in progress\n"
        "• `/ragbot reindex [kb]` (admins): re-read and re-embed a knowledge base in the "
        "background; questions keep being answered from the current index until it is done\n"
        "• `/ragbot help`: this message (in Chinese: `/ragbot 帮助`)\n"
        "Ask questions by mentioning me in a channel or in a DM; react 👍 or 👎 to an answer "
        "to tell me how it went."
    ),
}

REFUSAL = {
    "zh": ":no_entry: `/ragbot {action}` 仅限 ragbot 管理员使用。"
          "请管理员来执行，或请管理员把你的 Slack 用户 ID 加入 RAGBOT_ADMINS。",
    "en": ":no_entry: `/ragbot {action}` is for ragbot admins only. "
          "Ask an admin to run it, or to add your Slack user id to RAGBOT_ADMINS.",
}

REFUSAL_TEAMS = {
    "zh": "`{action}` 仅限 ragbot 管理员使用。请管理员来执行，或请管理员把你的 Entra 对象 ID 加入 "
          "RAGBOT_TEAMS_ADMINS。",
    "en": "`{action}` is for ragbot admins only. Ask an admin to run it, or to add your Entra "
          "object id to RAGBOT_TEAMS_ADMINS.",
}
# Per surface name; a surface without its own wording gets REFUSAL.
REFUSALS: dict[str, dict[str, str]] = {"teams": REFUSAL_TEAMS}

# What a non-admin's ``/ragbot status`` shows: knowledge base names, sizes and sources say
# what restricted material exists, so they are for admins only.
PUBLIC_STATUS = {
    "zh": ":white_check_mark: ragbot 在线，正在回答问题：在频道里 @我 或私聊我。"
          "知识库详情只向 ragbot 管理员显示。",
    "en": ":white_check_mark: ragbot is up and answering questions: mention me in a "
          "channel or send me a DM. Knowledge base details are shown to ragbot admins.",
}

REINDEX_ACK = {
    "zh": ":hourglass_flowing_sand: 已请求重建 `{kb}` 的索引。它在后台运行，"
          "进度和结果会发到这里；在此期间仍用当前索引回答问题。",
    "en": ":hourglass_flowing_sand: Reindex of `{kb}` requested. It runs in the background; "
          "I'll post progress and the result here. Questions are answered from the current "
          "index meanwhile.",
}

COMMAND_FAILED = {
    "zh": "抱歉，`/ragbot {action}` 执行失败。如需排查，请提供参考编号 `{ref}`。",
    "en": "Sorry, `/ragbot {action}` failed. If you report it, mention reference `{ref}`.",
}

NO_SUCH_KB = {
    "zh": "知识库 `{kb}` 不存在，无法重建索引。用 `/ragbot 状态` 查看名称。",
    "en": "Knowledge base `{kb}` does not exist, so there is nothing to reindex. "
          "See `/ragbot status` for the names.",
}

ALREADY_QUEUED = {
    "zh": "`{kb}` 的重建索引已在排队（结果会发给最先请求的人）；可用 `/ragbot 状态` 跟进。",
    "en": "A reindex of `{kb}` is already queued (its result goes to whoever asked first); "
          "follow it with `/ragbot status`.",
}

UNKNOWN_COMMAND = {
    "zh": "无法识别的命令 `{word}`。试试 `/ragbot 帮助`。",
    "en": "Unknown command `{word}`. Try `/ragbot help`.",
}

ONE_KB_ONLY = {
    "zh": "`/ragbot {action}` 最多接受一个知识库名称，例如 `/ragbot {action} default`。",
    "en": "`/ragbot {action}` takes at most one knowledge base name, "
          "e.g. `/ragbot {action} default`.",
}

BAD_KB_NAME = {
    "zh": "`{kb}` 不是知识库名称（只能用字母、数字和 `_ . -`）。用 `/ragbot 状态` 查看名称。",
    "en": "`{kb}` is not a knowledge base name (letters, digits, `_ . -`). "
          "See `/ragbot status` for the names.",
}

# the reindex job's reports, sent from the job worker
REINDEX_STARTED = {"zh": "`{kb}` 的重建索引已开始。", "en": "Reindex of `{kb}` started."}
REINDEX_PROGRESS = {"zh": "`{kb}` 重建索引中：{summary}", "en": "Reindex of `{kb}`: {summary}"}
REINDEX_FAILED = {
    "zh": ":x: `{kb}` 的重建索引失败：{reason}。知识库保持不变。",
    "en": ":x: Reindex of `{kb}` failed: {reason}. The knowledge base is unchanged.",
}
REINDEX_INTERNAL_ERROR = {"zh": "内部错误（见日志）", "en": "an internal error (see the logs)"}
REINDEX_FINISHED = {
    "zh": ":white_check_mark: `{kb}` 的重建索引已完成，用时 {seconds:.1f} 秒：{summary}",
    "en": ":white_check_mark: Reindex of `{kb}` finished in {seconds:.1f}s: {summary}",
}

_STATUS = {
    "zh": {"missing": "知识库 `{kb}` 不存在。", "known": "已有：", "header": "*知识库*",
           "none_yet": "还没有知识库：用 `ragbot ingest PATH --kb NAME` 创建。",
           "none_exists": "还没有任何知识库：用 `ragbot ingest PATH --kb NAME` 创建。",
           "doing": " — :arrows_counterclockwise: 正在重建索引",
           "todo": " — :hourglass: 重建索引排队中", "never": "从未",
           "line": "• `{name}`：{documents} 个文档，{chunks} 个分块，{model}（{dim} 维），"
                   "第 {generation} 代，最近导入 {last}，{cache}{state}",
           "idle": "没有正在进行的重建索引。",
           "cache_unused": "答案缓存尚未使用",
           "cache": "答案缓存命中率 {rate:.0%}（{lookups} 次中 {hits} 次）"},
    "en": {"missing": "Knowledge base `{kb}` does not exist. ", "known": "Known: ",
           "header": "*Knowledge bases*",
           "none_yet": "No knowledge base yet: create one with `ragbot ingest PATH --kb NAME`.",
           "none_exists": "None exists yet: create one with `ragbot ingest PATH --kb NAME`.",
           "doing": " — :arrows_counterclockwise: reindex running",
           "todo": " — :hourglass: reindex queued", "never": "never",
           "line": "• `{name}`: {documents} documents, {chunks} chunks, {model} ({dim}d), "
                   "generation {generation}, last ingest {last}, {cache}{state}",
           "idle": "No reindex running.",
           "cache_unused": "answer cache not used yet",
           "cache": "answer cache {rate:.0%} hits ({hits} of {lookups})"},
}


def cache_text(stats: dict[str, Any] | None, lang: str = "en") -> str:
    """The answer cache's hit rate in words ("answer cache 40% hits (12 of 30)")."""
    words = _STATUS.get(lang, _STATUS["en"])
    if not stats or not stats.get("lookups"):
        return words["cache_unused"]
    return words["cache"].format(rate=stats["hits"] / stats["lookups"], hits=stats["hits"],
                                 lookups=stats["lookups"])


def status_text(kbs: list[dict[str, Any]], active: list[dict[str, Any]],
                missing: str | None = None, lang: str = "en") -> str:
    """The ``/ragbot status`` message from ``kb_status`` dicts and active reindex jobs."""
    words = _STATUS.get(lang, _STATUS["en"])
    if missing:
        return words["missing"].format(kb=missing) + (
            words["known"] + ", ".join(f"`{k['name']}`" for k in kbs) if kbs else
            words["none_exists"])
    if not kbs:
        return words["none_yet"]
    running = {j["kb"]: j["status"] for j in active}
    lines = [words["header"]]
    for s in kbs:
        job = running.get(s["name"], "")
        state = words[job] if job in ("doing", "todo") else ""
        last = (s.get("last_ingest_at") or words["never"])[:19].replace("T", " ")
        lines.append(words["line"].format(
            name=s["name"], documents=s["documents"], chunks=s["chunks"],
            model=s["embed_model"], dim=s["embed_dim"], generation=s["generation"], last=last,
            cache=cache_text(s.get("answer_cache"), lang), state=state))
    if not active:
        lines.append(words["idle"])
    return "\n".join(lines)


def pick(table: dict[Lang, str] | dict[str, str], lang: str, **values: object) -> str:
    """The ``lang`` entry of ``table`` (English when unknown), formatted with ``values``."""
    text = table.get(lang) or table["en"]  # type: ignore[call-overload]
    return text.format(**values) if values else text


def command_help(lang: str) -> str:
    """The command list in ``lang``; both languages when it is unknown (``""``)."""
    if lang in HELP_TEXT:
        return HELP_TEXT[lang]
    return f"{HELP_TEXT['en']}\n\n{HELP_TEXT['zh']}"


def help_text(surface: str, lang: str) -> str:
    """The help message for ``surface`` in ``lang``."""
    return pick(HELP.get(surface, HELP_ANY), lang)
