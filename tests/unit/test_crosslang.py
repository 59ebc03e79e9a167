"""Query terms translated through CC-CEDICT (no KB involved)."""

from __future__ import annotations

from store.cedict import head_word, load_cedict
from store.crosslang import candidates
from store.english_forms import english_forms
from store.gloss_senses import together
from store.tokenize import query_terms


def _candidates(query: str) -> dict[str, list[str]]:
    return candidates(query, query_terms(query), load_cedict())


def test_a_chinese_word_jieba_splits_is_still_found_whole() -> None:
    # jieba cuts 年假 into 年 / 假; the dictionary knows the word
    found = _candidates("实习生的年假怎么算")
    assert "annual leave" in found["年假"]  # the workplace lexicon's rendering, whole


def test_two_english_terms_glossed_together_win_over_each_alone() -> None:
    found = _candidates("How many days of annual leave?")
    assert "annual leave" in found
    assert "annual" not in found
    assert "leave" not in found


def test_an_english_word_with_many_senses_is_not_translated() -> None:
    assert "leave" not in _candidates("When may I leave?")


def test_jieba_words_come_before_longer_dictionary_matches_across_them() -> None:
    # forward matching alone would take 请客 ("to treat") and lose 客户 ("client")
    found = _candidates("请客户签收快递")
    assert "客户" in found
    assert "请客" not in found


def test_an_english_plural_is_looked_up_as_its_singular() -> None:
    found = _candidates("Where are the spare batteries kept?")
    assert "电池" in found["batteries"]


def test_english_forms_cover_the_plurals_an_unstemmed_index_holds() -> None:
    assert english_forms("battery")[:4] == ["battery", "batterys", "batteryes", "batteries"]
    assert english_forms("meal")[:3] == ["meal", "meals", "meales"]
    assert english_forms("电池") == ["电池"]


def test_english_forms_include_the_other_spelling_of_a_gloss() -> None:
    assert "catalogue" in english_forms("catalog")
    assert "colours" in english_forms("color")
    assert "organise" in english_forms("organize")
    assert "center" in english_forms("centre")
    assert not {"meel", "meaul"} & set(english_forms("meal"))


def test_an_inflected_english_word_is_looked_up_as_its_dictionary_form() -> None:
    assert "加密" in _candidates("Were the files encrypted?")["encrypted"]
    assert "退款" in _candidates("Who refunded the deposit?")["refunded"]
    assert "提交" in candidates("When are invoices submitted?",
                              query_terms("When are invoices submitted?"),
                              load_cedict(), wide=True)["submitted"]


def test_a_verb_is_looked_up_with_the_particle_after_it() -> None:
    # "apply" alone glosses over twenty headwords; "apply for" is 申请
    found = _candidates("How do I apply for a parking permit?")
    assert "申请" in found["apply for"]
    assert "apply" not in _candidates("Apply the patch twice.")


def test_a_word_of_many_senses_is_read_wide_in_the_senses_it_is_first_of() -> None:
    assert "key" not in _candidates("Where is the key kept?")
    key = candidates("Where is the key kept?", query_terms("Where is the key kept?"),
                     load_cedict(), wide=True)["key"]
    assert "密钥" in key
    assert "关键" not in key  # "key" is a late sense of 关键 ("crucial")


def test_a_gloss_placeholder_is_left_out_of_the_phrase() -> None:
    # CC-CEDICT writes "to apply for sth"; a question names the object itself
    assert "申请" in load_cedict().en_zh["apply for"]


def test_a_fixed_phrase_is_looked_up_whole_before_its_words() -> None:
    # "advance" alone glosses a dozen headwords; "in advance" is 提前 among a few
    found = _candidates("Must overtime be booked in advance?")
    assert "提前" in found["in advance"]
    assert "advance" not in found


def test_a_phrase_is_found_in_its_inflected_and_plural_forms() -> None:
    # the glosses say "public holiday" and "hand over"
    assert "节假日" in _candidates("Are public holidays paid?")["public holidays"]
    assert "移交" in _candidates("Who handed over the keys?")["handed over"]


def test_a_phrase_the_dictionary_writes_with_the_is_found_without_it() -> None:
    assert "翌年" in _candidates("Does it expire the following year?")["following year"]
    assert "翌年" in _candidates("Is it paid following year?")["following year"]


def test_the_question_frame_is_no_phrase() -> None:
    # "how many" (几个) and "need to" (务必) ask for a count and an obligation, not a topic;
    # "the core" is not a phrase of "the core databases"
    found = _candidates("How many backups need to be kept for the core databases?")
    assert not {"how many", "need to", "the core"} & set(found)
    assert "数据库" in found["databases"]


def test_a_word_no_gloss_names_stands_for_the_few_headwords_whose_gloss_ends_in_it() -> None:
    # nothing is glossed "reimbursement"; 报销 is "to apply for reimbursement"
    assert "报销" in _candidates("Is a reimbursement paid within a week?")["reimbursement"]
    # "date" glosses headwords of its own: the glosses ending in it are not read
    assert "截止日期" not in _candidates("When is the due date?").get("date", [])


def test_a_word_read_deep_stands_for_the_whole_headwords_whose_gloss_ends_in_it() -> None:
    query = "Is probation six months?"
    found = candidates(query, query_terms(query), load_cedict(), deep={"probation"})
    assert "试用" in found["probation"]
    assert "缓刑" not in found["probation"]


def test_an_irregular_past_form_is_looked_up_as_its_verb() -> None:
    # "kept" has no ending to strip: the verb is "keep" (保留, a sense it is first of).
    found = candidates("how long are backups kept", query_terms("how long are backups kept"),
                       load_cedict(), wide=True)
    assert "保留" in found["kept"]


def test_a_gloss_of_several_words_is_a_sense_only_as_a_phrase() -> None:
    # 结账 is "pay the bill; settle accounts": no "accounts" of a login, no "bill" alone
    found = _candidates("吃完饭谁去结账")
    assert "settle accounts" in found["结账"]
    assert not {"accounts", "bill", "pay", "settle"} & set(found["结账"])


def test_a_gloss_of_a_light_word_and_one_more_gives_no_word() -> None:
    # 健身 is "keep fit; work out": "keep" and "out" name nothing, "work" no workout
    found = _candidates("下班去健身")
    assert {"keep fit", "work out"} <= set(found["健身"])
    assert not {"keep", "fit", "work", "out"} & set(found["健身"])


def test_a_light_word_left_of_a_gloss_is_no_sense() -> None:
    # 自己 is "oneself; one's own": without the placeholders, "own" alone
    assert not _candidates("电脑是我自己买的").get("自己")


def test_a_gloss_gives_its_noun_group_with_its_modifier() -> None:
    # "submit an expense account": "expense account" whole, never "account" alone
    found = _candidates("打车费怎么报销")
    assert "expense account" in found["报销"]
    assert "account" not in found["报销"]


def test_the_words_held_together_are_a_head_noun_with_its_modifier() -> None:
    assert together("submit an expense account") == ("expense", "account")
    assert together("apply for reimbursement") == ("apply", "reimbursement")
    assert together("keep fit") == ("fit",)


def test_a_time_the_asker_points_at_is_no_bare_time_noun() -> None:
    # 本月 is "this month": documents write a date for it, and "month" is any month
    found = _candidates("本月的团建经费还剩多少")
    assert "month" not in found.get("本月", [])
    assert "团建" in found


def test_english_forms_cover_the_verb_forms_an_unstemmed_index_holds() -> None:
    assert {"expired", "expiring"} <= set(english_forms("expire"))
    assert {"submitted", "submitting"} <= set(english_forms("submit"))
    assert "carried" in english_forms("carry")
    assert {"kept", "keeping"} <= set(english_forms("keep"))


def test_a_gloss_of_several_words_names_a_kind_of_its_head_word() -> None:
    assert head_word("apply for reimbursement") == "reimbursement"
    assert head_word("chairman of the board of directors") == "chairman"
    assert head_word("sales") is None
    assert head_word("to go out of business for good") is None
