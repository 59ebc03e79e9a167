"""Every user-facing string the Teams surface writes itself, in Chinese and English (the
agent writes answers, refusals and stage lines). Never put exception text in any of them."""

from __future__ import annotations

from bot.conversations.texts import APOLOGY, CLARIFY_HINT, RESTRICTED, THINKING, TRUNCATED, pick

__all__ = ["APOLOGY", "CLARIFY_HINT", "HELP", "NEW_THREAD", "NOT_ADMIN", "RESTRICTED",
           "THINKING", "TRUNCATED", "pick"]

HELP = {
    "zh": "我是知识库助手，根据公司文档回答问题并给出引用。\n\n"
          "- 私聊我直接提问；在频道里 @我 提问，之后在该回复链里直接回复即可追问。\n"
          "- 私聊和群聊里，发送“新问题”开始新的对话（安静 {gap} 分钟后也会自动开始）。\n"
          "- 点回答下方的 👍/👎 帮我改进。\n"
          "- 命令：help、status、reindex [知识库]（仅管理员）。",
    "en": "I answer questions from the company's documents, with citations.\n\n"
          "- Ask me in a 1:1 chat, or @mention me in a channel; reply in that chain to "
          "follow up, no new mention needed.\n"
          "- In 1:1 and group chats, say \"new\" to start a new conversation (one also "
          "starts after {gap} quiet minutes).\n"
          "- Use 👍/👎 under an answer to help me improve.\n"
          "- Commands: help, status, reindex [kb] (admins).",
}

NEW_THREAD = {"zh": "好的，我们开始新的对话。", "en": "OK, starting a new conversation."}

NOT_ADMIN = {
    "zh": "只有管理员可以重建索引（RAGBOT_TEAMS_ADMINS）。",
    "en": "Only admins can reindex (RAGBOT_TEAMS_ADMINS).",
}

# the job queue does not report to Teams yet: say so rather than pretend it started
REINDEX_ELSEWHERE = {
    "zh": "在 Teams 里还不能启动重建索引；请在服务器上运行 `ragbot reindex --kb {kb}`。",
    "en": "Reindexing from Teams is not available yet; run `ragbot reindex --kb {kb}` on "
          "the server.",
}

CLARIFY_CHOSEN = {"zh": "你选择了：{option}", "en": "You chose: {option}"}
