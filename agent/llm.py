"""``LLMEngine``: the graph's decisions made by any OpenAI-compatible chat model.

Each step sends its input as JSON with a step prompt (``agent.llm_prompts``), asks for one
JSON object and validates it (``agent.llm_schemas``). A failed call (HTTP error, timeout) or
an unusable reply is retried once; a second failure returns the fallback engine's answer for
the same input and logs ``llm_fallback`` with the step and the reason. The answer never
breaks because of the model.

``build_engine(settings)`` picks the offline or the LLM engine from the settings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import openai
import structlog
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr, ValidationError

from agent import llm_prompts as prompts
from agent.engine import Engine, OfflineEngine, OnSentence
from agent.errors import AgentError
from agent.llm_breaker import CircuitBreaker, CircuitOpenError
from agent.llm_rules import one_vote_enough, planned_by_rule, routed_by_rule, understood_by_rule
from agent.llm_schemas import (
    BridgeReply,
    EvaluateVote,
    GenerateReply,
    PlanReply,
    ReplyError,
    RouteReply,
    UnderstandReply,
    VerifyReply,
    merge_votes,
    parse_object,
    prompt_passages,
    written_sentences,
)
from agent.offline.generate import refusal
from agent.state import (
    Bridge,
    BridgeInput,
    Draft,
    EvaluateInput,
    Evaluation,
    GenerateInput,
    Passage,
    Plan,
    PlanInput,
    RouteDecision,
    RouteInput,
    Sentence,
    TopicEvidence,
    Turn,
    Understanding,
    UnderstandInput,
    Verdict,
    VerifyInput,
)

R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")

ATTEMPTS = 2  # the first call and one retry
MAX_HISTORY_TURNS = 4


class LLMConfigError(AgentError, ValueError):
    """The settings ask for the LLM engine but do not say which model to reach."""


class EngineSettings(Protocol):
    """The part of ``bot.settings.Settings`` the engine factory reads (read-only)."""

    @property
    def engine(self) -> str: ...
    @property
    def llm_base_url(self) -> str | None: ...
    @property
    def llm_model(self) -> str | None: ...
    @property
    def llm_api_key(self) -> SecretStr | None: ...
    @property
    def llm_timeout_s(self) -> float: ...


def _reason(exc: Exception) -> str:
    """A short, loggable cause (never the model's text)."""
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIStatusError):
        return f"http_{exc.status_code}"
    if isinstance(exc, openai.APIConnectionError):
        return "connection_error"
    if isinstance(exc, ValidationError):
        return "invalid_reply"
    if isinstance(exc, ReplyError | CircuitOpenError):
        return str(exc)
    return type(exc).__name__


class LLMEngine:
    """Decisions by a chat model, each falling back to ``fallback`` (see module docstring)."""

    name = "llm"

    def __init__(self, chat: BaseChatModel, *, fallback: Engine | None = None,
                 json_mode: bool = True, breaker: CircuitBreaker | None = None) -> None:
        # json_mode asks the server for a JSON object (OpenAI, DeepSeek, Qwen, vLLM and Ollama
        # accept response_format); the reply is validated either way.
        self._raw_chat = chat
        self._json_mode = json_mode
        self._chat: Any = chat.bind(response_format={"type": "json_object"}) if json_mode else chat
        self._fallback = fallback or OfflineEngine()
        self._breaker = breaker or CircuitBreaker()

    @property
    def probe_depth(self) -> int:
        return self._fallback.probe_depth

    def topic_evidence(self, question: str, found: list[Passage], history: list[Turn],
                       alternatives: dict[str, list[str]]) -> TopicEvidence:
        """The fallback's rule: a lexical reading of the probe, no model call."""
        return self._fallback.topic_evidence(question, found, history, alternatives)

    # ------------------------------------------------------------ plumbing

    def _ask(self, step: str, system: str, payload: dict[str, Any], reply_type: type[R],
             convert: Callable[[R], T], *,
             on_text: Callable[[str], None] | None = None) -> T:
        """Call, parse, validate and convert; raise the last error after ``ATTEMPTS``.
        ``on_text``: stream the reply, passing it the text so far at each piece."""
        log = structlog.get_logger(__name__)
        user = json.dumps(payload, ensure_ascii=False)
        last: Exception | None = None
        for attempt in range(1, ATTEMPTS + 1):
            self._breaker.check()  # an endpoint known to be down is not retried either
            try:
                message = self._call(system, user, on_text)
                return convert(reply_type.model_validate(parse_object(message.content)))
            except Exception as exc:  # any model failure must not break the turn
                last = exc
                if attempt < ATTEMPTS:
                    log.warning("llm_retry", step=step, reason=_reason(exc), attempt=attempt)
        assert last is not None
        raise last

    def _call(self, system: str, user: str,
              on_text: Callable[[str], None] | None = None) -> Any:
        messages = [SystemMessage(system), HumanMessage(user)]
        try:
            if on_text is None:
                message = self._chat.invoke(messages)
            else:
                message = None
                for piece in self._chat.stream(messages):
                    message = piece if message is None else message + piece
                    on_text(str(message.content))
        except Exception as exc:
            self._breaker.record(exc)
            if isinstance(exc, openai.BadRequestError) and self._json_mode:
                # Some servers reject response_format; the prompts ask for JSON anyway.
                self._json_mode = False
                self._chat = self._raw_chat
                structlog.get_logger(__name__).warning("llm_json_mode_off", reason="http_400")
            raise
        self._breaker.record(None)
        return message

    def _with_fallback(self, step: str, run: Callable[[], T], fallback: Callable[[], T]) -> T:
        try:
            return run()
        except Exception as exc:  # the offline rule answers instead
            structlog.get_logger(__name__).warning(
                "llm_fallback", step=step, reason=_reason(exc),
                attempts=0 if isinstance(exc, CircuitOpenError) else ATTEMPTS)
            return fallback()

    # ------------------------------------------------------------ steps

    def understand(self, inp: UnderstandInput) -> Understanding:
        base = self._fallback.understand(inp)
        if understood_by_rule(inp):
            return base
        history = [{"question": t["question"], "rewritten": t["rewritten"],
                    "entities": t["entities"], "answer": t["answer"][:400],
                    "cited_titles": [c["title"] for c in t["cited"]]}
                   for t in inp["history"][-MAX_HISTORY_TURNS:]]
        payload = {"question": inp["question"], "history": history}
        return self._with_fallback(
            "understand",
            lambda: self._ask("understand", prompts.UNDERSTAND, payload, UnderstandReply,
                              lambda r: r.to_state(base)),
            lambda: base)

    def route(self, inp: RouteInput) -> RouteDecision:
        offline = self._fallback.route(inp)
        if routed_by_rule(inp, offline):
            return offline
        payload: dict[str, Any] = {
            "question": inp["question"], "understanding": inp["understanding"],
            "facets": {"doc_types": inp["facets"]["doc_types"],
                       "titles": inp["facets"]["titles"]}}
        if "knowledge_bases" in inp:  # several KBs: the reply names where to look
            payload["knowledge_bases"] = inp["knowledge_bases"]
        return self._with_fallback(
            "route",
            lambda: self._ask("route", prompts.ROUTE, payload, RouteReply,
                              lambda r: r.to_state(inp["facets"], offline)),
            lambda: offline)

    def plan(self, inp: PlanInput) -> Plan:
        rule = self._fallback.plan(inp)
        if planned_by_rule(inp, rule):
            return rule
        payload = {"question": inp["question"], "understanding": inp["understanding"],
                   "route": inp["route"], "facets": inp["facets"]}
        return self._with_fallback(
            "plan",
            lambda: self._ask("plan", prompts.PLAN, payload, PlanReply,
                              lambda r: r.to_state(inp["facets"])),
            lambda: rule)

    def bridge(self, inp: BridgeInput) -> Bridge:
        if not inp["found"]:
            return self._fallback.bridge(inp)  # nothing to bridge from
        payload = {"sub_question": inp["sub_question"], "found": prompt_passages(inp["found"])}
        return self._with_fallback(
            "bridge",
            lambda: self._ask("bridge", prompts.BRIDGE, payload, BridgeReply,
                              lambda r: r.to_state()),
            lambda: self._fallback.bridge(inp))

    def evaluate(self, inp: EvaluateInput) -> Evaluation:
        """Up to two votes, the second stricter; insufficient if either says so. A first
        "insufficient" decides alone (a second could not overturn it); so does a certain
        first "sufficient" on a simple question the rule also finds answered
        (``one_vote_enough``). Otherwise the strict vote is cast too."""
        if not inp["passages"]:
            return self._fallback.evaluate(inp)  # nothing to judge
        payload = {"question": inp["question"], "query": inp["understanding"]["query"],
                   "sub_questions": [s["query"] for s in inp["plan"]["sub_questions"]],
                   "passages": prompt_passages(inp["passages"], best_first=True),
                   "round": inp["round"],
                   "max_rounds": inp["max_rounds"]}

        def votes() -> Evaluation:
            first = self._ask("evaluate", prompts.EVALUATE, payload, EvaluateVote, _vote)
            if not first.sufficient or one_vote_enough(inp, self._fallback.evaluate(inp),
                                                       certain=first.certain):
                return merge_votes([first], inp)
            second = self._ask("evaluate", prompts.EVALUATE_STRICT, payload, EvaluateVote,
                               _vote)
            return merge_votes([first, second], inp)

        return self._with_fallback("evaluate", votes, lambda: self._fallback.evaluate(inp))

    def generate(self, inp: GenerateInput) -> Draft:
        return self.generate_streaming(inp, None)

    def generate_streaming(self, inp: GenerateInput,
                           on_sentence: OnSentence | None) -> Draft:
        """The reply is streamed; each sentence is offered as soon as it is written."""
        language = inp["understanding"]["language"]
        if inp["route"] == "direct_answer" or not inp["passages"]:
            return self._fallback.generate(inp)  # canned greeting, or nothing to cite
        payload = {"question": inp["question"], "language": language,
                   "queries": inp["queries"], "passages": prompt_passages(inp["passages"]),
                   "rejected": inp["rejected"]}
        offered: list[Sentence] = []

        def on_text(text: str) -> None:
            assert on_sentence is not None
            written = written_sentences(text, len(inp["passages"]))
            for i in range(len(offered), len(written)):
                offered.append(written[i])
                on_sentence(i, written[i])

        return self._with_fallback(
            "generate",
            lambda: self._ask("generate", prompts.GENERATE, payload, GenerateReply,
                              lambda r: r.to_state(inp["passages"], language,
                                                   refusal(language)),
                              on_text=on_text if on_sentence is not None else None),
            lambda: self._fallback.generate(inp))

    def rule_supports(self, sentence: Sentence, passages: list[Passage]) -> bool:
        return self._fallback.rule_supports(sentence, passages)

    def verify(self, inp: VerifyInput) -> Verdict:
        """The offline rule first: the sentences it finds in a cited passage stand; the
        model judges only the others (none: no call)."""
        draft = inp["draft"]
        if draft["refused"] or not any(s["cites"] for s in draft["sentences"]):
            return self._fallback.verify(inp)  # a refusal or a greeting: nothing to judge
        rule = self._fallback.verify(inp)
        if rule["supported"]:
            return rule
        unmatched = Draft(sentences=[s for s in draft["sentences"]
                                     if s["text"] in rule["unsupported"]],
                          refused=False, text=draft["text"])
        payload = {"question": inp["question"],
                   "sentences": [{"text": s["text"], "cites": s["cites"]}
                                 for s in unmatched["sentences"]],
                   "passages": prompt_passages(inp["passages"])}
        return self._with_fallback(
            "verify",
            lambda: self._ask("verify", prompts.VERIFY, payload, VerifyReply,
                              lambda r: r.to_state(unmatched)),
            lambda: rule)


def _vote(vote: EvaluateVote) -> EvaluateVote:
    return vote


def build_engine(settings: EngineSettings, *, chat: BaseChatModel | None = None) -> Engine:
    """``OfflineEngine`` unless ``settings.engine == "llm"``, then ``build_llm_engine``."""
    if settings.engine != "llm":
        return OfflineEngine()
    return build_llm_engine(settings, chat=chat)


def build_llm_engine(settings: EngineSettings, *, fallback: Engine | None = None,
                     chat: BaseChatModel | None = None) -> LLMEngine:
    """An ``LLMEngine`` on ``llm_base_url``/``llm_model``, falling back to ``fallback``
    (default ``OfflineEngine``); ``chat`` overrides the model client."""
    if chat is None:
        missing = [env for env, value in (("RAGBOT_LLM_BASE_URL", settings.llm_base_url),
                                          ("RAGBOT_LLM_MODEL", settings.llm_model))
                   if not value]
        if missing:
            raise LLMConfigError(
                f"RAGBOT_ENGINE=llm needs {' and '.join(missing)} (e.g. "
                "RAGBOT_LLM_BASE_URL=https://api.openai.com/v1 RAGBOT_LLM_MODEL=gpt-4o-mini); "
                "set them, or use RAGBOT_ENGINE=offline")
        chat = ChatOpenAI(
            base_url=settings.llm_base_url, model=settings.llm_model or "",
            # Local servers (Ollama, vLLM) accept any key; the client insists on one.
            api_key=settings.llm_api_key or SecretStr("not-needed"),
            timeout=settings.llm_timeout_s, max_retries=0, temperature=0)
    return LLMEngine(chat, fallback=fallback or OfflineEngine())
