"""One router protocol (TranscriptRouter) with its kinds registered by name, and Aya's routers composed from
the kinds in one place (aya_router)."""

import pytest

from aya_lab.agents.routing import (
    AYA_ROUTERS,
    FINISH,
    ROUTER_KINDS,
    AuthorityRouter,
    KeywordRouter,
    LLMRouter,
    LoopRouter,
    ReDecidingRouter,
    RouterOutput,
    RoutingChain,
    RoutingTranscript,
    Step,
    TranscriptRouter,
    aya_router,
)
from aya_lab.errors import InputError
from aya_lab.models.fake import FakeChatModel
from aya_lab.prompts import load_prompt

GERMAN = "Wie lautet unsere Reiserichtlinie für Flüge?"
LOST = "Wie is our flight line line?"


def llm(model: FakeChatModel) -> LLMRouter:
    return LLMRouter(model, load_prompt("supervisor/baseline"))


def test_every_kind_is_a_transcript_router():
    assert set(ROUTER_KINDS) == {"keyword", "llm", "loop", "re_deciding", "authority"}
    assert all(issubclass(kind, TranscriptRouter) for kind in ROUTER_KINDS.values())


@pytest.mark.parametrize(
    "make",
    [
        lambda: KeywordRouter(),
        lambda: llm(FakeChatModel(default="banana")),
        lambda: LoopRouter(FakeChatModel(default="banana")),
        lambda: ReDecidingRouter(llm(FakeChatModel(default="banana"))),
        lambda: AuthorityRouter(llm(FakeChatModel(default="banana"))),
    ],
)
def test_choose_is_the_first_decision_of_route(make):
    # every kind answers both questions the same way, whichever of the two it implements
    for text in ("summarize the last 5 messages", "remember that the door code is 42", "thanks!"):
        assert make().choose(text) == make().route(text)


def test_a_fallback_is_consulted_through_choose_with_the_original():
    router = llm(FakeChatModel(default="banana"))
    assert router.choose(LOST).tool == "chat"
    decided = router.choose(LOST, GERMAN)
    assert decided.tool == "query" and decided.fallback and "in the original request" in decided.log


def test_a_model_router_may_fall_back_to_another_model_router():
    labels = FakeChatModel(default="summarize")
    router = LLMRouter(FakeChatModel(default="banana"), load_prompt("supervisor/baseline"), fallback=llm(labels))
    out = router.choose("anything at all")
    assert out.tool == "summarize" and out.fallback and "fallback LLMRouter: model answered" in out.log


def test_the_default_route_finishes_with_the_last_observation():
    router = llm(FakeChatModel(default="query"))
    t = RoutingTranscript.start("what?", router).add(Step(RouterOutput("query", "what?"), "the answer"), router)
    assert router.route(t) == RouterOutput(FINISH, "the answer", "finish with the tool's answer")


def test_a_kind_must_implement_route_or_choose():
    class Nothing(TranscriptRouter):
        pass

    with pytest.raises(NotImplementedError, match="Nothing must override route or choose"):
        Nothing().route("hi")


def test_aya_routers_are_composed_in_one_place():
    first = llm(FakeChatModel(default="query"))
    built = {name: aya_router(name, first) for name in AYA_ROUTERS}
    assert all(isinstance(r, AuthorityRouter) and r.confirm is first for r in built.values())
    assert built["single"].inner is first
    assert isinstance(built["re_deciding"].inner, ReDecidingRouter) and built["re_deciding"].inner.first is first
    loop = built["loop"].inner
    assert isinstance(loop, LoopRouter) and loop.model is first.model and loop.fallback is first.fallback
    assert built["loop"].router_prefix == "Decision:"  # the authority rule reads the transcript as its kind does
    with pytest.raises(InputError, match="unknown router 'sideways'; use one of single, re_deciding, loop"):
        aya_router("sideways", first)


def test_a_composed_router_runs_in_a_chain():
    tools = {t: (lambda x, t=t: f"[{t}]") for t in ("query", "summarize", "remember", "chat", "decline")}
    router = aya_router("re_deciding", llm(FakeChatModel(default="summarize")))
    result = RoutingChain(router, tools).invoke("summarize the chat and remember that I leave Monday")
    assert result.tools == ["summarize", "decline"]  # the write clause was not confirmed by the model
