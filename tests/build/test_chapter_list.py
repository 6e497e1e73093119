"""The menu's titles and the chapter list: a page's title is its own (front matter, else its first heading)."""

import pytest

from scripts.chapter_list import chapter_list, page_title, titled_links, translate_nav


def page(folder, name, text):
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def test_a_page_title_is_its_front_matter_title_else_its_first_heading_without_its_id(tmp_path):
    assert page_title(page(tmp_path, "a.md", "# Rotary positions {#rotary}\n\n# Later\n")) == "Rotary positions"
    assert page_title(page(tmp_path, "b.md", "---\ntitle: 'Short: title'\n---\n\n# Long heading\n")) == "Short: title"
    assert page_title(page(tmp_path, "c.md", "Text\n\n## Only a section\n# The title\n")) == "The title"
    with pytest.raises(ValueError, match=r"d\.md: no title"):
        page_title(page(tmp_path, "d.md", "no heading at all\n"))


def test_the_chapter_list_follows_the_menu_with_titles_and_summaries(tmp_path):
    page(tmp_path, "index.md", "# Home\n")
    page(tmp_path, "notation.md", "---\nsummary: 'every symbol.'\n---\n# Notation\n")
    page(tmp_path, "b.md", "---\nsummary: 'second.'\n---\n# Bee\n")
    page(tmp_path, "a.md", "---\ntitle: 'Ay'\nsummary: 'first, with $x$.'\n---\n# A long title\n")
    nav = [{"Home": "index.md"}, "notation.md", {"Part": ["a.md", "b.md"]}]
    assert chapter_list(nav, tmp_path, "en") == (
        "[Notation](notation.md): every symbol.\n\n**Part**\n\n- [Ay](a.md): first, with $x$.\n- [Bee](b.md): second."
    )
    assert chapter_list(nav, tmp_path, "zh").startswith("[Notation](notation.md)：every symbol.")
    page(tmp_path, "b.md", "# Bee\n")
    with pytest.raises(ValueError, match=r"b\.md: no 'summary:'"):
        chapter_list(nav, tmp_path, "en")


def test_the_chinese_menu_translates_each_label_and_names_a_missing_one():
    nav = [{"Home": "index.md"}, "notation.md", {"Part": ["a.md"]}]
    assert translate_nav(nav, {"Home": "首页", "Part": "部分"}) == [
        {"首页": "index.md"},
        "notation.md",
        {"部分": ["a.md"]},
    ]
    with pytest.raises(ValueError, match="'Part' has no translation.*nav_labels"):
        translate_nav(nav, {"Home": "首页"})


def test_an_arrow_link_gets_its_pages_title(tmp_path):
    page(tmp_path, "rotary.md", "# Rotary positions\n")
    text = "See [→](rotary.md#pairs); [other](rotary.md) and [→ kept](rotary.md) stay."
    assert titled_links(text, tmp_path) == (
        "See [→ Rotary positions](rotary.md#pairs); [other](rotary.md) and [→ kept](rotary.md) stay."
    )
