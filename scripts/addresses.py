"""Where each page lives on the web: the edition's address, and each page's hreflang links to its twin in the
other language, so a search engine sees /x/ and /zh/x/ as one page in two languages.

``site_url`` comes from ``SITE_URL`` (mkdocs.yml; `make deploy` and the publish workflow set it, mike appends the
version). The English edition lives at that address, the Chinese one at its ``zh/``. With an address every page
gets a canonical link (from MkDocs) and, from ``head_links``, one <link rel="alternate" hreflang> per language
plus ``x-default`` (the English page), and the notebooks the site serves for download link the other pages by these
addresses (scripts/notebook_export.py). Without one the build writes no absolute address at all (no canonical or
hreflang link, an empty sitemap.xml): links stay relative, so the site works offline and from any folder.
"""

import os
import re
from html import escape
from urllib.parse import urljoin

from scripts import editions

DEFAULT_LANGUAGE = "en"  # the edition a reader whose language is neither gets (x-default)
ENVIRONMENT = "SITE_URL"
CANONICAL = re.compile(r'<link rel="canonical" href="[^"]*">')


def edition_address(config):
    """Give the Chinese edition its own address (the English one's ``zh/``). The English build hands its own
    address, as plugins made it (mike's appends the version), to the Chinese build it starts beside it, through
    the environment that process inherits."""
    if not config.site_url:
        return
    if editions.edition(config) == "zh":
        config.site_url = urljoin(config.site_url.rstrip("/") + "/", "zh/")
    else:
        config.site_url = config.site_url.rstrip("/") + "/"
        os.environ[ENVIRONMENT] = config.site_url


def twins(site_url, roots, page_url):
    """{hreflang: absolute address} of a page (``page_url``, relative to its edition's root) in every edition, given
    each edition's root relative to this one's (``roots``: mkdocs.yml's ``extra.alternate`` entries), plus
    ``x-default``; empty without an address."""
    if not site_url:
        return {}
    found = {root["lang"]: urljoin(urljoin(site_url, root["link"]), page_url) for root in roots}
    return {**found, "x-default": found[DEFAULT_LANGUAGE]}


def head_links(page_html, site_url, roots, page_url):
    """The page's hreflang alternates, written after its canonical link (MkDocs gives a page one exactly when
    the site has an address)."""
    links = twins(site_url, roots, page_url)
    if not links:
        return page_html
    if not CANONICAL.search(page_html):
        raise ValueError(f"{page_url}: the site has an address but the page has no canonical link")
    alternates = "".join(
        f'\n  <link rel="alternate" hreflang="{lang}" href="{escape(url)}">' for lang, url in links.items()
    )
    return CANONICAL.sub(lambda m: m.group(0) + alternates, page_html, count=1)
