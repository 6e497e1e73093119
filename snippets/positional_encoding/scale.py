"""How big are the encodings next to the embeddings? And what do real models add?

Every (sin, cos) pair has sin^2 + cos^2 = 1, so each encoding has norm
sqrt(d_model / 2) at every position and no entry exceeds 1. We measure that,
check a popular "fix" (divide the encoding by its largest entry), and build the
input of the first layer the way three models do it: the original Transformer
(embeddings times sqrt(d_model) plus sinusoids, then dropout), BERT (token +
segment + learned position embeddings, then LayerNorm) and GPT-2 (token + learned
position embeddings, nothing else). Tables are random, at their initial scale.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import sinusoidal_positions
from lib.publish import table, value
from lib.running_example import D_MODEL, SENTENCE, embed, tokenize

np.set_printoptions(precision=3, suppress=True)


def norm(a):
    """One Euclidean norm per row."""
    return np.linalg.norm(a, axis=-1)


tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, 8): N(0, 1) entries
pe = sinusoidal_positions(len(tokens), D_MODEL)  # (L, 8)
print("running example, row norms by position")
print("  embedding x:             ", norm(x))
print("  embedding x * sqrt(d):   ", norm(x * np.sqrt(D_MODEL)))
print("  positional encoding PE:  ", norm(pe))
value("pe_norm", norm(pe).mean(), "{:.3f}")
value("pe_norm_spread", np.ptp(norm(pe)), "{:.1e}")
value("x_norm_mean", norm(x).mean(), "{:.2f}")
value("x_scaled_norm_mean", norm(x * np.sqrt(D_MODEL)).mean(), "{:.2f}")

# --8<-- [start:max_fix]
pe_long = sinusoidal_positions(512, 512)  # (P, d_model)
peak = np.max(np.abs(pe_long))  # position 0 holds cos(0) = 1
pe_fixed = pe_long / peak  # the proposed normalisation
# --8<-- [end:max_fix]
value("pe_peak", peak, "{:.1f}")
value("fix_max_change", np.max(np.abs(pe_fixed - pe_long)), "{:g}")
value("pe_rms", np.sqrt(np.mean(pe_long**2)), "{:.4f}")


# --8<-- [start:pipelines]
def layer_norm(a, eps=1e-12):
    """Each row to mean 0, variance 1 (gain 1 and bias 0, their initial values)."""
    centred = a - a.mean(-1, keepdims=True)
    return centred / np.sqrt(a.var(-1, keepdims=True) + eps)


def dropout(a, p, rng, training):
    """Training: zero entries with probability p, scale the rest by 1/(1-p)."""
    return a * (rng.random(a.shape) >= p) / (1 - p) if training else a


def transformer_input(ids, emb, d_model, rng, training=False, p_drop=0.1):
    """Attention Is All You Need, sections 3.4, 3.5 and 5.4."""
    tok = emb[ids] * np.sqrt(d_model)  # (L, d_model): scaled embeddings
    pos = sinusoidal_positions(len(ids), d_model)  # (L, d_model): fixed
    return tok, pos, dropout(tok + pos, p_drop, rng, training)  # no LayerNorm


def bert_input(ids, segments, tok_table, seg_table, pos_table, rng,
               training=False, p_drop=0.1):
    """BERT: three learned tables summed, then LayerNorm, then dropout."""
    tok, pos = tok_table[ids], pos_table[: len(ids)]  # (L, d_model) each
    total = tok + seg_table[segments] + pos  # (L, d_model)
    return tok, pos, dropout(layer_norm(total), p_drop, rng, training)


def gpt2_input(ids, wte, wpe):
    """GPT-2: h = wte[ids] + wpe[positions]; no scaling, no LayerNorm here."""
    tok, pos = wte[ids], wpe[: len(ids)]  # (L, d_model) each
    return tok, pos, tok + pos
# --8<-- [end:pipelines]


def truncated_normal(rng, std, shape):
    """N(0, std^2), redrawing entries beyond two std (as TensorFlow does)."""
    z = rng.normal(size=shape)
    while (outside := np.abs(z) > 2).any():
        z[outside] = rng.normal(size=outside.sum())
    return std * z


rng = np.random.default_rng(7)
vocab, n_ctx = 1000, 512  # stand-ins: only the scale of the rows matters here
ids = rng.integers(vocab, size=64)  # (L,) a 64-token input
value("pipeline_tokens", len(ids))
rows = []

# Transformer base; the TensorFlow Model Garden draws the shared table N(0, 1/d)
d = 512
emb = rng.normal(scale=d**-0.5, size=(vocab, d))
tok, pos, out = transformer_input(ids, emb, d, rng)
rows.append(["Transformer (base)", d, "dropout(E[ids] · √d_model + PE)",
             norm(tok).mean(), norm(pos).mean(), norm(out).mean()])
value("paper_tok_norm", norm(tok).mean(), "{:.1f}")
value("paper_pos_norm", norm(pos).mean(), "{:.1f}")

# BERT-base; every table truncated normal with std 0.02, as in its modeling.py
d = 768
shapes = ((vocab, d), (2, d), (n_ctx, d))  # tokens, segments, positions
tables = [truncated_normal(rng, 0.02, shape) for shape in shapes]
tok, pos, out = bert_input(ids, np.zeros_like(ids), *tables, rng)
rows.append(["BERT (base)", d, "dropout(LayerNorm(E[ids] + S[segments] + P[:L]))",
             norm(tok).mean(), norm(pos).mean(), norm(out).mean()])
value("bert_out_norm", norm(out).mean(), "{:.1f}")
value("bert_sqrt_d", np.sqrt(d), "{:.1f}")
value("bert_d", d)

# GPT-2 small; wte N(0, 0.02^2) and wpe N(0, 0.01^2), as in its model.py
d = 768
wte = rng.normal(scale=0.02, size=(vocab, d))
wpe = rng.normal(scale=0.01, size=(n_ctx, d))
tok, pos, out = gpt2_input(ids, wte, wpe)
rows.append(["GPT-2 (small)", d, "wte[ids] + wpe[:L]",
             norm(tok).mean(), norm(pos).mean(), norm(out).mean()])
value("gpt2_tok_norm", norm(tok).mean(), "{:.2f}")
value("gpt2_pos_norm", norm(pos).mean(), "{:.2f}")

table(
    "pipelines",
    ["model", "d_model", "input of the first layer", "‖token part‖",
     "‖position part‖", "‖input row‖"],
    rows,
    fmt="{:.3g}",
)
