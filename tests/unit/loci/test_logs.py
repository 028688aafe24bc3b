"""One logfmt line per record, with the extra fields and the request/job context."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator

import pytest

from loci.logs import ContextFilter, LogfmtFormatter, configure_logging, log_context

LINE = re.compile(r"^ts=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z level=(\w+) logger=(\S+) msg=")


@pytest.fixture
def captured() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(LogfmtFormatter())
    handler.addFilter(ContextFilter())
    logger = logging.getLogger("loci.test_logs")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield logger, out
    logger.removeHandler(handler)


def test_a_record_is_one_logfmt_line_with_its_extra_fields(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, out = captured
    extra = {"stage": "vector", "count_in": 3, "ms": 1.5, "files": ["a b", "c"], "seconds": {"embed": 0.5}}
    logger.info("retrieval.stage", extra=extra)
    line = out.getvalue().rstrip("\n")
    assert "\n" not in line
    match = LINE.match(line)
    assert match and match.groups() == ("info", "loci.test_logs"), line
    fields = 'count_in=3 files="[\\"a b\\",\\"c\\"]" ms=1.5 seconds.embed=0.5 stage=vector'
    assert line.endswith(f"msg=retrieval.stage {fields}"), line


def test_values_with_spaces_quotes_or_newlines_are_quoted(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, out = captured
    logger.warning("mining %d failed: %s", 7, 'bad "x"\nnext', extra={"empty": ""})
    line = out.getvalue().rstrip("\n")
    assert "level=warning" in line
    assert 'msg="mining 7 failed: bad \\"x\\"\\nnext" empty=""' in line


def test_a_traceback_follows_the_line(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, out = captured
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("failed")
    first, *rest = out.getvalue().splitlines()
    assert first.endswith("msg=failed")
    assert rest[0].startswith("Traceback") and rest[-1] == "ValueError: boom"


def test_request_and_job_context_is_added_and_removed(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, out = captured
    with log_context(request_id="req-1"):
        logger.info("inside")
        with log_context(job_id="mine:4"):
            logger.info("nested")
    logger.info("outside")
    inside, nested, outside = out.getvalue().splitlines()
    assert inside.endswith("msg=inside request_id=req-1")
    assert nested.endswith("msg=nested job_id=mine:4 request_id=req-1")
    assert outside.endswith("msg=outside")


def test_configure_logging_replaces_its_handler_and_quiets_start_up_chatter() -> None:
    root = logging.getLogger()
    level, before = root.level, list(root.handlers)
    out = io.StringIO()
    try:
        configure_logging("INFO", stream=io.StringIO())
        handler = configure_logging("WARNING", stream=out)
        ours = [h for h in root.handlers if h.get_name() == "loci"]
        assert ours == [handler] and root.level == logging.WARNING
        assert logging.getLogger("sentence_transformers").level == logging.WARNING
        optimiser = logging.getLogger("onnx_model_bert")  # a bare module name, as ONNX Runtime logs it
        record = optimiser.makeRecord(
            "onnx_model_bert", logging.INFO, "/x/onnxruntime/transformers/onnx_model_bert.py", 1, "fused", (), None
        )
        handler.handle(record)
        logging.getLogger("loci.cli").warning("kept")
        assert "fused" not in out.getvalue() and "msg=kept" in out.getvalue()
    finally:
        for h in [h for h in root.handlers if h not in before]:
            root.removeHandler(h)
        root.setLevel(level)
