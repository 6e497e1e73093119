"""The exercises of "Positional encoding": their answers, and the results of the usual mistakes, made in code.

Four questions at the running example's d_model = 8 and the paper's 512: one entry of the encoding past the
printed positions, the wavelength of one pair, the dot product of two of the printed encodings, and the norm of an
encoding at d_model = 512. Answers come from the core's sinusoidal_positions and the page's frequencies
w_i = 10000^(-2i/d_model); each usual mistake is made in code and its result published beside the answer
(lib.exercises).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import sinusoidal_positions
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import D_MODEL

value("d_model", D_MODEL)
two_i = np.arange(0, D_MODEL, 2)  # (d_model / 2,): first dimension of each pair
omega = 1 / 10000 ** (two_i / D_MODEL)  # (d_model / 2,): radians per position

# Exercise 1: one entry, PE[p, dimension], at a position the page does not print.
p, dim = value("entry_position", 10), value("entry_dimension", 2)
pe = sinusoidal_positions(p + 1, D_MODEL)  # (p + 1, d_model)
angle = value("entry_angle", p * omega[dim // 2], "{:.1f}")  # radians
exercise(
    "entry",
    pe[p, dim],
    "{:.3f}",
    mistakes={
        "degrees": np.sin(np.radians(angle)),  # the calculator in degrees
        "sin_cos_swapped": pe[p, dim + 1],  # cos in the even dimension
        "dimension_as_pair_index": pe[p, 2 * dim],  # i = dimension, so 2i = 2 * dimension
    },
)

# Exercise 2: the wavelength of pair i, dimensions 2i and 2i + 1.
pair = value("wavelength_pair", 1)
value("wavelength_omega", omega[pair], "{:.1f}")
exercise(
    "wavelength",
    2 * np.pi / omega[pair],  # positions per full turn
    "{:.1f}",
    mistakes={
        "left_out_two_pi": 1 / omega[pair],  # positions per radian
        "frequency": omega[pair],  # the angular frequency itself
        "exponent_without_two": 2 * np.pi * 10000 ** (pair / D_MODEL),  # 10000^(i/d) in place of 10000^(2i/d)
    },
)

# Exercise 3: the dot product of two of the printed encodings.
p_a, p_b = value("dot_first", 1), value("dot_second", 6)
value("dot_offset", p_b - p_a)
pe_sentence = sinusoidal_positions(7, D_MODEL)  # (L, d_model): the rows the page prints
exercise(
    "dot",
    pe_sentence[p_a] @ pe_sentence[p_b],
    "{:.2f}",
    mistakes={
        "p_plus_q": np.cos(omega * (p_a + p_b)).sum(),  # cos(a + b) in place of cos(a - b)
        "cosine_per_dimension": np.cos(np.repeat(omega, 2) * (p_a - p_b)).sum(),  # each pair's cosine counted twice
    },
)

# Exercise 4: the norm of one encoding at the paper's d_model = 512.
d_big, p_big = value("norm_d_model", 512), value("norm_position", 100)
pe_big = sinusoidal_positions(p_big + 1, d_big)[p_big]  # (d_model,)
value("norm_pairs", d_big // 2)  # each pair adds sin^2 + cos^2 = 1 to the squared norm
exercise(
    "norm",
    np.linalg.norm(pe_big),
    "{:.2f}",
    mistakes={
        "squared": pe_big @ pe_big,  # the squared norm
        "entries_of_size_one": np.linalg.norm(np.ones(d_big)),  # every entry taken as +1 or -1
    },
)
