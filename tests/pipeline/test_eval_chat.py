"""`rolecorpus eval chat` on Rosalind (English play) and Liu Bei (Chinese novel), packages built by the real CLI.

The offline retrieval bot needs no endpoint; the LLM bots (rag, prompt-only) run against a fake OpenAI-compatible
server on localhost (tests/support/fake_llm_server.py; answers: tests/support/synth_eval_helpers.py). Scores: the project's embedder
(USE) and ROUGE-L.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_asserts import one_line_error
from synth_eval_helpers import cli, fake_server, shared_project

REPO = Path(__file__).resolve().parents[2]
HELDOUT = 10  # eval_chat.n of the test project


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return shared_project(tmp_path_factory, REPO, "evalchat")


@pytest.fixture()
def server():
    s = fake_server()
    yield s
    s.close()


def rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def llm_env(server):
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-fake-evalchat-0000", "ROLECORPUS_LLM_MODEL": "m"}


@pytest.mark.parametrize("cid", ["rosalind", "liubei"])
def test_retrieval_bot_scores_offline_and_the_same_twice(project, cid):
    p = cli(project, "eval", "chat", cid)
    assert p.returncode == 0, p.stderr
    assert "scoring the offline retrieval bot only" in p.stderr
    assert "retrieval" in p.stdout and "cosine" in p.stdout and "ROUGE-L" in p.stdout
    out = project / "data" / "eval" / cid
    held, res = rows(out / "heldout.jsonl"), rows(out / "chat_retrieval.jsonl")
    assert len(held) == HELDOUT and [r["id"] for r in res] == [h["id"] for h in held]
    assert len({h["id"] for h in held}) == HELDOUT
    assert all(h["tokens"] >= 20 for h in held), "held-out replies are the long ones"
    # the story holding each exchange is out of the index: the bot never answers with the original line itself
    assert all(r["reply"] and r["reply"] != r["original"] for r in res)
    assert all(0 <= r["rougeL"] < 1 and -1 <= r["cosine"] < 0.999 for r in res)
    metrics = json.loads((project / "metrics" / f"eval_chat_{cid}.json").read_text())
    assert metrics["retrieval"]["n"] == HELDOUT
    assert metrics["retrieval"]["cosine"] == round(sum(r["cosine"] for r in res) / HELDOUT, 4)
    before = (out / "chat_retrieval.jsonl").read_bytes(), (out / "heldout.jsonl").read_bytes()
    again = cli(project, "eval", "chat", cid, "--bot", "retrieval", "--n", "4")
    assert again.returncode == 0, again.stderr
    assert rows(out / "chat_retrieval.jsonl") == res[:4]  # --n takes the first N held-out: the same scores
    cli(project, "eval", "chat", cid, "--bot", "retrieval")
    assert ((out / "chat_retrieval.jsonl").read_bytes(), (out / "heldout.jsonl").read_bytes()) == before


def test_an_original_line_scored_against_itself_is_one(project):
    from pipeline.embedders import UseEmbedder
    from pipeline.evalscore import cosines, rouge_l

    lines = []
    for cid in ("rosalind", "liubei"):
        held = project / "data" / "eval" / cid / "heldout.jsonl"
        if not held.exists():
            assert cli(project, "eval", "chat", cid).returncode == 0
        lines += [h["reply"] for h in rows(held)[:3]]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in lines[-1])
    emb = UseEmbedder(threads=1)
    assert cosines(emb, lines, lines) == [1.0] * len(lines)
    assert [rouge_l(x, x) for x in lines] == [1.0] * len(lines)
    assert cosines(emb, ["", lines[0]], [lines[0], lines[1]])[0] == 0.0  # an empty reply scores 0


def test_rouge_l_counts_chinese_characters_and_english_words():
    from pipeline.evalscore import rouge_l, tokenize

    assert tokenize("玄德曰：「我为天子。」Yes, Sir!") == list("玄德曰我为天子") + ["yes", "sir"]
    # LCS 4 of 4 and 9 characters: P 1, R 4/9, F 8/13
    assert rouge_l("我为天子", "我为天子，当乘此车盖") == round(8 / 13, 6)
    assert rouge_l("the quick fox", "The quick brown fox") == round(2 * 1 * 0.75 / 1.75, 6)
    assert rouge_l("。。。", "我为天子") == 0.0


def test_llm_bots_fake_server_full_prompt_without_the_held_out_story_and_cached(project, server):
    env = llm_env(server)
    p = cli(project, "eval", "chat", "liubei", "--n", "5", env_extra=env)
    assert p.returncode == 0, p.stderr
    assert all(b in p.stdout for b in ("rag", "prompt-only", "retrieval"))
    assert len(server.requests) == 10  # 5 exchanges x 2 LLM bots
    held = rows(project / "data/eval/liubei/heldout.jsonl")[:5]
    rag = [r for r in server.requests if len(r["messages"]) > 2]
    only = [r for r in server.requests if len(r["messages"]) == 2]
    assert len(rag) == 5 and len(only) == 5
    assert all(r["messages"][1]["content"].startswith("Classic scenes for the role") for r in rag)
    for h in held:  # the original reply is in none of its own prompts: its story was removed from the index
        own = [r for r in server.requests if r["messages"][-1]["content"] == f"{h['role']}:「{h['prompt']}」"]
        assert len(own) == 2 and not any(h["reply"] in m["content"] for r in own for m in r["messages"])
    # ... while the same story is retrieved for another exchange's question (so the check above can fail)
    assert any(h["reply"] in r["messages"][1]["content"] for h in held for r in rag)
    asked = {r["messages"][-1]["content"] for r in server.requests}
    assert asked == {f"{h['role']}:「{h['prompt']}」" for h in held}
    res = rows(project / "data/eval/liubei/chat_rag.jsonl")
    assert [r["reply"] for r in res] == [f"诚然，{h['prompt'][:60]}" for h in held]  # the frame 「」 is stripped
    llm = json.loads((project / "metrics/llm_eval_chat_liubei.json").read_text())
    assert llm["calls"] == 10 and llm["tokens_in"] == 110 and llm["tokens_out"] == 70
    metrics = json.loads((project / "metrics/eval_chat_liubei.json").read_text())
    assert {"rag", "prompt-only", "retrieval"} <= set(metrics)
    again = cli(project, "eval", "chat", "liubei", "--n", "5", env_extra=env)
    assert again.returncode == 0 and len(server.requests) == 10  # every reply from the cache
    assert again.stdout == p.stdout
    assert json.loads((project / "metrics/llm_eval_chat_liubei.json").read_text())["cache_hits"] == 10


def test_bad_input_is_one_line(project):
    one_line_error(cli(project, "eval", "chat", "caocao"), "no package for 'caocao'")
    one_line_error(cli(project, "eval", "chat", "nobody_here"), "nobody_here")
    one_line_error(cli(project, "eval", "chat", "rosalind", "--bot", "gpt"), "unknown --bot 'gpt'")
    one_line_error(cli(project, "eval", "chat", "rosalind", "--n", str(HELDOUT + 1)), "raise eval_chat.n")
    one_line_error(cli(project, "eval", "chat", "rosalind", "--bot", "rag"), "no LLM configured")
