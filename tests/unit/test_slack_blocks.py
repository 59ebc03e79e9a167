"""Block Kit builders: pure functions, checked against Slack's limits and escaping rules."""

from __future__ import annotations

from dataclasses import dataclass

from bot.conversations.citations import source_link
from bot.slack import blocks


@dataclass(frozen=True)
class Cite:
    n: int
    title: str
    source: str


def _texts(msg: blocks.Message) -> list[str]:
    return [b["text"]["text"] for b in msg.blocks if isinstance(b.get("text"), dict)]


def test_escape_turns_slack_control_characters_into_entities() -> None:
    raw = "a & b <!channel> <!here> <@U123> <http://evil.example|click>"
    out = blocks.escape(raw)
    assert "<" not in out
    assert ">" not in out
    assert out.startswith("a &amp; b &lt;!channel&gt;")


def test_answer_text_and_titles_from_documents_are_escaped_and_verbatim() -> None:
    (msg,) = blocks.answer_messages("Ping <!here> and <@U1>", [Cite(1, "<!channel> doc", "a.md")],
                                    lang="en")
    joined = "\n".join(_texts(msg))
    assert "<!here>" not in joined
    assert "<@U1>" not in joined
    assert "<!channel>" not in joined
    assert all(b["text"]["verbatim"] for b in msg.blocks if isinstance(b.get("text"), dict))
    assert "<" not in msg.text


def test_citations_show_the_title_and_link_only_https_urls_never_a_path() -> None:
    (msg,) = blocks.answer_messages("x", [Cite(2, "Wiki", "https://wiki.example/p"),
                                          Cite(1, "Runbook", "/srv/kb/ops/run`book.md"),
                                          Cite(3, "Intranet", "http://intranet.example/a")],
                                    lang="en")
    sources = _texts(msg)[-1]
    assert sources.splitlines()[1:] == ["[1] Runbook", "[2] <https://wiki.example/p|Wiki>",
                                        "[3] Intranet"]
    assert "/srv/kb" not in "\n".join(_texts(msg))


def test_link_hosts_allow_only_their_hosts() -> None:
    hosts = ["wiki.example.com", "intranet.example"]
    assert source_link("https://wiki.example.com/p/1", hosts) == \
        "https://wiki.example.com/p/1"
    assert source_link("http://intranet.example/a", hosts) == "http://intranet.example/a"
    assert source_link("https://evil.example/wiki.example.com", hosts) is None
    assert source_link("https://user:pw@wiki.example.com/", hosts) is None
    assert source_link("file:///etc/passwd", hosts) is None
    line = blocks.citation_line(Cite(1, "Other", "https://other.example/x"), hosts)
    assert line == "[1] Other"


def test_non_http_source_is_never_turned_into_a_link() -> None:
    line = blocks.citation_line(Cite(1, "t", "javascript:alert(1)"))
    assert "<" not in line
    assert "javascript" not in line


def test_long_answer_is_split_into_sections_of_at_most_3000_chars() -> None:
    text = "\n\n".join("word " * 250 for _ in range(20))  # ~25,000 characters
    msgs = blocks.answer_messages(text, [], lang="en")
    sections = [t for m in msgs for t in _texts(m)]
    assert all(len(t) <= blocks.SECTION_LIMIT for t in sections)
    assert "".join(sections).replace(" ", "").replace("\n", "") == text.replace(" ", "").replace(
        "\n", "")


def test_split_never_cuts_inside_an_entity() -> None:
    text = blocks.escape("<" * 2000)  # 8,000 characters of "&lt;"
    pieces = blocks.split_text(text, 3000)
    assert all(p.startswith("&lt;") and p.endswith("&lt;") for p in pieces)
    assert "".join(pieces) == text


def test_more_than_50_blocks_spill_into_further_messages() -> None:
    text = "\n\n".join("p" * 2900 for _ in range(120))
    msgs = blocks.answer_messages(text, [Cite(1, "t", "s")], lang="en")
    assert len(msgs) == 3
    assert all(len(m.blocks) <= blocks.BLOCKS_LIMIT for m in msgs)
    assert msgs[1].text.startswith("(continued)")


def test_clarify_has_at_most_three_buttons_within_slack_limits() -> None:
    options = ["a" * 100, "b", "c", "d"]
    msg = blocks.clarify_message("Which <!here>?", options, lang="en")
    (actions,) = [b for b in msg.blocks if b["type"] == "actions"]
    buttons = actions["elements"]
    assert [b["action_id"] for b in buttons] == ["clarify_option_0", "clarify_option_1",
                                                 "clarify_option_2"]
    assert len(buttons[0]["text"]["text"]) <= blocks.BUTTON_TEXT_LIMIT
    assert buttons[0]["value"] == "a" * 100
    assert "&lt;!here&gt;" in _texts(msg)[0]


def test_clarify_chosen_drops_buttons_and_shows_the_choice() -> None:
    original = blocks.clarify_message("Which one?", ["Redis", "MySQL"], lang="en")
    after = blocks.clarify_chosen(original.blocks, "Redis <x>", lang="en")
    assert not [b for b in after.blocks if b["type"] == "actions"]
    assert "Redis &lt;x&gt;" in after.blocks[-1]["elements"][0]["text"]


def test_notes_are_shown_as_context_lines() -> None:
    (msg,) = blocks.answer_messages("answer", [], lang="zh", notes=["note one"])
    assert msg.blocks[-1]["type"] == "context"
