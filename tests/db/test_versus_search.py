"""Two named things compared over a KB of look-alike reports: each name's report is
searched for on its own, so it is found even where the whole question's one search fills
the context with reports that name both (the two companies' suppliers)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Agent, Question
from store.embedder import Embedder
from tests.databases import files_agent

pytestmark = pytest.mark.db

SUPPLIERS = ["北辰玻璃", "东岭化工", "南溪包装", "西岸模具", "金石电子", "银河线缆", "瑞丰材料",
             "恒通物流", "宏远五金", "嘉禾塑胶", "天成机械", "安达精工", "永盛纸业", "盛华涂料",
             "鸿运仓储", "晨光陶瓷", "海川能源", "远望传感", "立信检测", "华茂纺织", "祥和电气",
             "德众软件"]


def _supplier(i: int, name: str) -> str:
    # Each names both compared companies (its customers) and its own 营业收入: it matches
    # the whole question better than either company's own report does.
    return (f"# {name}股份有限公司2025年年度报告摘要\n\n"
            f"报告期内，公司实现营业收入{3 + i * 0.37:.2f}亿元，同比增长{2 + i % 7}.4%。"
            f"公司主要客户包括青禾光电和临川数据等企业。\n")


FILES = {
    "qinghe.md": ("# 青禾光电股份有限公司2025年年度报告摘要\n\n"
                  "报告期内，青禾光电实现营业收入46.80亿元，同比增长12.3%。"
                  "公司主营光学镜头与模组，产品销往二十余个国家和地区。\n"),
    "linchuan.md": ("# 临川数据股份有限公司2025年年度报告摘要\n\n"
                    "报告期内，公司实现营业收入51.26亿元，同比增长6.8%。"
                    "公司主营政务云与数据中心运维服务。\n"),
    **{f"s{i:02d}.md": _supplier(i, n) for i, n in enumerate(SUPPLIERS)},
}


@pytest.fixture
def agent(pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> Iterator[Agent]:
    with files_agent(pool, embedder, tmp_path, "reports", FILES) as a:
        yield a


def test_each_compared_name_is_searched_with_the_asked_thing(agent: Agent) -> None:
    result = agent.ask(Question(text="青禾光电和临川数据哪家的营业收入更高？",
                                thread_id="versus:search", kb="reports"))
    assert not result.refused, result.text
    # Both reports' values, and the verdict from them: 临川数据 is higher.
    assert "46.80亿元" in result.text, result.text
    assert "51.26亿元" in result.text, result.text
    assert result.text.index("临川数据") < result.text.index("青禾光电"), result.text
