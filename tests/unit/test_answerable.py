"""The offline answer-or-refuse decision: how much of the question the pool holds."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.answerable import Carried, answerable, evidence_coverage, held_terms, near
from agent.state import Passage
from tests.unit.offline_ask import ask

E = OfflineEngine()


def passage(chunk_id: int, text: str, title: str = "") -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=f"d{chunk_id}", title=title, source="s.md",
                   doc_type="document", heading_path=[], text=text, score=1.0, rank=0,
                   round=1, sub_id="q1")


def test_inflections_roots_and_one_letter_typos_are_near_forms() -> None:
    assert near("bicycles", "bicycle")
    assert near("historical", "history")
    assert near("climage", "climate")
    assert near("protain", "protein")
    # Snowball pairs inflections a plural-only suffix list missed.
    assert near("ferries", "ferry")
    assert near("renovating", "renovation")


def test_short_words_and_chinese_words_must_match_exactly() -> None:
    assert not near("cats", "cars")
    assert not near("内存满了", "内存满")
    assert not near("bicycles", "tricycle")


def test_a_typo_in_the_question_does_not_make_the_bot_refuse() -> None:
    text = "Climate change is the long-term shift in temperatures and weather patterns."
    draft = ask("Is climage change a fact?", [passage(1, text)])
    assert not draft["refused"]
    assert "Climate change" in draft["text"]


def test_a_plural_in_the_question_matches_the_singular_in_the_document() -> None:
    held = held_terms("A bicycle must have a bell.", ["bicycles", "bell", "helmet"])
    assert {"bicycles", "bell"} <= held
    assert "helmet" not in held


def test_an_off_topic_pool_is_refused() -> None:
    draft = ask("What is the oxygen quota of the Mars base crew?",
                [passage(1, "Redis memory is full when used_memory reaches maxmemory."),
                 passage(2, "Annual leave is ten days a year.")])
    assert draft["refused"]
    assert draft["sentences"] == []


def test_refusal_threshold_is_the_share_of_terms_the_best_passage_holds() -> None:
    terms = ["vpn", "server", "address", "office", "printer"]
    three = [passage(1, "The VPN server address is vpn.example.")]
    two = [passage(1, "The VPN server is fast.")]
    assert evidence_coverage(terms, three, several=False) == 0.6
    assert answerable(terms, three, several=False)
    assert not answerable(terms, two, several=False)


def test_a_question_spanning_two_documents_counts_both_passages_together() -> None:
    terms = ["alice", "bob", "older", "born"]
    pool = [passage(1, "Alice was born in 1950."), passage(2, "Bob was born in 1960.")]
    assert not answerable(terms, pool, several=False)
    assert answerable(terms, pool, several=True)


def test_nothing_retrieved_is_not_answerable() -> None:
    assert not answerable(["vpn"], [], several=False)


def test_chinese_question_with_its_subject_found_is_answered() -> None:
    # The asked-for attribute (籍贯) is worded otherwise in the document ("……人").
    draft = ask("刘节的籍贯是哪里?", [passage(1, "刘节，字子植，浙江省温州府永嘉县人。历史学家。")])
    assert not draft["refused"]
    assert "永嘉县" in draft["text"]


def test_english_needs_more_of_the_question_than_chinese() -> None:
    pool = [passage(1, "The VPN server is fast.")]
    terms = ["vpn", "server", "address", "port"]
    assert answerable(terms, pool, several=False, language="zh")
    assert not answerable(terms, pool, several=False, language="en")


def _doc(text: str) -> Passage:
    return Passage(chunk_id=1, doc_id="d", title="Bike shop", source="d.md", doc_type="report",
                   heading_path=[], text=text, score=1.0, rank=0, round=1, sub_id="q1")


def test_a_member_of_a_numbered_series_the_pool_lacks_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint
    pool = [passage(1, "东湖有轨电车2号线于10月1日开通，全长15公里。"),
            passage(2, "The 5th Donghu Kite Fair drew 30,000 visitors.")]
    assert missing_constraint("有轨电车3号线什么时候开通？", pool) == "3号线"
    assert missing_constraint("有轨电车2号线什么时候开通？", pool) is None
    assert missing_constraint("第六届东湖风筝节有多少游客？", pool) == "第六届"
    assert missing_constraint("第五届东湖风筝节有多少游客？", pool) is None
    # A pool that numbers no phase says nothing about which phase.
    assert missing_constraint("2号线二期什么时候开通？", pool) is None


def test_a_name_before_a_category_the_pool_lacks_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint

    pool = [_doc("In 2025 the road bike line sold 400 units and the kids line 150.")]
    assert missing_constraint("How many units did the gravel line sell?", pool) == "gravel"
    assert missing_constraint("How many units did the kids line sell?", pool) is None
    assert missing_constraint("What did the road bike line sell in 2024?", pool) == "2024"
    assert missing_constraint("What did the road bike line sell in 2025?", pool) is None
    zh = [_doc("2025 年公路车产品线销量 400 台，童车产品线 150 台。")]
    assert missing_constraint("山地车产品线卖了多少台？", zh) == "山地车"
    assert missing_constraint("童车产品线卖了多少台？", zh) is None


def test_a_measure_no_passage_names_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint

    pool = [_doc("In 2025 the bike shop sold 400 units; 12% of them came back.")]
    assert missing_constraint("What was the bike shop's total profit in 2025?", pool) == "profit"
    assert missing_constraint("How many units did the bike shop sell in 2025?", pool) is None
    zh = [_doc("2025 年自行车门店销量 400 台，退货率 12%。")]
    assert missing_constraint("2025 年门店的利润是多少？", zh) == "利润"
    # A translation of the measure holds it.
    assert missing_constraint("2025 年门店的利润是多少？", pool, {"利润": ["profit"]}) == "利润"
    held = [_doc("The shop's profit in 2025 was 1.2 million.")]
    assert missing_constraint("2025 年门店的利润是多少？", held, {"利润": ["profit"]}) is None


def test_a_short_word_is_near_its_own_plural_only() -> None:
    assert near("meal", "meals")
    assert near("fee", "fees")
    assert not near("meal", "metal")
    assert not near("fee", "feet")


def test_a_name_the_pool_never_mentions_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint

    pool = [_doc("Hotel limits: Berlin EUR 180 a night, Munich EUR 160 a night.")]
    assert missing_constraint("What is the hotel limit in Hamburg?", pool) == "Hamburg"
    assert missing_constraint("What is the hotel limit in Munich?", pool) is None
    # A capital that only starts the question names nothing.
    assert missing_constraint("Hotels: what is the limit a night?", pool) is None
    # Days and months are dates, not names.
    assert missing_constraint("Is the hotel limit the same on Sundays?", pool) is None
    zh = [_doc("住宿标准：柏林每晚 180 欧元，慕尼黑每晚 160 欧元。")]
    assert missing_constraint("汉堡的住宿标准是多少？", zh) == "汉堡"
    assert missing_constraint("慕尼黑的住宿标准是多少？", zh) is None
    # Over English documents a Chinese name is held by its translation; one the dictionary
    # does not translate is not judged there (it may be written in English).
    hamburg = {"汉堡": ["hamburg"]}
    assert missing_constraint("汉堡的住宿标准是多少？", pool, hamburg) == "汉堡"
    english = [_doc("Hotel limit in Hamburg: EUR 170 a night.")]
    assert missing_constraint("汉堡的住宿标准是多少？", english, hamburg) is None
    assert missing_constraint("汉堡的住宿标准是多少？", pool) is None


def test_a_numbered_member_of_a_series_the_pool_lacks_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint

    pool = [_doc("Support plans: Level 1 answers in 4 hours, Level 2 in one business day.")]
    assert missing_constraint("How fast does Level 3 support answer?", pool) == "Level 3"
    assert missing_constraint("How fast does level-2 support answer?", pool) is None


def test_a_code_the_pool_never_names_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint

    pool = [_doc("The KX-200 kettle has a two-year warranty; the KX200 Pro has three years.")]
    assert missing_constraint("How long is the warranty on the KX-300?", pool) == "KX-300"
    assert missing_constraint("How long is the warranty on the kx200?", pool) is None
    # A quantity is not a code: documents write it otherwise ("24 hours"); nor is a mention.
    assert missing_constraint("Is the kettle warranty desk open 24h?", pool) is None
    assert missing_constraint("Is the KX-200 warranty a 2-year one?", pool) is None
    assert missing_constraint("<@U2> how long is the KX-200 warranty?", pool) is None
    zh = [_doc("KX-200 电水壶保修两年。")]
    assert missing_constraint("KX-300电水壶保修多久？", zh) == "KX-300"
    assert missing_constraint("KX-200电水壶保修多久？", zh) is None


def test_a_grade_inside_a_range_the_pool_gives_is_named() -> None:
    from agent.offline.answerable import missing_constraint

    table = [_doc("培训预算：L1–L3 每年 3000 元；L4 及以上每年 5000 元。")]
    assert missing_constraint("我是L2，培训预算多少？", table) is None
    assert missing_constraint("L6 的培训预算是多少？", table) is None
    english = [_doc("Training budget: grades G2 to G4 get EUR 800; G5 or higher EUR 1,200.")]
    assert missing_constraint("What is the training budget for G3?", english) is None
    assert missing_constraint("What is the training budget for G1?", english) == "G1"


def test_a_word_narrowing_a_benefit_the_pool_names_otherwise_is_the_missing_constraint(
) -> None:
    from agent.offline.answerable import missing_constraint

    pool = [_doc("Staff get a commuting allowance of EUR 50 a month and a phone subsidy.")]
    assert missing_constraint("Is there a childcare allowance?", pool) == "childcare"
    assert missing_constraint("How much is the commuting allowance?", pool) is None
    # Each word before the benefit narrows it.
    assert missing_constraint("Is there a sports club subsidy?", pool) == "club"
    zh = [_doc("员工每月有 300 元交通补贴。")]
    assert missing_constraint("有没有托儿补贴？", zh) == "托儿"
    assert missing_constraint("交通补贴是多少？", zh) is None
    # A clause before the head says when or how the cost arose, not which kind it is.
    late = [_doc("每年 12 月 20 日后发生的费用，最晚在次年 1 月 10 日前提交报销。")]
    assert missing_constraint("12月下旬发生的费用什么时候报销？", late) is None
    assert missing_constraint("培训的费用能报销吗？", late) == "培训"
    # Over English documents the dictionary translates the category ("城市": "city") but
    # rarely the word narrowing it ("二线": "Tier 2"): that is no sign the table lacks it.
    table = [_doc("Hotel per night by city tier: Tier 1 EUR 200, Tier 2 EUR 150.")]
    assert missing_constraint("二线城市住宿标准是多少？", table, {"城市": ["city"]}) is None


def test_an_answer_about_another_member_of_the_category_is_refused_naming_what_is_missing(
) -> None:
    e = OfflineEngine()
    q = "How many units did the gravel line sell in 2025?"
    u = e.understand({"question": q, "history": []})
    draft = e.generate({"question": q, "understanding": u, "route": "single_retrieval",
                        "queries": [u["query"]], "attempt": 0, "rejected": [],
                        "passages": [_doc("In 2025 the road bike line sold 400 units and "
                                          "the kids line 150.")]})
    # Still a refusal, naming what is missing, beside what the documents do say (the
    # only sentence it cites).
    assert draft["refused"]
    assert '"gravel"' in draft["text"]
    quoted = [s for s in draft["sentences"] if not s.get("note")]
    assert quoted == [{"text": "In 2025 the road bike line sold 400 units and the kids "
                               "line 150.", "cites": [1]}]


# A Chinese canteen rule the thread already answered an English question from (doc d1).
_CANTEEN = passage(1, "食堂午餐 11:30 开始供应。员工凭工卡就餐，访客需提前登记。")


def test_the_thread_documents_hold_the_words_carried_into_an_english_follow_up() -> None:
    # "When does the canteen serve lunch?" -> "Do visitors need to register for it?":
    # the rewrite carried in "canteen serve lunch", which the Chinese rule words its own way.
    terms = ["visitors", "register", "canteen", "serve", "lunch"]
    senses = {"visitors": ["访客"], "register": ["登记"]}
    carried = Carried(["canteen", "serve", "lunch"], frozenset({"d1"}), "en")
    assert not answerable(terms, [_CANTEEN], several=False, alternatives=senses)
    assert answerable(terms, [_CANTEEN], several=False, alternatives=senses, carried=carried)


def test_carried_words_do_not_stand_in_for_the_follow_ups_own() -> None:
    # "Can contractors' families eat there too?": the rule never names either.
    terms = ["contractors", "families", "eat", "canteen", "serve", "lunch"]
    carried = Carried(["canteen", "serve", "lunch"], frozenset({"d1"}), "en")
    assert not answerable(terms, [_CANTEEN], several=False, alternatives={"eat": ["就餐"]},
                          carried=carried)


def test_only_an_other_language_document_the_thread_cited_is_credited() -> None:
    terms = ["visitors", "register", "canteen", "serve", "lunch"]
    senses = {"visitors": ["访客"], "register": ["登记"]}
    elsewhere = Carried(["canteen", "serve", "lunch"], frozenset({"d9"}), "en")
    assert not answerable(terms, [_CANTEEN], several=False, alternatives=senses,
                          carried=elsewhere)
    # Same language as the asker: the carried words are there to be found as written.
    english = passage(2, "Visitors must register at reception.")
    same = Carried(["canteen", "serve", "lunch"], frozenset({"d2"}), "en")
    assert not answerable(terms, [english], several=False, carried=same)


def test_a_count_asked_of_a_thing_no_sentence_counts_is_the_missing_constraint() -> None:
    from agent.offline.answerable import counted, missing_constraint

    assert counted("一个机柜最多能放几台服务器？") == "服务器"
    assert counted("有几条路线以总站为终点？") == "路线"  # the thing ends before the verb
    assert counted("How many replicas does the cluster keep?") == "replicas"
    # A measure ("几个月", "多少天") is a value of its own, not a thing counted.
    assert counted("试用期有几个月？") is None
    assert counted("婚假有多少天？") is None
    racks = [passage(1, "服务器统一放在机房的机柜里，由运维组管理。"),
             passage(2, "1. 把服务器放进机柜；\n2. 登记资产编号。")]
    assert missing_constraint("一个机柜最多能放几台服务器？", racks) == "服务器的数量"
    counted_racks = [*racks, passage(3, "每个机柜最多放 12 台服务器。")]
    assert missing_constraint("一个机柜最多能放几台服务器？", counted_racks) is None
    # A thing no passage names is left to the share of terms held (worded otherwise).
    assert missing_constraint("一个机柜最多能放几台交换机？", racks) is None
    english = [passage(1, "The cluster keeps replicas in another zone.")]
    assert missing_constraint("How many replicas does the cluster keep?", english) == (
        "the number of replicas")
    assert missing_constraint("How many replicas does the cluster keep?",
                              [passage(1, "The cluster keeps three replicas.")]) is None


def test_a_determiner_before_a_category_is_not_a_missing_kind() -> None:
    from agent.offline.answerable import missing_constraint

    pool = [passage(1, "值班工程师由各团队轮流担任，每周轮换一次。")]
    # "其他团队", "所有团队" pick teams without naming a kind the pool would have to hold.
    assert missing_constraint("其他团队也要排值班吗？", pool) is None
    assert missing_constraint("所有团队都要排值班吗？", pool) is None
    # A word that names a kind of team still does.
    assert missing_constraint("运维团队也要排值班吗？", pool) == "运维"


def test_two_swapped_letters_are_a_slip() -> None:
    assert near("recieve", "receive")
    assert near("seperate", "separate")
    draft = ask("when do on-call engineers recieve the allowance",
                [passage(1, "On-call engineers receive the weekly allowance with the "
                            "next month's salary.")])
    assert not draft["refused"]


def test_a_chinese_company_the_pool_never_names_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint

    report = [_doc("青松仓储物流股份有限公司2025年年度报告。证券简称：青松物流。"
                   "报告期内公司实现营业收入18.3亿元，同比增长12%。")]
    # Another company of the same trade: its words (仓储, 物流, 股份有限公司) match the
    # report, its core (蓝鲸) does not.
    assert (missing_constraint("杭州蓝鲸仓储物流股份有限公司2025年的营业收入是多少？", report)
            == "杭州蓝鲸仓储物流股份有限公司")
    assert missing_constraint("白鹭医药集团2025年的营业收入是多少？", report) == "白鹭医药集团"
    # The same company under its full name, with a place, or by its short name.
    assert missing_constraint("青松仓储物流股份有限公司2025年的营业收入是多少？", report) is None
    assert missing_constraint("青岛青松仓储物流股份有限公司的营业收入是多少？", report) is None
    assert missing_constraint("青松物流2025年的营业收入是多少？", report) is None
    # A kind of company names no company.
    assert missing_constraint("哪家物流公司2025年的营业收入最高？", report) is None


def test_a_chinese_person_the_pool_never_names_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint

    record = [_doc("南湖县人民医院出院记录。姓名：吴桂芬　性别：女　年龄：63岁。"
                   "出院诊断：2型糖尿病。出院医嘱：二甲双胍0.5g每日两次。")]
    assert missing_constraint("患者马德胜出院时的诊断是什么？", record) == "马德胜"
    assert missing_constraint("南湖县人民医院的患者孔祥林出院诊断是什么？", record) == "孔祥林"
    assert missing_constraint("患者吴桂芬出院时的诊断是什么？", record) is None
    # Someone named by surname and title is named in full by the record, if at all.
    assert missing_constraint("李主任开的出院医嘱是什么？", record) is None
    judgment = [_doc("原告张志强与被告南昌鸿运家具有限公司买卖合同纠纷一案，本院判决被告支付货款"
                     "86000元。")]
    assert missing_constraint("张志强诉南昌鸿运家具有限公司一案判了多少钱？", judgment) is None
    assert (missing_constraint("何晓东诉南昌鸿运家具有限公司一案判了多少钱？", judgment)
            == "何晓东")


def test_a_foreign_name_in_chinese_pieces_is_not_read_as_a_chinese_person() -> None:
    from store.tokenize import chinese_people

    # "冯" starts a transliterated name here, not a surname.
    assert chinese_people("卡洛斯·冯·霍恩是哪国人？") == []
    assert chinese_people("患者吴桂芬出院时的诊断是什么？") == ["吴桂芬"]


def test_a_latin_name_glossed_in_chinese_is_judged_by_its_chinese_form() -> None:
    from agent.offline.answerable import missing_constraint

    report = [_doc("青松仓储物流股份有限公司2025年年度报告。证券简称：青松物流。董事长：邵明远。")]
    assert missing_constraint("Who is the chairman of Qingsong Logistics (青松物流)?",
                              report) is None
    assert missing_constraint("Who is the chairman of Qingsong Logistics?", report) == "Qingsong"


def test_a_company_or_case_named_in_full_is_a_name_even_opening_the_question() -> None:
    from agent.offline.answerable import missing_constraint

    report = [_doc("Harlow Freight Ltd annual report 2025: revenue was GBP 212 million.")]
    assert missing_constraint("Kestrel Freight Ltd reported what revenue in 2025?",
                              report) == "Kestrel"
    assert missing_constraint("Harlow Freight Ltd reported what revenue in 2025?", report) is None
    # A capital that only opens the question still names nothing.
    assert missing_constraint("Freight revenue in 2025?", report) is None


def test_an_english_modifier_is_held_through_its_translation_a_chinese_one_is_not() -> None:
    from agent.offline.answerable import missing_constraint
    pool = [passage(1, "2024赛季松涛城市篮球联赛决赛在体育中心举行。"),
            passage(2, "Each city team plays twelve games.")]
    asked = "Which team won the Songtao City Basketball League final?"
    words = {"basketball": ["篮球"], "league": ["联赛"]}
    assert missing_constraint(asked, pool, {**words, "songtao": ["松涛"]}) is None
    assert (missing_constraint(asked, pool, words) or "").lower() == "songtao"
    # 健身 glossed "to work out": the gloss's words are no evidence of a gym allowance.
    perks = [passage(3, "员工享有交通补贴和餐费补贴。"), passage(4, "Work out your leave balance.")]
    assert missing_constraint("有健身补贴吗？", perks, {"健身": ["work", "out"]}) == "健身"


def test_a_measured_detail_the_pool_does_not_give_is_the_missing_constraint() -> None:
    from agent.offline.answerable import asked_measure, missing_constraint
    record = [passage(1, "手术记录：患者王建国行腹腔镜胆囊切除术，手术顺利，术后第三天出院。"
                         "原告主张赔偿交通费、住宿费、误工费等各项损失共计5.2万元。"
                         "术后复查血压偏高，嘱低盐饮食。", title="出院小结")]
    # Asked measures, read by language: a noun ending in a measure morpheme, the noun
    # before "是多少", the noun after "多少"; a count noun read as its thing.
    assert asked_measure("王建国的术中输液量是多少？") == "输液量"
    assert asked_measure("王建国出院时的血压是多少？") == "血压"
    assert asked_measure("公司年底的员工总数是多少？") == "员工总数"
    assert asked_measure("冠军拿到了多少奖金？") == "奖金"
    assert asked_measure("王建国每天吃多少片药？") is None
    # The noun held nowhere: the value is missing.
    assert missing_constraint("王建国的术中输液量是多少？", record) == "输液量"
    # Held only in a list of claimed items, the sum given for all: no value of its own.
    assert missing_constraint("王建国的住宿费具体是多少钱？", record) == "住宿费的具体数值"
    # Held without any number beside it.
    assert missing_constraint("王建国出院时的血压是多少？", record) == "血压的具体数值"
    # Held with its value: answered.
    report = [passage(2, "该机电池容量4800毫安时，售价2599元。公司共有员工860人，"
                         "入场观众达4.1万人。")]
    assert missing_constraint("这款手机的电池容量是多少？", report) is None
    assert missing_constraint("公司的员工总数是多少？", report) is None
    assert missing_constraint("决赛入场观众人数是多少？", report) is None


def test_a_ratio_asked_after_duoshao_is_a_measure() -> None:
    from agent.offline.answerable import asked_measure, missing_constraint
    # 比例, 比重 and 占比 measure as 率 does: "多少比例" asks a value.
    assert asked_measure("企业年金单位缴多少比例？") == "比例"
    assert asked_measure("研发投入占营收多少比重？") == "比重"
    # A ratio named only without a number beside it is not given.
    notes = [passage(1, "迟到比例较高的部门，由人力资源部约谈负责人。")]
    assert missing_constraint("企业年金单位缴多少比例？", notes) == "比例的具体数值"
    given = [passage(2, "企业年金单位缴费比例为工资总额的 8%。")]
    assert missing_constraint("企业年金单位缴多少比例？", given) is None


def test_a_thing_no_passage_names_is_missing_where_only_its_verbs_are_held() -> None:
    from agent.offline.answerable import missing_constraint
    claims = [passage(1, "报销须在费用发生后 60 天内提交，附上发票原件。"),
              passage(2, "差旅报销由直属上级审批后交财务。")]
    # the rules say how to claim; whether glasses or laundry may be claimed they never say
    assert missing_constraint("眼镜可以报销吗？", claims) == "眼镜"
    assert missing_constraint("洗衣费能报销吗", claims) == "洗衣费"
    # named there: answered from it
    optics = passage(3, "员工配镜（眼镜）每两年可报销一次，上限 800 元。")
    assert missing_constraint("眼镜可以报销吗？", [*claims, optics]) is None
    # a thing whose part the pool names may be written otherwise there; a question whose
    # held word names a thing leaves the rest to the share of terms held
    assert missing_constraint("报销单怎么填？", claims) is None
    assert missing_constraint("发票丢了怎么报销？", claims) is None
    # verbs held in English: the thing may be there under a word the dictionary lacks
    trips = [passage(4, "Train tickets are reimbursed against the receipt.")]
    assert missing_constraint("火车票能报销吗？", trips, {"报销": ["reimbursed"]}) is None
    assert missing_constraint("火车票能报销吗？", claims) == "火车票"


def test_a_measure_asked_over_a_passage_in_the_other_language_is_left_to_that_passage() -> None:
    from agent.offline.answerable import missing_constraint
    canteen = passage(1, "食堂每天中午十一点半开放。")
    meals = passage(2, "Meal allowance on business trips: CNY 120 per day, receipts not needed.",
                    title="Travel policy")
    # "餐补标准" is no word of the Chinese passage, and the dictionary need not offer the
    # English passage's "allowance": the number there may be the value asked.
    trips = {"出差": ["business", "trip"], "餐补": ["meal", "allowance"]}
    assert missing_constraint("出差餐补标准是多少？", [canteen, meals], trips) is None
    # With no number in the other language's passages, the value is missing still; and a
    # number in a passage about something else (a year, a headcount) is not the value.
    notes = passage(3, "Keep your receipts for all business trip expenses.", title="Tips")
    assert missing_constraint("出差餐补标准是多少？", [canteen, notes], trips) is not None
    report = passage(4, "In 2025 the company had 860 employees.", title="Annual report")
    assert missing_constraint("出差餐补标准是多少？", [canteen, report], trips) is not None


def test_a_plain_noun_asked_by_value_is_read_with_the_noun_before_it() -> None:
    from agent.offline.answerable import asked_measure, missing_constraint
    # "标准" alone is no measure; "住宿标准" is the one asked.
    assert asked_measure("那出差住宿标准是多少？") == "住宿标准"
    assert asked_measure("病人的血压是多少？") == "血压"
    # A passage's other "标准" (no number) does not show the hotel limit missing.
    rules = passage(1, "报销标准按公司制度执行，住宿发票需注明入住日期。")
    hotel = passage(2, "Hotel limit: CNY 600 per night in tier-2 cities.", title="Travel policy")
    assert missing_constraint("那出差住宿标准是多少？", [rules, hotel],
                              {"出差": ["travel"], "住宿": ["hotel"]}) is None


def test_a_count_by_container_is_a_count_of_the_thing() -> None:
    from agent.offline.answerable import counted, missing_constraint
    assert counted("仓库里还剩多少箱矿泉水？") == "矿泉水"
    assert counted("去年一共印了几本培训教材？") == "培训教材"
    # "几片" and "几块" measure a dose or money, not a thing counted.
    assert counted("每次吃几片布洛芬？") is None
    stock = [passage(1, "仓库存放矿泉水和纸巾，由行政部每周盘点。")]
    assert missing_constraint("仓库里还剩多少箱矿泉水？", stock) == "矿泉水的数量"
    counted_stock = [passage(2, "截至周五，仓库存有矿泉水两百箱。")]
    assert missing_constraint("仓库里还剩多少箱矿泉水？", counted_stock) is None


def test_a_date_or_an_ordinal_beside_the_thing_is_no_count_of_it() -> None:
    from agent.offline.answerable import missing_constraint
    bought = [passage(1, "2024年10月，员工在第3号仓库领取了矿泉水。1.领取时需登记工号。")]
    assert missing_constraint("一共领取了多少箱矿泉水？", bought) == "矿泉水的数量"
    counted_out = [passage(2, "2024年10月，员工领取矿泉水共计35箱。")]
    assert missing_constraint("一共领取了多少箱矿泉水？", counted_out) is None


def test_a_role_no_passage_names_is_the_missing_constraint() -> None:
    from agent.offline.answerable import missing_constraint
    pool = [passage(1, "5月12日，第三届东湖风筝节在东湖公园闭幕，"
                       "组委会秘书长周明宣布下届将扩大规模。"
                       "本届最佳创意奖由来自潍坊的代表队获得。", title="东湖风筝节闭幕")]
    # The festival's other people are named, its jury's head is not.
    assert missing_constraint("第三届东湖风筝节的评委会主任是谁？", pool) == "主任"
    assert missing_constraint("谁是第三届东湖风筝节的评委会主任？", pool) == "主任"
    assert missing_constraint("第三届东湖风筝节组委会的秘书长是谁？", pool) is None
    # An agent noun is said with its verb as often ("由…负责", "由…饰演"): not read as missing.
    assert missing_constraint("东湖风筝节的负责人是谁？", pool) is None
    assert missing_constraint("东湖风筝节最佳创意奖的获得者是谁？", pool) is None
