"""The chat runtime: retrieval, token budgets, history, the offline answer, and an LLM (fake_llm) call."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from pipeline.embedders import UseEmbedder
from pipeline.package import build_package
from pipeline.runtime import CharacterBot, Turn
from pipeline.segment import Params, Segmenter
from pipeline.tokens import count_tokens

from helpers_play import CHARACTERS, play_lines, resolver


@pytest.fixture(scope="module")
def embedder():
    return UseEmbedder(threads=1)


@pytest.fixture(scope="module")
def pkg(tmp_path_factory, embedder):
    stories = Segmenter("rosalind", resolver(), Params()).run(list(play_lines()))
    vecs = embedder.encode([s.text for s in stories])
    out = tmp_path_factory.mktemp("pkg") / "rosalind"
    build_package(out, CHARACTERS[0], stories, vecs, {"model": embedder.name, "normalized": True}, {}, [])
    return out


def test_retrieval_finds_the_scene_a_quoted_line_comes_from(pkg, embedder):
    bot = CharacterBot(pkg, embedder)
    query = "Orlando:「Then love me, Rosalind.」 Rosalind:「Yes, faith, will I, Fridays and Saturdays and all.」"
    ranked = bot.index.search(embedder.encode([query])[0], k=3)
    assert any("Fridays and Saturdays and all" in bot.texts[i] for i, _ in ranked)
    scored = bot.retrieve(query)
    assert scored and [s for s, _ in scored] == sorted((s for s, _ in scored), reverse=True)


def test_story_budget_stops_at_the_first_overflow(pkg, embedder):
    bot = CharacterBot(pkg, embedder, story_tokens=700)
    picked = bot.retrieve("Orlando:「Who are you in love with?」")
    assert sum(count_tokens(t) for _, t in picked) <= 700
    ranked = bot.index.search(embedder.encode(["Orlando:「Who are you in love with?」"])[0], k=len(bot.texts))
    first_overflow = next(n for n in range(1, len(ranked) + 1)
                          if sum(bot._story_tokens[i] for i, _ in ranked[:n]) > 700)
    assert len(picked) == first_overflow - 1


def test_offline_answer_is_one_of_rosalinds_own_lines(pkg, embedder):
    bot = CharacterBot(pkg, embedder)
    ans = bot.ask("Orlando", "Who are you in love with?")
    assert ans.reply is None and ans.stories
    prompt_line, reply, _ = ans.best_line
    assert reply.startswith("Rosalind:「")
    assert any(reply in t for _, t in ans.stories)
    assert ans.messages[-1] == {"role": "user", "content": "Orlando:「Who are you in love with?」"}


def test_history_is_newest_first_within_its_budget(pkg, embedder):
    bot = CharacterBot(pkg, embedder, history_tokens=60)
    bot.history = [Turn("Orlando", f"question number {i} about the forest", f"answer number {i} from Rosalind") for i in range(10)]
    msgs = bot.build_messages("Orlando:「And now?」", [])
    hist = [m["content"] for m in msgs if m["role"] in ("user", "assistant")][:-1]
    assert hist[-1] == "answer number 9 from Rosalind"  # newest kept, sent oldest first
    assert "Orlando:「question number 0 about the forest」" not in hist
    assert sum(count_tokens(h) for h in hist) <= 60


def test_fake_llm_receives_system_prompt_stories_and_query(pkg, embedder):
    llm = FakeListChatModel(responses=["Why, Orlando — I am in love with a certain youth of the forest."])
    bot = CharacterBot(pkg, embedder, llm=llm)
    ans = bot.ask("Orlando", "Who are you in love with?")
    assert ans.reply.startswith("Why, Orlando")
    roles = [m["role"] for m in ans.messages]
    assert roles[:2] == ["system", "system"] and roles[-1] == "user"
    assert ans.messages[0]["content"].startswith("I want you to act like Rosalind")
    assert "Rosalind:「" in ans.messages[1]["content"]
    assert bot.history[-1].reply == ans.reply


def test_offline_best_line_follows_the_question_not_the_speaker_frame(pkg, embedder):
    # every `Orlando:「…」` line looks alike inside its frame; the words must decide
    bot = CharacterBot(pkg, embedder)
    where = bot.ask("Orlando", "Where do you dwell, pretty youth?").best_line
    assert "skirts of the forest" in where[1]
    love = bot.ask("Orlando", "Who are you in love with?").best_line
    assert love[1] != where[1]
