"""The /memory page: server-rendered HTML over the same query functions as the API."""

from __future__ import annotations

from pathlib import Path

from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template.config import TemplateConfig

from service.web.pages import MemoryPages

__all__ = ["WEB_HANDLERS", "template_config"]

TEMPLATES = Path(__file__).parent / "templates"
WEB_HANDLERS = [MemoryPages]


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    return TemplateConfig(directory=TEMPLATES, engine=JinjaTemplateEngine)
