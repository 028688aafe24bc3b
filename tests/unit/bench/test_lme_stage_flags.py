"""The flags every stage shares mean the same in each: `--limit`/`--subset` select the questions
`qa` and `score-qa` work on, as they do for ingest and retrieve; a `--out` whose embedded
PostgreSQL cannot start is refused in the harness's words (its flag is `--out`, not `--data-dir`).

No database: `qa` and `score-qa` read the retrieval log and talk to a fake OpenAI server, and
the `.services` refusals come before PostgreSQL would start.
"""

from __future__ import annotations

import fcntl
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from bench.cli import bench
from bench.longmemeval.runs import read_jsonl
from tests.fakes.lme_synthetic import QUESTIONS, write_dataset
from tests.fakes.openai_server import FakeOpenAI, FakeReply

READER, JUDGE = "reader-x", "judge-y"


def _invoke(*args: str, env: dict[str, str | None] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(bench, ["longmemeval", *args, "--no-progress"], env=env)
    return result.exit_code, result.output  # stdout and stderr interleaved


def _retrieval_log(out: Path, run_id: str, questions: list[dict[str, Any]]) -> None:
    log = out / run_id / "retrieval_logs" / f"{run_id}.jsonl"
    log.parent.mkdir(parents=True)
    rows = [{"question_id": q["question_id"], "ranked_session_ids": q["haystack_session_ids"]} for q in questions]
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))


def _reply(body: dict[str, Any]) -> FakeReply:
    if body["model"] == JUDGE:
        return FakeReply(content="yes", usage=(50, 1))
    return FakeReply(content="It is red.", usage=(400, 5))


def _asked(fake: FakeOpenAI, model: str) -> int:
    return sum(1 for r in fake.requests if r["body"]["model"] == model)


def test_qa_and_score_qa_work_on_the_questions_limit_and_subset_select(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """Both read every record of their log: `qa --limit 2` answered all 4 questions, and
    `score-qa --limit 1` judged all 4 and reported the accuracy of the 4."""
    fake_openai.set_default(_reply)
    dataset = write_dataset(tmp_path / "syn.json")
    _retrieval_log(tmp_path, "r", QUESTIONS)
    env: dict[str, str | None] = {
        "LOCI_LLM_BASE_URL": fake_openai.base_url, "LOCI_LLM_QA_MODEL": READER, "LOCI_LLM_JUDGE_MODEL": JUDGE,
        "DATABASE_URL": None,
    }  # fmt: skip
    common = ("--dataset", str(dataset), "--out", str(tmp_path), "--run-id", "r")
    code, out = _invoke("qa", *common, "--limit", "2", env=env)
    assert code == 0 and "answered 2 new question(s)" in out, out
    answered = [g["question_id"] for g in read_jsonl(tmp_path / "r" / "generation_logs" / "r.jsonl")]
    assert sorted(answered) == ["q1", "q2"] and _asked(fake_openai, READER) == 2

    code, out = _invoke("score-qa", *common, "--limit", "1", env=env)
    assert code == 0 and "QA accuracy 1.000 (1/1)" in out, out
    assert _asked(fake_openai, JUDGE) == 1
    scores = json.loads((tmp_path / "r" / "scores" / "qa_scores.json").read_text())
    assert scores["accuracy"]["overall"]["n"] == 1
    assert scores["tokens"] == {"prompt_tokens": 400 + 50, "completion_tokens": 5 + 1}

    code, out = _invoke("score-qa", *common, "--subset", "4", env=env)  # the 2 answered of the 4 selected
    assert code == 0 and "QA accuracy 1.000 (2/2)" in out, out
    assert "has no record of 2 of the 4 question(s) selected; run the qa stage for them" in out
    assert _asked(fake_openai, JUDGE) == 2  # q1's verdict is kept

    code, out = _invoke("qa", *common, env=env)  # all by default: the other 2
    assert code == 0 and "answered 2 new question(s)" in out and _asked(fake_openai, READER) == 4, out


def test_qa_says_which_selected_questions_the_retrieval_log_lacks(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.set_default(_reply)
    dataset = write_dataset(tmp_path / "syn.json")
    _retrieval_log(tmp_path, "part", QUESTIONS[2:])
    env: dict[str, str | None] = {"LOCI_LLM_BASE_URL": fake_openai.base_url, "DATABASE_URL": None}
    common = ("--dataset", str(dataset), "--out", str(tmp_path), "--run-id", "part")
    code, out = _invoke("qa", *common, "--limit", "2", env=env)
    assert code == 2 and "has none of the 2 question(s) selected; run the retrieve stage first" in out, out
    assert out.count("\n") == 1 and not fake_openai.requests
    code, out = _invoke("qa", *common, "--limit", "3", env=env)
    assert code == 0 and "answered 1 new question(s)" in out, out
    assert "has no record of 2 of the 3 question(s) selected; run the retrieve stage for them" in out


def test_an_out_whose_services_folder_is_a_file_is_refused_naming_out(tmp_path: Path) -> None:
    """It said "pass another with --data-dir or LOCI_DATA_DIR", `loci serve`'s flags, not the harness's."""
    dataset = write_dataset(tmp_path / "syn.json")
    out = tmp_path / "runs"
    out.mkdir()
    (out / ".services").write_text("")
    code, said = _invoke("ingest", "--dataset", str(dataset), "--out", str(out), env={"DATABASE_URL": None})
    assert code == 2 and said.count("\n") == 1, said
    assert said.startswith(f"error: --out {out}: {out / '.services'}") and "is a file" in said, said
    assert said.rstrip().endswith("pass another --out") and "--data-dir" not in said, said


def test_an_out_another_command_is_using_is_refused_naming_out(tmp_path: Path) -> None:
    """Two commands under one `--out` share its embedded PostgreSQL: the second said "stop it
    first or pass --data-dir", a flag the harness does not have."""
    dataset = write_dataset(tmp_path / "syn.json")
    services = tmp_path / "runs" / ".services"
    services.mkdir(parents=True)
    with (services / "loci.lock").open("a+") as held:  # as `loci.runtime.DataDirLock` holds it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("4242")
        held.flush()
        code, said = _invoke(
            "ingest", "--dataset", str(dataset), "--out", str(tmp_path / "runs"), env={"DATABASE_URL": None}
        )
    assert code == 2 and said.count("\n") == 1, said
    assert f"another command (pid 4242) is using the embedded PostgreSQL in {services}" in said, said
    assert said.rstrip().endswith("pass another --out") and "--data-dir" not in said, said
