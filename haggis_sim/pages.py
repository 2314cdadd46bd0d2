"""Every HTML page the package writes, rendered from the Jinja2 templates in ``templates/``.

One :class:`jinja2.Environment` for all pages (the run report, the experiment pages, the
``compare --html`` fragment, the game viewer), with autoescape on for every ``.j2``
template and :class:`jinja2.StrictUndefined`, so a value missing from a page's context is
an error rather than an empty string.

Escaping: a value a template prints is escaped with :func:`html.escape` (``&quot;`` and
``&#x27;`` for quotes, as the pages have always been written, so a page's bytes do not
change with the template engine) unless it is already :class:`markupsafe.Markup`. This
happens in the environment's ``finalize`` hook only while autoescape is on: turned off,
values are printed raw (which the escaping tests catch). JSON embedded in a ``<script>``
block goes through the :func:`script_json` filter instead, which escapes ``<``, ``>`` and
``&`` so no value can end the block early.
"""

from __future__ import annotations

import html
import json
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, pass_eval_context, select_autoescape
from jinja2.nodes import EvalContext
from markupsafe import Markup


@pass_eval_context
def _finalize(ctx: EvalContext, value: Any) -> Any:
    """A printed value escaped as :func:`html.escape` does (when autoescape is on)."""
    if ctx.autoescape and not isinstance(value, Markup):
        return Markup(html.escape(str(value)))
    return value


def script_json(data: Any) -> Markup:
    """``data`` as compact ASCII JSON that cannot end its ``<script>`` block early: ``<``,
    ``>`` and ``&`` become ``\\u003c``, ``\\u003e``, ``\\u0026`` (so neither ``</script>``
    nor ``<!--`` can appear), still the same data to ``JSON.parse``.

    >>> str(script_json({"name": "</script><!--&"}))
    '{"name":"\\\\u003c/script\\\\u003e\\\\u003c!--\\\\u0026"}'
    """
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def squash(text: str) -> Markup:
    """Template text written over several lines as one line: each line stripped and the
    lines joined (for the style sheets, readable in the template, compact in the page)."""
    return Markup("".join(line.strip() for line in str(text).splitlines()))


def thousands(value: int) -> str:
    """An integer with thousands separators (``12,345``)."""
    return f"{value:,}"


@cache
def environment() -> Environment:
    """The one template environment (built on first use)."""
    env = Environment(
        loader=PackageLoader("haggis_sim", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "j2"), default=True),
        undefined=StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters.update(script_json=script_json, squash=squash, thousands=thousands)
    return env


def render(template_name: str, **context: Any) -> str:
    """The text of the template ``template_name`` (e.g. ``"report.html.j2"``) rendered with
    ``context``: every printed value escaped (see the module's text)."""
    return environment().get_template(template_name).render(**context)
