"""What keeps other web pages from acting through a signed-in /memory page.

**Forms only from the page itself.** The sign-in cookie is SameSite=Strict, but "site" is
the host without its port, and a subdomain's parent: another web app on the same machine
(``http://192.168.1.5:8080`` beside Loci on ``:8420``, any ``*.example.com`` beside
``memory.example.com``) is same-site, and its pages could post the /memory forms with the
cookie (delete, purge, settings, sign-in as another user). `same_origin_only`, a guard on
every page, refuses a POST a browser says came from another origin, as Go 1.25's
``net/http.CrossOriginProtection`` does and for its reasons: no token to thread through every
form, and nothing changes for a client that is not a browser. The browser's
``Sec-Fetch-Site`` decides (sent by every major browser since 2023, and computed by the
browser, so a proxy rewriting ``Host`` changes nothing); without it, the ``Origin``'s host
must be the ``Host`` the request came to; a request carrying neither is no browser's form.

**Headers on every page** (`add_page_headers`, a ``before_send`` hook, so refusals, redirects
and the route misses under /memory get them too): a Content-Security-Policy that runs only
the page's own inline script and stylesheet (by hash: the profile's character counter and
``page.css``), posts forms only to this origin and lets no other page frame this one (a
framed "Delete for good" button could be clicked through an overlay); ``X-Frame-Options``
for browsers without ``frame-ancestors``; ``nosniff``; ``Referrer-Policy: same-origin`` (a
search's words are in its address; ``no-referrer`` would also blank the ``Origin`` of the
page's own POSTs); and ``Cache-Control: no-store``, as every page shows someone's memory,
which neither a shared proxy nor the Back button after Sign out should keep.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from litestar.connection import ASGIConnection
from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.exceptions import PermissionDeniedException
from litestar.handlers import BaseRouteHandler
from litestar.types import Message, Scope

from service.web.errors import is_page

__all__ = ["SAFE_METHODS", "add_page_headers", "content_security_policy", "same_origin_only"]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods no page changes anything on, so any origin may send them (a link, a bookmark)."""
_SAME = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of the page's own forms and of what the person typed themselves."""
_TEMPLATES = Path(__file__).parent / "templates"
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def _refuse(why: str) -> None:
    raise PermissionDeniedException(
        f"This form was sent from another site ({why}), so nothing was done. "
        "Open the memory page itself and send it from there."
    )


def same_origin_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """The pages' guard: a POST from another origin's page is a 403 (see the module's docstring)."""
    if connection.scope.get("method", "GET") in SAFE_METHODS:
        return
    fetch_site = connection.headers.get("sec-fetch-site", "").lower()
    if fetch_site:
        if fetch_site not in _SAME:
            _refuse(f"Sec-Fetch-Site: {fetch_site}")
        return
    origin = connection.headers.get("origin")
    if origin is None:
        return  # no browser's form: curl, a script, a test client
    if origin == "null" or _authority(urlsplit(origin).netloc, urlsplit(origin).scheme) not in _hosts(connection):
        _refuse(f"Origin: {origin}")


_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _authority(netloc: str, scheme: str) -> str:
    """``host[:port]`` lower-cased, without the scheme's default port ("memory.example.com:443"
    is "memory.example.com" to an https origin)."""
    host, _, port = netloc.lower().rpartition(":") if netloc.rpartition(":")[2].isdigit() else (netloc.lower(), "", "")
    return host if port in ("", _DEFAULT_PORTS.get(scheme, "")) else f"{host}:{port}"


def _hosts(connection: ASGIConnection[Any, Any, Any, Any]) -> set[str]:
    """The names this request came to: ``Host``, and the ``X-Forwarded-Host`` a reverse proxy that
    rewrites ``Host`` (nginx's default) sends, either with or without the default port. A page of
    another origin cannot set a header on a form it posts, so the forwarded name is no way in; on
    plain HTTP browsers send no ``Sec-Fetch-Site``, and without it a proxied sign-in was refused
    (review)."""
    names = [connection.headers.get("host", ""), connection.headers.get("x-forwarded-host", "").split(",")[0].strip()]
    return {_authority(n, scheme) for n in names if n for scheme in _DEFAULT_PORTS}


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@functools.cache
def content_security_policy() -> str:
    """The pages' policy, with the hashes of their one inline script (``profile.html``) and
    their inline stylesheet (``page.css`` as ``base.html`` includes it: Jinja drops the file's
    last newline, and the ``<style>`` element's own newlines surround it). Read once, from the
    files, so editing either keeps the policy right; a test checks it against rendered pages."""
    scripts = _SCRIPT.findall((_TEMPLATES / "profile.html").read_text(encoding="utf-8"))
    css = (_TEMPLATES / "page.css").read_text(encoding="utf-8").removesuffix("\n")
    script_src = " ".join(_sha256(s) for s in scripts) or "'none'"
    return (
        f"default-src 'none'; script-src {script_src}; style-src {_sha256(chr(10) + css + chr(10))}; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )


def _page_headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": content_security_policy(),
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
    }


async def add_page_headers(message: Message, scope: Scope) -> None:
    """A ``before_send`` hook: every answer under /memory carries the headers above."""
    if message["type"] == "http.response.start" and scope["type"] == ScopeType.HTTP and is_page(scope["path"]):
        headers = MutableScopeHeaders.from_message(message)
        for name, value in _page_headers().items():
            headers[name] = value
