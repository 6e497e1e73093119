"""Claims about induction heads: each verdict against the three seeds' runs of docs/induction-heads.md."""

from support import claim, kind, v

SEEDS = ("induction_heads/seed_0", "induction_heads/seed_1", "induction_heads/seed_2")


@claim("G-32")
def test_g21_one_layer_forms_no_induction_head_and_layer_0_is_needed():
    for seed in SEEDS:
        assert v(seed, "one_layer_induction") < 0.5 * v(seed, "induction_score")
        assert v(seed, "ablate_layer0") < 0.4 * v(seed, "repeat_accuracy")
    assert kind("G-32") == "holds"


@claim("G-33")
def test_g22_the_induction_score_rises_fast_after_a_plateau():
    steps = v("induction_heads/task", "steps")
    for seed in SEEDS:
        share_of_steps = v(seed, "jump_window") / steps
        assert v(seed, "jump_gain_share") > 2.5 * share_of_steps and v(seed, "jump_loss_share") > 2 * share_of_steps
        assert v(seed, "jump_start") >= 100
        assert v(seed, "jump_gain_share") < 0.9  # not a single step: most of the rise lies outside the window
    assert kind("G-33") == "holds only when"


@claim("G-34")
def test_g23_copy_accuracy_is_reached_without_an_induction_head():
    for seed in SEEDS:
        assert v(seed, "shortcut_own_accuracy") > 0.98 and v(seed, "shortcut_previous") < 0.2
        assert v(seed, "shortcut_random_accuracy") < 0.3
    assert kind("G-34") == "does not hold"
