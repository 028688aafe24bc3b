"""The /memory page: server-rendered HTML over the same query functions as the API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from jinja2 import pass_context
from jinja2.runtime import Context
from litestar import Router
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template.config import TemplateConfig

from domain.trash import TRASH_DAYS
from loci.models import TOP_K_MAX
from service.web import activity_text, humanize, memory_text
from service.web.access_pages import AccessPages
from service.web.errors import PAGE_REFUSALS, route_misses
from service.web.memory_pages import MemoryViews
from service.web.pages import MemoryPages
from service.web.proposal_pages import ProposalPages
from service.web.protection import add_page_headers, same_origin_only
from service.web.purge_pages import PurgePages

__all__ = [
    "SECTIONS",
    "WEB_HANDLERS",
    "Section",
    "add_page_headers",
    "on_page_clock",
    "route_misses",
    "template_config",
    "web_router",
]

TEMPLATES = Path(__file__).parent / "templates"
WEB_HANDLERS = [MemoryPages, MemoryViews, ProposalPages, PurgePages, AccessPages]


def web_router() -> Router:
    """The pages under one router whose handlers answer Litestar's own refusals (a bad query
    or path parameter) with the message page (`service.web.errors`), leaving the API's JSON
    answers alone, and whose guard refuses a form another origin's page posted
    (`service.web.protection`); a fresh one per app, as a router is bound to the app it is registered in."""
    return Router(
        path="/", route_handlers=WEB_HANDLERS, guards=[same_origin_only], exception_handlers=dict(PAGE_REFUSALS)
    )


class Section(NamedTuple):
    """One tab of the page's navigation; a template names its own with ``{% set section = key %}``."""

    key: str
    label: str
    href: str


SECTIONS = (
    Section("palace", "Palace", "/memory"),
    Section("memories", "Memories", "/memory/memories"),
    Section("profile", "Profile", "/memory/profile"),
    Section("proposals", "Proposals", "/memory/proposals"),
    Section("search", "Search", "/memory/search"),
    Section("entities", "People & things", "/memory/entities"),
    Section("activity", "Activity", "/memory/activity"),
    Section("trash", "Trash", "/memory/trash"),
    Section("settings", "Settings", "/memory/settings"),
    Section("agents", "Agents", "/memory/agents"),
)
"""The page's tabs, in order: a new view (memories, profile) is one row here."""


def on_page_clock(show: Callable[..., str]) -> Callable[..., str]:
    """``show`` (a function of `humanize` or `memory_text` taking ``zone``) as a filter that
    dates on the page's clock: the ``zone`` its handler put in the template's context (the
    user's own, `service.web.session.PageUser`), None (UTC; a room on its sender's day) on a
    page that put none. The zone travels by value from the handler; the function stays pure."""

    @pass_context
    def on_clock(context: Context, value: Any, *args: Any, **kwargs: Any) -> str:
        return show(value, *args, zone=context.get("zone"), **kwargs)

    return on_clock


FILTERS = {
    "plural": humanize.plural,
    "human_date": on_page_clock(humanize.human_date),
    "human_datetime": on_page_clock(humanize.human_datetime),
    "date_span": on_page_clock(humanize.date_span),
    "room_name": humanize.room_name,
    "room_date": on_page_clock(humanize.room_date),
    "room_span": on_page_clock(humanize.room_span),
    "visible": humanize.visible,
    "role_label": humanize.role_label,
    "bdi": humanize.bdi,
    "isolated": humanize.isolated,
    "speaker_label": humanize.speaker_label,
    "entity_kind": humanize.entity_kind,
    "split_pointer": humanize.split_pointer,
    "describe_event": activity_text.describe,
    "event_details": activity_text.detail_lines,
    "plain_value": activity_text.plain_value,
    "category_title": memory_text.category_title,
    "origin": memory_text.origin,
    "layer_note": memory_text.layer_note,
    "importance_words": memory_text.importance_words,
    "ended_words": on_page_clock(memory_text.ended_words),
    "expiry_words": memory_text.expiry_words,
    "event_sentence": on_page_clock(memory_text.event_sentence),
    "by_category": memory_text.by_category,
    "zone_name": humanize.zone_name,
}


def _register(engine: JinjaTemplateEngine) -> None:
    engine.engine.filters.update(FILTERS)
    engine.engine.globals["sections"] = SECTIONS
    engine.engine.globals.update(known_date=humanize.known, trash_days=TRASH_DAYS, top_k_max=TOP_K_MAX)
    engine.engine.globals.update(
        flash_words=memory_text.FLASH, layer_labels=memory_text.LAYER_LABELS, source_labels=memory_text.SOURCE_LABELS
    )
    engine.engine.globals["kind_words"] = memory_text.KIND_WORDS


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    return TemplateConfig(directory=TEMPLATES, engine=JinjaTemplateEngine, engine_callback=_register)
