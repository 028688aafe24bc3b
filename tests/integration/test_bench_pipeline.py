"""`loci bench longmemeval` end to end on a tiny synthetic file, against a real Postgres.

Runs the real mining and recall code. Checks the run's
files, that only the run's own schema is written, resumability after an
interruption, and the QA stages against a local fake OpenAI server.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from bench.cli import bench
from bench.longmemeval import ingest as ingest_mod
from bench.longmemeval import services
from bench.longmemeval.runs import read_jsonl, schema_for
from bench.longmemeval.vector_indexes import hnsw_indexes
from ingest import MiningDeps, MiningResult
from loci.embedder import Embedder
from loci.settings import load_settings
from tests.fakes.lme_synthetic import QUESTIONS, write_dataset
from tests.fakes.openai_server import FakeOpenAI, FakeReply

NON_EMPTY_SESSIONS = 3  # per synthetic question


@dataclass
class Env:
    kind: str
    url: str
    out: Path
    dataset: Path
    monkeypatch: pytest.MonkeyPatch

    def invoke(self, *args: str, env: dict[str, str | None] | None = None) -> Any:
        base: dict[str, str | None] = {"DATABASE_URL": self.url, "LOCI_LLM_BASE_URL": None}
        result = CliRunner().invoke(
            bench,
            ["longmemeval", *args, "--dataset", str(self.dataset), "--out", str(self.out), "--no-progress"],
            env=base | (env or {}),
        )
        return result

    def ok(self, *args: str, env: dict[str, str | None] | None = None) -> Any:
        result = self.invoke(*args, env=env)
        assert result.exit_code == 0, result.output + repr(result.exception)
        return result

    def fail_mining_after(self, calls: int) -> None:
        """Make mining raise on call number `calls` + 1, before it mines (an interrupted run)."""
        real = ingest_mod.mine_conversation
        count = {"n": 0}

        async def mine(deps: MiningDeps, conversation_id: int) -> MiningResult:
            count["n"] += 1
            if count["n"] > calls:
                raise RuntimeError("simulated interruption")
            return await real(deps, conversation_id)

        self.monkeypatch.setattr(ingest_mod, "mine_conversation", mine)


@pytest.fixture
def env(migrated_url: str, embedder: Embedder, tmp_path: Path) -> Iterator[Env]:
    with pytest.MonkeyPatch.context() as mp:
        key = load_settings().embedding.model_dump_json()
        mp.setitem(services._embedders, key, embedder)  # reuse the session's loaded model
        yield Env(
            "real",
            migrated_url,
            tmp_path / "runs",
            write_dataset(tmp_path / "lme_syn.json"),
            mp,
        )


def _count(url: str, sql: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row else 0


def test_ingest_retrieve_score_writes_the_run_in_its_own_schema(env: Env) -> None:
    public_users = _count(env.url, "SELECT count(*) FROM public.users")
    public_convs = _count(env.url, "SELECT count(*) FROM public.conversations")
    run = f"syn_{env.kind}"
    env.ok("ingest", "--run-id", run, "--workers", "2")
    env.ok("retrieve", "--run-id", run)
    scored = env.ok("score-retrieval", "--run-id", run)
    assert "all_questions" in scored.output and "paper" in scored.output
    assert "paper (n=3) block: session 1.000" in scored.output and "abstention (n=1) block:" in scored.output

    root = env.out / run
    users = json.loads((root / "users.json").read_text())
    assert sorted(users) == sorted(q["question_id"] for q in QUESTIONS)
    records = list(read_jsonl(root / "retrieval_logs" / f"{run}.jsonl"))
    assert [r["question_id"] for r in records] == [q["question_id"] for q in QUESTIONS]
    for record in records:
        qid = record["question_id"]
        assert sorted(record["ranked_session_ids"]) == sorted(
            QUESTIONS[[q["question_id"] for q in QUESTIONS].index(qid)]["haystack_session_ids"]
        )
        assert record["surfaced_sessions"] >= 1 and record["foreign_drawers"] == 0
        assert all(":" in t for t in record["ranked_turn_ids"])
        assert record["items"] and {"score", "ranks", "turn_id"} <= record["items"][0].keys()
        assert record["question_type"] and "timings_ms" in record and record["wall_ms"] > 0
        block = record["block"]  # the block as served: the user's top_k (5), the default budget
        assert block["drawers"] <= 5 and (block["tokens"] > 0) == (block["context"] is not None)
        if not record["is_abstention"]:
            gold = QUESTIONS[[q["question_id"] for q in QUESTIONS].index(qid)]["answer_session_ids"][0]
            assert gold in block["sessions"] and block["turns"]
    assert "The served block beside recall@5" in (root / "scores" / "report.md").read_text()
    for name in ("scores.json", "report.md", "recall_any.png"):
        assert (root / "scores" / name).stat().st_size > 0
    manifest = json.loads((root / "manifest.json").read_text())
    assert {"ingest", "retrieve", "score-retrieval"} <= manifest["stages"].keys()
    assert len(manifest["dataset_sha256"]) == 64 and manifest["preset"] == "hybrid"
    assert manifest["config"]["schema"] == schema_for(run)

    schema = schema_for(run)
    assert _count(env.url, f"SELECT count(*) FROM {schema}.users WHERE name LIKE 'longmemeval:%'") == len(QUESTIONS)
    assert _count(env.url, f"SELECT count(*) FROM {schema}.conversations") == len(QUESTIONS) * NON_EMPTY_SESSIONS
    empty = f"SELECT count(*) FROM {schema}.turns WHERE content = '{ingest_mod.EMPTY_TURN}'"
    assert _count(env.url, empty) == len(QUESTIONS)
    # The graphs were dropped for the bulk load and built when it ended (`vector_indexes`).
    assert _vector_indexes(env.url, schema) == len(hnsw_indexes()) == 3
    assert json.loads((root / "ingest_summary.json").read_text())["totals"]["vector_index_seconds"] >= 0
    assert _count(env.url, "SELECT count(*) FROM public.users") == public_users
    assert _count(env.url, "SELECT count(*) FROM public.conversations") == public_convs


def _vector_indexes(url: str, schema: str) -> int:
    hnsw = "indexdef LIKE '% USING hnsw %'"
    return _count(url, f"SELECT count(*) FROM pg_indexes WHERE schemaname = '{schema}' AND {hnsw}")


def _rankings(path: Path) -> dict[str, tuple[list[str], list[str]]]:
    return {r["question_id"]: (r["ranked_session_ids"], r["ranked_turn_ids"]) for r in read_jsonl(path)}


def test_interrupted_ingest_resumes_to_the_same_result(env: Env) -> None:
    clean, broken = f"clean_{env.kind}", f"resumed_{env.kind}"
    env.ok("ingest", "--run-id", clean, "--processes", "1")
    env.ok("retrieve", "--run-id", clean)

    with pytest.MonkeyPatch.context() as mp:
        env.monkeypatch = mp
        env.fail_mining_after(NON_EMPTY_SESSIONS + 1)  # q1 done; q2 dies with a stored, unmined session
        result = env.invoke("ingest", "--run-id", broken, "--workers", "1", "--processes", "1")  # patched here
        assert result.exit_code != 0
    assert list(json.loads((env.out / broken / "users.json").read_text())) == ["q1"]
    assert _vector_indexes(env.url, schema_for(broken)) == 0  # deferred, not yet built
    partial = env.invoke("retrieve", "--run-id", broken, "--limit", "2")
    assert partial.exit_code == 2 and "only partly ingested" in partial.output

    env.ok("ingest", "--run-id", broken, "--workers", "1", "--processes", "1")
    summary = json.loads((env.out / broken / "ingest_summary.json").read_text())
    by_q = {q["question_id"]: q for q in summary["questions"]}
    assert by_q["q1"]["mined"] == 0 and by_q["q1"]["stored"] == 0
    assert by_q["q2"]["stored"] == NON_EMPTY_SESSIONS - 2 and by_q["q2"]["mined"] == NON_EMPTY_SESSIONS - 1
    # drawers: what each palace holds, as the uninterrupted run says (it counted this invocation's: q1 0)
    whole = json.loads((env.out / clean / "ingest_summary.json").read_text())
    assert [q["drawers"] for q in summary["questions"]] == [q["drawers"] for q in whole["questions"]]
    assert by_q["q1"]["drawers"] > 0 and summary["totals"]["drawers"] == whole["totals"]["drawers"]
    schema = schema_for(broken)
    assert _count(env.url, f"SELECT count(*) FROM {schema}.conversations") == len(QUESTIONS) * NON_EMPTY_SESSIONS
    assert _vector_indexes(env.url, schema) == 3  # the resumed run built them

    env.ok("retrieve", "--run-id", broken)
    log = "retrieval_logs/{}.jsonl"
    assert _rankings(env.out / broken / log.format(broken)) == _rankings(env.out / clean / log.format(clean))


def test_a_limited_retrieve_keeps_the_rest_of_the_log(env: Env) -> None:
    """`retrieve --limit 2` after a full retrieve wrote the log anew with its 2 questions: the
    other rankings were lost, and the run's next full score read 2 of 4."""
    run = f"keep_{env.kind}"
    env.ok("ingest", "--run-id", run, "--processes", "1")
    env.ok("retrieve", "--run-id", run)
    log = env.out / run / "retrieval_logs" / f"{run}.jsonl"
    whole = _rankings(log)
    result = env.ok("retrieve", "--run-id", run, "--limit", "2")
    assert (
        "2 questions → " in result.output
        and "(4 in the log: the other 2 kept from an earlier retrieve)" in result.output
    )
    assert [r["question_id"] for r in read_jsonl(log)] == [q["question_id"] for q in QUESTIONS]
    assert _rankings(log) == whole
    assert json.loads((env.out / run / "retrieval_latency.json").read_text())["wall_ms"]["n"] == len(QUESTIONS)
    scored = env.ok("score-retrieval", "--run-id", run)
    assert f"scored {len(QUESTIONS)} of {len(QUESTIONS)} questions\n" in scored.output, scored.output


def test_ingest_in_two_processes_gives_the_one_process_result(env: Env) -> None:
    """Questions are independent (one user each), so splitting them between spawned processes
    (each loading its own model) changes no stored row count and no ranking."""
    one, two = f"one_{env.kind}", f"two_{env.kind}"
    env.ok("ingest", "--run-id", one, "--processes", "1")
    result = env.ok("ingest", "--run-id", two, "--processes", "2")
    assert f"ingested {len(QUESTIONS)} questions" in result.output
    assert sorted(json.loads((env.out / two / "users.json").read_text())) == sorted(q["question_id"] for q in QUESTIONS)
    assert json.loads((env.out / two / "manifest.json").read_text())["config"]["processes"] == 2
    for table in ("conversations", "drawers", "drawer_sentences", "entities", "relations"):
        counts = [_count(env.url, f"SELECT count(*) FROM {schema_for(run)}.{table}") for run in (one, two)]
        assert counts[0] == counts[1], table
    assert _count(env.url, f"SELECT count(*) FROM {schema_for(two)}.drawers") > 0
    log = "retrieval_logs/{}.jsonl"
    for run in (one, two):
        env.ok("retrieve", "--run-id", run)
    assert _rankings(env.out / two / log.format(two)) == _rankings(env.out / one / log.format(one))


def _fake_llm(body: dict[str, Any]) -> FakeReply:
    prompt = body["messages"][-1]["content"]
    if "Answer yes or no only" in prompt:
        return FakeReply(content="yes" if "bicycle" in prompt else "no", usage=(50, 1))
    return FakeReply(content="It is red.", usage=(400, 5))


def test_qa_and_score_qa_against_a_fake_endpoint(env: Env, fake_openai: FakeOpenAI) -> None:
    run = f"qa_{env.kind}"
    env.ok("ingest", "--run-id", run)
    env.ok("retrieve", "--run-id", run)
    llm = {
        "LOCI_LLM_BASE_URL": fake_openai.base_url,
        "LOCI_LLM_QA_MODEL": "reader-x",
        "LOCI_LLM_JUDGE_MODEL": "judge-y",
    }
    fake_openai.set_default(_fake_llm)
    env.ok("qa", "--run-id", run, env=llm)
    result = env.ok("score-qa", "--run-id", run, env=llm)
    assert "QA accuracy 0.250 (1/4)" in result.output

    root = env.out / run
    generations = list(read_jsonl(root / "generation_logs" / f"{run}.jsonl"))
    assert len(generations) == len(QUESTIONS)
    assert all(g["hypothesis"] == "It is red." and g["usage"]["prompt_tokens"] == 400 for g in generations)
    bodies = [r["body"] for r in fake_openai.requests]
    reader_prompts = [b["messages"][-1]["content"] for b in bodies if b["model"] == "reader-x"]
    assert len(reader_prompts) == len(QUESTIONS) and all("Current Date: 2023/05/30" in p for p in reader_prompts)
    scores = json.loads((root / "scores" / "qa_scores.json").read_text())
    assert scores["accuracy"]["by_type"]["single-session-user"]["n"] == 2
    assert scores["tokens"] == {"prompt_tokens": 4 * 400 + 4 * 50, "completion_tokens": 4 * 5 + 4 * 1}
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["models"]["qa"] == "reader-x" and manifest["models"]["judge"] == "judge-y"

    # rerun: both logs are complete, so nothing is asked again
    before = len(fake_openai.requests)
    env.ok("qa", "--run-id", run, env=llm)
    env.ok("score-qa", "--run-id", run, env=llm)
    assert len(fake_openai.requests) == before


def test_sweep_scores_several_presets_on_one_ingest(env: Env) -> None:
    run = f"sweep_{env.kind}"
    result = env.ok("sweep", "--run-id", run, "--presets", "vector-only,keyword-only")
    assert "[vector-only]" in result.output and "[keyword-only]" in result.output
    root = env.out / run
    assert _count(env.url, f"SELECT count(*) FROM {schema_for(run)}.users") == len(QUESTIONS)
    for sub in ("vector_only", "keyword_only"):
        sub_id = f"{run}__{sub}"
        assert (root / "sweep" / sub_id / "retrieval_logs" / f"{sub_id}.jsonl").is_file()
        manifest = json.loads((root / "sweep" / sub_id / "manifest.json").read_text())
        assert manifest["config"]["schema"] == schema_for(run)
    report = (root / "sweep" / "report" / "report.md").read_text()
    assert "## Presets" in report and "`vector-only`" in report and "`keyword-only`" in report


def test_full_runs_every_stage_and_smoke_names_its_run(env: Env, fake_openai: FakeOpenAI) -> None:
    fake_openai.set_default(_fake_llm)
    llm: dict[str, str | None] = {"LOCI_LLM_BASE_URL": fake_openai.base_url}
    env.ok("full", "--run-id", f"full_{env.kind}", env=llm)
    manifest = json.loads((env.out / f"full_{env.kind}" / "manifest.json").read_text())
    assert {"ingest", "retrieve", "score-retrieval", "qa", "score-qa"} <= manifest["stages"].keys()
    assert all(stage["ok"] for stage in manifest["stages"].values())

    result = env.ok("smoke", "--no-qa")
    assert "qa and score-qa skipped" not in result.output
    assert (env.out / "lme_syn_hybrid_smoke" / "scores" / "report.md").is_file()


def test_two_runs_in_a_database_without_a_public_schema(env: Env, fresh_database: Any) -> None:
    """The first run's migration must not capture pgvector in its own schema (then the second fails)."""
    env.url = fresh_database(f"bench_two_{env.kind}")
    env.ok("ingest", "--run-id", f"first_{env.kind}", "--limit", "1")
    env.ok("ingest", "--run-id", f"second_{env.kind}", "--limit", "1")
    env.ok("retrieve", "--run-id", f"second_{env.kind}", "--limit", "1")
    assert _count(env.url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == 0


def _repeated_session_file(path: Path) -> Path:
    """The published files repeat a session id within some haystacks: here the gold id comes
    twice, its second occurrence (a later date) holding the evidence."""
    question = copy.deepcopy(QUESTIONS[0])
    gold = question["answer_session_ids"][0]
    question["haystack_session_ids"] = [*question["haystack_session_ids"][:3], gold]
    question["haystack_dates"][3] = "2023/05/25 (Thu) 08:30"
    evidence = [turn for turn in question["haystack_sessions"][2] if turn.get("has_answer")]
    question["haystack_sessions"][2] = [t for t in question["haystack_sessions"][2] if not t.get("has_answer")]
    question["haystack_sessions"][3] = [*evidence, {"role": "assistant", "content": "A red bicycle, lovely."}]
    path.write_text(json.dumps([question]), encoding="utf-8")
    return path


def test_a_repeated_session_id_is_ingested_per_occurrence_and_scored_once(env: Env, tmp_path: Path) -> None:
    env.dataset = _repeated_session_file(tmp_path / "repeated.json")
    run = f"repeated_{env.kind}"
    env.ok("ingest", "--run-id", run)
    env.ok("retrieve", "--run-id", run)
    env.ok("score-retrieval", "--run-id", run)

    schema, gold = schema_for(run), "answer_q1_1"
    with psycopg.connect(env.url) as conn:
        rows = conn.execute(
            f"SELECT c.external_id, min(t.created_at)::date::text FROM {schema}.conversations c "
            f"JOIN {schema}.turns t ON t.conversation_id = c.id GROUP BY c.external_id"
        ).fetchall()
    dates = dict(rows)
    assert dates[gold] == "2023-05-22" and dates[f"{gold}@2"] == "2023-05-25"  # each occurrence its own session
    (record,) = read_jsonl(env.out / run / "retrieval_logs" / f"{run}.jsonl")
    assert record["ranked_session_ids"][0] == gold and record["foreign_drawers"] == 0
    assert sorted(record["ranked_session_ids"]) == ["answer_q1_1", "q1_s0", "q1_s1"]  # the gold id counts once
    top = record["items"][0]
    assert top["session_id"] == gold and top["session_key"] == f"{gold}@2"
    scores = json.loads((env.out / run / "scores" / "scores.json").read_text())
    cells = scores["runs"][0]["evaluation"]["conventions"]["all_questions"]
    assert cells["session"]["overall"]["metrics"]["recall_any@1"] == 1.0
    assert cells["turn"]["overall"]["metrics"]["recall_any@5"] == 1.0  # the evidence turn of the second occurrence
