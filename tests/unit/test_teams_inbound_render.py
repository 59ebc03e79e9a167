"""Teams activities -> questions, and answers -> Teams messages (pure functions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from bot.teams import inbound, render

HOME = "tenant-home"
BOT = "28:bot-app-id"
SERVICE = "https://smba.example.test/amer/"


def activity(chat: str, text: str, *, conv: str = "a:1", mention: bool = False,
             activity_id: str = "1700000000001", channel_type: str | None = None,
             tenant: str = HOME, sender_tenant: str | None = None) -> dict[str, Any]:
    entities = []
    if mention:
        entities.append({"type": "mention", "text": "<at>Ragbot</at>",
                         "mentioned": {"id": BOT, "name": "Ragbot"}})
        text = f"<at>Ragbot</at> {text}"
    sender: dict[str, Any] = {"id": "29:alice", "aadObjectId": "aad-alice", "name": "Alice"}
    if sender_tenant:
        sender["tenantId"] = sender_tenant
    data: dict[str, Any] = {"tenant": {"id": tenant}}
    if chat == "channel":
        data.update({"teamsChannelId": "19:chan@thread.tacv2",
                     "channel": {"id": "19:chan@thread.tacv2", **(
                         {"type": channel_type} if channel_type else {})}})
    return {"type": "message", "id": activity_id, "text": text, "serviceUrl": SERVICE,
            "from": sender, "recipient": {"id": BOT, "name": "Ragbot"},
            "conversation": {"id": conv, "conversationType": chat, "tenantId": tenant},
            "channelData": data, "entities": entities}


def test_bot_mention_is_stripped_and_other_mentions_stay_readable() -> None:
    q = inbound.question(activity("channel", "ask <at>Bob</at> about the VPN &amp; Wi-Fi",
                                  conv="19:chan@thread.tacv2;messageid=1700000000001",
                                  mention=True), home_tenant=HOME)
    assert q.text == "ask @Bob about the VPN & Wi-Fi"
    assert q.mentioned
    assert not q.is_reply
    assert q.base_key == f"teams:{HOME}:19:chan@thread.tacv2;messageid=1700000000001"


def test_reply_in_a_channel_chain_is_a_possible_follow_up_without_mention() -> None:
    q = inbound.question(activity("channel", "and on weekends?",
                                  conv="19:chan@thread.tacv2;messageid=1700000000001",
                                  activity_id="1700000000099"), home_tenant=HOME)
    assert q.is_reply
    assert inbound.route(q) == "maybe_follow_up"


@pytest.mark.parametrize(("chat", "mention", "expected"), [
    ("personal", False, "answer"), ("groupChat", False, "ignore"),
    ("groupChat", True, "answer"), ("channel", False, "ignore"), ("channel", True, "answer")])
def test_which_messages_are_answered(chat: str, mention: bool, expected: str) -> None:
    conv = "19:chan@thread.tacv2;messageid=1700000000001" if chat == "channel" else "19:gc"
    q = inbound.question(activity(chat, "how do I book a room", conv=conv, mention=mention),
                         home_tenant=HOME)
    assert inbound.route(q) == expected


@pytest.mark.parametrize(("chat", "channel_type", "sender_tenant", "expected"), [
    ("personal", None, None, ("public", "user:aad-alice")),
    ("channel", "private", None, ("public", "channel:19:chan@thread.tacv2")),
    ("channel", "standard", None, ("public",)),
    ("channel", None, None, ("public",)),
    ("groupChat", None, None, ("public",)),
    ("channel", "shared", None, ("public",)),
    ("personal", None, "tenant-guest", ("public",)),
    ("channel", "private", "tenant-guest", ("public",)),
])
def test_who_sees_what(chat: str, channel_type: str | None, sender_tenant: str | None,
                       expected: tuple[str, ...]) -> None:
    conv = "19:chan@thread.tacv2;messageid=1" if chat == "channel" else "a:1"
    q = inbound.question(activity(chat, "q", conv=conv, channel_type=channel_type,
                                  sender_tenant=sender_tenant), home_tenant=HOME)
    assert q.principals == expected


def test_conversation_hosted_in_another_tenant_is_external() -> None:
    q = inbound.question(activity("personal", "q", tenant="tenant-other"), home_tenant=HOME)
    assert q.kind == "external-shared"
    assert q.principals == ("public",)


def test_a_channel_reply_chain_is_the_cores_thread_and_keeps_its_key() -> None:
    q = inbound.question(activity("channel", "and on weekends?",
                                  conv="19:chan@thread.tacv2;messageid=1700000000001"),
                         home_tenant=HOME)
    place = q.place(q.root)
    assert (place.conversation, place.thread) == ("19:chan@thread.tacv2", "1700000000001")
    assert place.thread_key == f"teams:{HOME}:19:chan@thread.tacv2;messageid=1700000000001"
    assert place.address["serviceUrl"]
    assert place.address["chat"] == "channel"


def test_a_chat_session_is_the_thread_of_a_1on1_chat() -> None:
    q = inbound.question(activity("personal", "hello", conv="a:1"), home_tenant=HOME)
    inbound_q = q.inbound("t3")
    assert inbound_q.place.thread_key == f"teams:{HOME}:a:1:t3"
    assert inbound_q.delivery_id == inbound_q.message_id == q.activity_id
    assert inbound_q.kind == "direct"


@pytest.mark.parametrize("text", ["new", "New!", "新问题", " 新问题。"])
def test_new_starts_a_new_thread_in_chats(text: str) -> None:
    assert inbound.question(activity("personal", text), home_tenant=HOME).starts_new_thread


def test_new_in_a_channel_is_just_text() -> None:
    q = inbound.question(activity("channel", "new", conv="19:c;messageid=1", mention=True),
                         home_tenant=HOME)
    assert not q.starts_new_thread


def test_own_and_other_bots_messages_are_ignored() -> None:
    own = activity("personal", "x")
    own["from"] = {"id": BOT}
    other = activity("personal", "x")
    other["from"] = {"id": "28:another-bot"}
    assert inbound.ignore_reason(own) == "own_message"
    assert inbound.ignore_reason(other) == "bot"
    assert inbound.ignore_reason({**activity("personal", "x"), "type": "typing"}) == "type:typing"
    assert inbound.ignore_reason(activity("personal", "x")) is None


@dataclass
class Cit:
    n: int
    title: str
    source: str
    kb: str = ""


def test_answer_has_citations_ai_label_and_feedback() -> None:
    msg = render.answer_message(
        "Parking passes are renewed each March [1]. Bikes go in cage B [2].",
        [Cit(2, "Bike storage", "/srv/docs/bikes.md"),
         Cit(1, "P" * 120, "https://wiki.example.test/parking")])
    entity = next(e for e in msg["entities"] if e.get("@type") == "Message")
    claims = {c["position"]: c["appearance"] for c in entity["citation"]}
    assert claims[1]["name"] == "P" * 79 + "…"
    assert claims[1]["url"] == "https://wiki.example.test/parking"
    assert claims[1]["abstract"] == "Parking passes are renewed each March."
    assert claims[2].get("url") is None  # a server path is never shown
    assert "AIGeneratedContent" in entity["additionalType"]
    assert msg["channelData"]["feedbackLoop"] == {"type": "default"}


def test_a_citation_names_its_kb_when_the_conversation_spans_several() -> None:
    msg = render.answer_message("Twelve days of carry-over [1]; the laptop pool [2].",
                                [Cit(1, "Leave carry-over", "", kb="people"),
                                 Cit(2, "L" * 120, "", kb="it-helpdesk"), Cit(3, "Plain", "")])
    claims = next(e for e in msg["entities"] if e.get("@type") == "Message")["citation"]
    names = {c["position"]: c["appearance"]["name"] for c in claims}
    assert names[1] == "Leave carry-over (people)"
    assert names[2].endswith("… (it-helpdesk)")
    assert len(names[2]) <= render.NAME_LIMIT
    assert names[3] == "Plain"


def test_at_most_twenty_citations_and_abstracts_within_limit() -> None:
    cites = [Cit(i, f"Doc {i}", "") for i in range(1, 26)]
    msg = render.answer_message("x" * 500 + " [3].", cites)
    claims = next(e for e in msg["entities"] if e.get("@type") == "Message")["citation"]
    assert len(claims) == 20
    assert all(len(c["appearance"]["abstract"]) <= 160 for c in claims)


def test_document_text_never_mentions_anyone() -> None:
    msg = render.answer_message("Escalate to <at>Everyone</at> now [1].",
                                [Cit(1, "<at>Team</at> runbook", "")])
    assert "<at>" not in msg["text"]
    assert "&lt;at&gt;Everyone&lt;/at&gt;" in msg["text"]
    assert not [e for e in msg["entities"] if e.get("type") == "mention"]


def test_clarify_card_buttons_carry_the_run_and_the_choice() -> None:
    msg = render.clarify_card("Which office?", ["Berlin", "Lisbon"],
                              run={"thread": "teams:t:a:1", "turn": 7}, hint="Pick one")
    card = msg["attachments"][0]["content"]
    assert [a["type"] for a in card["actions"]] == ["Action.Execute"] * 2
    assert card["actions"][1]["data"] == {"thread": "teams:t:a:1", "turn": 7,
                                          "choice": "Lisbon"}
    assert card["actions"][0]["verb"] == render.CLARIFY_VERB


def test_informative_stream_update_and_final() -> None:
    update = render.informative("Searching…", 2, "stream-1")
    assert update["type"] == "typing"
    assert update["entities"][0]["streamType"] == "informative"
    assert update["entities"][0]["streamSequence"] == 2
    final = render.stream_final(render.text_message("done"), "stream-1")
    assert final["id"] == "stream-1"
    assert final["entities"][-1] == {"type": "streaminfo", "streamId": "stream-1",
                                     "streamType": "final"}
