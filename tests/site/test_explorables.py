"""The explorables (docs/assets/javascripts/explorables/) in a real browser, both editions: at 200 random settings
each, every number of state() agrees with the core in snippets/lib/ on the same inputs (relative error <= 1e-12),
what is drawn and written agrees with state(), the first state reproduces the chapter's figure, bad parameters
are refused, and they load lazily, stay on the site, and pass axe in both colour schemes."""

import gzip
import json
import math
from decimal import ROUND_HALF_UP, Decimal

import matplotlib
import numpy as np
import pytest

from lib.attention import (
    apply_rope,
    attention_scores,
    causal_mask,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    sinusoidal_positions,
    softmax,
)
from lib.running_example import (
    SENTENCE,
    embed,
    output_weights,
    padded_batch,
    projection_weights,
    running_qkv,
    tokenize,
)
from lib.seeded import normals
from support import REPO, nonempty_glob, require_chromium

pytestmark = pytest.mark.site
require_chromium()
ASSETS = REPO / "docs" / "assets" / "javascripts"
EXPLORABLES = {  # name: its chapter
    "softmax": "softmax",
    "scaled-dot-product": "scaled-dot-product",
    "masks": "masks",
    "positional-encoding": "positional-encoding",
    "multi-head": "multi-head",
}
SETTINGS = 200
RTOL = 1e-12
GENERATED = REPO / "docs" / "generated"

# What the page shows, read from the DOM: every heatmap cell's colour and label, every bar's width and label, the
# line's points, the summary, the controls' labels and shown values.
DRAWN = """(element) => {
  const texts = (root, selector) => [...root.querySelectorAll(selector)].map((t) => t.textContent);
  const figure = element.querySelector(".explorable__figure");
  return {
    heatmaps: [...figure.querySelectorAll("svg.explorable__heatmap")].map((svg) => ({
      fills: [...svg.querySelectorAll("rect[data-cell]")].map((r) => [r.dataset.cell, r.getAttribute("fill")]),
      labels: [...svg.querySelectorAll("text[data-cell]")].map((t) => [t.dataset.cell, t.textContent]),
    })),
    bars: [...figure.querySelectorAll("rect.explorable__bar")].map((r) => Number(r.getAttribute("width"))),
    barLabels: texts(figure, "text.explorable__number"),
    points: [...figure.querySelectorAll("polyline")].map((p) => p.getAttribute("points")),
    svgLabels: [...figure.querySelectorAll("svg")].map((svg) => svg.getAttribute("aria-label")),
    summary: element.querySelector(".explorable__summary").textContent,
    controls: [...element.querySelectorAll(".explorable__control")].map((c) => ({
      label: c.querySelector("label").textContent, output: c.querySelector("output").textContent,
    })),
    text: element.textContent,
  };
}"""


def fixed(x, digits):
    """JavaScript's Number.prototype.toFixed: the exact binary value, ties away from zero (-0 shown as 0)."""
    text = str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    return text[1:] if x == 0 and text.startswith("-") else text


def close(actual, expected, scale=None):
    """Every entry within RTOL of the expected one, relative to the largest expected entry's size (an entry that
    is a sum of cancelling terms, e.g. a dot product near 0, keeps only an absolute accuracy)."""
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    size = scale if scale is not None else max(np.max(np.abs(expected), initial=0.0), 1e-300)
    error = np.max(np.abs(actual - expected), initial=0.0) / size
    assert error <= RTOL, f"relative error {error:.2e} > {RTOL}"


def open_explorable(page, base_url, path, name):
    """Visit ``path``, bring the explorable near the screen, wait until its module has mounted it."""
    page.goto(base_url + path, wait_until="networkidle")
    element = page.locator(f'[data-explorable="{name}"]')
    element.scroll_into_view_if_needed()
    page.wait_for_selector(f'[data-explorable="{name}"][data-ready="true"]')
    return element


def set_each(element, settings):
    """set(params) through the contract for each of ``settings`` in turn, in one call into the page (set() draws
    before it returns); returns [(state, what is drawn then)]. The results come back as one JSON text, which
    keeps every float64 exactly and crosses to Python far faster than Playwright's value-by-value encoding."""
    return json.loads(
        element.evaluate(
            f"(el, settings) => {{ const drawn = {DRAWN}; const api = window.explorables.get(el);"
            " return JSON.stringify(settings.map((p) => [api.set(p), drawn(el)])); }",
            settings,
        )
    )


def entropy_bits(p):
    return -sum(x * math.log2(x) for x in p if x > 0)


# ---------------------------------------------------------------- random settings and the core's numbers


def random_settings(name, rng):
    if name == "softmax":
        return {"temperature": float(10 ** rng.uniform(-2, 2)), "scale": bool(rng.integers(2))}
    if name == "scaled-dot-product":
        return {"d_k": int(rng.integers(1, 1025)), "scaled": bool(rng.integers(2)), "seed": int(rng.integers(0, 1001))}
    if name == "masks":
        return {
            "mask": str(rng.choice(["none", "causal", "padding", "both"])),
            "sentence": str(rng.choice(["a", "b"])),
            "query": int(rng.integers(0, 7)),
        }
    if name == "positional-encoding":
        return {
            "encoding": str(rng.choice(["sinusoidal", "rotary"])),
            "d_model": 2 * int(rng.integers(1, 257)),
            "base": float(10 ** rng.uniform(1, 6)),
        }
    return {"h": int(rng.choice([1, 2, 4, 8])), "causal": bool(rng.integers(2))}


def check_softmax(state):
    tokens, q, k, _ = running_qkv()
    p = state["params"]
    raw = q[tokens.index("cat")] @ k.T  # (L,)
    scores = (attention_scores(q, k)[tokens.index("cat")] if p["scale"] else raw) / p["temperature"]
    weights = softmax(scores)
    close(state["scores"], scores)
    close(state["weights"], weights)
    close(state["top_weight"], weights.max())
    close(state["entropy_bits"], entropy_bits(weights))
    assert state["top_key"] == tokens[int(np.argmax(weights))] and state["tokens"] == tokens


def check_scaled_dot_product(state):
    p, d_k = state["params"], state["params"]["d_k"]
    draws = normals(p["seed"], 8 * d_k)  # the query, then 7 keys (snippets/lib/seeded.py)
    q, k = draws[:d_k], draws[d_k:].reshape(7, d_k)  # (d_k,), (7, d_k)
    close(state["q"], q)  # the page's generator is the same as the library's
    close(state["k"], k)
    scores = attention_scores(q[None, :], k)[0] if p["scaled"] else k @ q  # (7,)
    weights = softmax(scores)
    close(state["scores"], scores)
    close(state["weights"], weights)
    close(state["score_std"], np.std(scores))
    close(state["top_weight"], weights.max())
    close(state["entropy_bits"], entropy_bits(weights))


def check_masks(state):
    p = state["params"]
    (tokens_a, tokens_b), lengths, x = padded_batch()
    b = "ab".index(p["sentence"])
    w_q, w_k, w_v = projection_weights()
    q, k, v = (x[b] @ w for w in (w_q, w_k, w_v))  # each (L, d_k)
    allowed = np.ones((7, 7), dtype=bool)
    if p["mask"] in ("causal", "both"):
        allowed &= causal_mask(7)
    if p["mask"] in ("padding", "both"):
        allowed &= padding_mask([lengths[b]], 7)[0]
    output, weights = scaled_dot_product_attention(q, k, v, allowed)
    assert state["allowed"] == allowed.tolist() and state["tokens"] == [tokens_a, tokens_b][b]
    close(state["weights"], weights)
    close(state["output"], output)
    close(state["output_row"], output[p["query"]], scale=np.max(np.abs(output)))
    close(state["masked_weight"], weights[p["query"]][~allowed[p["query"]]].sum())


def check_positional_encoding(state):
    p = state["params"]
    assert state["offsets"] == list(range(64))
    if p["encoding"] == "rotary":  # q = k = (1, ..., 1), the query at position 0, the key at each offset
        ones = np.ones((64, p["d_model"]))
        q = apply_rope(ones[:1], np.zeros(1), base=p["base"])  # (1, d_model)
        k = apply_rope(ones, np.arange(64), base=p["base"])  # (64, d_model)
        close(state["dots"], (k @ q[0]), scale=p["d_model"])  # q . q = d_model, the largest dot
        return
    pe = sinusoidal_positions(64, p["d_model"], base=p["base"])  # (64, d_model)
    close(state["dots"], pe @ pe[0], scale=p["d_model"] / 2)  # PE(0) . PE(0) = d_model / 2, the largest dot


def check_multi_head(state):
    p = state["params"]
    tokens = tokenize(SENTENCE)
    x = embed(tokens)
    w_q, w_k, w_v = projection_weights()
    mask = causal_mask(7) if p["causal"] else None
    output, weights = multi_head_attention(x, w_q, w_k, w_v, output_weights(), p["h"], mask)
    assert state["d_head"] == 8 // p["h"] and state["tokens"] == tokens
    close(state["weights"], weights)
    close(state["output"], output)


CHECKS = {
    "softmax": check_softmax,
    "scaled-dot-product": check_scaled_dot_product,
    "masks": check_masks,
    "positional-encoding": check_positional_encoding,
    "multi-head": check_multi_head,
}


# ---------------------------------------------------------------- what is drawn against state()


VIRIDIS = matplotlib.colormaps["viridis"]  # each lookup in the registry returns a new copy with its table unbuilt


def viridis_close(fill, weight):
    rgb = [int(c) for c in fill.removeprefix("rgb(").removesuffix(")").split(",")]
    expected = [round(255 * c) for c in VIRIDIS(float(weight))[:3]]
    return max(abs(a - b) for a, b in zip(rgb, expected)) <= 3  # matplotlib's 256 colours, the page's 17 stops


def check_drawn(name, state, drawn):
    assert "NaN" not in drawn["text"] and "undefined" not in drawn["text"]
    assert all(label and "NaN" not in label for label in drawn["svgLabels"]) and drawn["svgLabels"]
    if name in ("masks", "multi-head"):
        maps = state["weights"] if name == "multi-head" else [state["weights"]]
        assert len(drawn["heatmaps"]) == len(maps)
        for heatmap, weights in zip(drawn["heatmaps"], maps):
            cells = {(i, j): w for i, row in enumerate(weights) for j, w in enumerate(row)}
            assert len(heatmap["fills"]) == len(cells) == len(heatmap["labels"])
            for cell, fill in heatmap["fills"]:
                i, j = map(int, cell.split(","))
                assert viridis_close(fill, cells[i, j]), (cell, fill, cells[i, j])
            for cell, label in heatmap["labels"]:
                i, j = map(int, cell.split(","))
                masked = name == "masks" and not state["allowed"][i][j]
                assert label == ("·" if masked else fixed(cells[i, j], 2)), (cell, label)
    if name in ("softmax", "scaled-dot-product"):
        np.testing.assert_allclose(np.array(drawn["bars"]) / 220, state["weights"], atol=1e-9)  # bar width 220 = 1
        assert drawn["barLabels"] == [fixed(w, 3) for w in state["weights"]]
        assert fixed(state["top_weight"], 3) in drawn["summary"] and fixed(state["entropy_bits"], 2) in drawn["summary"]
    if name == "scaled-dot-product":
        assert fixed(state["score_std"], 2) in drawn["summary"]
    if name == "masks":
        assert all(fixed(x, 2) in drawn["summary"] for x in state["output_row"])
        assert state["tokens"][state["params"]["query"]] in drawn["controls"][2]["output"]
    if name == "positional-encoding":
        (points,) = drawn["points"]
        y = np.array([float(pair.split(",")[1]) for pair in points.split()])
        assert len(y) == len(state["dots"]) == 64
        fit = np.polyfit(state["dots"], y, 1)  # drawn heights are one affine map of the dots, pointing up
        assert fit[0] < 0 and np.allclose(np.polyval(fit, state["dots"]), y, atol=1e-6)
        assert fixed(state["dots"][0], 2) in drawn["summary"] and fixed(min(state["dots"]), 2) in drawn["summary"]
    if name == "multi-head":
        assert f"d_head = {state['d_head']}" in drawn["summary"]


@pytest.mark.claim(
    "Every explorable, at 200 random settings in each edition, shows the numbers of the core in "
    "snippets/lib/ on the same inputs to a relative error of 1e-12, and draws and writes what its state holds",
    zh="每个可交互示例在两个版本中各取 200 组随机设置，显示的数字与 snippets/lib/ 中的核心在相同输入上的结果之间的"
    "相对误差不超过 1e-12，画出和写出的内容与其状态一致",
)
@pytest.mark.parametrize("edition", ["", "zh/"])
@pytest.mark.parametrize("name", EXPLORABLES)
def test_explorable_matches_the_core_at_random_settings(page, base_url, name, edition):
    element = open_explorable(page, base_url, f"{edition}{EXPLORABLES[name]}/", name)
    rng = np.random.default_rng(sorted(EXPLORABLES).index(name) + (100 if edition else 0))
    settings = [random_settings(name, rng) for _ in range(SETTINGS)]
    for params, (state, drawn) in zip(settings, set_each(element, settings), strict=True):
        assert state["params"] == params
        CHECKS[name](state)
        check_drawn(name, state, drawn)
    assert page.errors == [] and page.missing == []


# ---------------------------------------------------------------- the figure of record


FIRST = {
    "softmax": {"temperature": 1, "scale": True},
    "scaled-dot-product": {"d_k": 64, "scaled": False, "seed": 0},
    "masks": {"mask": "padding", "sentence": "b", "query": 1},
    "positional-encoding": {"encoding": "sinusoidal", "d_model": 16, "base": 10000},
    "multi-head": {"h": 2, "causal": True},
}


def published(path):
    return {name: entry["text"] for name, entry in json.loads((GENERATED / path / "values.json").read_text()).items()}


def figure_numbers(name, state):
    """(what the explorable's first state shows, what the chapter's figure snippet published), side by side."""
    if name == "softmax":
        values = published("softmax/temperature")
        return [state["top_key"], fixed(state["top_weight"], 3)], [
            values["temperature_top_key"],
            values["top_weight_t1"],
        ]
    if name == "masks":
        values = published("masks/kinds")
        pad_columns = max(max(row[4:]) for row in state["weights"])
        return (
            [fixed(state["weights"][4][0], 2), f"{pad_columns:.1f}"],
            [values["pad_query_weight"], values["pad_weight_masked"]],
        )
    if name == "positional-encoding":
        values = published("positional_encoding/relative")
        dots = state["dots"]
        valley = int(np.argmax(np.diff(dots) > 0))
        return (
            [f"{dots[0]:.1f}", str(valley), fixed(dots[valley], 2)],
            [values["norm_squared"], values["valley_offset"], values["valley_dot"]],
        )
    if name == "multi-head":
        values = published("multi_head/heads")
        w0, w1 = np.array(state["weights"])
        return (
            [str(int(np.sum(w0.argmax(-1) != w1.argmax(-1)))), f"{np.max(np.abs(w0 - w1)):.2f}"],
            [values["heads_rows_differ"], values["heads_max_weight_gap"]],
        )
    values = published("scaled_dot_product/saturation")  # the one row the snippet draws beside its sweep
    return (
        [
            state["params"]["d_k"],
            len(state["weights"]),
            fixed(state["score_std"], 2),
            fixed(state["top_weight"], 3),
            fixed(state["entropy_bits"], 2),
        ],
        [
            int(values["opening_dk"]),
            int(values["n_keys"]),
            values["opening_score_std_unscaled"],
            values["opening_top_weight_unscaled"],
            values["opening_entropy_bits_unscaled"],
        ],
    )


@pytest.mark.claim(
    "Each explorable opens at its chapter's figure and shows that figure's numbers, and the figure stays on "
    "the page as the figure of record",
    zh="每个可交互示例都从本章图的设置开始，显示这张图的数字；这张图作为记录留在页面上",
)
@pytest.mark.parametrize("edition", ["", "zh/"])
@pytest.mark.parametrize("name", EXPLORABLES)
def test_explorable_opens_at_the_figure_of_record(page, base_url, name, edition):
    element = open_explorable(page, base_url, f"{edition}{EXPLORABLES[name]}/", name)
    state = element.evaluate("(el) => window.explorables.get(el).state()")
    assert state["params"] == FIRST[name]  # the setting each page says it opens at
    shown, figure = figure_numbers(name, state)
    assert shown == figure
    figures_above = element.evaluate(
        "(el) => [...document.querySelectorAll('article figure img')].filter((img) =>"
        " img.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING).length"
    )
    assert figures_above > 0, "no figure of record above the explorable"


def test_the_figure_of_record_stands_alone_without_javascript(browser, base_url):
    context = browser.new_context(java_script_enabled=False)
    tab = context.new_page()
    for path in ["masks/", "zh/multi-head/"]:
        tab.goto(base_url + path)
        assert tab.locator("[data-explorable]").is_hidden()
        assert tab.locator("article figure img").count() > 0
    context.close()


# ---------------------------------------------------------------- the contract: bad parameters


BAD = {  # name: [(params, words the error must contain)]
    "softmax": [
        ({"temperature": 0}, ["temperature", "[0.01, 100]"]),
        ({"temp": 1}, ["temp", "temperature"]),
        ({"scale": "yes"}, ["scale", "true or false"]),
    ],
    "scaled-dot-product": [
        ({"d_k": 2048}, ["d_k", "[1, 1024]"]),
        ({"d_k": 3.5}, ["d_k", "whole number"]),
        ({"seed": -1}, ["seed", "[0, 1000]"]),
    ],
    "masks": [
        ({"mask": "future"}, ["mask", "none", "causal", "padding", "both"]),
        ({"query": 7}, ["query", "[0, 6]"]),
        ({"sentence": 1}, ["sentence"]),
    ],
    "positional-encoding": [
        ({"d_model": 7}, ["d_model", "even"]),
        ({"d_model": 514}, ["d_model", "[2, 512]"]),
        ({"base": 5}, ["base", "[10, 1000000]"]),
        ({"d_model": None}, ["d_model"]),
        ({"encoding": "alibi"}, ["encoding", "sinusoidal", "rotary"]),
    ],
    "multi-head": [
        ({"h": 3}, ["h", "[1,2,4,8]"]),
        ({"causal": 1}, ["causal", "true or false"]),
        ({"heads": 2}, ["heads", "h, causal"]),
    ],
}


@pytest.mark.claim(
    "set() refuses an unknown parameter, a wrong type or a value out of range with an error that names "
    "the parameter and its allowed range, and leaves the explorable as it was",
    zh="set() 拒绝未知参数、类型错误或超出范围的值，报错时指明参数及其允许范围，并且不改变可交互示例",
)
@pytest.mark.parametrize("name", EXPLORABLES)
def test_bad_parameters_are_refused_and_change_nothing(page, base_url, name):
    element = open_explorable(page, base_url, f"{EXPLORABLES[name]}/", name)
    before = element.evaluate("(el) => [window.explorables.get(el).state(), el.innerHTML]")
    for params, words in BAD[name] + [("not an object", ["object"])]:
        error = element.evaluate(
            "(el, p) => { try { window.explorables.get(el).set(p); return null; } catch (e) { return e.message; } }",
            params,
        )
        assert error is not None, f"set({params}) was accepted"
        assert all(word in error for word in words), (params, error)
        assert element.evaluate("(el) => [window.explorables.get(el).state(), el.innerHTML]") == before


# ---------------------------------------------------------------- loading, controls, language, accessibility


def test_explorables_load_only_near_the_screen_and_from_the_site(page, base_url):
    page.goto(base_url + "masks/", wait_until="networkidle")
    assert not [url for url in page.requests if "/explorables/" in url], "loaded before it came near the screen"
    open_explorable(page, base_url, "masks/", "masks")
    loaded = [url for url in page.requests if "/explorables/" in url]
    assert any(url.endswith("masks.js") for url in loaded) and any(url.endswith("explorables.css") for url in loaded)
    assert not any(url.endswith("softmax.js") for url in loaded)  # only the page's own module
    assert all(url.startswith(base_url) or url.startswith("data:") for url in page.requests)
    assert page.errors == [] and page.missing == []


def test_controls_are_native_labelled_and_work_from_the_keyboard(page, base_url):
    element = open_explorable(page, base_url, "softmax/", "softmax")
    assert element.locator("[aria-live=polite]").count() == 1
    slider = element.locator("input[type=range]")
    label_for = element.locator("label").first.get_attribute("for")
    assert slider.get_attribute("id") == label_for
    before = element.evaluate("(el) => window.explorables.get(el).state()")
    slider.focus()
    page.keyboard.press("ArrowRight")
    after = element.evaluate("(el) => window.explorables.get(el).state()")
    assert after["params"]["temperature"] > before["params"]["temperature"]
    element.locator("input[type=checkbox]").focus()
    page.keyboard.press("Space")
    assert element.evaluate("(el) => window.explorables.get(el).state()")["params"]["scale"] is False


@pytest.mark.parametrize(
    "name, english, chinese",
    [
        ("softmax", "temperature T", "温度 T"),
        ("masks", "mask", "掩码"),
        ("multi-head", "causal mask", "因果掩码"),
        ("positional-encoding", "base", "基数"),
        ("scaled-dot-product", "generator seed", "生成器种子"),
    ],
)
def test_labels_are_in_the_pages_language(page, base_url, name, english, chinese):
    for edition, word in (("", english), ("zh/", chinese)):
        element = open_explorable(page, base_url, f"{edition}{EXPLORABLES[name]}/", name)
        labels = element.evaluate("(el) => [...el.querySelectorAll('label')].map((l) => l.textContent)")
        assert word in labels, labels


@pytest.mark.claim(
    "Pages with an explorable pass axe-core with the explorable loaded, in light and dark mode",
    zh="带可交互示例的页面在加载可交互示例后，无论浅色还是深色模式都能通过 axe-core 检查",
)
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path, name", [(f"{e}{c}/", n) for e in ("", "zh/") for n, c in EXPLORABLES.items()])
def test_explorables_pass_axe_in_both_schemes(browser, base_url, path, name, scheme):
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(color_scheme=scheme, reduced_motion="reduce")
    tab = context.new_page()
    open_explorable(tab, base_url, path, name)
    tab.evaluate("document.fonts.ready.then(() => true)")
    tab.add_style_tag(content="* { content-visibility: visible !important; }")  # as test_browser.py's axe test
    result = Axe().run(tab, context=f'[data-explorable="{name}"]').response
    violations = [f"{v['id']} ({v['impact']}) at {[n['target'] for n in v['nodes'][:3]]}" for v in result["violations"]]
    context.close()
    assert violations == []


@pytest.mark.claim(
    "All explorables together weigh at most 30 KB of JavaScript and CSS after gzip",
    zh="所有可交互示例的 JavaScript 和 CSS 合计经 gzip 压缩后不超过 30 KB",
)
def test_explorables_fit_the_byte_budget():
    files = nonempty_glob(ASSETS / "explorables", "*.js") + nonempty_glob(ASSETS / "explorables", "*.css")
    files.append(ASSETS / "site.js")  # the loader lives in site.js: counted whole
    assert len(files) == 8
    gzipped = sum(len(gzip.compress(path.read_bytes(), compresslevel=9)) for path in files)
    assert gzipped <= 30 * 1024, f"{gzipped} bytes after gzip"
