"""Questions that ask who, where, how soon, what happens or what is allowed, and the sentences
that answer them.

"Who do I report it to?" is answered by a sentence naming someone to turn to: a role or team
("your manager", "the service desk", "部门负责人"), a channel ("#it-help"), an extension or an
address. "How soon do I get one?" / "多久能到账" by a point in time counted from the asker's
event ("the same day", "within five business days", "次日", "每周二、周五"), not by any span
("the first loss in three years"). "Where do I …" / "在哪里…" by a place, system or link;
"what happens if …" / "会怎样" by a sentence that states a condition and what follows it;
"can I … during …" / "…期间能…吗" by a sentence stating what the rules allow or forbid. A
document's sentence about the same topic that names none of these ("Use this runbook when an
employee reports a lost laptop") holds the question's words but not its answer.

These are read from the question's shape and the sentence's wording, in either language of
the documents (a Chinese question about an English runbook is answered by "#it-help").
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["who", "contact", "where", "how_soon", "consequence", "permission"]

# "who" asking who acts or whom to turn to, as duties and procedures are asked: "who do I
# report it to", "who has to approve that", "whom should I ask", "which team handles it",
# "谁审批", "找谁", "需要谁批". "Who won the race?", "Who is the chairman?" and "谁获得了冠军"
# ask for a person by name, whom a role's sentence does not name; "employees who travel"
# is a relative "who".
_DUTY_EN = (r"(?:do|does|did|should|shall|can|could|must|will|would|has to|have to|needs? to|"
            r"to|is responsible|are responsible|is in charge|approves?|signs?|handles?|"
            r"decides?|owns?|reviews?|manages?|pays?|covers?)\b")
# The question word opens the question or a clause of it: "My laptop was stolen. Who …",
# "Left it in a taxi - who …", "not sure who to ask".
_OPENS = r"(?:^|[,;:.!?，；。！？—–-]\s*|\b(?:and|but|so|then|or|know|sure|tell me)\s+)"
_ASKS_WHO = re.compile(
    rf"({_OPENS}who\s+{_DUTY_EN}|"
    r"\bwho(?:'s|’s|s)\s+(?:responsible|in charge)\b|\bwhom\b|"
    # "who is my HR partner", "who's the contact for…": a relation to the asker, or a
    # contact asked by its role, not a person asked by name
    r"\bwho(?:'s|’s|s|\s+is|\s+are)\s+(?:my|our|your|the\s+(?:contact|owner|approver|person|"
    r"point of contact|on-call))\b|(?:我|我们)的[^，,。？?]{1,8}是谁|"
    rf"\bwhich (?:team|person|department|group|role|people)\s+{_DUTY_EN}|"
    r"(?:找|问|联系|由|向|给|要|需要|得|该|应该|应由|归)谁|"
    r"谁(?:来|去|能|可以)?(?:审批|批|审核|负责|处理|签字|签|管|批准|对接|跟进|决定|承担)|"
    r"(?:负责人|联系人|对接人|审批人)是谁|哪个(?:部门|团队|岗位)(?:负责|审批|处理|管))", re.I)
# Who has the authority ("who approves", "who signs off", "谁审批", "需要谁批") is a role or a
# team: "Announce the deploy in #deploys" names where to turn, not who approves. Any other
# "who" asks whom to turn to, which a channel, an extension or an address answers as well as a
# role ("who do I report it to" -> "#it-help or extension 8000").
_ASKS_AUTHORITY = re.compile(
    r"(\b(?:approv\w*|sign(?:s|ed)? off|signs?|authori[sz]\w*|decides?|permission)\b|"
    r"审批|批准|审核|签字|签批|决定|(?<!一)批(?!量|次))", re.I)
_ASKS_WHERE = re.compile(
    rf"({_OPENS}where\b|"
    r"(?:在|去|到|从)哪(?!一?[天年月日周号])|哪里|哪儿|什么地方|"
    r"哪个(?:系统|平台|网站|页面|入口|渠道|频道|链接|地址))", re.I)
# Time until an event, not how long a state lasts ("how long is probation"): "how soon",
# "how quickly", "how long until/before/does it take", "多久能/会/才/后", "多快".
# "When will it arrive" / "什么时候能到" asks the same of an event ahead of the asker; "什么时候
# 可以休年假" asks when it is allowed, which a condition answers.
_ASKS_SOON = re.compile(
    r"(\bhow (?:soon|quickly|fast)\b|"
    r"\bhow long (?:until|till|before|does it take|will it take|do(?:es)? (?:it|they) take)\b|"
    r"\bwhen will (?:I|we|my|our|it|they|the)\b|"
    r"(?:多久|多长时间)(?:才|就)?(?:能|会|可以|可|后|之后|以后|到账|到)|多快|"
    r"(?:什么时候|何时|啥时候?)(?:才|就)?(?:能|会)(?!不))", re.I)
_ASKS_CONSEQUENCE = re.compile(
    r"(\bwhat happens\b|\bwhat (?:will|would) happen\b|\bwhat if\b|\bconsequences?\b|"
    r"(?:会|将)(?:怎样|怎么样|如何)|会发生什么|(?:什么|有何)后果|后果是什么|"
    r"会有什么(?:影响|处罚|后果))", re.I)

# Whether something may be done in a case the question names: "Can I still ship a normal
# release during the change freeze?", "Am I allowed to expense a gym?", "封网期间能发版吗？".
# A bare "can I …?" asks how as often as whether ("Can I get a loaner?"); the case ("during",
# "while", "期间", "时") makes it a question of what the rules allow then.
_ASKS_PERMISSION = re.compile(
    r"(^\s*(?:can|may)\s+(?:I|we|you|employees|staff|contractors|interns)\s+(?:still\s+)?"
    r"[^?]{0,60}\b(?:during|while|in the middle of|over|on a|on an)\b|"
    r"\b(?:am I|are we|is it|are (?:employees|staff|contractors|interns))\s+"
    r"(?:allowed|permitted)\b|"
    r"(?:期间|(?<![么何啥当那小])时(?!候)|(?<!什么)时候|当天)[^，,。？?]{0,12}(?:能|可以|能不能|可不可以|允许)[^，,。？?]{0,12}"
    r"[吗么]?\s*[？?]?\s*$)",
    re.I)
_EN_NUM = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty)"
_WEEKDAY_EN = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?"

# Someone who acts: a role or a team. Teams are capitalised names ("ask Security", "HR
# approves"); "a security incident" is none, and a department's word names a team only as
# one ("财务部", "财务总监", not "财务状况"). The asker ("the employee", "员工", "you") is who
# asks, never the answer.
_ROLE = (r"(?i:\b(?:manager|supervisor|director|head of|team lead|lead engineer|administrator|"
         r"admins?|owner|committee|service desk|help ?desk|on-call|approver|reception|"
         r"business partner)s?\b)|"
         r"\b(?:HR|IT|Security|Finance|Legal|Procurement|Facilities|Payroll|SRE|DBAs?)\b|"
         r"上级|主管|经理|总监|负责人|主任|领导|部门|团队|小组|服务台|前台|委员会|值班|客服|管理员|"
         r"审批人|对接人|联系人|专员|HRBP|"
         r"(?:财务|行政|人事|采购|法务|安全|运维|技术)(?:部|处|中心|团队|组|专员|总监|经理|负责人|BP)")
_WHO = re.compile(f"({_ROLE})")
# Someone to turn to: a role or a team, a channel, an extension or phone number, an address.
_CONTACT = re.compile(
    rf"({_ROLE}|(?<![\w&])#[A-Za-z][\w-]+|"
    r"\b(?:extension|ext\.?|phone|tel\.?|hotline|call)\s*(?:number\s*)?\d{3,}|"
    r"(?:分机|电话|热线)\s*(?:号码?)?\s*[:：]?\s*\d{3,}|"
    r"[\w.+-]+@[\w-]+\.[\w.]+)")
_WHERE = re.compile(
    r"(https?://|\bwww\.|(?<![\w&])#[A-Za-z][\w-]+|"
    r"(?i:\b(?:portal|system|app|application|console|website|site|page|intranet|wiki|"
    r"catalogue|catalog|service desk|help ?desk|front desk|reception|office|room|floor|"
    r"building|store|menu|tab|folder|drive|channel)s?\b)|"
    r"系统|平台|门户|网站|网页|页面|链接|入口|频道|前台|服务台|办公室|会议室|\d+\s*(?:楼|层|号楼)|"
    r"企业微信|钉钉|飞书|Slack|OA|App|APP|小程序|公众号)")
_SOON = re.compile(
    rf"(\b(?:the )?same[- ]day\b|\bnext (?:business |working )?day\b|\bimmediately\b|"
    rf"\bat once\b|\bright away\b|\bovernight\b|"
    rf"\bwithin\s+(?:\w+\s+){{0,2}}?(?:minutes?|hours?|days?|weeks?|months?)\b|"
    rf"\b{_EN_NUM}\s+(?:business |working |calendar )?(?:minutes?|hours?|days?|weeks?|months?)"
    rf"\s+(?:after|later|from|before|ahead)\b|"
    rf"\bafter\s+{_EN_NUM}\s+(?:business |working |calendar )?(?:minutes?|hours?|days?|weeks?|"
    rf"months?|years?)\b|"
    rf"\b(?:every|each|on)\s+{_WEEKDAY_EN}\b|\b{_WEEKDAY_EN}\b|"
    r"当天|当日|次日|隔天|隔日|第二天|即时|立即|马上|实时|"
    r"[0-9一二两三四五六七八九十]+\s*个?\s*(?:分钟|小时|天|工作日|周|星期|月)\s*"
    r"(?:内|以内|之内|后|以后|之后|前|之前|以前)|"
    r"每(?:周|星期)[一二三四五六日天]|(?:周|星期)[一二三四五六日天]|每月\s*\d+\s*[日号])", re.I)
_CONSEQUENCE = re.compile(
    r"(\b(?:if|unless|once|otherwise)\b|\bescalat\w*|\b(?:will|would) (?:be|not)\b|"
    r"\bresults? in\b|\bleads? to\b|\bis (?:rejected|charged|revoked|locked|suspended|"
    r"cancelled|deducted|refused)\b|"
    r"如果|若(?!干)|如未|一旦|否则|(?<!不)超过|未(?:能|在|按|及时)|[，,]\s*则|则(?:会|将|视为)|"
    r"将(?:会|被|自动)|会被|视为|升级|导致|扣除|不予|不再)",
    re.I)

# What the rules allow or forbid: "not allowed", "除紧急修复外不接受任何生产变更", "only …",
# "needs VP approval". A plain "can" is no rule: every how-to says what one can do.
_PERMISSION = re.compile(
    r"(\b(?:not |only )?(?:allowed|permitted|accepted)\b|\bprohibited\b|\bforbidden\b|"
    r"\bmay not\b|\bmust not\b|\bcannot\b|\bexcept\b|\bno \w+ (?:is|are) (?:allowed|accepted)\b|"
    r"\b(?:needs?|requires?) (?:[\w-]+ ){0,2}approval\b|"
    r"不得|禁止|不允许|不接受|不予|除[^，,。；;]{1,16}(?:外|以外)|仅限|只能|须经|需经|需要?[^，,。；;]{0,8}审批)",
    re.I)

_PATTERNS: dict[Kind, re.Pattern[str]] = {
    "who": _WHO, "contact": _CONTACT, "where": _WHERE, "how_soon": _SOON,
    "consequence": _CONSEQUENCE, "permission": _PERMISSION}


def asked_kinds(question: str) -> list[Kind]:
    """The kinds of answer ``question`` asks for among who, whom to contact, where, how soon,
    what happens and what the rules allow in a case ("I lost my laptop, who do I report it
    to?" -> ``["contact"]``); ``[]`` for none."""
    out: list[Kind] = []
    if _ASKS_WHO.search(question):
        out.append("who" if _ASKS_AUTHORITY.search(question) else "contact")
    asks: list[tuple[Kind, re.Pattern[str]]] = [
        ("where", _ASKS_WHERE), ("how_soon", _ASKS_SOON), ("consequence", _ASKS_CONSEQUENCE),
        ("permission", _ASKS_PERMISSION)]
    return out + [kind for kind, pattern in asks if pattern.search(question)]


def holds_kind(kinds: list[Kind], sentence: str) -> bool:
    """Whether ``sentence`` holds an answer of one of ``kinds`` ("Report it in #it-help" for
    "who", "a loaner laptop the same day" for "how soon")."""
    return any(_PATTERNS[kind].search(sentence) for kind in kinds)
