"""Every "try this" instruction on the site, run with exactly the edit the page describes.

A page marks each instruction with an HTML comment right after it (invisible on the site):

    <!-- try pe-d-model-64
    @ snippets/positional_encoding/wavelengths.py
    - d_model = 512  # the paper's base model
    + d_model = 64
    -->

`@ path` names the file to edit (a snippet, a library module under snippets/lib/, or `page`: the Python code block
just above the marker, run from snippets/); a `- old` line followed by a
`+ new` line replaces the text `old`, which must occur exactly once; `+` lines with no `-` before them are appended
to the file. The first edited snippet outside snippets/lib/ (or the one named by `run path`) is run on a copy of
snippets/ with the project's Python, and CHECKS[id] asserts what the page says will happen. The page's edit is read
from the page itself, so the page and this test cannot drift apart.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from scripts.pipeline.runner import SNIPPET_ENV
from support import REPO, nonempty_glob, published

DOCS = REPO / "docs"
MARKER = re.compile(r"<!-- try ([a-z0-9-]+)\n(.*?)-->", re.DOTALL)
CHECK_SECTION = re.compile(r"^## (Check it yourself|A check you can run)\b.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
EDIT_VERB = re.compile(r"(?<![-\w])(change|set|replace|remove|make|add|drop|tie|scale|try|delete)\b", re.IGNORECASE)

RUNNER = """
import json, runpy, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.show = lambda *args, **kwargs: None
sys.path.insert(0, ".")
from lib import publish
runpy.run_path(sys.argv[1], run_name="__main__")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    json.dump({"values": {k: v["value"] for k, v in publish.VALUES.items()}, "tables": publish.TABLES}, out)
"""


def markers():
    """(page, id, [(path, [(old or None, new)])], run path) for every marker on every page."""
    found = []
    for page in nonempty_glob(DOCS, "*.md"):
        text = page.read_text(encoding="utf-8")
        for match in MARKER.finditer(text):
            edits, run, old = [], None, None
            code_above = re.findall(r"```python\n(.*?)```", text[: match.start()], re.DOTALL)
            for line in match.group(2).splitlines():
                line = line.strip()  # a marker inside a list item is indented
                if line == "@ page":
                    edits.append(("snippets/page_code.py", [(None, code_above[-1])]))
                elif line.startswith("@ "):
                    edits.append((line[2:].strip(), []))
                elif line.startswith("run "):
                    run = line[4:].strip()
                elif line.startswith("- "):
                    old = line[2:]
                elif line.startswith("+ "):
                    edits[-1][1].append((old, line[2:]))
                    old = None
                elif line:
                    raise ValueError(f"{page.name}, marker {match.group(1)}: cannot read the line {line!r}")
            if run is None:
                run = next(path for path, _ in edits if not path.startswith("snippets/lib/"))
            found.append((page.name, match.group(1), edits, run))
    return found


class Run:
    def __init__(self, stdout, values, tables):
        self.stdout, self.values, self.tables = stdout, values, tables

    def table(self, name):
        """A published table as a list of {column: cell text} rows."""
        header, rows = self.tables[name]["header"], self.tables[name]["rows"]
        return [dict(zip(header, row)) for row in rows]


def run_edited(edits, run, tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    copy = tmp_path / "snippets"
    shutil.copytree(REPO / "snippets", copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path, changes in edits:
        target = tmp_path / path
        text = target.read_text(encoding="utf-8") if target.exists() else ""
        for old, new in changes:
            if old is None:
                text = text.rstrip("\n") + "\n" + new + "\n"
                continue
            assert text.count(old) == 1, f"the page's edit expects {old!r} exactly once in {path}"
            text = text.replace(old, new)
        target.write_text(text, encoding="utf-8")
    result_file = tmp_path / "published.json"
    result = subprocess.run(  # in the build's environment: one BLAS thread, so the sums match the published ones
        [sys.executable, "-c", RUNNER, str(tmp_path / run), str(result_file)],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **SNIPPET_ENV},
    )
    assert result.returncode == 0, f"{run} fails after the page's edit:\n{result.stderr[-3000:]}"
    published_now = json.loads(result_file.read_text(encoding="utf-8"))
    return Run(result.stdout, published_now["values"], published_now["tables"])


def number(cell):
    return float(cell.replace(",", ""))


# ---------------------------------------------------------------- what each page says will happen


def pe_matrix_power(run):
    assert float(run.stdout.strip().splitlines()[-1]) < 1e-12  # five shifts by one are one shift by five


def pe_d_model_64(run):
    assert run.values["d_model"] == 64
    assert run.values["shortest"] == pytest.approx(2 * np.pi)
    longest_512 = published("positional_encoding/wavelengths")["longest"]
    assert run.values["longest"] < longest_512 < run.values["paper_upper"]


def order_swap_the(run):
    rows = run.table("cases")
    assert number(rows[0]["equivariance: f(P x) vs P f(x)"]) == 0.0  # the same matrix
    assert number(rows[1]["equivariance: f(P x) vs P f(x)"]) > 0.01
    assert number(rows[2]["equivariance: f(P x) vs P f(x)"]) > 0.01


def tokens_the_the_the(run):
    assert run.values["n_tokens"] == 3 and run.values["vocab_size"] == 1


def tokens_keep_case(run):
    assert run.values["n_tokens"] == 3 and run.values["vocab_size"] == 3


def weighted_mat_row(run):
    assert run.values["cat_n_visible"] == 6 and run.values["cat_n_zero"] == 1  # itself and every word before
    assert run.values["cat_row_sum"] == pytest.approx(1.0, abs=1e-12)


def weighted_no_mask(run):
    assert run.values["cat_n_zero"] == 0  # every key gets weight: every key is visible
    assert abs(run.values["cat_w_the"] - published("weighted_sum/cat_row")["cat_w_the"]) > 0.01  # the row changes


def why_more_gains(run):
    rows = {row["distance T − t"]: row for row in run.table("norms")}
    at_49 = {g: number(rows["49"][f"RNN, gain {g}"]) for g in ("0.5", "1.0", "1.5", "2.0", "3.0")}
    at_1 = {g: number(rows["1"][f"RNN, gain {g}"]) for g in ("2.0", "3.0")}
    assert at_49["0.5"] < at_49["1.0"]  # the smaller gain vanishes faster
    assert at_49["1.5"] < at_49["2.0"] < at_49["3.0"] and at_49["2.0"] < at_1["2.0"]  # 2.0 shrinks, less than 1.5
    assert at_49["3.0"] > at_1["3.0"]  # gain 3.0 grows


def why_kernel_5(run):
    rows = {row["sequence length n"]: row for row in run.table("path_steps")}
    for n in (7, 64, 512):
        row = rows[str(n)]
        assert abs(number(row["CNN, k = 5: layers"]) - n / 4) <= 1.5  # about a quarter of the positions
        assert number(row["dilated CNN, k = 5: layers"]) == int(np.ceil(np.log(n) / np.log(5) - 1e-12))


def backward_no_scale(run):
    assert run.values["max_rel_error"] > 0.1  # order 1, not 1e-9
    # only dq and dk: the scale reaches dv through the weights, which the forward pass still gets right
    rows = run.tables["errors"]["rows"]
    header = run.tables["errors"]["header"]
    for name, bound in (("dq", lambda e: e > 0.1), ("dk", lambda e: e > 0.1), ("dv", lambda e: e < 1e-8)):
        errors = [float(row[header.index(f"rel. error {name}")]) for row in rows]
        assert all(bound(e) for e in errors), (name, errors)


def mha_four_heads(run):
    assert run.values["wrong_rows_misplaced"] != published("multi_head/split_merge")["wrong_rows_misplaced"]
    assert run.values["head_rows"] == 4 * 7 and run.values["wrong_rows_misplaced"] > 0


def mha_other_sizes(run):
    assert run.values["paper_d_model"] == 1024 and run.values["paper_h"] == 16
    assert run.values["paper_max_error"] < 1e-12 and run.values["paper_slice_error"] < 1e-12


def online_one_tile(run):
    rows = run.table("peaks")
    ratios = [number(b["tiled (KiB)"]) / number(a["tiled (KiB)"]) for a, b in zip(rows[-3:], rows[-2:])]
    assert min(ratios) > 3  # doubling L quadruples the tiled peak: quadratic
    assert not run.values["tiled_extra_is_constant"]


def online_block_1(run):
    assert run.values["block"] == 1 and run.values["softmax_max_error"] < 1e-15


def layer_fourth_sentence(run):
    assert (
        run.values["batch_size"] == 4 and run.values["padded_length"] > published("full_layer/batch")["padded_length"]
    )
    assert run.values["max_pad_weight"] == 0.0 and run.values["alone_max_error"] < 1e-12


def layer_pad_row(run):
    assert run.values["max_pad_weight"] == 0.0 and run.values["alone_max_error"] < 1e-12
    assert run.values["core_max_error"] < 1e-12


def kv_more_heads(run):
    assert run.values["n_heads"] == 4 and run.values["same_tokens"]
    assert run.values["max_error_vs_full"] < 1e-12 and run.values["max_weight_error"] < 1e-12


def window_reach_4(run):
    assert run.values["window"] == 4 and run.values["reach_is_layers_times_window_minus_one"]
    rows = run.table("reach")
    assert [int(r["farthest input back"]) for r in rows] == [n * 3 for n in range(1, len(rows) + 1)]
    assert all(r["farthest input back"] == r["layers x (window - 1)"] for r in rows)


def window_as_causal(run):
    assert run.values["window"] == run.values["n_tokens"] == 7
    assert run.values["keys_per_row"] == list(range(1, 8)) and run.values["last_causal_weight_outside"] == 0.0
    assert run.values["first_rows_equal_causal"]  # all 7 rows: the two heatmaps are the same


def blocks_select_all(run):
    assert run.values["n_selected"] == 32 and run.values["last_selected"] == run.values["length"] == 512
    rows = {r["branch"]: r for r in run.table("branches")}
    assert float(rows["selected"]["output error vs full, mean"]) == 0.0


def cross_no_padding(run):
    assert run.values["l_k"] == run.values["source_2_length"] == 7 and "<pad>" not in run.values["source_2"]
    assert run.values["first_query_sees_whole_source"] and run.values["rows_sum_to_one"]
    assert run.values["min_weight"] > 0


def train_other_seed(run, tmp_path, edits):
    assert run.values["final_loss"] != published("training/reference")["final_loss"]  # another seed, other numbers
    again = run_edited(edits, "snippets/training/reference.py", tmp_path / "again")
    assert again.stdout == run.stdout and again.values == run.values  # the same seed, the same numbers


def rope_target_8192(run):
    assert run.values["scale"] == 2 and run.values["unseen_pi"] == 0
    assert run.values["unseen_none"] == published("rotary/stretch")["unseen_none"]


def rope_d_k_128(run):
    assert run.values["max_spread"] < 1e-8 * run.values["score_scale"]
    assert 0.9 < run.values["random_far_ratio"] < 1.1


def yarn_s_8(run):
    assert round(run.values["factor_right"], 3) == 1.459 and round((0.1 * np.log(8) + 1), 3) == 1.208
    assert run.values["factor_right"] == (0.1 * np.log(8) + 1) ** 2


def kv_heads_more_alike(run):
    before = published("kv_heads/mean_pool")
    assert 0 < run.values["copies_1"] < before["copies_1"]
    assert run.values["independent_1"] == before["independent_1"]


def kv_heads_latent_2(run):
    assert run.values["latent_width"] == 2
    assert (
        run.values["score_error"] < 1e-12 and run.values["out_error"] < 1e-12 and run.values["decoupled_error"] < 1e-12
    )


def sink_takes_all(run):
    sums = next(line for line in run.stdout.splitlines() if line.startswith("each row's sum, head 1:"))
    assert [float(x) for x in sums.partition(":")[2].strip(" []").split()] == [0.0] * 4  # "print as [0. 0. 0. 0.]"
    assert run.values["row_sum_first_head1"] < 1e-6  # every weight going to the sink
    assert run.values["row_sum_first"] == published("attention_sinks/identities")["row_sum_first"]  # head 0 as before
    assert run.values["largest_identity_gap"] < 1e-12


def delta_softmax_blunt(run):
    assert run.values["sharpness"] == 1.0
    assert run.values["softmax_recall_min"] < 1.0  # softmax attention no longer recalls every pair
    curves = run.values["recall_curves"]
    assert all(curves[f"softmax_{d_k}"][-1] < 1.0 for d_k in run.values["d_ks"])  # at the largest n, every d_k
    assert published("delta_rule/recall")["softmax_recall_min"] == 1.0  # as published, it did


def delta_no_gate(run):
    assert run.values["bug_read_first_gated"] == 0.0  # reading before the decay is no longer a mistake
    assert run.values["largest_identity_gap"] < 1e-12  # every identity still holds
    assert run.values["bug_no_carry"] > 0.1  # the other mistake still is one


CHECKS = {
    "pe-matrix-power": pe_matrix_power,
    "pe-d-model-64": pe_d_model_64,
    "order-swap-the": order_swap_the,
    "tokens-the-the-the": tokens_the_the_the,
    "tokens-keep-case": tokens_keep_case,
    "weighted-mat-row": weighted_mat_row,
    "weighted-no-mask": weighted_no_mask,
    "why-more-gains": why_more_gains,
    "why-kernel-5": why_kernel_5,
    "backward-no-scale": backward_no_scale,
    "mha-four-heads": mha_four_heads,
    "mha-other-sizes": mha_other_sizes,
    "online-one-tile": online_one_tile,
    "online-block-1": online_block_1,
    "layer-fourth-sentence": layer_fourth_sentence,
    "kv-more-heads": kv_more_heads,
    "layer-pad-row": layer_pad_row,
    "train-other-seed": train_other_seed,
    "sdpa-sigma-2": lambda run: None,  # the code block asserts what the page says
    "rope-target-8192": rope_target_8192,
    "rope-d-k-128": rope_d_k_128,
    "yarn-s-8": yarn_s_8,
    "kv-heads-more-alike": kv_heads_more_alike,
    "kv-heads-latent-2": kv_heads_latent_2,
    "window-reach-4": window_reach_4,
    "window-as-causal": window_as_causal,
    "cross-no-padding": cross_no_padding,
    "sink-takes-all": sink_takes_all,
    "blocks-select-all": blocks_select_all,
    "delta-softmax-blunt": delta_softmax_blunt,
    "delta-no-gate": delta_no_gate,
}


@pytest.mark.parametrize("page, marker, edits, run", markers(), ids=lambda x: x if isinstance(x, str) else "")
def test_the_page_instruction_does_what_the_page_says(page, marker, edits, run, tmp_path):
    result = run_edited(edits, run, tmp_path / "first")
    if marker == "train-other-seed":  # determinism: run the edited snippet a second time
        train_other_seed(result, tmp_path, edits)
    else:
        CHECKS[marker](result)


def test_every_instruction_has_a_marker_and_every_marker_a_check():
    ids = [marker for _, marker, _, _ in markers()]
    assert len(ids) == len(set(ids)), "two markers share an id"
    assert set(ids) == set(CHECKS), (
        f"markers without a check: {set(ids) - set(CHECKS)}; checks without a marker: {set(CHECKS) - set(ids)}"
    )
    for page in nonempty_glob(DOCS, "*.md"):
        for section in CHECK_SECTION.finditer(page.read_text(encoding="utf-8")):
            # a paragraph that introduces a code block is covered by running that block (test below)
            text = re.sub(r"\n\n```python.*?```", " <!-- try code -->", section.group(0), flags=re.DOTALL)
            blocks = re.split(r"\n(?=- )|\n\n", text)
            for block in blocks:
                if EDIT_VERB.search(block.split("<!--")[0]) and "<!-- try " not in block:
                    pytest.fail(f"{page.name}: an instruction with no <!-- try --> marker:\n{block.strip()}")


CODE_BLOCKS = [
    (page.name, i, block)
    for page in nonempty_glob(DOCS, "*.md")
    for section in CHECK_SECTION.finditer(page.read_text(encoding="utf-8"))
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", section.group(0), re.DOTALL))
]


@pytest.mark.parametrize(
    "page, index, code", CODE_BLOCKS, ids=lambda x: x if isinstance(x, str) and len(x) < 40 else ""
)
def test_the_code_of_a_check_section_runs(page, index, code):
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO / "snippets", capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{page}, code block {index}:\n{result.stderr[-2000:]}"
