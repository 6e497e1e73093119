"""The exercises of "Rotary position embeddings", computed with the chapter's apply_rope, rope_angles and rope_pairs.

Each answer comes from running the code, and so does each usual mistake's result: the mistake is made in code
(the key turned the other way so that the angles add, only the query turned, the half pairing where the question
asks for the adjacent one, the pair turned backwards, the exponent 2i/d written i/d, the wavelength without its
2 pi, the pairs that do turn counted, position interpolation or base x s where the NTK-aware base is asked).
``exercise`` publishes the answer and the mistakes' results; the page quotes them and checks a reader's reply
against them.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import apply_rope, rope_angles, rope_pairs
from lib.exercises import exercise
from lib.publish import value

base = 10000.0

# Exercise 1: a score of rotated two-feature vectors depends on m - n only.
q = k = np.array([[1.0, 0.0]])  # (1, 2): one pair, theta_0 = 1 radian per position
m, n = 5, 3
value("m", m)
value("n", n)
value("offset", m - n)
exercise("offset_score", (apply_rope(q, [m]) @ apply_rope(k, [n]).T).item(), "{:.3f}", mistakes={
    "angles_added": (apply_rope(q, [m]) @ apply_rope(k, [-n]).T).item(),  # the key turned the other way
    "only_query_rotated": (apply_rope(q, [m]) @ k.T).item(),
})

# Exercise 2: one feature of a rotated four-feature vector.
x = np.array([[1.0, 2.0, 3.0, 4.0]])  # (1, 4)
position, feature = 5, 2
value("x", x[0].tolist(), zh=str(x[0].tolist()))  # quoted as code in both editions
value("position", position)
value("feature", feature)
value("theta_1", rope_angles([1.0], 4, base)[0, 1], "{:.2f}")
value("angle", rope_angles([position], 4, base)[0, 1], "{:.2f}")  # pair 1's angle at the position
pair = np.arange(2)  # (d/2,)
wrong_angles = position * base ** (-pair / 4)  # (d/2,): the exponent i/d instead of 2i/d
a, b = x[0, 2], x[0, 3]  # pair 1
exercise("rotated_feature", apply_rope(x, [position])[0, feature], "{:.3f}", mistakes={
    "half_pairing": apply_rope(x, [position], pairing="half")[0, feature],
    "turned_backwards": apply_rope(x, [-position])[0, feature],
    "exponent_without_two": a * np.cos(wrong_angles[1]) - b * np.sin(wrong_angles[1]),
})

# Exercise 3: the wavelength of one pair of a Llama-sized head.
d_head, i = 128, 32
value("d_head", d_head)
value("pair", i)
frequency = rope_angles([1.0], d_head, base)[0]  # (d_head / 2,): radians per position
value("exponent", 2 * i / d_head, "{:g}")
value("theta_pair", frequency[i], "{:g}")
exercise("wavelength", 2 * np.pi / frequency[i], "{:.1f}", mistakes={
    "no_two_pi": 1 / frequency[i],  # positions per radian, not per turn
    "exponent_without_two": 2 * np.pi * base ** (i / d_head),  # base^(i/d) instead of base^(2i/d)
})

# Exercise 4: pairs that never come full circle inside the stretched context of the chapter.
context = 16384  # the target length of snippets/rotary/stretch.py
value("context", context, "{:,}")
wavelengths = 2 * np.pi / frequency  # (d_head / 2,)
first_unturned = int(np.argmax(wavelengths > context))  # wavelengths grow with the pair index
value("first_unturned", first_unturned)
value("first_unturned_wavelength", wavelengths[first_unturned], "{:.0f}")
value("last_turned_wavelength", wavelengths[first_unturned - 1], "{:.0f}")
value("last_pair", d_head // 2 - 1)
exercise("unturned_pairs", int(np.sum(wavelengths > context)), mistakes={
    "turned_pairs": int(np.sum(wavelengths <= context)),  # the pairs that do come full circle
    "no_two_pi": int(np.sum(1 / frequency > context)),  # a turn taken as one radian
})

# Exercise 5: the NTK-aware base's frequency of the middle pair, against the trained one.
trained, target = 4096, 16384
s = target / trained
value("s", s, "{:g}")
value("ntk_base_factor", s ** (d_head / (d_head - 2)), "{:.4f}")  # b' / b
ntk = rope_angles([1.0], d_head, base * s ** (d_head / (d_head - 2)))[0]  # (d_head / 2,)
exercise("ntk_ratio", ntk[i] / frequency[i], "{:.3f}", mistakes={
    "interpolation": (frequency / s)[i] / frequency[i],  # position interpolation: every pair divided by s
    "base_times_s": rope_angles([1.0], d_head, base * s)[0][i] / frequency[i],  # the exponent d/(d-2) left out
})

# Exercise 6: the feature that turns with feature 3 in the split-halves pairing.
feature = value("partner_of", 3)


def partner(pairing):
    """The feature rotated together with ``feature`` in ``pairing``."""
    first, second = rope_pairs(d_head, pairing)  # (d_head / 2,) each
    pairs = dict(zip(first.tolist(), second.tolist())) | dict(zip(second.tolist(), first.tolist()))
    return pairs[feature]


value("half_d", d_head // 2)
exercise("half_partner", partner("half"), mistakes={"interleaved": partner("interleaved")})
