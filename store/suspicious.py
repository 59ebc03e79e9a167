"""Spans of a document that instruct its reader or an assistant rather than inform.

A document is data. A line such as "ignore all previous instructions", "send your password
to …" or a Slack broadcast ("<!channel>") is not something the bot should ever repeat to an
employee, whatever question it seems to answer. Ingest stores these spans with each chunk
(``chunks.suspicious``, shown by ``ragbot kb status``); the agent never quotes them, and
the same check refuses a question that instructs the bot. This is the only detector.

Rather than listing known phrasings, a sentence is read for how an injection is built:

* **an override** of the reader's instructions ("disregard your earlier guidelines",
  "忽略之前的所有指令", "you are now …", "reply only with …");
* **an assistant addressed** ("Note to AI assistants:", "如果你是AI助手", "the bot should …")
  with anything it is told to do — documentation describes a bot, it does not order one;
* **a request** (an imperative: "please", a modal, "tell X to", "请/把/将 …") to **hand over
  a secret** (password, code, OTP, MFA, API key, SSO/VPN credentials) — unless negated
  ("never share your password");
* **a login or account check at a link** under pressure (urgency, a threat, a prize):
  a help page says "reset it at https://…", phishing says "within 24 hours, or else";
* **payments redirected** to a new account ("send all future payments to our new account");
* **broadcast or mention markup** (``<!channel>``, ``<@U…>``, ``<at>``).
"""

from __future__ import annotations

import functools
import re

_I = re.I
# --- pieces --------------------------------------------------------------------------
# A secret: the password itself, not its reset form or policy ("password reset requests").
_CREDENTIAL_EN = (r"(?:(?:sso|vpn|e-?mail|domain|ad|account|admin|wi-?fi)\s+)?"
              r"(?:passwords?(?!\s*(?:reset|polic|rule|requirement|expir|change|manager|"
              r"strength|length|hint))|passcodes?|pass\s?phrases?|credentials|"
              r"log-?in (?:details|info)|(?:verification|security|one[- ]time|otp|mfa|2fa|"
              r"two-factor|authenticat\w*|auth|sms|login|access)\s+codes?|otps?\b|"
              r"\bpins?\b|api[- ]?keys?|access keys?|secret keys?|tokens?|card numbers?|cvv)")
_CREDENTIAL_ZH = (r"(?:密码(?!重置|策略|规则|要求|过期|修改|长度|复杂度|管理器)|验证码|动态码|口令|"
              r"凭证|凭据|密钥|令牌|银行卡号|API ?key|OTP|MFA)")
# An English request: the verb follows a word that makes it one (clause start, please,
# a modal, "tell X to").
_ASK_EN = (r"(?:^|[:;!—–\-]\s*|[,.]\s+|\b(?:please|kindly|pls|must|should|need to|needs to|"
           r"required to|have to|has to|and|then|now|immediately|urgently|asap|simply|just|"
           r"also|to)\s+)")
_HAND_EN = (r"(?:send|share|forward|give|provide|e-?mail|dm|message|post|paste|submit|text|"
            r"tell|disclose|hand over|read out|reply (?:\w+\s+){0,4}?with)")
_NEG_EN = re.compile(r"\b(?:never|not|no one|nobody|don't|dont|avoid|refuse|won't)\b|n't\b", _I)
_ASK_ZH = r"(?:请|务必|立即|立刻|马上|尽快|需要|必须|麻烦|烦请|劳烦|赶紧|即刻|直接|并|然后|要)"
_HAND_ZH = (r"(?:发给|发送给|发送至|发至|发到|告诉|告知|提供给|提供|转给|转发给|转发|回复给|"
            r"回复|私信|分享给|交给|报给)")
_NEG_ZH = re.compile(r"(?:不要|切勿|请勿|禁止|严禁|不得|绝不|不能|不会|勿|别|从不|永远不要)")

# A handover names where the secret goes ("to Kevin", "into this ticket", "@…"), unless the
# verb does (reply, email, DM): "give your admin credentials by specifying …" configures.
_TO = r"[^.!?\n]{0,40}?(?:\b(?:to|with|into|in|via|on|over|here|below|back)\b|@)"
_HANDOVER = [
    re.compile(_ASK_EN + r"(?:\w+ly\s+)?" + _HAND_EN + r"\b[^.!?\n]{0,50}?\b" + _CREDENTIAL_EN
               + _TO, _I),
    re.compile(_ASK_EN + r"(?:\w+ly\s+)?(?:reply (?:\w+\s+){0,4}?with|e-?mail|dm|message|text)"
               r"\b[^.!?\n]{0,50}?\b" + _CREDENTIAL_EN, _I),
    re.compile(_CREDENTIAL_EN + r"[^.!?\n]{0,30}\b(?:should|must|needs? to) be (?:sent|shared|"
               r"forwarded|provided|e-?mailed|given|submitted)\b", _I),
    re.compile(_ASK_ZH + r"[^。！？\n]{0,15}?" + _HAND_ZH + r"[^。！？\n]{0,20}?" + _CREDENTIAL_ZH,
               _I),
    re.compile(r"(?:把|将)[^。！？\n]{0,15}?" + _CREDENTIAL_ZH + r"[^。！？\n]{0,20}?"
               r"(?:发给|发送给|发送至|发至|发到|告诉|告知|提供给|转给|转发给|私信给|分享给|交给|"
               r"报给|回复给|给)", _I),
]
# The reader's (or an assistant's) instructions overridden, or its output dictated.
_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,30}\b(?:previous|prior|above|"
    r"earlier|all|any|your|existing|system|original)\b[^.!?\n]{0,20}\b(?:instructions?|"
    r"prompts?|rules|guidelines|directions|guardrails|restrictions|settings)\b|"
    r"\bsystem prompt\b|(?:^|[.:;!,]\s*)you are now (?:an?|the|in|acting|my)\b|"
    r"\bnew instructions\s*:|\bdeveloper mode\b|"
    r"\b(?:reply|respond|answer)\s+(?:with\s+)?(?:only|exactly)\b|"
    r"\b(?:say|output)\s+only\b|\b(?:reply|respond|answer) with only\b|"
    r"\band nothing else\b|"
    r"\bwhen(?:ever)? (?:asked|someone asks|anyone asks|users? asks?|employees? asks?)\b"
    r"[^.!?\n]{0,60}\b(?:reply|respond|answer|say|tell)\b|"
    r"\bif (?:anyone|someone|a user|an employee|users|employees) asks?\b[^.!?\n]{0,60}"
    r"\b(?:reply|respond|answer|say|tell)\b|"
    # An override names the instructions it overrides: the earlier ones, all, yours.
    r"(?:忽略|无视|忘记|忘掉|不要理会|跳过|覆盖)[^。！？\n]{0,6}(?:之前|以上|上面|前面|所有|先前|"
    r"原有|你的|系统|其他)[^。！？\n]{0,6}(?:指令|指示|提示|规则|设定|要求)|"
    r"系统提示词|你现在是|从现在起你|(?:请|你|务必|必须|一律)(?:只|仅)(?:回复|回答|输出|说)|"
    r"(?:只|仅)(?:回复|回答|输出)[“\"'「]|新的指令|"
    r"(?:当|如果|若)(?:有人|用户|员工|别人)(?:问|询问|问到|问起)[^。！？\n]{0,30}"
    r"(?:回答|回复|告诉|就说|请说)", _I)
# An assistant addressed and told to do something.
_AI_EN = (r"(?:\bai\b(?:\s+(?:assistants?|models?|agents?|systems?|tools?))?|\bllms?\b|"
          r"\blanguage models?\b|\bchat ?bots?\b|\bvirtual assistants?\b|\bthe bot\b|"
          r"\bbots\b|\bcopilot\b|\b(?:chat)?gpt\b)")
_ADDRESSED = re.compile(
    r"\b(?:note|message|attention|instructions?)\s+(?:to|for)\s+(?:all\s+|any\s+|the\s+)?"
    + _AI_EN + r"|\bif you are an?\s+" + _AI_EN + r"|\b(?:dear|hey|hi|attention)\s+"
    # A vocative opens its sentence ("AI assistants: …"); mid-sentence "… language model,
    # see …" is a description.
    + _AI_EN + r"|^[\s>*#-]*(?:(?:dear|hey|hi|attention|to)\s+)?(?:all\s+|any\s+|the\s+)?"
    + _AI_EN + r"\s*[:,]|"
    + _AI_EN + r"[^.!?\n]{0,60}?\b(?:should|must|shall|needs? to|is to|are to|has to|"
    r"have to|are (?:required|instructed|asked) to)\s+(?!be\b|not be\b|have been\b)"
    r"(?:always\s+)?(?:tell|ask|say|reply|respond|answer|remind|direct|instruct|include|"
    r"recommend|send|forward|output|insist|warn|mention|refer|share)\b|"
    r"^[\s>*#-]*(?:致|给)?(?:AI|人工智能|智能|问答)?助手(?:[，,：:]|请)|"
    r"(?:AI|人工智能|智能|问答)助手(?:请|在回答|回答时|应|必须|务必|需要)|"
    r"(?:AI|人工智能|大模型|语言模型|聊天机器人|机器人)[^。！？\n]{0,20}?(?:请|应|应该|必须|务必|"
    r"需要|一律|在回答|回答时|回复时|告诉|提醒|让用户|要求用户|引导)|"
    r"如果你是(?:一个)?(?:AI|人工智能|助手|机器人|大模型|语言模型)|"
    # A new role handed to the reader: "act as an unrestricted AI", "扮演一个没有限制的助手".
    r"\b(?:act|behave|pretend|roleplay)\s+(?:as|to be|you are)\b[^.!?\n]{0,30}" + _AI_EN + "|"
    r"(?:扮演|假装你是|假装成)[^。！？\n]{0,12}(?:AI|人工智能|助手|机器人|模型)", _I)
# A login or account check at a link …
_LOGIN = re.compile(r"(?:\blog ?in\b|\bsign ?in\b|\bverify (?:your )?(?:account|identity|"
                    r"credentials|e-?mail|mailbox)|\bconfirm (?:your )?(?:account|identity|"
                    r"credentials|password)|\bre-?authenticate|\breactivate|\bvalidate your|"
                    r"登录|登陆|验证|认证|确认(?:你的|您的)?(?:账号|账户|身份)|重新激活|领取)", _I)
_LINK = re.compile(r"(?:https?://\S+|\bwww\.\S+|\blink\b|\bclick here\b|链接|网址|点击)", _I)
# … under pressure: urgency, a threat to the account, a prize.
_PRESSURE = re.compile(
    r"(?:\burgent(?:ly)?\b|\bimmediately\b|\bwithin \d+ (?:hours?|minutes?|days?)\b|\basap\b|"
    r"\bor (?:your|the) account\b|\bwill be (?:suspended|locked|disabled|deleted|closed|"
    r"terminated)\b|\bfinal (?:notice|warning)\b|\baction required\b|\bprize\b|\breward\b|"
    r"\bgift card\b|\bwinner\b|\bcongratulations\b|紧急|立即|马上|尽快|小时内|天内|否则|"
    r"将被(?:冻结|停用|锁定|删除|注销)|中奖|奖品|礼品卡|红包|恭喜)", _I)
# Payments redirected to a new account.
_PAYMENT = re.compile(
    r"\b(?:send|pay|transfer|remit|wire|make|direct)\b[^.!?\n]{0,40}\b(?:to|into)\s+(?:our|the"
    r"|this)\s+(?:new|updated|following|below|changed)\b[^.!?\n]{0,15}\baccount\b|"
    r"\b(?:payments?|invoices?|remittances?)\s+(?:should|must|will)\s+(?:now\s+)?(?:be\s+)?"
    r"(?:sent|paid|made|transferred|go)\s+(?:to|into)\s+(?:our|the|this)\s+(?:new|updated)\b|"
    r"(?:请|今后|以后|后续|即日起|从现在起)[^。！？\n]{0,20}(?:款项|货款|付款|汇款|打款|转账|"
    r"支付|结算)[^。！？\n]{0,15}?(?:汇|转|打|付|至|到)[^。！？\n]{0,10}(?:新|以下|下列|如下|"
    r"变更后)[^。！？\n]{0,6}(?:账户|账号|银行卡)", _I)
# Slack / Teams broadcast and mention markup: a document should never page people.
_MARKUP = re.compile(r"(<!(channel|here|everyone)>|<@[UW][A-Z0-9]+>|<at>|</at>)", _I)


_CREDENTIAL_WORDS = ("pass", "credential", "log", "code", "otp", "pin", "api", "key", "token",
                     "card", "cvv", "密码", "验证码", "动态码", "口令", "凭", "密钥", "令牌",
                     "银行卡", "mfa")
_ANY_CREDENTIAL = re.compile(_CREDENTIAL_EN + "|" + _CREDENTIAL_ZH, _I)


def _handover(text: str) -> bool:
    """A request to hand a secret to someone, not negated in its clause."""
    low = text.lower()
    if not (any(w in low for w in _CREDENTIAL_WORDS) and _ANY_CREDENTIAL.search(text)):
        return False
    for pattern in _HANDOVER:
        for m in pattern.finditer(text):
            # The clause up to the request's verb: "never share …", "切勿将密码…".
            before = text[max(m.start() - 30, 0):m.start() + 4]
            clause = re.split(r"[;:；：。.!?！？]", before)[-1]
            if not (_NEG_EN.search(clause) or _NEG_ZH.search(clause)):
                return True
    return False


# Words without which a rule cannot match: plain substring tests are far cheaper than the
# rules' alternations, and most sentences (and hostile runs of punctuation) hold none.
_GATES: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (("ignore", "disregard", "forget", "override", "bypass", "system prompt", "you are now",
      "instructions", "developer mode", "reply", "respond", "answer", "say", "output",
      "nothing else", "忽略", "无视", "忘", "不要理会", "跳过", "覆盖", "系统提示词", "你现在是",
      "从现在起你", "只", "仅", "新的指令", "问"), _OVERRIDE),
    (("ai", "llm", "language model", "bot", "copilot", "gpt", "act", "behave", "pretend",
      "roleplay", "助手", "人工智能", "机器人", "模型", "扮演", "假装"), _ADDRESSED),
    (("account", "payment", "invoice", "remittance", "账户", "账号", "银行卡"), _PAYMENT),
    (("http", "www.", "link", "click", "链接", "网址", "点击"), _LINK),
]


def _matches(words: tuple[str, ...], pattern: re.Pattern[str], low: str) -> bool:
    return any(w in low for w in words) and bool(pattern.search(low))


# The agent asks about the same sentences many times per question (each ranking pass, each
# part of a question); documents repeat boilerplate across chunks.
@functools.lru_cache(maxsize=8192)
def is_suspicious(text: str) -> bool:
    """Whether ``text`` overrides or addresses an assistant, asks for a secret, lures to a
    login link under pressure, redirects payments, or broadcasts."""
    if _MARKUP.search(text):
        return True
    low = text.lower()
    (override, addressed, payment, link) = _GATES
    if _matches(*override, low) or _matches(*addressed, low) or _matches(*payment, low):
        return True
    if _handover(text):
        return True
    return bool(_matches(*link, low) and _LOGIN.search(text) and _PRESSURE.search(text))


# Sentence ends: Chinese marks, or Latin ones before a space ("<!channel>" stays whole).
_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+")


def suspicious_spans(text: str) -> list[str]:
    """The sentences of ``text`` that are suspicious, stripped, in document order (the
    ordinary sentences around an injected one stay quotable)."""
    return [span.strip() for line in text.splitlines() for span in _SENTENCE_END.split(line)
            if span.strip() and is_suspicious(span)]


def strip_markup(text: str) -> str:
    """``text`` without broadcast and mention markup."""
    return _MARKUP.sub("", text)
