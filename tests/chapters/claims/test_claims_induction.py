"""Claims about induction heads: each verdict against the three seeds' runs of docs/induction-heads.md."""

from support import INVENTORY, claim, kind, v

SEEDS = ("induction_heads/seed_0", "induction_heads/seed_1", "induction_heads/seed_2")


@claim("G-32")
def test_g32_one_layer_forms_no_induction_head_and_layer_0_is_needed():
    for seed in SEEDS:
        assert v(seed, "one_layer_induction") < 0.5 * v(seed, "induction_score")
        assert v(seed, "ablate_layer0") < 0.4 * v(seed, "repeat_accuracy")
    assert kind("G-32") == "holds only when"  # measured only where each key sees its own token
    assert "own position" in INVENTORY["G-32"].condition


@claim("G-33")
def test_g33_one_window_holds_several_times_its_share_of_the_rise():
    steps = v("induction_heads/task", "steps")
    for seed in SEEDS:
        share_of_steps = v(seed, "jump_window") / steps
        assert v(seed, "jump_gain_share") > 2.5 * share_of_steps and v(seed, "jump_loss_share") > 2 * share_of_steps
        assert v(seed, "jump_start") >= 100
        assert v(seed, "jump_gain_share") < 0.5  # most of the rise lies outside the window
    assert kind("G-33") == "holds only when"
    row = INVENTORY["G-33"]
    assert "plateau" not in row.condition + row.evidence  # a plateau is shown for seed 0 only


@claim("G-34")
def test_g34_copy_accuracy_is_reached_by_position_without_an_induction_head():
    for seed in SEEDS:
        assert v(seed, "shortcut_own_accuracy") > 0.98 and v(seed, "shortcut_previous") < 0.2
        assert v(seed, "shortcut_random_accuracy") < 0.3
    # it does copy from the context, by position: what copy accuracy does not show is matching by content
    assert kind("G-34") == "holds only when" and "content" in INVENTORY["G-34"].condition
