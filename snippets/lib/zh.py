"""Chinese for the text snippets show readers: table headers and cells, figure titles, axis labels, tick labels,
legends and annotations.

A snippet writes its text in English only; the site's build asks ``translate(text)`` for the Chinese of each
text when it writes the Chinese twin of a table or figure. Text that needs no translation comes back as it is:
numbers, math (``$...$``), code (`` `...` ``), identifiers (``d_k``, ``W_q``), the names in ``KEEP`` and the
running example's tokens. Anything else must have an entry in ``CHINESE``, or ``translate`` raises
``MissingTranslation`` naming the text.

In an entry, ``{}`` stands for a number, so one entry covers text a snippet builds with an f-string:
``"head {}"`` translates ``"head 1"`` and ``"head 2"``. The terms follow docs-zh/glossary.yml.
"""

import re

# English text -> Chinese, in the order the chapters first show it.
CHINESE = {
    # scaled_dot_product
    "Attention weights, one head, d_k = {}": "注意力权重：单头，d_k = {}",
    "key (attended to)": "键（被关注）",
    "query (attending)": "查询（发出关注）",
}

# Words that stay as written in Chinese technical text: library, model and function names.
KEEP = {"softmax", "NumPy", "numpy", "matplotlib", "Transformer", "GPT", "BERT", "RNN", "CNN", "LSTM", "ReLU",
        "GELU", "LayerNorm", "Adam", "SGD", "NaN", "nan", "inf", "exp", "log", "max", "min", "sqrt", "std", "Var",
        "KiB", "MiB", "GiB", "FLOPs", "KV", "QKV", "RoPE", "ALiBi", "Jacobian", "pad"}

# The running example's tokens ("The cat sat on the mat.", lib.running_example.SENTENCE) and the words the
# examples' vocabularies add: they are data, shown as the model sees them.
TOKENS = {"the", "cat", "sat", "on", "mat", "fox", "hen", "owl", "rat", "dog", "dogs"}

NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")
MATH = re.compile(r"\$[^$]*\$")
CODE = re.compile(r"`[^`]*`")
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)\Z")  # a Markdown link: only its text is translated
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class MissingTranslation(KeyError):
    """English text that has no entry in ``CHINESE``; ``texts`` lists every such text found."""

    def __init__(self, texts):
        self.texts = list(texts)
        super().__init__(self.texts)

    def __str__(self):
        return "no Chinese in snippets/lib/zh.py (CHINESE) for " + ", ".join(repr(t) for t in self.texts)


def english_words(text):
    """The words of ``text`` a Chinese reader should not see in English (identifiers, kept names and tokens are
    not among them)."""
    bare = CODE.sub(" ", MATH.sub(" ", text))
    words = (w for w in WORD.findall(bare) if len(w) > 1 and not re.search(r"[_0-9]", w))
    return [w for w in words if w not in KEEP and w.lower() not in TOKENS]


def _with_numbers(template, numbers):
    parts = template.split("{}")
    if len(parts) != len(numbers) + 1:
        raise ValueError(f"the Chinese {template!r} has {len(parts) - 1} places for numbers, the English {len(numbers)}")
    return "".join(part + number for part, number in zip(parts, [*numbers, ""]))


def translate(text):
    """The Chinese of ``text``; ``MissingTranslation`` if it needs one and ``CHINESE`` has none."""
    if text in CHINESE:
        return CHINESE[text]
    link = LINK.match(text)
    if link:
        return f"[{translate(link.group(1))}]({link.group(2)})"
    numbers = NUMBER.findall(text)
    template = NUMBER.sub("{}", text)
    if numbers and template in CHINESE:
        return _with_numbers(CHINESE[template], numbers)
    if not english_words(text):
        return text
    raise MissingTranslation([text])


def translate_all(texts):
    """[Chinese of each text]; ``MissingTranslation`` lists every text that has none (not only the first)."""
    translated, missing = [], []
    for text in texts:
        try:
            translated.append(translate(text))
        except MissingTranslation as error:
            missing += error.texts
    if missing:
        raise MissingTranslation(dict.fromkeys(missing))
    return translated


# ------------------------------------------------------------------ claims (zh-claims): the verdicts figure
# The claims tables carry their own Chinese (lib.claims_inventory); only the bar chart's words are here.
CHINESE.update({
    "Why attention, and the paper": "为什么需要注意力，以及原论文",
    "Queries, keys and values": "查询、键和值",
    "Scaling and softmax": "缩放与 softmax",
    "Positions and order": "位置与顺序",
    "Shapes and heads": "形状与头",
    "Masks": "掩码",
    "The seeds' code and its output": "种子教程的代码及其输出",
    "Debugging advice": "调试建议",
    "Cost and the big picture": "代价与全局",
    "holds": "成立",
    "holds only when ...": "仅当……时成立",
    "does not hold": "不成立",
    "cannot be checked here": "此处无法核查",
    "number of claims": "论断个数",
})
