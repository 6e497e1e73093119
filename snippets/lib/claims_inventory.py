"""The claims inventory: every claim of the two seed tutorials, and a few common ones, with its verdict.

This module is data. Each claim has an id (C000-.. for seed 000, C003-.. for
seed 003, G-.. for common tutorial claims), its source section, an English
paraphrase, a topic, a verdict, an evidence text and a chapter link. Evidence
quotes measured values as ``{{ chapter.what.value }}``: the claims snippets
(snippets/claims/why.py, masks.py, ...) or the chapters' own snippets publish
them, and the site inlines them when it renders the claims page. The snippet
snippets/claims/summary.py turns this list into one table per topic and counts the
verdicts; the tests read the same list.
"""

HOLDS, FAILS, UNCHECKED = "holds", "does not hold", "cannot be checked here"
FIELDS = ("id", "source", "topic", "claim", "verdict", "evidence", "see")


def only_when(condition):
    return f"holds only when {condition}"


def cite(section):
    return f"Vaswani et al. 2017, {section}"


def verdict_kind(verdict):
    """One of "holds", "only_when", "fails", "unchecked"; ValueError for anything else."""
    kinds = {HOLDS: "holds", FAILS: "fails", UNCHECKED: "unchecked"}
    if verdict in kinds:
        return kinds[verdict]
    if verdict.startswith("holds only when "):
        return "only_when"
    raise ValueError(f"unknown verdict {verdict!r}: use HOLDS, FAILS, UNCHECKED or only_when(...)")


# (id, source, topic, claim, verdict, evidence, chapter link)
CLAIMS = [
    # ---------------------------------------------------------------- why attention
    ("C000-02", "000 §1", "why", "Self-attention is four steps: Q/K/V projection, scaling, softmax, weighted "
     "sum.", HOLDS,
     "Eq. 1 of the paper; the core's `scaled_dot_product_attention` is exactly these "
     "steps.", "scaled-dot-product.md"),
    ("C000-03", "000 §2.1", "why", "An RNN's hidden state is `h_t = f(h_{t-1}, x_t)`.", HOLDS,
     cite("§1: hidden states h_t \"as a function of the previous hidden state h_(t-1) and the input for position "
     "t\"."),
     "why-attention.md"),
    ("C000-04", "000 §2.1", "why", "\"cat\" and \"mat\" are 5 words apart, so an RNN passes through 5 nonlinear "
     "steps.", FAILS,
     "{{ why_attention.path_length.cat_mat_words_between }} lie between them; the recurrence takes "
     "{{ why_attention.path_length.cat_mat_distance }} steps.", "why-attention.md"),
    ("C000-05", "000 §2.1", "why", "Gradient decay makes such a span (4–5 tokens) practically impossible for "
     "LSTMs.", FAILS,
     "At 4 steps the gradient has not vanished: in an untrained tanh RNN ({{ why_attention.rnn_gradient.draws }} draws) the "
     "last state's gradient norm is {{ why_attention.rnn_gradient.rnn_d4 }} at distance 4 and {{ why_attention.rnn_gradient.rnn_d20 }} "
     "at 20. Khandelwal et al. 2018 (ACL) report trained LSTM language models using about 200 tokens of context.",
     "why-attention.md"),
    ("C000-06", "000 §2.1", "why", "A CNN needs exponentially many layers to cover a sentence.", FAILS,
     "Width-{{ why_attention.path_length.kernel }} kernels cover 512 tokens with {{ why_attention.path_length.contiguous_512 }} "
     "contiguous or {{ why_attention.path_length.dilated_512 }} dilated layers: linear or logarithmic. "
     + cite("§4: O(n/k), or O(log_k(n)) with dilation."), "why-attention.md"),
    ("C000-07", "000 §2.1", "why", "RNN-based models were stuck at 25.8 BLEU (EN-DE).", FAILS,
     "Table 2: GNMT+RL {{ claims.why.paper_gnmt_en_de }}, GNMT+RL Ensemble {{ claims.why.paper_gnmt_ens_en_de }}. {{ "
     "claims.why.paper_dev_base }} is the "
     "Transformer base "
     "model on the dev set (Table 3).", "claims.md#the-papers-numbers"),
    ("C000-08", "000 §2.1", "why", "The Transformer reached 28.4 BLEU.", HOLDS,
     "Table 2: Transformer (big), EN-DE, newstest2014: {{ claims.why.paper_big_en_de }}.", "claims.md#the-papers-numbers"),
    ("C000-09", "000 §2.1", "why", "Training was 3× faster.", FAILS,
     "The paper reports FLOPs, not a speed-up: big {{ claims.why.paper_flops_big }} = {{ "
     "claims.why.flops_ratio_big_gnmt }}× GNMT+RL's; base is "
     "{{ claims.why.flops_ratio_convs2s }}× below ConvS2S and {{ claims.why.flops_ratio_gnmt }}× below GNMT+RL (Table "
     "2).", "claims.md#the-papers-numbers"),
    ("C000-10", "000 §2.1", "why", "\"Attention Is All You Need\" is from 2017.", HOLDS, "arXiv:1706.03762 (June "
     "2017), NIPS 2017.", ""),
    ("C000-11", "000 §2.1", "why", "Attention links any two tokens by a learnable, distance-free direct path.", HOLDS,
     "Table 1: maximum path length O(1). Changing the first token moves the last output by {{ "
     "claims.why.first_to_last_one_layer }} "
     "after one layer.",
     "why-attention.md"),
    ("C000-12", "000 §2.1", "why", "The attention score is Q·Kᵀ.", HOLDS, "Before the 1/√d_k scale; see Eq. "
     "1.", "scaled-dot-product.md"),
    ("C003-02", "003 S1", "why", "Every word talks directly to every other word.", only_when("there is no causal "
     "mask"),
     "Path length 1 (Table 1). With a causal mask a token sees only earlier ones: changing the last token moves "
     "earlier outputs "
     "by {{ masks.leakage.causal_max_change }}.", "masks.md"),
    ("C003-03", "003 S1", "why", "Self-attention completely solves the RNN's long-range forgetting.", FAILS,
     "The score matrix grows as n²: {{ claims.why.n_score_entries_512 }} entries at 512 tokens, {{ "
     "claims.why.n_score_entries_4096 }} at 4096, so "
     "every model "
     "has a finite window; nothing outside it is seen at all.", "online-softmax.md"),
    ("C003-04", "003 S2", "why", "RNNs only remember recent information.",
     only_when("\"only\" means \"mostly\": an early word's influence decays with distance"),
     "Untrained tanh RNN: the gradient of the last state has norm {{ why_attention.rnn_gradient.rnn_d1 }} at distance 1, "
     "{{ why_attention.rnn_gradient.rnn_d20 }} at 20, {{ why_attention.rnn_gradient.rnn_d49 }} at 49. Trained LSTM language models use "
     "about 200 tokens (Khandelwal et al. 2018), so \"only the most recent\" is too strong.", "why-attention.md"),
    ("C003-05", "003 S2", "why", "Google introduced self-attention in \"Attention Is All You Need\" (2017).", FAILS,
     cite("§2: self-attention \"has been used successfully in a variety of tasks\" before; the paper's claim is the "
     "first "
          "transduction model relying entirely on it."), ""),
    ("C003-06", "003 S2", "why", "The model sees the whole text at once.", only_when("the text fits the context "
     "window"),
     "All positions are computed in one call; the window is finite (see C003-03).", "full-layer.md"),
    ("C003-07", "003 S2", "why", "Self-attention is why all LLMs (ChatGPT, Claude…) understand long text.", UNCHECKED,
     "A claim about every LLM; not measurable with NumPy.", ""),
    ("C003-33", "003 S6", "why", "Versus RNNs: path length 1 instead of N−1, all positions in parallel.", HOLDS,
     "Table 1: maximum path O(1) vs O(n), sequential operations O(1) vs O(n).", "why-attention.md"),
    # ---------------------------------------------------------------- queries, keys, values
    ("C000-13", "000 §2.2", "qkv", "W_q, W_k, W_v are learned parameters.", HOLDS, cite("§3.2.2: \"learned linear "
     "projections\"."),
     "queries-keys-values.md"),
    ("C000-14", "000 §2.2", "qkv", "The same word at different positions gets different Q/K/V vectors.",
     only_when("positional encodings are added (in the first layer)"),
     "One word vector at all 7 positions: query rows differ by {{ claims.qkv.same_word_q_diff_no_pe }} without PE, "
     "by up to "
     "{{ claims.qkv.same_word_q_diff_pe }} with it.", "positional-encoding.md"),
    ("C000-87", "000 §2.2", "qkv", "The names query, key, value are a misleading database metaphor; Q/K/V are "
     "really projection, matching and aggregation.", FAILS,
     "The names are the paper's own, and so is the lookup reading: an attention function maps \"a query and a set "
     "of key-value pairs to an output\", a weighted sum of the values (" + cite("§3.2).") + " Projection, matching "
     "and aggregation are how that soft lookup is computed, not a different thing.", "queries-keys-values.md"),
    ("C000-58", "000 §4.2", "qkv", "q_i·k_i (self-match) is usually the largest score.", only_when("W_q = W_k"),
     "Untrained projections, {{ queries_keys_values.self_match.n_rows }} rows: the own position is the top key in "
     "{{ queries_keys_values.self_match.separate_rate_min }} to {{ queries_keys_values.self_match.separate_rate_max }} of rows "
     "with separate W_q, W_k at every width from 2 to 64 (chance {{ queries_keys_values.self_match.chance }}), in "
     "{{ queries_keys_values.self_match.tied_rate_d8 }} with W_q = W_k at d_k = 8 and "
     "{{ queries_keys_values.self_match.tied_rate_d64 }} at d_k = 64.", "queries-keys-values.md"),
    ("C000-60", "000 §4.2", "qkv", "\"cat\" attends to \"mat\" because of corpus statistics stored in W_k and "
     "W_v.", FAILS,
     "The seed's weights are random and untrained (no corpus), and W_v cannot change the pattern: redrawing W_v "
     "changes the "
     "weights by {{ claims.qkv.w_v_weight_change }}.", "queries-keys-values.md"),
    ("C000-81", "000 §6", "qkv", "Q·Kᵀ is essentially cosine similarity.", FAILS,
     "Two keys: one with cosine {{ queries_keys_values.dot_vs_cosine.a_cos }} scores {{ queries_keys_values.dot_vs_cosine.a_dot }}, one with "
     "cosine {{ queries_keys_values.dot_vs_cosine.b_cos }} scores {{ queries_keys_values.dot_vs_cosine.b_dot }}: the dot product ranks them the "
     "other way. Over {{ queries_keys_values.dot_vs_cosine.n_rows_random }} random rows the top key differs in "
     "{{ queries_keys_values.dot_vs_cosine.disagree_rate }}.", "queries-keys-values.md"),
    ("C003-08", "003 S3", "qkv", "Attention is like a meeting where the boss's words weigh more.", UNCHECKED,
     "An analogy; weights come from query–key scores, not from a fixed importance.", ""),
    ("C003-10", "003 S3", "qkv", "Q is the search query, K the article's title, V its body.", UNCHECKED, "An "
     "analogy.", ""),
    ("C003-11", "003 S3", "qkv", "Match the query to every key, weight, sum the values.", HOLDS, cite("§3.2."),
     "weighted-sum.md"),
    ("C003-12", "003 S3", "qkv", "Separate Q and K break the symmetry \"i attends j ⇔ j attends i\".",
     only_when("\"symmetry\" means the scores"),
     "With W_q = W_k the scores are symmetric (asymmetry {{ queries_keys_values.tied.tied_asymmetry }}) but the weights are not "
     "({{ queries_keys_values.tied.tied_weights_asymmetry }}): the row softmax breaks it anyway.", "queries-keys-values.md"),
    ("C003-13", "003 S3", "qkv", "Q asks, K answers the match, V gives the content.", UNCHECKED, "A mnemonic.", ""),
    ("C003-16", "003 S4", "qkv", "Q = xW_q, K = xW_k, V = xW_v (linear, no bias).", HOLDS, cite("§3.2.2 (many "
     "libraries add a bias)."),
     "queries-keys-values.md"),
    ("C003-17", "003 S4", "qkv", "A higher score means a stronger relation between two words.", only_when("comparing "
     "keys of one query"),
     "Softmax keeps the order within a row (checked on the running example: {{ claims.qkv.softmax_keeps_row_order "
     "}}); scores of "
     "different "
     "queries are not comparable.", "softmax.md"),
    ("C003-23", "003 S4", "qkv", "A word with a larger weight contributes more to the output.", only_when("the value "
     "vectors have equal length"),
     "Contribution is w_j·v_j: in {{ claims.qkv.rows_top_weight_not_top_contribution }} of {{ "
     "claims.qkv.n_running_tokens }} rows of the running "
     "example the "
     "top-weight key is not the largest contributor.", "weighted-sum.md"),
    ("C003-24", "003 S4", "qkv", "Gradients reach Q and K through the weights, and V directly through the "
     "weighted sum.", HOLDS,
     "Wᵀ·dO matches finite differences of the loss in V to {{ claims.qkv.dv_is_weights_t_g }} (relative); the full "
     "backward pass matches them to {{ backward.gradcheck.max_rel_error }} over {{ backward.gradcheck.n_entries }} "
     "entries.", "backward.md"),
    ("G-01", "common", "qkv", "Each attention head looks at its own slice of the input features.", FAILS,
     "Every head projects all d_model features: changing only the last input feature moves head 0's queries by "
     "{{ claims.qkv.head0_sees_last_feature }}.", "multi-head.md"),
    ("G-02", "common", "qkv", "Attention weights are symmetric: i attends to j as much as j to i.", FAILS,
     "Running example: max |W − Wᵀ| = {{ claims.qkv.weights_asymmetry }}.", "softmax.md"),
    # ---------------------------------------------------------------- scaling and softmax
    ("C000-15", "000 §2.3", "scaling", "Dividing by √d_k keeps the softmax from saturating.", HOLDS,
     cite("§3.2.1: large dot products push the softmax \"into regions where it has extremely small gradients\"."),
     "scaled-dot-product.md"),
    ("C000-16", "000 §2.3", "scaling", "With unit-variance components, q·k has mean 0 and variance d_k.", HOLDS,
     "{{ claims.scaling.n_samples }} samples: variance {{ claims.scaling.var_dot_16 }}, {{ claims.scaling.var_dot_64 "
     "}}, {{ claims.scaling.var_dot_512 }} for d_k = 16, 64, 512; after the scale "
     "{{ claims.scaling.var_scaled_16 }}, {{ claims.scaling.var_scaled_64 }}, {{ claims.scaling.var_scaled_512 }}. " + cite("footnote 4."), "scaled-dot-product.md"),
    ("C000-17", "000 §2.3", "scaling", "For d_k = 64 the dot products lie mostly in [−16, 16].", HOLDS,
     "{{ claims.scaling.share_within_16 }} of samples (±2 standard deviations).", "scaled-dot-product.md"),
    ("C000-18", "000 §2.3", "scaling", "Softmax saturates once inputs reach about 10 (e^10 ≈ 22026, e^20 ≈ "
     "4.8×10^8).",
     only_when("10 is the gap between scores, not their size"),
     "e^10 = {{ claims.scaling.exp10 }}, e^20 = {{ claims.scaling.exp20 }}. softmax([1000, 1001, 1002]) = {{ "
     "claims.scaling.softmax_1000 }}, the same as for [0, 1, 2] "
     "(difference "
     "{{ claims.scaling.softmax_shift_error }}); a gap of 10 in 6 scores gives a top weight of {{ claims.scaling.gap10_top }}.", "softmax.md"),
    ("C000-19", "000 §2.3", "scaling", "Saturation makes gradients vanish.", HOLDS,
     "Over {{ scaled_dot_product.saturation.n_rows }} rows of {{ scaled_dot_product.saturation.n_keys }} keys at d_k = 64, mean softmax Jacobian "
     "norm {{ scaled_dot_product.saturation.jacobian_unscaled_64 }} unscaled (mean top weight "
     "{{ scaled_dot_product.saturation.max_weight_unscaled_64 }}), {{ scaled_dot_product.saturation.jacobian_scaled_64 }} scaled (top weight "
     "{{ scaled_dot_product.saturation.max_weight_scaled_64 }}); at d_k = 1024, {{ scaled_dot_product.saturation.jacobian_unscaled_1024 }} "
     "unscaled.", "scaled-dot-product.md"),
    ("C000-20", "000 §2.3", "scaling", "Setting s²·d_k = 1 gives the factor s = 1/√d_k.", HOLDS,
     "Scaled variances {{ claims.scaling.var_scaled_16 }}, {{ claims.scaling.var_scaled_64 }}, {{ claims.scaling.var_scaled_512 }} (C000-16).", "scaled-dot-product.md"),
    ("C000-21", "000 §2.3", "scaling", "Without the scale the seed's softmax gives rows like [0.999, 0.0001, "
     "…].", FAILS,
     "Unscaled, the seed's exp overflows (largest score {{ scaled_dot_product.seed_claims.s000_max_unscaled_score }}): "
     "{{ scaled_dot_product.seed_claims.s000_nan_rows }} of {{ scaled_dot_product.seed_claims.s000_rows }} rows are NaN, and at least "
     "{{ scaled_dot_product.seed_claims.robust_min_nan_rows }} in each of {{ scaled_dot_product.seed_claims.robust_seeds }} draws. A stable "
     "softmax gives {{ scaled_dot_product.seed_claims.s000_one_hot_rows_unscaled }} rows that are one-hot to float64 "
     "rounding: the top weight rounds to 1.",
     "scaled-dot-product.md"),
    ("C000-22", "000 §2.3", "scaling", "Adding / √d_k immediately makes the weights smooth and trainable.", FAILS,
     "In the seed's code, with the scale: score std {{ scaled_dot_product.seed_claims.s000_scaled_score_std }}; over "
     "{{ scaled_dot_product.seed_claims.robust_seeds }} draws {{ scaled_dot_product.seed_claims.robust_share_one_hot_scaled }} of rows put more "
     "than 0.999 on one key. The cause is W drawn with std 1 (q entries have std {{ claims.scaling.seed000_q_std }}); "
     "with std 1/√d_model the same draw gives score std {{ claims.scaling.seed000_fixed_std }} and mean top weight "
     "{{ claims.scaling.seed000_fixed_top_nomask }} over its 6 rows without the mask.", "debugging.md#one-hot-weights"),
    ("C000-23", "000 §2.3", "scaling", "Scaling is not a trick but a mathematical necessity.", only_when("q and k "
     "have unit-variance components"),
     "The seed's own code scales and still saturates (C000-22).", "debugging.md#one-hot-weights"),
    ("C003-18", "003 S4", "scaling", "When d_k is large, dot products become very large.", only_when("the components "
     "have a fixed variance"),
     "Standard deviation grows as √d_k (variances {{ claims.scaling.var_dot_16 }}, {{ claims.scaling.var_dot_64 }}, "
     "{{ claims.scaling.var_dot_512 }}).", "scaled-dot-product.md"),
    ("C003-19", "003 S4", "scaling", "A saturated softmax outputs near 0 or 1 and has tiny gradients.", HOLDS,
     "Over {{ scaled_dot_product.saturation.n_rows }} rows at d_k = 64: Jacobian norm {{ scaled_dot_product.saturation.jacobian_unscaled_64 }} "
     "unscaled vs {{ scaled_dot_product.saturation.jacobian_scaled_64 }} scaled (C000-19).", "scaled-dot-product.md"),
    ("C003-20", "003 S4", "scaling", "Dividing by √d_k normalises the score variance to 1.", only_when("q and k "
     "have unit-variance components"),
     "Scaled score variance in seed 003's code: {{ scaled_dot_product.seed_claims.s003_scaled_var }}; standard deviation in seed "
     "000's: {{ scaled_dot_product.seed_claims.s000_scaled_score_std }}.", "scaled-dot-product.md"),
    ("C003-21", "003 S4", "scaling", "Table: unscaled → variance d_k, tiny gradient, hard to train; scaled → "
     "variance 1, moderate, stable.", only_when("q and k have unit-variance components"),
     "Variance and gradient columns: C000-16 and C000-19. Training column, d_k = {{ training.scaling.d_k }}, "
     "{{ training.scaling.n_seeds }} seeds, {{ training.scaling.steps }} steps: attention on the right word "
     "{{ training.scaling.final_attention_scaled_mean }} scaled vs {{ training.scaling.final_attention_unscaled_mean }} "
     "unscaled.", "training.md"),
    ("C003-22", "003 S4", "scaling", "Each softmax row sums to 1.", HOLDS, "Largest deviation over 50 rows of wide "
     "scores: {{ claims.scaling.row_sum_error }}.",
     "softmax.md"),
    ("C003-25", "003 S5", "scaling", "Subtracting the max makes softmax stable without changing it.", HOLDS,
     "Stable vs naive on moderate scores: {{ claims.scaling.stable_vs_naive }}.", "softmax.md"),
    ("C003-41", "003 S7", "scaling", "Always scale: without it the softmax saturates and gradients vanish.",
     only_when("the projections keep q and k near unit variance"), "Scaling is necessary, not sufficient: C000-22.",
     "debugging.md#one-hot-weights"),
    ("C003-42", "003 S7", "scaling", "Subtract the max in softmax to avoid overflow.", HOLDS,
     "It removes the seed's NaN rows exactly (C000-21).", "debugging.md#nan-overflow"),
    ("G-03", "common", "scaling", "Dividing by d_k instead of √d_k works just as well.", FAILS,
     "Unit-variance q, k with d_k = 64, {{ claims.scaling.n_rows }} rows of 6 keys: mean top weight "
     "{{ claims.scaling.scale_d_k_top }} with 1/d_k, close to uniform ({{ claims.scaling.uniform_6 }}), against "
     "{{ claims.scaling.scale_sqrt_d_k_top }} with 1/√d_k.", "scaled-dot-product.md"),
    ("G-04", "common", "scaling", "The 1/√d_k scale is a softmax temperature of √d_k.", HOLDS,
     "The core's softmax of s/√d_k against exp(s/T)/Σ exp(s/T) written out with T = √d_k = 8, over "
     "{{ claims.scaling.n_rows }} rows: largest difference {{ claims.scaling.temperature_error }}. That temperature "
     "brings unit-variance scores at d_k = 64 to std {{ claims.scaling.temperature_std }}.", "softmax.md"),
    # ---------------------------------------------------------------- positions and order
    ("C000-24", "000 §3.1", "positions", "Without position information attention cannot tell word orders "
     "apart.", only_when("there is no causal mask either"),
     "Without a mask, permuting the input permutes the output (error {{ order_matters.permutation.equivariance_error }}); "
     "a causal mask alone breaks that (error {{ order_matters.permutation.mask_equivariance_error }}), as in C000-83.",
     "order-matters.md"),
    ("C000-25", "000 §3.1", "positions", "Position is a separate, learnable feature dimension hard-coded into the "
     "word vector.", FAILS,
     "Sinusoidal encodings have no parameters (the seed's own loop equals the core's formula to "
     "{{ claims.positions.pe_formula_error }}) and are added to the same d_model dimensions. " + cite("§3.5."),
     "positional-encoding.md"),
    ("C000-26", "000 §3.1", "positions", "Sinusoidal encoding is not the only solution.", HOLDS,
     "Table 3 row (E): learned positional embeddings {{ claims.why.paper_dev_learned_pe }} BLEU vs {{ "
     "claims.why.paper_dev_base }} "
     "(dev).", "positional-encoding.md"),
    ("C000-88", "000 §3.1", "positions", "Vaswani et al. designed the sinusoidal encoding in 2017 to meet three "
     "constraints: deterministic, extrapolating, sensitive to relative position.",
     only_when("read as the paper's two stated reasons"),
     "§3.5 gives two: relative positions (PE at pos + k is a linear function of PE at pos: a rotation, to "
     "{{ positional_encoding.relative.rotation_max_error }}) and a hope to \"extrapolate to sequence lengths longer than the ones "
     "encountered during training\". Determinism is a property, not a stated goal.", "positional-encoding.md"),
    ("C000-27", "000 §3.1", "positions", "Sinusoidal encodings are deterministic.", HOLDS,
     "A closed formula of position and dimension, with no draw and no parameter; the seed's loop and the core agree "
     "to {{ claims.positions.pe_formula_error }}.", "positional-encoding.md"),
    ("C000-28", "000 §3.1", "positions", "The encoding extrapolates to positions never seen in training.",
     only_when("it means the vectors can be computed"),
     "Position {{ claims.positions.far_position }} is finite (max |PE| {{ claims.positions.pe_far_max }}). Whether a "
     "model uses it is untested here; the paper "
     "only says it "
     "\"may allow the model to extrapolate\" (§3.5).", "positional-encoding.md"),
    ("C000-29", "000 §3.1", "positions", "P_i − P_j reflects the distance |i − j|.", HOLDS,
     "‖P_i − P_j‖ depends only on i − j (spread {{ claims.positions.pe_distance_spread }}), though not monotonically "
     "({{ claims.positions.pe_distance_not_monotone }} "
     "decreases in the first 40 steps).", "positional-encoding.md"),
    ("C000-30", "000 §3.1", "positions", "P(i, 2j) = sin(i/10000^(2j/d_model)), P(i, 2j+1) = cos(…).", HOLDS,
     "The seed's loop equals the core's `sinusoidal_positions` (difference {{ claims.positions.pe_formula_error }}). " + cite("§3.5."),
     "positional-encoding.md"),
    ("C000-31", "000 §3.1", "positions", "Small j is a low-frequency wave, large j a high-frequency one.", FAILS,
     "Reversed: the period is {{ claims.positions.period_dim0 }} positions at dimension 0 and {{ "
     "claims.positions.period_last }} at dimension 126 (d_model = "
     "128).",
     "positional-encoding.md"),
    ("C000-32", "000 §3.1", "positions", "LayerNorm after embedding + PE is mandatory because their scales "
     "differ.", FAILS,
     "std of the seed's word vectors {{ claims.positions.seed000_x_std }}, of its 6 encodings {{ "
     "claims.positions.pe6_std }} (long sequences {{ claims.positions.pe_long_std }}). "
     "The paper adds "
     "them and applies dropout, no LayerNorm (§3.4, §5.4).", "positional-encoding.md"),
    ("C000-33", "000 §3.1", "positions", "The correct pipeline is (embedding + PE) → LayerNorm → "
     "Dropout.", only_when("you follow BERT"),
     "BERT's `embedding_postprocessor` ends in `layer_norm_and_dropout` (google-research/bert, modeling.py); the "
     "Transformer "
     "paper uses dropout only (§5.4).", "positional-encoding.md"),
    ("C000-34", "000 §3.1", "positions", "This made convergence 40% faster.", UNCHECKED, "An anecdote without a "
     "setup.", ""),
    ("C000-74", "000 §5.2", "positions", "A pre-trained model's position encoding has maximum length "
     "512.", only_when("the model is BERT-like"),
     "BERT's `max_position_embeddings=512` is a learned table; sinusoidal encodings exist at any position (C000-28).",
     "positional-encoding.md"),
    ("C000-75", "000 §5.2", "positions", "Fine-tuning on 128-token data overfits the first 128 positions and "
     "ignores the rest.", only_when("positions are a learned table, and \"ignores\" means \"never updates\""),
     "Rows of a learned {{ debugging.positions.table_rows }}-row table that no input uses get gradient "
     "{{ debugging.positions.unused_grad }}: they keep their pre-trained values. Sinusoidal encodings have no parameters. "
     "Whether the used rows overfit needs fine-tuning runs.", "debugging.md#positions"),
    ("C000-76", "000 §5.2", "positions", "Fix: map the \"512-dim\" encoding to 128 dims, then bilinearly back to "
     "512.", FAILS,
     "512 is a number of positions, not a width. Resampling the table down to 128 positions and back moves dimension "
     "0 by "
     "{{ debugging.positions.resample_error_fast }} (values lie in [−1, 1]). Position interpolation (Chen et al. 2023) "
     "rescales position "
     "indices to "
     "extend a window, not to shrink it.", "debugging.md#positions"),
    ("C000-77", "000 §5.2", "positions", "This gave 2.3× faster convergence.", UNCHECKED, "An anecdote without a "
     "setup.", ""),
    ("C000-83", "000 §6", "positions", "Without PE all words are equal and order is invisible.", only_when("there is "
     "no causal mask"),
     "Permutation error {{ order_matters.permutation.equivariance_error }} without a mask, {{ "
     "order_matters.permutation.mask_equivariance_error }} with "
     "one.", "order-matters.md"),
    ("C000-84", "000 §6", "positions", "Transformers have no built-in notion of before and after.", only_when("there "
     "is no causal mask"),
     "A causal mask alone breaks the permutation symmetry: gap {{ order_matters.permutation.mask_equivariance_error }}.", "order-matters.md"),
    ("C003-36", "003 S6", "positions", "Swapping two words gives exactly the same attention result (\"permutation "
     "invariance\").", FAILS,
     "It is equivariance: f(Px) = P f(x) to {{ order_matters.permutation.equivariance_error }}, but f(Px) differs from f(x) "
     "by {{ order_matters.permutation.invariance_error }}.",
     "order-matters.md"),
    ("C003-37", "003 S6", "positions", "Without PE the dot product depends only on the words, not their "
     "positions.", HOLDS,
     "Same measurement as C003-36.", "order-matters.md"),
    ("C003-38", "003 S6", "positions", "\"I love you\" and \"You love I\" are treated as the same "
     "input.", only_when("\"same\" means the same set of outputs"),
     "Mean-pooled outputs agree to {{ order_matters.permutation.pooled_error }}; each token keeps its own output vector, "
     "which moves with it ({{ order_matters.permutation.equivariance_error }}).", "order-matters.md"),
    ("C003-39", "003 S6", "positions", "Positional encodings are added to the word "
     "embeddings.", HOLDS, cite("§3.5."), "positional-encoding.md"),
    ("C003-40", "003 S6", "positions", "Addition was chosen over concatenation to keep the width and be efficient.",
     only_when("read as \"addition keeps the width\""),
     "Adding keeps d_model = {{ claims.heads.add_width }}; concatenating gives {{ claims.heads.concat_width }}. The "
     "paper gives only that reason (\"so "
     "that the two "
     "can be summed\", §3.5).", "positional-encoding.md"),
    ("C003-46", "003 S8", "positions", "Positional encoding fixes the order blindness.", HOLDS,
     "With PE added, f(Px) and P f(x) differ by {{ order_matters.permutation.pe_equivariance_error }}.", "order-matters.md"),
    # ---------------------------------------------------------------- shapes and heads
    ("C000-35", "000 §3.2", "heads", "L = 6, d_model = 128, h = 2 give d_k = d_v = 64.", HOLDS, "128 / 2 = "
     "64.", "multi-head.md"),
    ("C000-36", "000 §3.2", "heads", "X (6, 128) → fused W (128, 128) → reshape (6, 2, 64) → transpose (2, 6, "
     "64).", HOLDS,
     "Measured: {{ claims.heads.split_shapes }}.", "multi-head.md"),
    ("C000-37", "000 §3.2", "heads", "Softmax runs over dim 1, the sequence dimension.", only_when("the scores are "
     "2-D (L, L)"),
     "For (h, L, L) scores, axis 1 leaves rows summing to as much as {{ claims.heads.axis1_row_sum_error }} away "
     "from 1; the last "
     "axis: "
     "{{ claims.heads.axis_last_row_sum_error }}.", "softmax.md"),
    ("C000-38", "000 §3.2", "heads", "Without splitting heads a 64-d Q would meet a 128-d K.", FAILS,
     "Unsplit, Q and K are both 128-d: Q @ Kᵀ has shape {{ claims.heads.unsplit_scores_shape }}.", "multi-head.md"),
    ("C000-39", "000 §3.2", "heads", "Per-head W of shape (128, 64) is a beginner's mistake that loses multi-head "
     "ability.", FAILS,
     "The paper defines per-head W_i^Q ∈ R^(d_model×d_k) (§3.2.2); the fused matrix is their concatenation "
     "(difference "
     "{{ multi_head.fused_vs_separate.tutorial_slice_error }}).", "multi-head.md"),
    ("C000-52", "000 §4.1", "heads", "All heads share one set of W; only the output is split.", FAILS,
     "Each head uses its own column block of W; no parameter is shared (C000-39).", "multi-head.md"),
    ("C000-61", "000 §4.3", "heads", "Concatenate heads to (6, 128), then multiply by W_o (128, 128).", HOLDS,
     "Measured: {{ claims.heads.concat_shape }}. " + cite("§3.2.2."), "multi-head.md"),
    ("C000-62", "000 §4.3", "heads", "W_o is a \"feature fuser\".", UNCHECKED, "A description, not a measurable "
     "claim.", ""),
    ("C000-63", "000 §4.3", "heads", "Removing W_o cost 1.2 BLEU.", UNCHECKED, "The paper has no such ablation "
     "(Table 3).", ""),
    ("C003-44", "003 S7", "heads", "The output has the input's shape (batch, seq_len, d_model).", HOLDS,
     "Seed 003's run: input, output, weights {{ claims.seed003.shapes }}.", "full-layer.md"),
    ("G-05", "common", "heads", "h heads of width d_model/h cost about as much as one full-width head.", HOLDS,
     "Multiply-adds for QKᵀ at L = 6: {{ claims.heads.madds_multi }} with 2 heads, {{ claims.heads.madds_single }} "
     "with one. "
     "" + cite("§3.2.2."), "multi-head.md"),
    # ---------------------------------------------------------------- masks
    ("C000-40", "000 §3.3", "masks", "In the encoder every token is visible.", only_when("there is no padding"),
     "Without a padding mask a real token puts {{ debugging.padding.no_mask_pad_weight }} of its weight on padding; with "
     "it, "
     "{{ debugging.padding.padding_mask_pad_weight }}.",
     "debugging.md#padding"),
    ("C000-41", "000 §3.3", "masks", "The decoder must hide future tokens.", HOLDS,
     "Without a mask, changing the last token moves earlier outputs by {{ masks.leakage.no_mask_max_change }}; with "
     "a causal mask by "
     "{{ masks.leakage.causal_max_change }}.",
     "debugging.md#leaking-mask"),
    ("C000-42", "000 §3.3", "masks", "np.triu(ones, k=1) marks exactly the pairs j > i.", HOLDS, "Checked for L = 6: "
     "{{ claims.masks.triu_is_future }}.",
     "masks.md"),
    ("C000-43", "000 §3.3", "masks", "Subtracting 1e9 makes the masked weights ≈ 0.",
     only_when("every row keeps a visible key and the dtype can hold 1e9 (float32 or wider)"),
     "The seed's own line, `scores - 1e9 * mask`, on its own scores (table below): in float64 the masked weights "
     "are {{ claims.masks.float64_naive_causal }}. When every key is masked, the seed's exp / sum gives "
     "{{ claims.masks.float64_naive_empty }} of {{ claims.masks.n_weights }} weights, and a max-subtracting softmax "
     "returns the *unmasked* rows (change {{ claims.masks.float64_stable_empty }}). float32 rounds −1e9 + s to steps "
     "of 64 (change {{ claims.masks.float32_stable_empty }}); float16 stores 1e9 as inf, and inf·0 = NaN makes "
     "{{ claims.masks.float16_stable_causal }} of {{ claims.masks.n_weights }} weights even under the causal mask.", "masks.md"),
    ("C000-44", "000 §3.3", "masks", "Masked weights are 0 and their gradient is 0.", HOLDS,
     "Largest gradient on a masked score: {{ debugging.gradients.masked_grad_max }}; a fully masked query gets "
     "{{ backward.gradcheck.masked_query_grad }}.", "debugging.md#detach"),
    ("C000-45", "000 §3.3", "masks", "Mask before the softmax, not after.", HOLDS,
     "After the softmax, subtracting 1e9 gives weights down to {{ masks.after_softmax.subtract_after_min }}; "
     "multiplying by the mask without renormalising leaves rows summing to {{ masks.after_softmax.no_renorm_min_sum "
     "}}, "
     "and their denominators still include the future.", "masks.md"),
    ("C000-46", "000 §3.3", "masks", "Subtracting the mask after the softmax is ineffective because the values "
     "are saturated.", FAILS,
     "It gives weights of {{ masks.after_softmax.subtract_after_min }}: garbage, and unrelated to saturation.",
     "masks.md"),
    ("C000-47", "000 §3.3", "masks", "A mask in the wrong place once crashed the author's training.", UNCHECKED, "An "
     "anecdote.", ""),
    ("C003-09", "003 S3", "masks", "Each word attends to all the other words.", only_when("there is no causal mask "
     "(it also attends to itself)"),
     "See C003-02.", "masks.md"),
    ("G-06", "common", "masks", "Filling masked scores with −∞ is always safe.", FAILS,
     "A row of 6 keys, all masked with −∞: the naive softmax returns {{ claims.masks.fully_masked_inf_nan }} NaN "
     "weights of "
     "6.", "debugging.md#nan-masked-rows"),
    # ---------------------------------------------------------------- the seeds' code and outputs
    ("C000-01", "000 §1", "code", "The core is 20 lines of NumPy.", only_when("\"20\" means about 20"),
     "The reconstructed function has {{ claims.seed000.statements }} statements.", ""),
    ("C000-48", "000 §4.1", "code", "The implementation uses only NumPy.", HOLDS, "The reconstruction imports NumPy "
     "only (snippets/lib/claims_seeds.py).", ""),
    ("C000-49", "000 §4.1", "code", "20 core lines, every line commented.", only_when("\"every line\" means every "
     "block"),
     "{{ claims.seed000.statements }} statements; comments head blocks of lines (the stored text lost its line breaks).", ""),
    ("C000-50", "000 §4.1", "code", "The weights have shape (6, 6).", HOLDS, "Measured: "
     "{{ claims.seed000.weights_shape }}.", ""),
    ("C000-51", "000 §4.1", "code", "The output has shape (6, 64).", HOLDS, "Measured: {{ claims.seed000.output_shape }} (head "
     "0 only).", ""),
    ("C000-53", "000 §4.1", "code", "The function computes self-attention for a sentence.", only_when("the sentence "
     "has exactly 6 words"),
     "Five words: {{ claims.seed000.five_words }}.", "debugging.md#shape-errors"),
    ("C000-54", "000 §4.1", "code", "The word vectors are random stand-ins for trained embeddings.", HOLDS,
     "Drawn per position, so \"The\" and \"the\" are unrelated vectors.", "tokens-to-vectors.md"),
    ("C000-55", "000 §4.2", "code", "The \"cat\" row is [0.02, 0.45, 0.08, 0.15, 0.03, 0.27].", FAILS,
     "The causal mask forces entries 3–6 to exactly 0 (measured max {{ claims.seed000.cat_future_max }}); the row is "
     "one-hot "
     "(weight "
     "{{ claims.seed000.cat_self }} on \"cat\" in our draw).", "masks.md"),
    ("C000-56", "000 §4.2", "code", "\"cat\" attends most to itself (0.45).", FAILS,
     "The row is one-hot, never 0.45; over {{ claims.seed000.n_draws }} random draws \"cat\" wins over \"The\" in {{ "
     "claims.seed000.cat_self_share }} (two "
     "visible keys).",
     "masks.md"),
    ("C000-57", "000 §4.2", "code", "Next, \"cat\" attends to \"mat\" (0.27) and \"on\" (0.15).", FAILS,
     "Future positions under the causal mask: weight {{ claims.seed000.cat_future_max }}.", "masks.md"),
    ("C000-59", "000 §4.2", "code", "Without self-attention weight each word's representation would "
     "drift.", UNCHECKED,
     "Unsupported; the residual connection keeps a token's own vector.", "transformer-block.md"),
    ("C003-14", "003 S4", "code", "Attention(Q, K, V) = softmax(QKᵀ/√d_k)V.", HOLDS, "Eq. 1; the core matches a loop "
     "oracle (tests).",
     "scaled-dot-product.md"),
    ("C003-15", "003 S4", "code", "The formula has five steps: projection, dot product, scale, softmax, weighted "
     "sum.", HOLDS,
     "As C000-02, with the projection counted.", "scaled-dot-product.md"),
    ("C003-26", "003 S5", "code", "Initialising W_q, W_k, W_v as randn·0.01 (\"small random numbers\") is a good "
     "start.", FAILS,
     "Seed 003's own run: every weight lies in [{{ scaled_dot_product.seed_claims.s003_weight_min }}, {{ "
     "scaled_dot_product.seed_claims.s003_weight_max }}] (uniform 0.2); output std "
     "{{ scaled_dot_product.seed_claims.s003_output_std }} vs "
     "input {{ scaled_dot_product.seed_claims.s003_x_std }}.", "debugging.md#dead-head"),
    ("C003-27", "003 S5", "code", "The class implements scaled dot-product self-attention.", HOLDS,
     "Single head, √d_k = √d_model, no mask, no W_o.", "scaled-dot-product.md"),
    ("C003-28", "003 S5", "code", "The class handles (batch, seq_len, d_model) input.", only_when("the input is 3-D"),
     "A 2-D input raises {{ claims.seed003.error_2d }}.", ""),
    ("C003-29", "003 S5", "code", "Shapes (2, 5, 10), (2, 5, 10), (2, 5, 5).", HOLDS, "Measured: "
     "{{ claims.seed003.shapes }}.", ""),
    ("C003-30", "003 S5", "code", "The printed row sum is 1.000.", HOLDS, "Measured: {{ claims.seed003.row_sum }}.", ""),
    ("C003-31", "003 S5", "code", "Same shape, and every word now carries its context.", only_when("the projections "
     "are not tiny"),
     "With the class's init all 5 outputs of a sequence agree to {{ claims.seed003.token_spread }}: every token gets "
     "the same "
     "average.",
     "debugging.md#dead-head"),
    ("C003-32", "003 S5", "code", "The heat map shows how much each word attends to the others.", FAILS,
     "With these weights the map is flat: {{ claims.seed003.n_labels }} distinct cell label(s): "
     "{{ claims.seed003.label_list }}.", "debugging.md#dead-head"),
    # ---------------------------------------------------------------- debugging table and tips
    ("C000-64", "000 §5.1", "debugging", "\"operands could not be broadcast together\" means Q/K/V dimensions do not "
     "match.", FAILS,
     "Mismatched Q/K raise a matmul error; the seed's own broadcast error comes from its 6×6 mask: "
     "{{ claims.seed000.five_words }}.",
     "debugging.md#shape-errors"),
    ("C000-65", "000 §5.1", "debugging", "One-hot weights mean the scale is missing or too small.", FAILS,
     "The seed's code has the scale and is one-hot (mean top weight {{ claims.seed000.mean_top }} over its 6 rows; "
     "{{ scaled_dot_product.seed_claims.robust_share_one_hot_scaled }} of rows over {{ scaled_dot_product.seed_claims.robust_seeds }} draws); the "
     "cause is W's std (C000-22).",
     "debugging.md#one-hot-weights"),
    ("C000-66", "000 §5.1", "debugging", "For NaN from exp overflow, clip scores to [−50, 50].", FAILS,
     "Clipping changes the weights: scores [120, 80, 60, 0] get top weight {{ debugging.nan.row_clipped_top }} instead of "
     "{{ debugging.nan.row_exact_top }}, and {{ debugging.nan.clip_zero_grad_share }} of the scores, every clipped one, "
     "get zero gradient; subtracting the max is exact ({{ debugging.nan.shift_error }}).", "debugging.md#nan-overflow"),
    ("C000-67", "000 §5.1", "debugging", "Over-attending to \"The\" comes from a too-large PE; normalise it by its "
     "max.", FAILS,
     "max |PE| = {{ debugging.first_token.pe_max }} already, so the fix changes the encoding by "
     "{{ debugging.first_token.pe_fix_change }}; a causal mask alone gives the first key extra weight "
     "({{ debugging.first_token.causal_measured }} against {{ debugging.first_token.bidir_measured }} without it).",
     "debugging.md#first-word"),
    ("C000-68", "000 §5.1", "debugging", "Multi-head worse than single-head: W_o uninitialised; use "
     "randn·0.02.", UNCHECKED,
     "A training question. Table 3 (A): 1 head {{ claims.why.paper_dev_one_head }} vs {{ claims.why.paper_dev_base "
     "}} BLEU with "
     "8. The 0.02 itself is common practice: BERT's `initializer_range` and the standard deviation GPT-2's "
     "`model.py` draws its weights with, the attention output projection `c_proj` included (the GPT-2 paper also "
     "scales residual layers by 1/√N, see transformer-block.md). On this site's layer it "
     "makes the output {{ debugging.heads.wo_small_gain }} times the size of the concatenated heads.",
     "debugging.md#w-o"),
    ("C000-69", "000 §5.2", "debugging", "Plot attention maps during training to debug.", UNCHECKED, "Advice.", ""),
    ("C000-70", "000 §5.2", "debugging", "A head stuck on padding means a PE or mask bug.", only_when("\"bug\" means "
     "the padding mask"),
     "Padding weight {{ debugging.padding.no_mask_pad_weight }} without the mask, {{ "
     "debugging.padding.padding_mask_pad_weight }} with it; PE plays no "
     "part.", "debugging.md#padding"),
    ("C000-71", "000 §5.2", "debugging", "Weights stuck near uniform (≈0.1667) mean a dead head: check W_k's "
     "init.", HOLDS,
     "Seed 003's init at 6 tokens: weights in [{{ claims.seed003.six_min }}, {{ claims.seed003.six_max }}].", "debugging.md#dead-head"),
    ("C000-72", "000 §5.2", "debugging", "Check gradients numerically (gradcheck).", HOLDS,
     "The same check in NumPy: relative error {{ backward.gradcheck.max_rel_error }}.", "debugging.md#detach"),
    ("C000-73", "000 §5.2", "debugging", "Masking without .detach() lets gradient flow through the mask and causes "
     "NaN.", FAILS,
     "The gradient on masked scores is {{ debugging.gradients.masked_grad_max }}; NaN comes from fully masked −∞ rows "
     "(G-06).", "debugging.md#detach"),
    ("C000-78", "000 §5.2", "debugging", "An L1 penalty on attention weights makes a head sparse and local.", FAILS,
     "Every row's L1 norm is {{ claims.debugging.l1_row_norm }}; the penalty's gradient is {{ debugging.gradients.l1_grad_max }}.", "debugging.md#l1-penalty"),
    ("C000-79", "000 §5.2", "debugging", "Penalising high short-range weights pushes a head to long range.", HOLDS,
     "Gradient descent on such a penalty raises the mean attended distance from {{ "
     "claims.debugging.mean_distance_before }} to "
     "{{ claims.debugging.mean_distance_after }}.",
     "debugging.md#l1-penalty"),
    ("C000-80", "000 §5.2", "debugging", "This raised F1 by 5.7% on legal text.", UNCHECKED, "An anecdote without a "
     "setup.", ""),
    # ---------------------------------------------------------------- cost and the big picture
    ("C003-34", "003 S6", "cost", "Parallelism mainly helps training.", HOLDS,
     "All positions in one causal call equal position-by-position generation (difference {{ "
     "claims.cost.parallel_vs_stepwise }}); "
     "generation "
     "still needs one step per token.", "kv-cache.md"),
    ("C003-35", "003 S6", "cost", "Each generated token still recomputes attention with all history: "
     "O(N).", only_when("a KV cache is kept (then nothing is recomputed)"),
     "Multiply-adds for one new token at N = {{ claims.cost.n_ctx }}, d = 64, counted as the KV-cache chapter counts "
     "a step (four projections, 4d², plus attention, 2Nd): {{ claims.cost.step_madds_layer_cache }} with a cache, "
     "{{ claims.cost.step_madds_layer_nocache }} recomputing every row. Scores and weighted sum alone are "
     "{{ claims.cost.step_madds_cache }} and {{ claims.cost.step_madds_nocache }}.", "kv-cache.md"),
    ("C003-45", "003 S8", "cost", "Self-attention completely removes the RNN's serial bottleneck.", FAILS,
     "Decoding stays one token at a time: \"the decoder then generates an output sequence … one element at a time\" "
     "(§3).",
     "kv-cache.md"),
    ("C000-82", "000 §6", "cost", "RNNs assume time order is causal; CNNs that nearby means related.", UNCHECKED, "A "
     "framing.", ""),
    ("C000-85", "000 §6", "cost", "Positional encoding is hand-crafted feature engineering; future models may drop "
     "it and learn positions from the token order.",
     only_when("\"positional encoding\" means the sinusoids: learned tables and no encoding at all are already in use"),
     "Not only a prediction. The paper itself tried learned position embeddings: Table 3 (E), {{ "
     "claims.why.paper_dev_learned_pe }} against {{ claims.why.paper_dev_base }} BLEU with sinusoids; BERT and GPT-2 "
     "learn their position tables. Without any encoding a causal mask still breaks permutation equivariance "
     "(error {{ order_matters.permutation.mask_equivariance_error }}), and Haviv et al. 2022 train language models "
     "with no positional encoding that still learn positional information.", "positional-encoding.md"),
    ("C000-86", "000 §6", "cost", "LLMs do not understand; they find the shortest path in vector "
     "space.", UNCHECKED, "An opinion.", ""),
    ("C003-01", "003 S1", "cost", "Self-attention is the heart of the Transformer.", UNCHECKED, "An opinion.", ""),
    ("C003-43", "003 S7", "cost", "Visualise attention heat maps to debug.", UNCHECKED, "Advice.", ""),
    ("C003-47", "003 S8", "cost", "Understand self-attention and you understand all "
     "LLMs.", UNCHECKED, "Rhetoric.", ""),
]
TOPICS = {
    "why": "Why attention, and the paper",
    "qkv": "Queries, keys and values",
    "scaling": "Scaling and softmax",
    "positions": "Positions and order",
    "heads": "Shapes and heads",
    "masks": "Masks",
    "code": "The seeds' code and its output",
    "debugging": "Debugging advice",
    "cost": "Cost and the big picture",
}
LINK_TITLES = {
    "why-attention.md": "Why attention", "tokens-to-vectors.md": "Tokens to vectors",
    "positional-encoding.md": "Positional encoding", "order-matters.md": "Order matters",
    "queries-keys-values.md": "Q, K, V", "softmax.md": "Softmax",
    "scaled-dot-product.md": "Scaled dot-product", "masks.md": "Masks",
    "weighted-sum.md": "Weighted sum", "multi-head.md": "Multi-head", "full-layer.md": "Full layer",
    "backward.md": "Backward pass", "kv-cache.md": "KV cache", "online-softmax.md": "Online softmax",
    "transformer-block.md": "Transformer block", "claims.md#the-papers-numbers": "the paper's numbers",
    "training.md": "Training",
}
LINK_TITLES.update({f"debugging.md#{a}": "Debugging" for a in (
    "shape-errors", "one-hot-weights", "dead-head", "nan-overflow", "nan-masked-rows", "detach",
    "padding", "leaking-mask", "first-word", "w-o", "l1-penalty", "positions")})


def claims():
    """Every claim as a dict with the keys of FIELDS, in the order of CLAIMS."""
    return [dict(zip(FIELDS, row)) for row in CLAIMS]


def table_rows(topic):
    """The claims table of one topic: [ID, claim (source), verdict, evidence with its chapter link]."""
    rows = []
    for claim in claims():
        if claim["topic"] != topic:
            continue
        evidence = claim["evidence"]
        if claim["see"]:
            evidence += f" [→ {LINK_TITLES[claim['see']]}]({claim['see']})"
        rows.append([claim["id"], f"{claim['claim']} *({claim['source']})*", f"**{claim['verdict']}**", evidence])
    return rows
