"""The interface words of generated pages (scripts/words/<language>.toml): every language has every key with the
same placeholders, a gap fails naming the file and the key, and the explorables get their labels from them."""

import html
import json
import logging
import re

import pytest

from scripts.chapter_markdown import explorable_words
from scripts.words import FOLDER, WordsError, _all, check, plural, words


def test_every_language_file_has_every_key_of_the_english_one():
    loaded = _all()
    assert set(loaded) == {"en", "zh"}
    assert words("zh", "ledger")["status"]["passed"] == "✅ 已验证"


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda zh: zh["ledger"].pop("no_git"), "has no 'ledger.no_git'"),
        (lambda zh: zh["explorables"]["masks"].pop("summary"), "has no 'explorables.masks.summary'"),
        (lambda zh: zh["bench"].update(extra="x"), "has 'bench.extra', which en.toml does not"),
        (
            lambda zh: zh["ledger"].update(from_run="状态来自 {commit}"),
            "'ledger.from_run' fills in ['commit'], en.toml",
        ),
        (lambda zh: zh["ledger"].update(claims={"one": "{n} 条"}), "the plural 'ledger.claims' has no 'other' form"),
    ],
)
def test_a_word_missing_in_one_language_is_named_with_its_file(change, message):
    english, chinese = (json.loads(json.dumps(_all()[language])) for language in ("en", "zh"))
    change(chinese)
    with pytest.raises(WordsError, match=re.escape(message)) as error:
        check(english, chinese, FOLDER / "zh.toml")
    assert "zh.toml" in str(error.value)


def test_an_unknown_language_is_refused():
    with pytest.raises(WordsError, match="fr.toml"):
        words("fr", "ledger")


def test_plurals_pick_their_form():
    assert [plural(words("en", "ledger")["claims"], n) for n in (1, 2)] == ["1 claim", "2 claims"]
    assert plural(words("zh", "ledger")["claims"], 1) == "1 条论断"


def test_an_explorable_carries_its_labels_in_the_pages_language(caplog):
    markdown = '<div class="explorable" data-explorable="softmax" data-values="softmax/explorable" markdown>\n</div>'
    written = explorable_words(markdown, "softmax.md", "zh")
    attribute = re.search(r'data-words="([^"]*)"', written).group(1)
    assert json.loads(html.unescape(attribute)) == words("zh", "explorables")["softmax"]
    with caplog.at_level(logging.WARNING):
        unknown = explorable_words(markdown.replace("softmax", "nothing"), "x.md", "zh")
    assert "data-words" not in unknown and "[explorables.nothing]" in caplog.text and "zh.toml" in caplog.text
