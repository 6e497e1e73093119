"""The trainable model of "Learning to attend": its gradient, its optimiser, its data, and the page's numbers.

The gradient is checked with finite differences written here; Adam against its closed-form first step;
the position-blind bound by simulation (the snippet computes it exactly). Numbers the page states are
read from docs/generated/training/<what>/values.json.
"""

import math
import re

import numpy as np
import pytest

from lib.debug_tools import numeric_gradient, relative_error
from lib.tiny_model import (
    ANIMALS,
    NOBODY,
    REFERENCE_VOCAB,
    Adam,
    backward,
    cross_entropy,
    forward,
    init_params,
    reference_batch,
    reverse_batch,
    train,
)
from scripts.pipeline.references import read_page
from support import REPO, flat_page, nonempty_glob, published, published_table

ANIMAL_IDS = {REFERENCE_VOCAB.index(a) for a in ANIMALS}


def loss_of(params, batch, **options):
    tokens, query_pos, mask, targets, _ = batch
    logits, _, _ = forward(params, tokens, query_pos, mask, **options)
    return cross_entropy(logits, targets)[0]


@pytest.mark.parametrize(
    "task, options",
    [
        ("reference", {}),
        ("reference", {"scaled": False}),
        ("reference", {"positions": False}),
        ("reverse", {}),
        ("reverse", {"positions": False, "scaled": False}),
    ],
)
@pytest.mark.claim(
    "The tiny model's hand-written gradient matches central finite differences for every parameter",
    zh="对每个参数，小模型手写的梯度都与中心有限差分一致",
)
def test_model_gradient_matches_finite_differences(task, options):
    rng = np.random.default_rng(7)
    if task == "reference":
        batch, vocab_size = reference_batch(rng, 5), len(REFERENCE_VOCAB)
    else:
        batch, vocab_size = reverse_batch(rng, 3, length=5, n_symbols=7), 7
    params = init_params(vocab_size, d_model=6, d_k=4, seed=3)
    tokens, query_pos, mask, targets, _ = batch
    logits, _, cache = forward(params, tokens, query_pos, mask, **options)
    grads = backward(params, cross_entropy(logits, targets)[1], cache)
    for name, p in params.items():
        numerical = numeric_gradient(lambda x: loss_of({**params, name: x}, batch, **options), p, 1e-5)
        error = relative_error(numerical, grads[name], euclidean=True)
        assert error < 1e-7, f"{name}: relative error {error:.2e}"


def test_cross_entropy_matches_its_definition():
    rng = np.random.default_rng(8)
    logits = rng.normal(size=(3, 2, 5)) * 4
    targets = rng.integers(5, size=(3, 2))
    loss, grad = cross_entropy(logits, targets)
    probs = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    expected = -np.mean([np.log(probs[b, i, targets[b, i]]) for b in range(3) for i in range(2)])
    assert loss == pytest.approx(expected, rel=1e-13)
    one_hot = np.eye(5)[targets]
    np.testing.assert_allclose(grad, (probs - one_hot) / 6, atol=1e-15)


@pytest.mark.claim(
    "The first Adam step moves every parameter by lr against the sign of its gradient; decay then shrinks it by 1 - "
    "lr * decay",
    zh="Adam 的第一步把每个参数沿其梯度符号的反方向移动 lr；权重衰减再把它乘以 1 - lr * decay",
)
def test_adam_first_step_is_signed_learning_rate():
    rng = np.random.default_rng(9)
    params = {"w": rng.normal(size=(4, 3))}
    start = params["w"].copy()
    grads = {"w": rng.normal(size=(4, 3))}
    Adam(params, lr=0.01, weight_decay=0.0).step(params, grads)
    np.testing.assert_allclose(params["w"], start - 0.01 * np.sign(grads["w"]), atol=1e-8)
    params = {"w": start.copy()}
    Adam(params, lr=0.01, weight_decay=0.5).step(params, grads)
    np.testing.assert_allclose(params["w"], (start - 0.01 * np.sign(grads["w"])) * (1 - 0.01 * 0.5), atol=1e-8)


@pytest.mark.claim(
    "In the reference task the answer is the only animal of the sentence, at 7 different positions, "
    "one sentence in five has no animal (answer: nobody), and the query is the last word",
    zh="在指代任务中，答案是句子里唯一的动物，出现在 7 "
    "个不同的位置；每五个句子中有一个没有动物（答案：nobody）；查询是最后一个词",
)
def test_reference_sentences():
    tokens, query_pos, mask, targets, answer_pos = reference_batch(np.random.default_rng(10), 4000)
    one = REFERENCE_VOCAB.index("one")
    lengths = mask[:, 0].sum(axis=-1)
    assert (tokens[np.arange(4000), query_pos[:, 0]] == one).all()
    assert (query_pos[:, 0] == lengths - 1).all()
    assert (tokens[~mask[:, 0]] == REFERENCE_VOCAB.index("<pad>")).all() and (tokens[mask[:, 0]] != 0).all()
    n_animals = np.isin(tokens, list(ANIMAL_IDS)).sum(axis=1)
    has = answer_pos[:, 0] >= 0
    assert (n_animals == has).all()  # exactly one animal, or none
    assert (tokens[has, answer_pos[has, 0]] == targets[has, 0]).all()
    assert (targets[~has, 0] == REFERENCE_VOCAB.index(NOBODY)).all()
    assert 0.17 < np.mean(~has) < 0.23
    assert len(set(answer_pos[has, 0])) == 7 and set(targets[has, 0]) == ANIMAL_IDS
    # the answer is not fixed by the position: every animal position holds several different animals
    for position in set(answer_pos[has, 0]):
        assert len(set(targets[has & (answer_pos[:, 0] == position), 0])) == len(ANIMALS)


def test_reverse_sequences():
    tokens, query_pos, mask, targets, answer_pos = reverse_batch(np.random.default_rng(11), 50, length=8)
    assert mask is None
    np.testing.assert_array_equal(targets, tokens[:, ::-1])
    np.testing.assert_array_equal(np.take_along_axis(tokens, answer_pos, axis=1), targets)


@pytest.mark.claim(
    "Without positional encoding the model is permutation-equivariant: shuffling the input shuffles its outputs",
    zh="没有位置编码时，模型是置换等变的：打乱输入就会以同样方式打乱其输出",
)
def test_without_positions_outputs_follow_a_permutation():
    rng = np.random.default_rng(12)
    params = init_params(10, d_model=8, d_k=8, seed=0)
    for p in params.values():
        p += rng.normal(size=p.shape) * 0.3  # not just the initial weights
    tokens, query_pos, mask, _, _ = reverse_batch(rng, 20)
    permutation = rng.permutation(8)
    logits, _, _ = forward(params, tokens, query_pos, mask, positions=False)
    shuffled, _, _ = forward(params, tokens[:, permutation], query_pos, mask, positions=False)
    np.testing.assert_allclose(shuffled, logits[:, permutation], atol=1e-12)
    with_pe, _, _ = forward(params, tokens[:, permutation], query_pos, mask, positions=True)
    assert not np.allclose(with_pe, forward(params, tokens, query_pos, mask, positions=True)[0][:, permutation])


@pytest.mark.claim(
    "No position-blind model can reverse 8 random digits with accuracy above about 0.317",
    zh="任何不知道位置的模型在反转 8 个随机数字时，准确率都无法超过约 0.317",
)
def test_position_blind_bound_by_simulation():
    """Simulate the best position-blind guess: the most frequent digit among the other seven."""
    rng = np.random.default_rng(13)
    others = rng.integers(10, size=(400_000, 7))
    counts = np.apply_along_axis(np.bincount, 1, others, minlength=10)  # (n, 10)
    simulated = np.mean(counts.max(axis=1) / 7)
    assert published("training/reverse")["position_blind_best"] == pytest.approx(simulated, abs=2e-3)
    assert simulated == pytest.approx(0.317, abs=2e-3)


def test_training_is_deterministic():
    runs = []
    for _ in range(2):
        params = init_params(len(REFERENCE_VOCAB), 8, 8, seed=4)
        train(params, lambda rng: reference_batch(rng, 16), 30, np.random.default_rng(4))
        runs.append(params)
    for name in runs[0]:
        np.testing.assert_array_equal(runs[0][name], runs[1][name])


@pytest.mark.claim(
    "After training, the head's largest weight lands on the animal in more than 95% of the sentences that have one",
    zh="训练后，在含有动物的句子中，超过 95% 的句子里头的最大权重落在该动物上",
)
def test_reference_attention_accuracy_above_095():
    values = published("training/reference")
    assert values["final_attention_accuracy"] > 0.95
    assert values["final_accuracy"] > 0.95
    assert values["start_attention_accuracy"] < 0.3
    assert values["final_loss"] < 0.1 * values["start_loss"]
    assert values["dip_attention_accuracy"] < values["start_attention_accuracy"]  # it first gets worse ...
    assert abs(values["accuracy_at_dip"] - values["nobody_share"]) < 0.03  # ... while it answers "nobody"
    assert values["step_attention_above_95"] < values["steps"] / 5
    assert values["nobody_on_object"] > 0.5  # without an animal, "one" looks mostly at an object


@pytest.mark.claim(
    "Five seeds with weight decay all end above 0.95 attention accuracy; without decay at least one stalls, "
    "with an animal that gets almost no weight",
    zh="使用权重衰减时，五个生成器种子最终的注意力准确率都高于 "
    "0.95；不用权重衰减时至少有一个停滞不前，动物几乎得不到权重",
)
def test_seeds():
    values = published("training/seeds")
    assert values["min_with_decay"] > 0.95 and values["stalled_with_decay"] == 0
    assert values["stalled_without_decay"] >= 1 and values["min_without_decay"] < 0.95
    assert values["max_weight_on_lost"] < 0.01  # the animal that is never found gets almost no weight


@pytest.mark.claim(
    "Reversing needs positions: with positional encoding accuracy and attention accuracy exceed 0.95; "
    "without, accuracy stays at the position-blind bound and attention accuracy near chance",
    zh="反转需要位置信息：有位置编码时，准确率和注意力准确率都超过 "
    "0.95；没有时，准确率停留在不知道位置的模型的上限，注意力准确率接近随机水平",
)
def test_reverse_ablation():
    values = published("training/reverse")
    assert values["final_accuracy_pe"] > 0.95 and values["final_attention_accuracy_pe"] > 0.95
    assert abs(values["final_accuracy_no_pe"] - values["position_blind_best"]) < 0.03
    assert values["final_attention_accuracy_no_pe"] < 0.3
    assert values["self_weight_no_pe"] < values["other_weight_no_pe"]
    assert values["final_attention_accuracy_pe"] > 0.95 and values["target_weight_pe"] > 0.5


@pytest.mark.claim(
    "At d_k = 512, without the 1/sqrt(d_k) the weights start nearly one-hot and every unscaled run ends below every "
    "scaled run",
    zh="d_k 为 512 时，去掉 1/sqrt(d_k) 的权重一开始就接近独热，且每次不缩放的运行最终都低于每次缩放的运行",
)
def test_scaling_ablation():
    values = published("training/scaling")
    assert values["d_k"] == 512
    assert values["start_top_weight_unscaled"] > 0.9 > 0.5 > values["start_top_weight_scaled"]
    assert values["start_median_grad_unscaled"] < 0.1 * values["start_median_grad_scaled"]
    assert values["final_attention_unscaled_max"] < values["final_attention_scaled_min"]
    assert values["final_attention_unscaled_mean"] < 0.8 < values["final_attention_scaled_mean"]
    assert 1 <= values["unscaled_improving"] <= values["n_seeds"]  # slower, but not all stuck
    assert values["unscaled_longest_plateau"] >= 100


@pytest.mark.claim(
    "The chapter's whole-model finite-difference check reports a relative error below 1e-7",
    zh="本章对整个模型的有限差分检验报告的相对误差低于 1e-7",
)
def test_published_model_gradcheck():
    assert published("training/gradcheck")["max_rel_error"] < 1e-7


def test_the_gradient_check_counts_two_small_models_twice():
    """n_checked adds up each case's parameters (d_model = 8, d_k = 6; V = 37 words or 10 symbols): each task's
    small model twice, all smaller than the model the page trains on the reference task."""
    rows = published_table("training/gradcheck", "errors")

    def size(vocab):  # embed (V, 8), w_q and w_k (8, 6), w_v (8, 8), w_o (8, V), b_o (V,)
        return vocab * 8 + 2 * 8 * 6 + 8 * 8 + 8 * vocab + vocab

    vocab = published("training/reference")["vocab_size"]
    expected = {"reference": size(vocab), "reverse": size(10)}  # reverse.py: N_SYMBOLS = 10
    assert [row["case"].split()[0] for row in rows] == ["reference", "reference", "reverse", "reverse"]
    values = published("training/gradcheck")
    assert (values["n_reference"], values["n_reverse"]) == (expected["reference"], expected["reverse"])
    assert values["n_checked"] == 2 * (expected["reference"] + expected["reverse"])
    assert expected["reference"] < published("training/reference")["n_parameters"]


@pytest.mark.claim(
    "The checkpoint figures' alt texts are generated from the plotted weights: at step 0 several rows already "
    "put 0.45 or more on one word, so 'spread thin' would be false",
    zh="检查点图的替代文本由所绘制的权重生成：在第 0 步就已有好几行在一个词上放了 0.45 "
    "或更多的权重，所以“分散得很薄”的说法是错的",
)
def test_checkpoint_alt_texts_quote_the_plotted_numbers():
    page = (REPO / "docs" / "training.md").read_text(encoding="utf-8")
    alts = {(figure.snippet, figure.name): figure.alt for figure in read_page(page).figures}
    for snippet in ("training/reference", "training/reverse"):
        assert (snippet, "checkpoint_description") in read_page(alts[snippet, "checkpoints"]).values
    description = published("training/reference")["checkpoint_description"]
    step0 = re.search(r"At step 0 .*? ranges from ([0-9.]+) to ([0-9.]+)\.", description)
    assert float(step0.group(2)) >= 0.45  # not "spread thin"
    final = re.search(r"At step 600 the animals get (.*?);", description).group(1)
    assert all(float(part.split()[1]) > 0.9 for part in final.split(", "))  # every animal near 1 at the end


def test_reverse_checkpoint_description_matches_the_published_weights():
    values = published("training/reverse")
    description = values["checkpoint_description"]
    assert f"{values['target_weight_pe']:.2f} at step {values['steps']}" in description
    assert f"main diagonal averages {values['self_weight_no_pe']:.3f}" in description


@pytest.mark.parametrize("snippet", ["training/reference", "training/reverse"])
def test_the_chinese_descriptions_quote_the_same_numbers(snippet):
    """The Chinese page's alt texts come from the same run: the same numbers, in the same order."""
    values = published(snippet)
    number = re.compile(r"\d+\.\d+")
    assert number.findall(values["checkpoint_description_zh"]) == number.findall(values["checkpoint_description"])
    chinese = (REPO / "docs-zh" / "training.md").read_text(encoding="utf-8")
    assert (snippet, "checkpoint_description_zh") in read_page(chinese).values


@pytest.mark.claim(
    "Without the scale every run ends behind every scaled run in accuracy and attention accuracy, "
    "but not in loss: the best unscaled loss is below the worst scaled one, as the page says",
    zh="不缩放时，每次运行最终的准确率和注意力准确率都落后于每次缩放的运行，但损失并非如此：不缩放的最佳损失低于缩放的最差损失，与页面所述一致",
)
def test_unscaled_runs_trail_in_accuracy_but_overlap_in_loss():
    rows = published_table("training/scaling", "final")
    group = {name: [r for r in rows if r["attention"] == name] for name in ("scaled", "unscaled")}
    for column in ("accuracy", "attention accuracy"):
        assert max(float(r[column]) for r in group["unscaled"]) < min(float(r[column]) for r in group["scaled"])
    # the old alt text ("the loss falls further for the scaled runs") and "every ... behind every" in loss fail here
    assert min(float(r["loss"]) for r in group["unscaled"]) < max(float(r["loss"]) for r in group["scaled"])
    page = flat_page("training.md")
    assert "falls further for the scaled runs" not in page
    assert "the final losses of the two groups overlap" in page
    assert (
        "every unscaled run is behind every scaled run in attention accuracy and in accuracy. In loss they overlap"
        in page
    )


@pytest.mark.claim(
    "After the attention accuracy first reaches 0.95 it stays at 1.000 at every later evaluation, as "
    "the reference curve's alt text says",
    zh="注意力准确率首次达到 0.95 之后，在之后的每次评估中都保持在 1.000，与参考曲线的替代文本所述一致",
)
def test_reference_attention_accuracy_stays_at_one_after_crossing():
    values = published("training/reference")
    assert values["attention_min_after_95"] == 1.0
    assert values["step_attention_at_1"] == values["step_attention_above_95"]


@pytest.mark.claim(
    "Without positions, every position gives itself less weight than it gives each other position "
    "(the largest self weight is below the smallest other weight), as 'than each of the others' says",
    zh="没有位置信息时，每个位置给自己的权重都小于给其他每个位置的权重（最大的自身权重低于最小的其他权重），与页面上“比给其余每个位置的都小”的说法一致",
)
def test_reverse_self_weight_is_below_every_other_weight():
    values = published("training/reverse")
    assert values["self_weight_max_no_pe"] < values["other_weight_min_no_pe"]
    assert values["self_weight_no_pe"] <= values["self_weight_max_no_pe"]


def test_reverse_own_position_gets_far_less_weight_not_a_little():
    """The caption quotes the diagonal against the other cells: about a third less (the old caption: "a little less
    weight")."""
    values = published("training/reverse")
    assert values["self_weight_no_pe"] < 0.8 * values["other_weight_min_no_pe"]
    assert "a little less weight" not in flat_page("training.md")


def test_reverse_neighbours_get_most_not_all_of_the_rest():
    """The page: the right key's two neighbours get a share of the rest of the weight, most of it but not all (the
    old page said "the neighbours get the rest")."""
    values = published("training/reverse")
    assert 0.5 < values["neighbour_share_pe"] < 0.95


def test_reverse_without_positions_a_query_gives_keys_with_its_own_digit_less_weight():
    """The caption: without positional encoding the main diagonal (the query's own position, which always holds its
    digit) gets less weight than every other cell, and averaged over the sequences the other cells get the same weight
    to within 0.01 (the old caption: no position can be told apart)."""
    values = published("training/reverse")
    assert values["self_weight_max_no_pe"] < values["other_weight_min_no_pe"] - 0.02
    described = re.search(r"between (\d\.\d+) and (\d\.\d+)", values["checkpoint_description"])
    assert float(described[2]) - float(described[1]) < 0.01


def test_the_stalled_runs_are_shown_only_at_their_end():
    """The seeds table lists each run's final numbers only (no column over steps), so the page says an animal is
    "not found at the end of training", not "never found", and calls the starved gradient a likely reason."""
    header = list(published_table("training/seeds", "seeds")[0])
    assert not any("step" in column for column in header), header
    text = flat_page("training.md")
    assert "not found at the end of training" in text and "is never found" not in text


def test_every_training_run_uses_adam():
    """No run on the page uses another optimiser, so that Adam lets the unscaled runs learn is a likely reason, not a
    measured one (the old page: "Adam softens the blow")."""
    for snippet in nonempty_glob(REPO / "snippets" / "training", "*.py"):
        code = snippet.read_text(encoding="utf-8")
        assert "SGD" not in code and "sgd" not in code, snippet.name
    assert "class Adam" in (REPO / "snippets" / "lib" / "tiny_model.py").read_text(encoding="utf-8")
    assert "which we did not measure (no run here uses another optimiser)" in flat_page("training.md")


# ---------------------------------------------------------------- exercises
EXERCISES = "training/exercises"


def test_exercise_n_parameters_by_the_shapes():
    ex, reference = published(EXERCISES), published("training/reference")
    vocab, d, d_k = reference["vocab_size"], reference["d_model"], published("training/scaling")["d_k"]
    shapes = {"embed": vocab * d, "w_q": d * d_k, "w_k": d * d_k, "w_v": d * d, "w_o": d * vocab, "b_o": vocab}
    assert {name: ex[f"size_{name}"] for name in shapes} == shapes
    assert ex["n_parameters"] == sum(shapes.values())
    assert shapes["w_q"] + shapes["w_k"] > ex["n_parameters"] / 2  # "most of them in W_q and W_k"
    assert ex["n_parameters__no_bias"] == sum(shapes.values()) - vocab
    assert ex["n_parameters__d_v_is_d_k"] == vocab * d + 3 * d * d_k + d_k * vocab + vocab


def test_exercise_logit_gradient_in_closed_form():
    ex, reference = published(EXERCISES), published("training/reference")
    vocab, batch = reference["vocab_size"], reference["batch"]
    assert ex["uniform_probability"] == pytest.approx(1 / vocab, rel=1e-12)
    assert ex["logit_gradient"] == pytest.approx((1 / vocab - 1) / batch, rel=1e-12)
    assert ex["logit_gradient__not_divided"] == pytest.approx(1 / vocab - 1, rel=1e-12)
    assert ex["logit_gradient__wrong_sign"] == pytest.approx((1 - 1 / vocab) / batch, rel=1e-12)
    assert ex["logit_gradient__p_forgotten"] == pytest.approx(-1 / batch, rel=1e-12)


def expected_max_count(n):
    """E[max count] over n uniform digits (n = 3 or 4), from the counts of each pattern of repeats."""
    draws = 10**n
    all_differ = math.perm(10, n)
    all_same = 10
    if n == 3:
        two = draws - all_differ - all_same
        return (all_differ + 2 * two + 3 * all_same) / draws
    three = math.comb(4, 3) * 10 * 9  # three alike and one other
    two = draws - all_differ - all_same - three  # the largest group is a pair (one pair or two)
    return (all_differ + 2 * two + 3 * three + 4 * all_same) / draws


def test_exercise_position_blind_by_counting_patterns():
    ex = published(EXERCISES)
    assert (ex["reverse_digits"], ex["reverse_others"]) == (4, 3)
    assert ex["reverse_expected_max"] == pytest.approx(expected_max_count(3), rel=1e-12)
    assert ex["position_blind"] == pytest.approx(expected_max_count(3) / 3, rel=1e-12)
    assert ex["position_blind__chance"] == pytest.approx(0.1, rel=1e-12)
    assert ex["position_blind__own_digit_counted"] == pytest.approx(expected_max_count(4) / 4, rel=1e-12)
    assert ex["position_blind"] > published("training/reverse")["position_blind_best"]  # "fewer ... more often"


def test_exercise_first_bias_step_in_closed_form():
    ex, reference = published(EXERCISES), published("training/reference")
    lr, decay = reference["lr"], reference["weight_decay"]
    targets = reference_batch(np.random.default_rng(7), 5000)[3]
    assert REFERENCE_VOCAB.index("hungry") not in targets and ex["hungry_gradient"] > 0  # never an answer: g = mean p
    assert ex["first_bias_step"] == pytest.approx(-lr * (1 - lr * decay), rel=1e-5)  # |g| >> eps
    assert ex["first_bias_step__decay_forgotten"] == pytest.approx(-lr, rel=1e-5)
    uncorrected = -lr * 0.1 / math.sqrt(0.001) * (1 - lr * decay)  # m = (1 - beta1) g, v = (1 - beta2) g^2
    assert ex["first_bias_step__no_bias_correction"] == pytest.approx(uncorrected, rel=1e-4)  # eps: 3e-5 of sqrt(v)
    assert 3 < ex["first_bias_step__no_bias_correction"] / ex["first_bias_step"] < 3.5  # "about three times"
    assert ex["first_bias_step__sign_flipped"] == pytest.approx(lr * (1 - lr * decay), rel=1e-5)


def test_exercise_first_bias_step_decaying_the_old_value_first_gives_the_decay_forgotten_result():
    """The feedback says so: b_o starts at zero, so PyTorch's order (decay the old value, then step) decays nothing."""
    ex, reference = published(EXERCISES), published("training/reference")
    lr, decay = reference["lr"], reference["weight_decay"]
    b_o = init_params(reference["vocab_size"], reference["d_model"], reference["d_model"], seed=0)["b_o"]
    old_first = b_o * (1 - lr * decay) - lr  # Adam's first step moves by -lr (|g| >> eps, g > 0)
    assert np.all(b_o == 0)
    assert round(old_first[0], 4) == round(ex["first_bias_step__decay_forgotten"], 4)
    assert round(old_first[0], 4) != round(ex["first_bias_step"], 4)
