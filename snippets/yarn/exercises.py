"""The YaRN chapter's exercises: each answer, and the result of each usual mistake made in code.

On the chapter's configurations (DeepSeek-V3's rotary part: d 64, base 10,000, trained on 4,096 positions, s 40,
beta_fast 32, beta_slow 1, bounds rounded): the turns one pair makes in the trained context; what YaRN does to the
frequency of a pair on the ramp; where the ramp starts with another beta_fast; and the temperature's factor on the
scores for another stretch. Every value prints.
"""

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.exercises import exercise
from lib.publish import value
from lib.yarn import (
    buggy_temperature_twice,
    get_mscale,
    pair_where,
    ramp_bounds,
    score_multiplier,
    turns_in_context,
    yarn_frequencies,
)

d, base, context, s, fast, slow = 64, 10000.0, 4096, 40.0, 32.0, 1.0  # DeepSeek-V3's rotary part
value("d", d)
value("base", base, "{:,.0f}")
value("context", context, "{:,}")
value("fast", fast, "{:g}")

# Exercise 1: how many full turns pair 12 makes in the 4,096 trained positions.
pair = 12
value("turns_pair", pair)
theta = base ** (-2 * pair / d)  # radians per position
value("turns_theta", theta, "{:.5f}")
exercise("turns", float(turns_in_context(d, base, context)[pair]), "{:.1f}", mistakes={
    "no_two_pi": float(context * theta),  # radians counted as turns
    "exponent_i_over_d": float(turns_in_context(2 * d, base, context)[pair]),  # theta_i = base^(-i/d)
})

# Exercise 2: pair 16 is on the ramp; its YaRN frequency divided by its trained one.
mixed_pair = 16
value("ratio_pair", mixed_pair)
trained = base ** (-np.arange(0, d, 2) / d)  # (d/2,)
low, high = ramp_bounds(d, base, context, fast, slow)
value("low", low)
value("high", high)
gamma = 1 - (mixed_pair - low) / (high - low)  # the share left as trained
value("gamma", gamma, "{:.4f}")
ratio = yarn_frequencies(d, base, s, context, fast, slow) / trained  # (d/2,)
swapped = gamma / s + (1 - gamma)  # gamma taken as the share divided by s
gamma_turns = np.clip((turns_in_context(d, base, context) - slow) / (fast - slow), 0.0, 1.0)  # the ramp on the turns
paper_ramp = (1 - gamma_turns) / s + gamma_turns  # (d/2,): eq. 18 and 20, not the code's ramp on the index
exercise("ratio", float(ratio[mixed_pair]), "{:.3f}", mistakes={
    "gamma_swapped": float(swapped),
    "ramp_on_turns": float(paper_ramp[mixed_pair]),
})

# Exercise 3: where the ramp starts (rounded down) if beta_fast were 16 instead of 32.
other_fast = 16.0
value("other_fast", other_fast, "{:g}")
value("start_unrounded", pair_where(other_fast, d, base, context), "{:.2f}")
exercise("ramp_start", ramp_bounds(d, base, context, other_fast, slow)[0], mistakes={
    "rounded_up": math.ceil(pair_where(other_fast, d, base, context)),
    "no_two_pi": math.floor(d * math.log(context / other_fast) / (2 * math.log(base))),  # turns taken as radians
})

# Exercise 4: the factor the temperature puts on the scores when 4,096 trained positions are stretched to 65,536.
stretched = 65536
value("stretched", stretched, "{:,}")
factor = stretched / context
value("factor", factor, "{:g}")
value("sqrt_inv_t", get_mscale(factor), "{:.4f}")
exercise("score_factor", score_multiplier(factor), "{:.3f}", mistakes={
    "not_squared": get_mscale(factor),  # sqrt(1/t) on the scores, as if only q were scaled
    "twice": buggy_temperature_twice(factor),  # in the rotary embedding and again in the softmax scale
    "log10": (0.1 * math.log10(factor) + 1.0) ** 2,  # ln read as a base-10 logarithm
})
