"""What the search index reads beyond the prose (scripts/search_text.py): the glossary's words for jieba, and the
formulas of headings as readable text."""

import jieba
import pytest

from scripts import search_text


def test_the_dictionary_holds_each_chinese_run_of_the_glossarys_terms_and_is_rewritten_whole(tmp_path):
    glossary = tmp_path / "glossary.yml"
    glossary.write_text(
        "- {en: layer normalization, zh: 层归一化, avoid: [层标准化]}\n- {en: KV cache, zh: KV 缓存}\n"
        "- {en: key, zh: 键}\n- {en: softmax, zh: softmax}\n- {en: equivariant, zh: 等变}\n",
        encoding="utf-8",
    )
    path = search_text.write_dictionary(glossary, tmp_path / "cache" / "words.txt")
    assert path.read_text(encoding="utf-8") == "层归一化\n等变\n缓存\n"  # avoided terms and single characters left out
    glossary.write_text("- {en: gradient check, zh: 梯度检验}\n", encoding="utf-8")
    search_text.write_dictionary(glossary, path)
    assert path.read_text(encoding="utf-8") == "梯度检验\n" and list(path.parent.iterdir()) == [path]
    assert search_text.glossary_words(tmp_path / "absent.yml") == []


def test_jieba_keeps_the_projects_glossary_words_whole_with_the_dictionary(tmp_path):
    words = search_text.glossary_words()
    assert "层归一化" in words
    sentence = "每个子层之前做层归一化"
    assert "层归一化" not in jieba.lcut(sentence)  # jieba's own dictionary: 层 / 归一化
    jieba.load_userdict(str(search_text.write_dictionary(path=tmp_path / "words.txt")))
    assert "层归一化" in jieba.lcut(sentence)


@pytest.mark.parametrize(
    "tex, text",
    [
        (r"\sqrt{d_k}", "√d_k"),
        (r"d_{\text{model}}", "d_model"),
        (r"\sqrt{d_{\text{head}}}", "√d_head"),
        (r"\frac{1}{\sqrt{d_k}}", "1/√d_k"),
        (r"\sqrt{d_k + 1}", "√(d_k + 1)"),
        (r"\operatorname{softmax}(x)", "softmax(x)"),
        (r"h \times d_k", "h × d_k"),
    ],
)
def test_a_formula_reads_as_plain_text(tex, text):
    assert search_text.readable_math(tex) == text


def test_only_heading_formulas_get_a_hidden_readable_text():
    page = (
        '<h1 id="t">缩放点积注意力与 <span class="arithmatex">\\(\\sqrt{d_k}\\)</span></h1>\n'
        '<p>除以 <span class="arithmatex">\\(\\sqrt{d_k}\\)</span></p>\n'
        '<h2 id="x">A &lt; B: <span class="arithmatex">\\(a &lt; b\\)</span></h2>'
    )
    assert search_text.searchable_heading_math(page) == (
        '<h1 id="t">缩放点积注意力与 <span class="arithmatex">\\(\\sqrt{d_k}\\)</span><span hidden>√d_k</span></h1>\n'
        '<p>除以 <span class="arithmatex">\\(\\sqrt{d_k}\\)</span></p>\n'
        '<h2 id="x">A &lt; B: <span class="arithmatex">\\(a &lt; b\\)</span><span hidden>a &lt; b</span></h2>'
    )
