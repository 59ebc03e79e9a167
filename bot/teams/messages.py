"""The user-facing strings only the Teams surface writes, in Chinese and English (the core's
own are in ``bot.conversations.texts``). Never put exception text in any of them."""

from __future__ import annotations

NEW_THREAD = {"zh": "好的，我们开始新的对话。", "en": "OK, starting a new conversation."}

CLARIFY_CHOSEN = {"zh": "你选择了：{option}", "en": "You chose: {option}"}
