"""Which questions ask for a procedure (agent.question_shape.is_procedural): the offline
engine answers those with a document's steps, complete and in order."""

from __future__ import annotations

import pytest

from agent.question_shape import is_procedural


@pytest.mark.parametrize("question", [
    "服务器宕机了怎么处理",
    "如何配置打印机",
    "新员工入职的流程",
    "我想办理离职",
    "我们打算给新同事开通邮箱",
    "想申请一台显示器",
    "I want to book a meeting room",
    "I need to reset my VPN token",
    "I'd like to request a new laptop",
    "What do I need to do to get a parking permit?",
    "Walk me through setting up SSO",
    "What's the process for ordering office supplies?",
    "how would I change my payroll bank account",
])
def test_asking_how_to_act_is_procedural(question: str) -> None:
    assert is_procedural(question)


@pytest.mark.parametrize("question", [
    "我想知道年假有几天",
    "我想请假，要提前几天？",
    "需要提前几天申请？",
    "为什么VPN会断？",
    "怎样的发票可以报销",
    "I want to know the parking fee",
    "I need to understand the travel policy",
    "I need to travel to Berlin, what is the hotel cap?",
    "How much is the travel allowance?",
    "How long does approval take?",
    "Who approves expenses?",
    "Which step comes after the canary?",  # one step, not the procedure
])
def test_asking_a_fact_is_not(question: str) -> None:
    assert not is_procedural(question)
