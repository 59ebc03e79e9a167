"""Sets of knowledge bases: parsing bindings, the offline routing rule and the per-KB routing
accuracy of ``ragbot eval --split-kbs``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.kb_route import TRANSLATED, KbEvidence, choose, gloss_weights, kb_shares, pick
from bot.conversations.deps import kbs_from_settings
from bot.evaluation.dataset import DatasetError, Question
from bot.evaluation.split import routing_accuracy, split_lines
from bot.settings import Settings
from store.kbset import check_kb_name, kb_set_key, parse_kb_set


def test_kb_sets_parse_from_plus_or_comma_and_name_a_bad_entry() -> None:
    assert parse_kb_set("hr+it") == ("hr", "it")
    assert parse_kb_set(" hr , it,hr ") == ("hr", "it")
    assert parse_kb_set("*") == ("*",)
    assert kb_set_key(parse_kb_set("eng,hr")) == "eng+hr"
    with pytest.raises(ValueError, match="'hr\\+\\+it' has an empty name"):
        parse_kb_set("hr++it")
    with pytest.raises(ValueError, match="mixes"):
        parse_kb_set("*+hr")
    with pytest.raises(ValueError, match="none of"):
        check_kb_name("hr+it")


def test_channel_dm_and_default_bindings() -> None:
    # every surface resolves its bindings through ConversationKbs (Slack and Teams alike)
    kbs = kbs_from_settings(Settings(RAGBOT_KB="eng", RAGBOT_CHANNEL_KBS="C1=hr+it,D1=it",
                                     RAGBOT_DM_KBS="hr,it"))
    assert kbs.for_conversation("C1") == ("hr", "it")
    assert kbs.for_conversation("C2") == ("eng",)
    assert kbs.for_conversation("D2", direct=True) == ("hr", "it")
    assert kbs.for_conversation("D1", direct=True) == ("it",)  # its own entry first
    assert kbs_from_settings(Settings(RAGBOT_KB="eng")).for_conversation(
        "D2", direct=True) == ("*",)


def test_settings_read_kb_sets_and_refuse_a_broken_one() -> None:
    s = Settings(RAGBOT_CHANNEL_KBS="C0123=hr+it,C0456=eng", RAGBOT_DM_KBS="hr,it")
    assert s.channel_kbs == {"C0123": "hr+it", "C0456": "eng"}
    assert s.dm_kbs == "hr+it"
    assert Settings().dm_kbs == "*"
    with pytest.raises(ValueError, match="RAGBOT_CHANNEL_KBS entry 'C1=hr\\+'"):
        Settings(RAGBOT_CHANNEL_KBS="C1=hr+")


def _evidence(name: str, passages: int, held: dict[str, float],
              described: frozenset[str] = frozenset()) -> KbEvidence:
    return KbEvidence(name=name, passages=passages, held=held, described=described)


def test_the_kb_holding_the_distinctive_words_stands_out() -> None:
    terms = ["pension", "vesting", "request"]
    evidence = [_evidence("hr", 40, {"pension": 6, "vesting": 3, "request": 5}),
                _evidence("it", 40, {"request": 6}),
                _evidence("eng", 40, {"request": 4})]
    shares = kb_shares(evidence, terms)
    assert max(shares, key=lambda k: shares[k]) == "hr"
    assert abs(sum(shares.values()) - 1) < 1e-3
    kbs, reason = pick(shares, ["hr", "it", "eng"])
    assert kbs == ["hr"]
    assert "hr explains" in reason


def test_words_every_kb_holds_alike_pick_all_and_no_words_pick_all() -> None:
    terms = ["request", "form"]
    evidence = [_evidence(n, 30, {"request": 3, "form": 2}) for n in ("hr", "it", "eng")]
    kbs, reason = pick(kb_shares(evidence, terms), ["hr", "it", "eng"])
    assert sorted(kbs) == ["eng", "hr", "it"]
    assert "stands out" in reason
    none = kb_shares([_evidence("hr", 30, {}), _evidence("it", 30, {})], ["zebra"])
    assert pick(none, ["hr", "it"]) == (["hr", "it"], "no knowledge base holds the question's "
                                                      "words: all searched")


def test_two_kbs_sharing_a_topic_are_searched_together() -> None:
    terms = ["laptop", "refresh"]
    evidence = [_evidence("it", 30, {"laptop": 5, "refresh": 2}),
                _evidence("finance", 30, {"laptop": 5, "refresh": 2}),
                _evidence("eng", 30, {}), _evidence("hr", 30, {})]
    kbs, _ = pick(kb_shares(evidence, terms), ["eng", "finance", "hr", "it"])
    assert sorted(kbs) == ["finance", "it"]


def test_a_description_word_counts_for_its_kb() -> None:
    terms = ["payroll"]
    evidence = [_evidence("hr", 50, {}, frozenset({"payroll"})), _evidence("it", 50, {})]
    assert pick(kb_shares(evidence, terms), ["hr", "it"])[0][0] == "hr"


def test_routing_accuracy_counts_a_gold_documents_kb_among_those_searched() -> None:
    questions = [Question(id="q1", question="?", gold_doc_ids=("d1",)),
                 Question(id="q2", question="?", gold_doc_ids=("d2",)),
                 Question(id="q3", question="?", gold_doc_ids=()),
                 Question(id="q4", question="?", gold_doc_ids=("d2",))]
    results = [{"id": "q1", "kbs": ["x-hr"]}, {"id": "q2", "kbs": ["x-hr"]},
               {"id": "q3", "kbs": ["x-it"]}, {"id": "q4"}]
    summary = routing_accuracy(results, questions, {"d1": "x-hr", "d2": "x-it"})
    assert summary["routing_accuracy"] == 0.5
    assert summary["per_kb"] == {"x-hr": {"accuracy": 1.0, "questions": 1},
                                 "x-it": {"accuracy": 0.0, "questions": 1}}


def test_split_corpus_names_a_line_without_its_kb(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    lines = [{"id": "a", "title": "A", "text": "alpha", "metadata": {"kb": "hr"}},
             {"id": "b", "title": "B", "text": "bravo", "metadata": {}}]
    corpus.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"corpus.jsonl:2: no metadata.kb"):
        split_lines(corpus, "p")
    corpus.write_text(json.dumps(lines[0]) + "\n", encoding="utf-8")
    per_kb, doc_kb = split_lines(corpus, "p")
    assert list(per_kb) == ["p-hr"]
    assert doc_kb == {"a": "p-hr"}


def test_a_lead_resting_on_words_one_passage_holds_searches_every_kb() -> None:
    # "hotel", "night" and "cap" appear once here and there: the smallest KB holds most of
    # them, so its share leads, but chance mentions in a passage or two do not place a topic.
    terms = ["hotel", "night", "cap"]
    order = ["facilities", "finance", "hr"]
    evidence = [_evidence("facilities", 20, {"hotel": 1, "night": 1}),
                _evidence("finance", 60, {"cap": 1, "night": 1}),
                _evidence("hr", 60, {"hotel": 1, "cap": 0.25})]
    shares = kb_shares(evidence, terms)
    assert pick(shares, order)[0] == ["facilities"]
    kbs, reason, same = choose(evidence, terms, order)
    assert same == shares
    assert kbs == ["facilities", "finance", "hr"]
    assert "few of its passages" in reason
    # a word held in two of its passages, or one word no other KB holds ("probation" in
    # the HR KB alone), is evidence enough
    twice = [_evidence("facilities", 20, {"hotel": 2, "night": 1}), *evidence[1:]]
    assert choose(twice, terms, order)[0] == ["facilities"]
    alone = [evidence[0], _evidence("finance", 60, {"cap": 1}), evidence[2]]
    assert choose(alone, terms, order)[0] == ["facilities"]


def test_a_question_mostly_in_no_kb_adds_the_kbs_that_hold_its_other_words() -> None:
    # "到账" and "工资卡" are in no KB: "审批" alone sends a question about when the money
    # arrives to the engineering KB's change approvals, though the HR KB holds it too
    terms = ["审批", "到账", "工资卡"]
    order = ["eng", "hr", "it"]
    evidence = [_evidence("eng", 50, {"审批": 8}), _evidence("hr", 40, {"审批": 2}),
                _evidence("it", 20, {})]
    assert pick(kb_shares(evidence, terms), order)[0] == ["eng"]
    kbs, reason, _ = choose(evidence, terms, order)
    assert kbs == ["eng", "hr"]
    assert reason.startswith("2 of the question's 3 words are in no knowledge base")
    # the words it holds are the KB's own ("笔记本电脑" of "笔记本电脑坏了怎么报修"), or
    # the question's words are mostly known: the pick stands
    own = [evidence[0], _evidence("hr", 40, {"审批": 1}), evidence[2]]
    assert pick(kb_shares(own, terms), order)[0] == ["eng"]
    assert choose(own, terms, order)[0] == ["eng"]
    known = [_evidence("eng", 50, {"审批": 8, "到账": 1}), *evidence[1:]]
    assert choose(known, terms, order)[0] == ["eng"]


def test_a_kb_holding_a_word_the_pick_lacks_is_searched_beside_it() -> None:
    # English words of an IT handbook outweigh the HR KB's Chinese policy, which holds the
    # topic ("parental leave" through its gloss) but none of the question's other words.
    terms = ["weeks", "parental", "leave", "after", "birth"]
    evidence = [_evidence("it", 20, {"weeks": 3, "after": 3, "birth": 1}),
                _evidence("hr", 40, {"parental": 3, "leave": 3}),
                _evidence("eng", 60, {"after": 4, "weeks": 1})]
    kbs, reason, shares = choose(evidence, terms, ["hr", "it", "eng"])
    assert pick(shares, ["hr", "it", "eng"])[0] == ["it"]
    assert kbs == ["it", "hr"]
    assert "hr also holds a word it lacks" in reason
    # a word the pick holds too, or one other passage, is no disagreement
    evidence[0] = _evidence("it", 20, {"weeks": 3, "after": 3, "birth": 1, "parental": 1})
    evidence[1] = _evidence("hr", 40, {"parental": 3, "leave": 1})
    assert choose(evidence, terms, ["hr", "it", "eng"])[0] == ["it"]


def test_a_gloss_two_question_words_share_counts_as_the_words() -> None:
    weights = gloss_weights(["parental", "leave", "policy"],
                            {"parental": ["育儿假", "父母"], "leave": ["育儿假", "离开"],
                             "policy": ["政策"]})
    assert weights == {"育儿假": 1.0, "父母": TRANSLATED, "离开": TRANSLATED,
                       "政策": TRANSLATED}
    # one word listing the same gloss twice is still one word's gloss
    assert gloss_weights(["leave"], {"leave": ["休假", "休假"]}) == {"休假": TRANSLATED}
