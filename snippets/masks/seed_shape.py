"""A mask hard-coded for 6 tokens breaks on any other length; build it from the sentence instead.

One of our source tutorials writes mask = np.triu(np.ones((6, 6)), k=1) inside
its attention function, so the function works only for 6-token sentences. Its
own troubleshooting table blames "operands could not be broadcast together" on
Q/K/V reshaping; here the hard-coded mask alone raises it. We reproduce the error,
show what our core says for the same mistake, and the fix.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, scaled_dot_product_attention
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)[:5]  # ['The', 'cat', 'sat', 'on', 'the']: a 5-token sentence
x = embed(tokens)  # (5, d_model)
w_q, w_k, w_v = projection_weights()
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (5, d_k)
print("tokens:", tokens)

# --8<-- [start:seed]
scores = attention_scores(q, k)  # (5, 5)
mask = np.triu(np.ones((6, 6)), k=1)  # (6, 6), hard-coded, 1 = blocked
try:
    scores = scores - 1e9 * mask
except ValueError as error:
    print("seed code ->", str(error).strip())
# --8<-- [end:seed]

# --8<-- [start:core]
try:
    scaled_dot_product_attention(q, k, v, mask=causal_mask(6))  # the same mistake, our core
except ValueError as error:
    print("our core  ->", error)
# --8<-- [end:core]

# --8<-- [start:fix]
output, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(len(tokens)))  # (5, d_v), (5, 5)
# --8<-- [end:fix]
print("fixed     -> output", output.shape, "weights", weights.shape)
value("n_tokens", len(tokens))
