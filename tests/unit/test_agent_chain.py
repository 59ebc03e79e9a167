"""Offline multi-hop chains: anchor, relation words, hop candidates, landing, ranking."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.nodes.finalize import ranked_retrieval
from agent.nodes.generate import context_pool
from agent.offline import chain
from agent.state import Passage, Plan, SearchRecord, SubQuestion
from agent.text import split_sentences

E = OfflineEngine()
QUESTION = "When did the country of Sorvel's performer invade Drevania?"


def passage(chunk_id: int, title: str, text: str, *, rank: int = 0, round_: int = 1) -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=f"doc-{chunk_id}", title=title, source="s",
                   doc_type="wiki", heading_path=[], text=text, score=1.0, rank=rank,
                   round=round_, sub_id="q1")


IZGOY = passage(1, "Sorvel", "Sorvel (Wanderer) is a studio album by Kirra released in 2005 by "
                             "Lantern Records. It was recorded in Port Ashby.")
OTHER = passage(2, "Tarrow dynasty", "The Tarrow dynasty ruled Drevania and Ostrel.", rank=1)
ALISA = passage(3, "Kirra (band)", "Kirra is a Marovian rock band from "
                                   "Aldmoor.", round_=2)


def record(id_: str, round_: int, hits: list[Passage], entity: str | None) -> SearchRecord:
    return SearchRecord(id=id_, query=f"{entity} q", round=round_,
                        filters={"doc_types": [], "sources": []},
                        chunk_ids=[p["chunk_id"] for p in hits],
                        doc_ids=[p["doc_id"] for p in hits], bridge_entity=entity)


def test_anchor_is_the_document_the_question_names_despite_accents_and_possessives() -> None:
    assert chain.is_anchor("Sorvel", QUESTION)
    assert chain.is_anchor("Akinoshū Kenji", "What plane bombed Akinoshu Kenji's birthplace?")
    assert chain.is_anchor("Hello Love (song)", "Where did Hello Love's performer die?")
    assert chain.is_anchor("Harbor Lights", "Who is the spouse of Harbor Light's main director?")
    assert not chain.is_anchor("Tarrow dynasty", QUESTION)
    assert chain.anchors(QUESTION, [OTHER, IZGOY]) == [IZGOY]


def test_relation_words_are_those_next_to_the_named_thing() -> None:
    assert "performer" in chain.relation_terms(QUESTION, "Sorvel")
    assert chain.relation_terms(QUESTION, "Somewhere else") == []


def test_hop_follows_the_name_the_relation_points_at_not_a_translation() -> None:
    built = chain.build_chain(QUESTION, [IZGOY, OTHER], [record("q1", 1, [IZGOY, OTHER], None)])
    hops = chain.next_hops(QUESTION, built)
    assert hops
    entity, query = hops[0]
    assert entity == "Kirra"
    assert "drevania" in query.lower()
    assert "sorvel" not in query.lower()


def test_chain_takes_the_landing_about_the_followed_name_and_ranks_it_second() -> None:
    searches = [record("q1", 1, [IZGOY, OTHER], None), record("r2.1", 2, [OTHER, ALISA], "Kirra")]
    built = chain.build_chain(QUESTION, [IZGOY, OTHER, ALISA], searches)
    assert [d["doc_id"] for d in built.docs] == ["doc-1", "doc-3"]
    assert built.ranked_doc_ids()[:2] == ["doc-1", "doc-3"]
    docs, _ = ranked_retrieval(searches, chain=built.ranked_doc_ids())
    assert docs[:3] == ["doc-1", "doc-3", "doc-2"]


def test_evaluate_hops_from_the_anchor_with_the_entity_attached() -> None:
    plan = Plan(sub_questions=[SubQuestion(id="q1", query=QUESTION, depends_on=[],
                                           filters={"doc_types": [], "sources": []})])
    understanding = E.understand({"question": QUESTION, "history": []})
    ev = E.evaluate({"question": QUESTION, "understanding": understanding, "plan": plan,
                     "passages": [IZGOY, OTHER], "new_chunk_ids": [1, 2], "round": 1,
                     "max_rounds": 3, "searches": [record("q1", 1, [IZGOY, OTHER], None)]})
    assert not ev["sufficient"]
    assert ev["next_queries"][0].get("entity") == "Kirra"
    assert ev.get("chain", [])[0] == "doc-1"


def test_chain_is_done_when_its_documents_cover_the_question() -> None:
    q = "When did Lantern Records release the album Sorvel?"
    built = chain.build_chain(q, [IZGOY], [record("q1", 1, [IZGOY], None)])
    assert chain.next_hops(q, built) == []


def test_chain_answer_leads_with_the_hop_sentence_holding_the_asked_kind_of_value() -> None:
    war = passage(4, "Drevanian War", "The Drevanian War was fought in Ostrel. The Marovian Union "
                                    "invaded Drevania on 3 March 1911.", round_=3)
    lead = chain.chain_lead(QUESTION, ["doc-1", "doc-3", "doc-4"], [IZGOY, ALISA, war])
    assert lead == (3, "The Marovian Union invaded Drevania on 3 March 1911.")
    assert chain.chain_lead(QUESTION, ["doc-1"], [IZGOY]) is None


def test_a_landing_is_about_a_name_only_when_the_title_is_that_name() -> None:
    assert chain.is_about("South Korea", "Korea")
    assert chain.is_about("Kirra (band)", "Kirra")
    assert not chain.is_about("Opportunity Farms, Missouri", "Missouri")


def test_a_name_already_searched_is_not_followed_again_and_the_best_is_also_searched_alone(
) -> None:
    searches = [record("q1", 1, [IZGOY, OTHER], None), record("r2.1", 2, [OTHER], "Kirra")]
    built = chain.build_chain(QUESTION, [IZGOY, OTHER], searches)
    hops = chain.next_hops(QUESTION, built)
    assert [e for e, _ in hops][:1] == ["Lantern Records"]
    assert ("Lantern Records", "Lantern Records") in hops


def test_the_chain_documents_lead_the_context_pool() -> None:
    pool = context_pool([OTHER, IZGOY, ALISA], 3000, first=["doc-3", "doc-1"])
    assert [p["doc_id"] for p in pool] == ["doc-3", "doc-1", "doc-2"]


def test_an_initial_or_a_title_does_not_end_a_sentence() -> None:
    text = "Norla became a state when President Alden R. Voss signed. Mr. Smith went. Done."
    assert split_sentences(text) == ["Norla became a state when President Alden R. Voss signed.",
                                     "Mr. Smith went.", "Done."]


def test_a_chain_answers_when_its_documents_hold_the_question_together() -> None:
    from agent.offline.answerable import answerable
    from agent.text import content_terms

    pool = [passage(1, "Sorvel", "Sorvel is an album whose performer is Kirra."),
            passage(3, "Kirra", "Kirra is a band from the Marovian Union, a country.", round_=2),
            passage(4, "Drevanian War", "The Marovian army entered Drevania in 1911.", round_=3)]
    terms = content_terms(QUESTION)
    assert not answerable(terms, pool, several=True)
    assert answerable(terms, pool, several=True, joined=pool)


def test_a_question_that_only_names_a_topic_does_not_hop_along_a_chain() -> None:
    q = "Where does it snow the most in North Carolina?"
    nc = passage(5, "North Carolina", "North Carolina is a state in the Southeastern "
                                      "part of the country. Its capital is Raleigh.")
    plan = Plan(sub_questions=[SubQuestion(id="q1", query=q, depends_on=[],
                                           filters={"doc_types": [], "sources": []})])
    ev = E.evaluate({"question": q, "understanding": E.understand({"question": q,
                                                                   "history": []}),
                     "plan": plan, "passages": [nc], "new_chunk_ids": [5], "round": 1,
                     "max_rounds": 3, "searches": [record("q1", 1, [nc], None)]})
    assert "chain" not in ev
    assert chain.relation_terms(q, "North Carolina") == []


def test_a_title_is_named_as_a_possessive_or_all_but_its_last_word() -> None:
    q = "When is the monsoon in the city where India's national physical laboratory is?"
    assert chain.naming("National Physical Laboratory of India", q) == 1
    assert chain.naming("Tikhaya Sosna River", "Where does the Tikhaya Sosna flow?") == 2
    assert chain.naming("Tolvane", "Where is Tolvane?") == 0
    # All but the last word must still be a name: two words of three letters or more.
    assert chain.naming("Battle of Hastings", "Who won the battle of wits?") is None
    lab = passage(6, "National Physical Laboratory of India", "It is in New Delhi.")
    river = passage(7, "Sosna River", "A river.")
    assert chain.anchors(q + " Sosna", [river, lab, OTHER]) == [lab]


def test_the_word_for_word_name_anchors_before_a_possessive_one() -> None:
    q = "Who is the current opposition leader in the country where Tolvane is located?"
    leader = passage(8, "Leader of Opposition (Verasca)", "The current Leader of Opposition "
                                                         "is Hon. Mara Quillon.")
    buyende = passage(9, "Tolvane", "Tolvane is a town in the Northern Region of Verasca.",
                      rank=3)
    assert chain.anchors(q, [leader, buyende]) == [buyende, leader]
    assert "country" in chain.relation_terms(q, "Tolvane")


def test_a_place_of_a_place_also_leads_to_the_outer_place() -> None:
    buyende = passage(9, "Tolvane", "Tolvane is a town in the Northern Region of Verasca.")
    q = "Who is the current opposition leader in the country where Tolvane is located?"
    names = chain.candidates(buyende, q, ["Tolvane"], ["country", "located"])
    assert names[:2] == ["Northern Region of Verasca", "Verasca"]


def test_a_parenthesis_or_an_honorific_does_not_end_a_sentence() -> None:
    text = ('Nicholas I (also known as "Niklot I"; before 1164 – 1200, near Wittendörp), was '
            "a lord. The leader is Hon. Mara Quillon; she leads.\n(an open note\nNext line.")
    assert split_sentences(text) == [
        'Nicholas I (also known as "Niklot I"; before 1164 – 1200, near Wittendörp), was '
        "a lord.", "The leader is Hon. Mara Quillon;", "she leads.", "(an open note",
        "Next line."]


def test_a_chain_counts_the_named_things_not_the_relation_words_it_followed() -> None:
    from agent.offline.answerable import answerable
    from agent.text import content_terms

    q = "In what city did Nicholas, lord of the birthplace of Albert, king of Sweden, die?"
    pool = [passage(1, "Albert, King of Sweden", "Albert was born in Mecklenburg."),
            passage(2, "Nicholas, Lord of Mecklenburg", "Nicholas died near Wittendörp.")]
    terms = content_terms(q)
    topic = [t for t in terms if not chain.is_relation(t)]
    assert "birthplace" in terms
    assert "birthplace" not in topic
    assert answerable(terms, pool, several=True, joined=pool, joined_terms=topic)
    assert not answerable(terms, pool[:1], several=True, joined=pool[:1], joined_terms=topic)


def test_the_hop_sentence_is_chosen_by_topic_words_over_the_relation_words_followed() -> None:
    dorrin = passage(10, "Dorrin", "Dorrin (born 1982 in Kelsport) is a footballer.")
    estavia = passage(11, "Estavia", "The capital city of Kelsport plays a role in tourism. "
                                     "Notable hotels in Kelsport include the Harbourview "
                                     "Lodge.", round_=2)
    q = "What is the most popular hotel in Dorrin's city of birth?"
    lead = chain.chain_lead(q, ["doc-10", "doc-11"], [dorrin, estavia])
    assert lead == (2, "Notable hotels in Kelsport include the Harbourview Lodge.")
    # Unless the relation word is the kind of thing asked for.
    city = passage(12, "Redfield", "The canal runs to the Brisk River. The North Fenwater "
                                   "has a flow that floods.", round_=2)
    reyl = passage(13, "Tomas Reyl", "He is a basketball player.")
    q = "What river flows through the city Tomas Reyl played for before Harbor City?"
    assert chain.chain_lead(q, ["doc-13", "doc-12"], [reyl, city]) == (
        2, "The canal runs to the Brisk River.")
