"""The claims inventory: every claim of the two seed tutorials, and a few common ones, with its verdict.

This module is data. Each claim has an id (C000-.. for seed 000, C003-.. for
seed 003, G-.. for common tutorial claims), its source section, an English
paraphrase, a topic, a verdict, an evidence text and a chapter link, then the
claim and the evidence in Chinese, beside the English so that both change
together. A verdict carries its Chinese wording too. Evidence quotes measured
values as ``{{ chapter.what.value }}`` in both languages: the claims snippets
(snippets/claims/why.py, masks.py, ...) or the chapters' own snippets publish
them, and the site inlines them when it renders the claims page. The snippet
snippets/claims/summary.py turns this list into one table per topic, in each
language, and counts the verdicts; the tests read the same list.
"""


class Verdict(str):
    """A verdict as the English page words it (it compares as that string), with its Chinese wording as ``zh``."""

    def __new__(cls, text, zh):
        verdict = super().__new__(cls, text)
        verdict.zh = zh
        return verdict


HOLDS = Verdict("holds", "成立")
FAILS = Verdict("does not hold", "不成立")
UNCHECKED = Verdict("cannot be checked here", "此处无法核查")
FIELDS = ("id", "source", "topic", "claim", "verdict", "evidence", "see", "claim_zh", "evidence_zh")


def only_when(condition, condition_zh):
    return Verdict(f"holds only when {condition}", f"仅当{condition_zh}时成立")


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


# (id, source, topic, claim, verdict, evidence, chapter link, claim in Chinese, evidence in Chinese)
CLAIMS = [
    # ---------------------------------------------------------------- why attention
    ("C000-02", "000 §1", "why", "Self-attention is four steps: Q/K/V projection, scaling, softmax, weighted "
     "sum.", HOLDS,
     "Eq. 1 of the paper; the core's `scaled_dot_product_attention` is exactly these "
     "steps.", "scaled-dot-product.md",
     "自注意力分四步：Q/K/V 投影、缩放、softmax、加权求和。",
     "论文的式 1；核心模块的 `scaled_dot_product_attention` 恰好就是这几步。"),
    ("C000-03", "000 §2.1", "why", "An RNN's hidden state is `h_t = f(h_{t-1}, x_t)`.", HOLDS,
     cite("§1: hidden states h_t \"as a function of the previous hidden state h_(t-1) and the input for position "
     "t\"."),
     "why-attention.md",
     "RNN 的隐藏状态是 `h_t = f(h_{t-1}, x_t)`。",
     "Vaswani 等人 2017，§1：隐藏状态 h_t 是“前一个隐藏状态 h_(t-1) 与位置 t 的输入的函数”。"),
    ("C000-04", "000 §2.1", "why", "\"cat\" and \"mat\" are 5 words apart, so an RNN passes through 5 nonlinear "
     "steps.", FAILS,
     "{{ why_attention.path_length.cat_mat_words_between }} lie between them; the recurrence takes "
     "{{ why_attention.path_length.cat_mat_distance }} steps.", "why-attention.md",
     "`cat` 和 `mat` 相隔 5 个词，所以 RNN 要经过 5 个非线性步骤。",
     "它们之间只有 {{ why_attention.path_length.cat_mat_words_between }} 个词；递推要走 "
     "{{ why_attention.path_length.cat_mat_distance }} 步。"),
    ("C000-05", "000 §2.1", "why", "Gradient decay makes such a span (4–5 tokens) practically impossible for "
     "LSTMs.", FAILS,
     "At 4 steps the gradient has not vanished: in an untrained tanh RNN ({{ why_attention.rnn_gradient.draws }} draws) the "
     "last state's gradient norm is {{ why_attention.rnn_gradient.rnn_d4 }} at distance 4 and {{ why_attention.rnn_gradient.rnn_d20 }} "
     "at 20. Khandelwal et al. 2018 (ACL) report trained LSTM language models using about 200 tokens of context.",
     "why-attention.md",
     "梯度衰减使 LSTM 几乎不可能跨越这样的距离（4–5 个词元）。",
     "4 步时梯度并未消失：在未训练的 tanh RNN 中（抽取 {{ why_attention.rnn_gradient.draws }} 次），"
     "最后一个状态的梯度范数在距离 4 处为 {{ why_attention.rnn_gradient.rnn_d4 }}，在距离 20 处为 "
     "{{ why_attention.rnn_gradient.rnn_d20 }}。Khandelwal 等人 2018（ACL）报告，训练好的 LSTM "
     "语言模型使用大约 200 个词元的上下文。"),
    ("C000-06", "000 §2.1", "why", "A CNN needs exponentially many layers to cover a sentence.", FAILS,
     "Width-{{ why_attention.path_length.kernel }} kernels cover 512 tokens with {{ why_attention.path_length.contiguous_512 }} "
     "contiguous or {{ why_attention.path_length.dilated_512 }} dilated layers: linear or logarithmic. "
     + cite("§4: O(n/k), or O(log_k(n)) with dilation."), "why-attention.md",
     "CNN 需要指数级多的层才能覆盖一个句子。",
     "宽度为 {{ why_attention.path_length.kernel }} 的卷积核覆盖 512 个词元，连续卷积需要 "
     "{{ why_attention.path_length.contiguous_512 }} 层，空洞卷积需要 "
     "{{ why_attention.path_length.dilated_512 }} 层：是线性或对数级的。Vaswani 等人 2017，§4：O(n/k)，"
     "使用空洞卷积时为 O(log_k(n))。"),
    ("C000-07", "000 §2.1", "why", "RNN-based models were stuck at 25.8 BLEU (EN-DE).", FAILS,
     "Table 2: GNMT+RL {{ claims.why.paper_gnmt_en_de }}, GNMT+RL Ensemble {{ claims.why.paper_gnmt_ens_en_de }}. {{ "
     "claims.why.paper_dev_base }} is the "
     "Transformer base "
     "model on the dev set (Table 3).", "claims.md#the-papers-numbers",
     "基于 RNN 的模型卡在 25.8 BLEU（英德）。",
     "表 2：GNMT+RL 为 {{ claims.why.paper_gnmt_en_de }}，GNMT+RL Ensemble 为 "
     "{{ claims.why.paper_gnmt_ens_en_de }}。{{ claims.why.paper_dev_base }} 是 Transformer base "
     "模型在开发集上的成绩（表 3）。"),
    ("C000-08", "000 §2.1", "why", "The Transformer reached 28.4 BLEU.", HOLDS,
     "Table 2: Transformer (big), EN-DE, newstest2014: {{ claims.why.paper_big_en_de }}.", "claims.md#the-papers-numbers",
     "Transformer 达到了 28.4 BLEU。",
     "表 2：Transformer (big)，英德，newstest2014：{{ claims.why.paper_big_en_de }}。"),
    ("C000-09", "000 §2.1", "why", "Training was 3× faster.", FAILS,
     "The paper reports FLOPs, not a speed-up: big {{ claims.why.paper_flops_big }} = {{ "
     "claims.why.flops_ratio_big_gnmt }}× GNMT+RL's; base is "
     "{{ claims.why.flops_ratio_convs2s }}× below ConvS2S and {{ claims.why.flops_ratio_gnmt }}× below GNMT+RL (Table "
     "2).", "claims.md#the-papers-numbers",
     "训练速度提升了 3 倍。",
     "论文报告的是 FLOPs，而不是加速比：big 模型为 {{ claims.why.paper_flops_big }}，是 GNMT+RL 的 "
     "{{ claims.why.flops_ratio_big_gnmt }} 倍；base 模型只有 ConvS2S 的 "
     "1/{{ claims.why.flops_ratio_convs2s }}，GNMT+RL 的 1/{{ claims.why.flops_ratio_gnmt }}（表 2）。"),
    ("C000-10", "000 §2.1", "why", "\"Attention Is All You Need\" is from 2017.", HOLDS, "arXiv:1706.03762 (June "
     "2017), NIPS 2017.", "",
     "《Attention Is All You Need》发表于 2017 年。",
     "arXiv:1706.03762（2017 年 6 月），NIPS 2017。"),
    ("C000-11", "000 §2.1", "why", "Attention links any two tokens by a learnable, distance-free direct path.", HOLDS,
     "Table 1: maximum path length O(1). Changing the first token moves the last output by {{ "
     "claims.why.first_to_last_one_layer }} "
     "after one layer.",
     "why-attention.md",
     "注意力用一条可学习的、与距离无关的直接路径连接任意两个词元。",
     "表 1：最大路径长度 O(1)。只改变第一个词元，一层之后最后一个输出就变化 "
     "{{ claims.why.first_to_last_one_layer }}。"),
    ("C000-12", "000 §2.1", "why", "The attention score is Q·Kᵀ.", HOLDS, "Before the 1/√d_k scale; see Eq. "
     "1.", "scaled-dot-product.md",
     "注意力分数是 Q·Kᵀ。",
     "这是乘以 1/√d_k 之前的分数；见式 1。"),
    ("C003-02", "003 S1", "why", "Every word talks directly to every other word.", only_when("there is no causal "
     "mask", "没有因果掩码"),
     "Path length 1 (Table 1). With a causal mask a token sees only earlier ones: changing the last token moves "
     "earlier outputs "
     "by {{ masks.leakage.causal_max_change }}.", "masks.md",
     "每个词都与其他每个词直接对话。",
     "路径长度为 1（表 1）。有因果掩码时，一个词元只看得见它前面的词元：改变最后一个词元，前面的输出变化 "
     "{{ masks.leakage.causal_max_change }}。"),
    ("C003-03", "003 S1", "why", "Self-attention completely solves the RNN's long-range forgetting.", FAILS,
     "The score matrix grows as n²: {{ claims.why.n_score_entries_512 }} entries at 512 tokens, {{ "
     "claims.why.n_score_entries_4096 }} at 4096, so "
     "every model "
     "has a finite window; nothing outside it is seen at all.", "online-softmax.md",
     "自注意力彻底解决了 RNN 的长距离遗忘问题。",
     "分数矩阵按 n² 增长：512 个词元时有 {{ claims.why.n_score_entries_512 }} 项，4096 个词元时有 "
     "{{ claims.why.n_score_entries_4096 }} 项，所以每个模型的窗口都是有限的；窗口之外的内容根本看不到。"),
    ("C003-04", "003 S2", "why", "RNNs only remember recent information.",
     only_when("\"only\" means \"mostly\": an early word's influence decays with distance", "“只能”的意思是“主要”：早先的词的影响随距离衰减"),
     "Untrained tanh RNN: the gradient of the last state has norm {{ why_attention.rnn_gradient.rnn_d1 }} at distance 1, "
     "{{ why_attention.rnn_gradient.rnn_d20 }} at 20, {{ why_attention.rnn_gradient.rnn_d49 }} at 49. Trained LSTM language models use "
     "about 200 tokens (Khandelwal et al. 2018), so \"only the most recent\" is too strong.", "why-attention.md",
     "RNN“只能记住最近的信息”。",
     "未训练的 tanh RNN：最后一个状态的梯度范数在距离 1 处为 {{ why_attention.rnn_gradient.rnn_d1 }}，距离 "
     "20 处为 {{ why_attention.rnn_gradient.rnn_d20 }}，距离 49 处为 "
     "{{ why_attention.rnn_gradient.rnn_d49 }}。训练好的 LSTM 语言模型使用大约 200 个词元（Khandelwal 等人 "
     "2018），所以“只能记住最近的”说得太重了。"),
    ("C003-05", "003 S2", "why", "Google introduced self-attention in \"Attention Is All You Need\" (2017).", FAILS,
     cite("§2: self-attention \"has been used successfully in a variety of tasks\" before; the paper's claim is the "
     "first "
          "transduction model relying entirely on it."), "",
     "2017 年 Google 在《Attention Is All You Need》中提出了自注意力机制。",
     "Vaswani 等人 2017，§2：在此之前，自注意力“已经在多种任务中得到成功应用”；论文的主张是，"
     "它是第一个完全依赖自注意力的转导模型。"),
    ("C003-06", "003 S2", "why", "The model sees the whole text at once.", only_when("the text fits the context "
     "window", "文本装得进上下文窗口"),
     "All positions are computed in one call; the window is finite (see C003-03).", "full-layer.md",
     "模型一次看到整段文本。",
     "所有位置在一次调用中算出；但窗口是有限的（见 C003-03）。"),
    ("C003-07", "003 S2", "why", "Self-attention is why all LLMs (ChatGPT, Claude…) understand long text.", UNCHECKED,
     "A claim about every LLM; not measurable with NumPy.", "",
     "自注意力是所有大语言模型（ChatGPT、Claude……）能理解长文本的原因。",
     "这是关于所有大语言模型的论断；用 NumPy 无法测量。"),
    ("C003-33", "003 S6", "why", "Versus RNNs: path length 1 instead of N−1, all positions in parallel.", HOLDS,
     "Table 1: maximum path O(1) vs O(n), sequential operations O(1) vs O(n).", "why-attention.md",
     "与 RNN 相比：路径长度是 1 而不是 N−1，所有位置并行计算。",
     "表 1：最大路径长度 O(1) 对 O(n)，顺序操作数 O(1) 对 O(n)。"),
    # ---------------------------------------------------------------- queries, keys, values
    ("C000-13", "000 §2.2", "qkv", "W_q, W_k, W_v are learned parameters.", HOLDS, cite("§3.2.2: \"learned linear "
     "projections\"."),
     "queries-keys-values.md",
     "W_q、W_k、W_v 是学习得到的参数。",
     "Vaswani 等人 2017，§3.2.2：“学习得到的线性投影”。"),
    ("C000-14", "000 §2.2", "qkv", "The same word at different positions gets different Q/K/V vectors.",
     only_when("positional encodings are added (in the first layer)", "加上了位置编码（在第一层）"),
     "One word vector at all 7 positions: query rows differ by {{ claims.qkv.same_word_q_diff_no_pe }} without PE, "
     "by up to "
     "{{ claims.qkv.same_word_q_diff_pe }} with it.", "positional-encoding.md",
     "同一个词在不同位置得到不同的 Q/K/V 向量。",
     "把同一个词向量放在全部 7 个位置上：不加位置编码时，查询的各行相差 "
     "{{ claims.qkv.same_word_q_diff_no_pe }}；加上位置编码后，最多相差 "
     "{{ claims.qkv.same_word_q_diff_pe }}。"),
    ("C000-87", "000 §2.2", "qkv", "The names query, key, value are a misleading database metaphor; Q/K/V are "
     "really projection, matching and aggregation.", FAILS,
     "The names are the paper's own, and so is the lookup reading: an attention function maps \"a query and a set "
     "of key-value pairs to an output\", a weighted sum of the values (" + cite("§3.2).") + " Projection, matching "
     "and aggregation are how that soft lookup is computed, not a different thing.", "queries-keys-values.md",
     "查询、键、值这些名字是一个误导人的数据库比喻（种子教程称之为“诗意误译”）；Q/K/V "
     "实际上是“投影-匹配-聚合”。",
     "这些名字就是论文自己起的，查找式的解读也来自论文：注意力函数把“一个查询和一组键值对映射为一个输出”，"
     "即值的加权求和（Vaswani 等人 2017，§3.2）。投影、匹配和聚合是计算这种软查找的方式，而不是另一回事。"),
    ("C000-58", "000 §4.2", "qkv", "q_i·k_i (self-match) is usually the largest score.", only_when("W_q = W_k", "W_q = W_k"),
     "Untrained projections, {{ queries_keys_values.self_match.n_rows }} rows: the own position is the top key in "
     "{{ queries_keys_values.self_match.separate_rate_min }} to {{ queries_keys_values.self_match.separate_rate_max }} of rows "
     "with separate W_q, W_k at every width from 2 to 64 (chance {{ queries_keys_values.self_match.chance }}), in "
     "{{ queries_keys_values.self_match.tied_rate_d8 }} with W_q = W_k at d_k = 8 and "
     "{{ queries_keys_values.self_match.tied_rate_d64 }} at d_k = 64.", "queries-keys-values.md",
     "q_i·k_i（自匹配）通常是最大的分数。",
     "未训练的投影，{{ queries_keys_values.self_match.n_rows }} 行：W_q、W_k 相互独立时，在从 2 到 64 "
     "的每一种宽度下，自己的位置是得分最高的键的行占 {{ queries_keys_values.self_match.separate_rate_min }} "
     "到 {{ queries_keys_values.self_match.separate_rate_max }}（随机水平为 "
     "{{ queries_keys_values.self_match.chance }}）；W_q = W_k 时，d_k = 8 下占 "
     "{{ queries_keys_values.self_match.tied_rate_d8 }}，d_k = 64 下占 "
     "{{ queries_keys_values.self_match.tied_rate_d64 }}。"),
    ("C000-60", "000 §4.2", "qkv", "\"cat\" attends to \"mat\" because of corpus statistics stored in W_k and "
     "W_v.", FAILS,
     "The seed's weights are random and untrained (no corpus), and W_v cannot change the pattern: redrawing W_v "
     "changes the "
     "weights by {{ claims.qkv.w_v_weight_change }}.", "queries-keys-values.md",
     "`cat` 关注 `mat`，是因为 W_k 和 W_v 中存储了语料库的统计规律。",
     "种子教程的权重是随机的、未经训练的（没有语料库），而且 W_v 改变不了注意力模式：重新抽取 W_v，"
     "权重的变化为 {{ claims.qkv.w_v_weight_change }}。"),
    ("C000-81", "000 §6", "qkv", "Q·Kᵀ is essentially cosine similarity.", FAILS,
     "Two keys: one with cosine {{ queries_keys_values.dot_vs_cosine.a_cos }} scores {{ queries_keys_values.dot_vs_cosine.a_dot }}, one with "
     "cosine {{ queries_keys_values.dot_vs_cosine.b_cos }} scores {{ queries_keys_values.dot_vs_cosine.b_dot }}: the dot product ranks them the "
     "other way. Over {{ queries_keys_values.dot_vs_cosine.n_rows_random }} random rows the top key differs in "
     "{{ queries_keys_values.dot_vs_cosine.disagree_rate }}.", "queries-keys-values.md",
     "Q·Kᵀ 本质上就是余弦相似度。",
     "两个键：余弦为 {{ queries_keys_values.dot_vs_cosine.a_cos }} 的键得分 "
     "{{ queries_keys_values.dot_vs_cosine.a_dot }}，余弦为 {{ queries_keys_values.dot_vs_cosine.b_cos }} "
     "的键得分 {{ queries_keys_values.dot_vs_cosine.b_dot }}：点积给出的排序正好相反。在 "
     "{{ queries_keys_values.dot_vs_cosine.n_rows_random }} 个随机行上，两者选出的最高键有 "
     "{{ queries_keys_values.dot_vs_cosine.disagree_rate }} 不同。"),
    ("C003-08", "003 S3", "qkv", "Attention is like a meeting where the boss's words weigh more.", UNCHECKED,
     "An analogy; weights come from query–key scores, not from a fixed importance.", "",
     "注意力就像开会时老板的话分量更重。",
     "这是一个类比；权重来自查询与键的分数，而不是来自固定的重要性。"),
    ("C003-10", "003 S3", "qkv", "Q is the search query, K the article's title, V its body.", UNCHECKED, "An "
     "analogy.", "",
     "Q 是搜索词，K 是文章标题，V 是文章正文。",
     "这是一个类比。"),
    ("C003-11", "003 S3", "qkv", "Match the query to every key, weight, sum the values.", HOLDS, cite("§3.2."),
     "weighted-sum.md",
     "把查询与每个键匹配，得到权重，再对值加权求和。",
     "Vaswani 等人 2017，§3.2。"),
    ("C003-12", "003 S3", "qkv", "Separate Q and K break the symmetry \"i attends j ⇔ j attends i\".",
     only_when("\"symmetry\" means the scores", "“对称性”指的是分数"),
     "With W_q = W_k the scores are symmetric (asymmetry {{ queries_keys_values.tied.tied_asymmetry }}) but the weights are not "
     "({{ queries_keys_values.tied.tied_weights_asymmetry }}): the row softmax breaks it anyway.", "queries-keys-values.md",
     "分开的 Q 和 K（Q≠K）打破了 i 关注 j ⇔ j 关注 i 的对称性。",
     "W_q = W_k 时分数是对称的（不对称度 {{ queries_keys_values.tied.tied_asymmetry }}），"
     "权重却不对称（{{ queries_keys_values.tied.tied_weights_asymmetry }}）：按行的 softmax "
     "无论如何都会打破对称。"),
    ("C003-13", "003 S3", "qkv", "Q asks, K answers the match, V gives the content.", UNCHECKED, "A mnemonic.", "",
     "Q 负责提问，K 负责回答匹配，V 提供内容。",
     "这是一个助记说法。"),
    ("C003-16", "003 S4", "qkv", "Q = xW_q, K = xW_k, V = xW_v (linear, no bias).", HOLDS, cite("§3.2.2 (many "
     "libraries add a bias)."),
     "queries-keys-values.md",
     "Q = xW_q，K = xW_k，V = xW_v（线性，无偏置）。",
     "Vaswani 等人 2017，§3.2.2（许多库会加上偏置）。"),
    ("C003-17", "003 S4", "qkv", "A higher score means a stronger relation between two words.", only_when("comparing "
     "keys of one query", "比较的是同一个查询的各个键"),
     "Softmax keeps the order within a row (checked on the running example: {{ claims.qkv.softmax_keeps_row_order "
     "}}); scores of "
     "different "
     "queries are not comparable.", "softmax.md",
     "分数越高，两个词的关系越强。",
     "softmax 保持一行之内的顺序（在贯穿示例上检查：{{ claims.qkv.softmax_keeps_row_order }}）；"
     "不同查询的分数之间不可比较。"),
    ("C003-23", "003 S4", "qkv", "A word with a larger weight contributes more to the output.", only_when("the value "
     "vectors have equal length", "各个值向量的长度相等"),
     "Contribution is w_j·v_j: in {{ claims.qkv.rows_top_weight_not_top_contribution }} of {{ "
     "claims.qkv.n_running_tokens }} rows of the running "
     "example the "
     "top-weight key is not the largest contributor.", "weighted-sum.md",
     "权重越大的词对输出的贡献越大。",
     "贡献是 w_j·v_j：在贯穿示例的 {{ claims.qkv.n_running_tokens }} 行中，有 "
     "{{ claims.qkv.rows_top_weight_not_top_contribution }} 行权重最大的键并不是贡献最大的。"),
    ("C003-24", "003 S4", "qkv", "Gradients reach Q and K through the weights, and V directly through the "
     "weighted sum.", HOLDS,
     "Wᵀ·dO matches finite differences of the loss in V to {{ claims.qkv.dv_is_weights_t_g }} (relative); the full "
     "backward pass matches them to {{ backward.gradcheck.max_rel_error }} over {{ backward.gradcheck.n_entries }} "
     "entries.", "backward.md",
     "梯度通过权重传到 Q 和 K，通过加权求和直接传到 V。",
     "`Wᵀ·dO` 与损失对 V 的有限差分相符，相对误差为 {{ claims.qkv.dv_is_weights_t_g }}；完整的反向传播在 "
     "{{ backward.gradcheck.n_entries }} 个元素上与有限差分相符，误差为 "
     "{{ backward.gradcheck.max_rel_error }}。"),
    ("G-01", "common", "qkv", "Each attention head looks at its own slice of the input features.", FAILS,
     "Every head projects all d_model features: changing only the last input feature moves head 0's queries by "
     "{{ claims.qkv.head0_sees_last_feature }}.", "multi-head.md",
     "每个注意力头只看输入特征中属于自己的那一段。",
     "每个头都投影全部 d_model 个特征：只改变输入的最后一个特征，头 0 的查询就变化 "
     "{{ claims.qkv.head0_sees_last_feature }}。"),
    ("G-02", "common", "qkv", "Attention weights are symmetric: i attends to j as much as j to i.", FAILS,
     "Running example: max |W − Wᵀ| = {{ claims.qkv.weights_asymmetry }}.", "softmax.md",
     "注意力权重是对称的：i 对 j 的关注与 j 对 i 的关注一样多。",
     "贯穿示例：max |W − Wᵀ| = {{ claims.qkv.weights_asymmetry }}。"),
    # ---------------------------------------------------------------- scaling and softmax
    ("C000-15", "000 §2.3", "scaling", "Dividing by √d_k keeps the softmax from saturating.", HOLDS,
     cite("§3.2.1: large dot products push the softmax \"into regions where it has extremely small gradients\"."),
     "scaled-dot-product.md",
     "除以 √d_k 可以防止 softmax 饱和。",
     "Vaswani 等人 2017，§3.2.1：很大的点积会把 softmax 推入“梯度极小的区域”。"),
    ("C000-16", "000 §2.3", "scaling", "With unit-variance components, q·k has mean 0 and variance d_k.", HOLDS,
     "{{ claims.scaling.n_samples }} samples: variance {{ claims.scaling.var_dot_16 }}, {{ claims.scaling.var_dot_64 "
     "}}, {{ claims.scaling.var_dot_512 }} for d_k = 16, 64, 512; after the scale "
     "{{ claims.scaling.var_scaled_16 }}, {{ claims.scaling.var_scaled_64 }}, {{ claims.scaling.var_scaled_512 }}. " + cite("footnote 4."), "scaled-dot-product.md",
     "分量方差为 1 时，q·k 的均值为 0，方差为 d_k。",
     "{{ claims.scaling.n_samples }} 个样本：d_k = 16、64、512 时方差为 {{ claims.scaling.var_dot_16 }}、"
     "{{ claims.scaling.var_dot_64 }}、{{ claims.scaling.var_dot_512 }}；缩放之后为 "
     "{{ claims.scaling.var_scaled_16 }}、{{ claims.scaling.var_scaled_64 }}、"
     "{{ claims.scaling.var_scaled_512 }}。Vaswani 等人 2017，脚注 4。"),
    ("C000-17", "000 §2.3", "scaling", "For d_k = 64 the dot products lie mostly in [−16, 16].", HOLDS,
     "{{ claims.scaling.share_within_16 }} of samples (±2 standard deviations).", "scaled-dot-product.md",
     "d_k = 64 时，点积的“值域集中在[-16, 16]区间”。",
     "样本中有 {{ claims.scaling.share_within_16 }} 落在其中（±2 个标准差）。"),
    ("C000-18", "000 §2.3", "scaling", "Softmax saturates once inputs reach about 10 (e^10 ≈ 22026, e^20 ≈ "
     "4.8×10^8).",
     only_when("10 is the gap between scores, not their size", "10 指的是分数之间的差距，而不是分数本身的大小"),
     "e^10 = {{ claims.scaling.exp10 }}, e^20 = {{ claims.scaling.exp20 }}. softmax([1000, 1001, 1002]) = {{ "
     "claims.scaling.softmax_1000 }}, the same as for [0, 1, 2] "
     "(difference "
     "{{ claims.scaling.softmax_shift_error }}); a gap of 10 in 6 scores gives a top weight of {{ claims.scaling.gap10_top }}.", "softmax.md",
     "softmax 的输入达到 10 左右就会饱和（e^10 ≈ 22026，e^20 ≈ 4.8×10^8）。",
     "e^10 = {{ claims.scaling.exp10 }}，e^20 = {{ claims.scaling.exp20 }}。softmax([1000, 1001, 1002]) = "
     "{{ claims.scaling.softmax_1000 }}，与 [0, 1, 2] 的结果相同（差 "
     "{{ claims.scaling.softmax_shift_error }}）；6 个分数中相差 10 时，最大权重为 "
     "{{ claims.scaling.gap10_top }}。"),
    ("C000-19", "000 §2.3", "scaling", "Saturation makes gradients vanish.", HOLDS,
     "Over {{ scaled_dot_product.saturation.n_rows }} rows of {{ scaled_dot_product.saturation.n_keys }} keys at d_k = 64, mean softmax Jacobian "
     "norm {{ scaled_dot_product.saturation.jacobian_unscaled_64 }} unscaled (mean top weight "
     "{{ scaled_dot_product.saturation.max_weight_unscaled_64 }}), {{ scaled_dot_product.saturation.jacobian_scaled_64 }} scaled (top weight "
     "{{ scaled_dot_product.saturation.max_weight_scaled_64 }}); at d_k = 1024, {{ scaled_dot_product.saturation.jacobian_unscaled_1024 }} "
     "unscaled.", "scaled-dot-product.md",
     "饱和使梯度消失。",
     "在 d_k = 64、每行 {{ scaled_dot_product.saturation.n_keys }} 个键的 "
     "{{ scaled_dot_product.saturation.n_rows }} 行上，softmax 雅可比矩阵范数的平均值：不缩放时为 "
     "{{ scaled_dot_product.saturation.jacobian_unscaled_64 }}（平均最大权重 "
     "{{ scaled_dot_product.saturation.max_weight_unscaled_64 }}），缩放后为 "
     "{{ scaled_dot_product.saturation.jacobian_scaled_64 }}（最大权重 "
     "{{ scaled_dot_product.saturation.max_weight_scaled_64 }}）；d_k = 1024 时不缩放为 "
     "{{ scaled_dot_product.saturation.jacobian_unscaled_1024 }}。"),
    ("C000-20", "000 §2.3", "scaling", "Setting s²·d_k = 1 gives the factor s = 1/√d_k.", HOLDS,
     "Scaled variances {{ claims.scaling.var_scaled_16 }}, {{ claims.scaling.var_scaled_64 }}, {{ claims.scaling.var_scaled_512 }} (C000-16).", "scaled-dot-product.md",
     "令 s²·d_k = 1，得到缩放因子 s = 1/√d_k。",
     "缩放后的方差为 {{ claims.scaling.var_scaled_16 }}、{{ claims.scaling.var_scaled_64 }}、"
     "{{ claims.scaling.var_scaled_512 }}（C000-16）。"),
    ("C000-21", "000 §2.3", "scaling", "Without the scale the seed's softmax gives rows like [0.999, 0.0001, "
     "…].", FAILS,
     "Unscaled, the seed's exp overflows (largest score {{ scaled_dot_product.seed_claims.s000_max_unscaled_score }}): "
     "{{ scaled_dot_product.seed_claims.s000_nan_rows }} of {{ scaled_dot_product.seed_claims.s000_rows }} rows are NaN, and at least "
     "{{ scaled_dot_product.seed_claims.robust_min_nan_rows }} in each of {{ scaled_dot_product.seed_claims.robust_seeds }} draws. A stable "
     "softmax gives {{ scaled_dot_product.seed_claims.s000_one_hot_rows_unscaled }} rows that are one-hot to float64 "
     "rounding: the top weight rounds to 1.",
     "scaled-dot-product.md",
     "不缩放时，种子教程的 softmax 给出 [0.999, 0.0001, …] 这样的行。",
     "不缩放时，种子教程的 exp 会溢出（最大分数 "
     "{{ scaled_dot_product.seed_claims.s000_max_unscaled_score }}）："
     "{{ scaled_dot_product.seed_claims.s000_rows }} 行中有 "
     "{{ scaled_dot_product.seed_claims.s000_nan_rows }} 行是 NaN，在 "
     "{{ scaled_dot_product.seed_claims.robust_seeds }} 次抽取中每次至少有 "
     "{{ scaled_dot_product.seed_claims.robust_min_nan_rows }} 行。数值稳定的 softmax 给出 "
     "{{ scaled_dot_product.seed_claims.s000_one_hot_rows_unscaled }} 行在 float64 舍入精度下独热的结果："
     "最大权重舍入后为 1。"),
    ("C000-22", "000 §2.3", "scaling", "Adding / √d_k immediately makes the weights smooth and trainable.", FAILS,
     "In the seed's code, with the scale: score std {{ scaled_dot_product.seed_claims.s000_scaled_score_std }}; over "
     "{{ scaled_dot_product.seed_claims.robust_seeds }} draws {{ scaled_dot_product.seed_claims.robust_share_one_hot_scaled }} of rows put more "
     "than 0.999 on one key. The cause is W drawn with std 1 (q entries have std {{ claims.scaling.seed000_q_std }}); "
     "with std 1/√d_model the same draw gives score std {{ claims.scaling.seed000_fixed_std }} and mean top weight "
     "{{ claims.scaling.seed000_fixed_top_nomask }} over its 6 rows without the mask.", "debugging.md#one-hot-weights",
     "加上 / √d_k，权重立刻就变得平滑、可训练。",
     "在种子教程的代码中，带上缩放：分数的标准差为 "
     "{{ scaled_dot_product.seed_claims.s000_scaled_score_std }}；在 "
     "{{ scaled_dot_product.seed_claims.robust_seeds }} 次抽取中，有 "
     "{{ scaled_dot_product.seed_claims.robust_share_one_hot_scaled }} 的行把超过 0.999 的权重放在一个键上。"
     "原因是 W 按标准差 1 抽取（q 的元素标准差为 {{ claims.scaling.seed000_q_std }}）；改用标准差 "
     "1/√d_model，同一次抽取的分数标准差为 {{ claims.scaling.seed000_fixed_std }}，不加掩码时它的 6 "
     "行平均最大权重为 {{ claims.scaling.seed000_fixed_top_nomask }}。"),
    ("C000-23", "000 §2.3", "scaling", "Scaling is not a trick but a mathematical necessity.", only_when("q and k "
     "have unit-variance components", "q 和 k 的分量方差为 1"),
     "The seed's own code scales and still saturates (C000-22).", "debugging.md#one-hot-weights",
     "缩放不是技巧，而是数学上的必然。",
     "种子教程自己的代码做了缩放，却仍然饱和（C000-22）。"),
    ("C003-18", "003 S4", "scaling", "When d_k is large, dot products become very large.", only_when("the components "
     "have a fixed variance", "各分量的方差固定"),
     "Standard deviation grows as √d_k (variances {{ claims.scaling.var_dot_16 }}, {{ claims.scaling.var_dot_64 }}, "
     "{{ claims.scaling.var_dot_512 }}).", "scaled-dot-product.md",
     "d_k 很大时，点积会变得非常大。",
     "标准差按 √d_k 增长（方差为 {{ claims.scaling.var_dot_16 }}、{{ claims.scaling.var_dot_64 }}、"
     "{{ claims.scaling.var_dot_512 }}）。"),
    ("C003-19", "003 S4", "scaling", "A saturated softmax outputs near 0 or 1 and has tiny gradients.", HOLDS,
     "Over {{ scaled_dot_product.saturation.n_rows }} rows at d_k = 64: Jacobian norm {{ scaled_dot_product.saturation.jacobian_unscaled_64 }} "
     "unscaled vs {{ scaled_dot_product.saturation.jacobian_scaled_64 }} scaled (C000-19).", "scaled-dot-product.md",
     "饱和的 softmax 输出接近 0 或 1，梯度极小。",
     "在 d_k = 64 的 {{ scaled_dot_product.saturation.n_rows }} 行上：雅可比矩阵范数不缩放时为 "
     "{{ scaled_dot_product.saturation.jacobian_unscaled_64 }}，缩放后为 "
     "{{ scaled_dot_product.saturation.jacobian_scaled_64 }}（C000-19）。"),
    ("C003-20", "003 S4", "scaling", "Dividing by √d_k normalises the score variance to 1.", only_when("q and k "
     "have unit-variance components", "q 和 k 的分量方差为 1"),
     "Scaled score variance in seed 003's code: {{ scaled_dot_product.seed_claims.s003_scaled_var }}; standard deviation in seed "
     "000's: {{ scaled_dot_product.seed_claims.s000_scaled_score_std }}.", "scaled-dot-product.md",
     "除以 √d_k 把分数的方差归一化为 1。",
     "种子教程 003 的代码中缩放后分数的方差：{{ scaled_dot_product.seed_claims.s003_scaled_var }}；种子教程 "
     "000 的代码中的标准差：{{ scaled_dot_product.seed_claims.s000_scaled_score_std }}。"),
    ("C003-21", "003 S4", "scaling", "Table: unscaled → variance d_k, tiny gradient, hard to train; scaled → "
     "variance 1, moderate, stable.", only_when("q and k have unit-variance components", "q 和 k 的分量方差为 1"),
     "Variance and gradient columns: C000-16 and C000-19. Training column, d_k = {{ training.scaling.d_k }}, "
     "{{ training.scaling.n_seeds }} seeds, {{ training.scaling.steps }} steps: attention on the right word "
     "{{ training.scaling.final_attention_scaled_mean }} scaled vs {{ training.scaling.final_attention_unscaled_mean }} "
     "unscaled.", "training.md",
     "表格：不缩放 → 方差 d_k、梯度极小、难以训练；缩放 → 方差 1、梯度适中、训练稳定。",
     "方差列和梯度列：见 C000-16 和 C000-19。训练列，d_k = {{ training.scaling.d_k }}，"
     "{{ training.scaling.n_seeds }} 个生成器种子，{{ training.scaling.steps }} 步：落在正确词上的注意力，"
     "缩放时为 {{ training.scaling.final_attention_scaled_mean }}，不缩放时为 "
     "{{ training.scaling.final_attention_unscaled_mean }}。"),
    ("C003-22", "003 S4", "scaling", "Each softmax row sums to 1.", HOLDS, "Largest deviation over 50 rows of wide "
     "scores: {{ claims.scaling.row_sum_error }}.",
     "softmax.md",
     "softmax 的每一行之和为 1。",
     "在 50 行取值范围很宽的分数上，最大偏差为 {{ claims.scaling.row_sum_error }}。"),
    ("C003-25", "003 S5", "scaling", "Subtracting the max makes softmax stable without changing it.", HOLDS,
     "Stable vs naive on moderate scores: {{ claims.scaling.stable_vs_naive }}.", "softmax.md",
     "减去最大值使 softmax 数值稳定，而不改变结果。",
     "在大小适中的分数上，稳定版本与朴素版本相差 {{ claims.scaling.stable_vs_naive }}。"),
    ("C003-41", "003 S7", "scaling", "Always scale: without it the softmax saturates and gradients vanish.",
     only_when("the projections keep q and k near unit variance", "投影使 q 和 k 的方差保持在 1 附近"), "Scaling is necessary, not sufficient: C000-22.",
     "debugging.md#one-hot-weights",
     "一定要缩放：否则 softmax 饱和、梯度消失。",
     "缩放是必要条件，不是充分条件：见 C000-22。"),
    ("C003-42", "003 S7", "scaling", "Subtract the max in softmax to avoid overflow.", HOLDS,
     "It removes the seed's NaN rows exactly (C000-21).", "debugging.md#nan-overflow",
     "在 softmax 中减去最大值以避免溢出。",
     "它恰好消除了种子教程中的 NaN 行（C000-21）。"),
    ("G-03", "common", "scaling", "Dividing by d_k instead of √d_k works just as well.", FAILS,
     "Unit-variance q, k with d_k = 64, {{ claims.scaling.n_rows }} rows of 6 keys: mean top weight "
     "{{ claims.scaling.scale_d_k_top }} with 1/d_k, close to uniform ({{ claims.scaling.uniform_6 }}), against "
     "{{ claims.scaling.scale_sqrt_d_k_top }} with 1/√d_k.", "scaled-dot-product.md",
     "除以 d_k 而不是 √d_k，效果一样好。",
     "分量方差为 1 的 q、k，d_k = 64，每行 6 个键，共 {{ claims.scaling.n_rows }} 行：用 1/d_k "
     "时平均最大权重为 {{ claims.scaling.scale_d_k_top }}，接近均匀（{{ claims.scaling.uniform_6 }}）；用 "
     "1/√d_k 时为 {{ claims.scaling.scale_sqrt_d_k_top }}。"),
    ("G-04", "common", "scaling", "The 1/√d_k scale is a softmax temperature of √d_k.", HOLDS,
     "The core's softmax of s/√d_k against exp(s/T)/Σ exp(s/T) written out with T = √d_k = 8, over "
     "{{ claims.scaling.n_rows }} rows: largest difference {{ claims.scaling.temperature_error }}. That temperature "
     "brings unit-variance scores at d_k = 64 to std {{ claims.scaling.temperature_std }}.", "softmax.md",
     "1/√d_k 的缩放相当于温度为 √d_k 的 softmax。",
     "在 {{ claims.scaling.n_rows }} 行上，把核心模块对 s/√d_k 的 softmax 与按定义写出的 exp(s/T)/Σ "
     "exp(s/T)（T = √d_k = 8）比较：最大差为 {{ claims.scaling.temperature_error }}。这个温度把 d_k = 64 "
     "时方差为 1 的分数变为标准差 {{ claims.scaling.temperature_std }}。"),
    # ---------------------------------------------------------------- positions and order
    ("C000-24", "000 §3.1", "positions", "Without position information attention cannot tell word orders "
     "apart.", only_when("there is no causal mask either", "也没有因果掩码"),
     "Without a mask, permuting the input permutes the output (error {{ order_matters.permutation.equivariance_error }}); "
     "a causal mask alone breaks that (error {{ order_matters.permutation.mask_equivariance_error }}), as in C000-83.",
     "order-matters.md",
     "没有位置信息，注意力就分辨不出词序。",
     "不加掩码时，打乱输入就以同样的方式打乱输出（误差 {{ order_matters.permutation.equivariance_error }}）；"
     "单是因果掩码就能打破这一点（误差 {{ order_matters.permutation.mask_equivariance_error }}），与 C000-83 "
     "相同。"),
    ("C000-25", "000 §3.1", "positions", "Position is a separate, learnable feature dimension hard-coded into the "
     "word vector.", FAILS,
     "Sinusoidal encodings have no parameters (the seed's own loop equals the core's formula to "
     "{{ claims.positions.pe_formula_error }}) and are added to the same d_model dimensions. " + cite("§3.5."),
     "positional-encoding.md",
     "位置是一个单独的、可学习的特征维度，硬编码进词向量。",
     "正弦位置编码没有参数（种子教程自己的循环与核心模块的公式相差 {{ claims.positions.pe_formula_error }}）"
     "，并且加到同样的 d_model 个维度上。Vaswani 等人 2017，§3.5。"),
    ("C000-26", "000 §3.1", "positions", "Sinusoidal encoding is not the only solution.", HOLDS,
     "Table 3 row (E): learned positional embeddings {{ claims.why.paper_dev_learned_pe }} BLEU vs {{ "
     "claims.why.paper_dev_base }} "
     "(dev).", "positional-encoding.md",
     "正弦编码不是唯一的方案。",
     "表 3 第 (E) 行：学习得到的位置嵌入为 {{ claims.why.paper_dev_learned_pe }} BLEU，正弦编码为 "
     "{{ claims.why.paper_dev_base }}（开发集）。"),
    ("C000-88", "000 §3.1", "positions", "Vaswani et al. designed the sinusoidal encoding in 2017 to meet three "
     "constraints: deterministic, extrapolating, sensitive to relative position.",
     only_when("read as the paper's two stated reasons", "把它理解为论文陈述的两个理由"),
     "§3.5 gives two: relative positions (PE at pos + k is a linear function of PE at pos: a rotation, to "
     "{{ positional_encoding.relative.rotation_max_error }}) and a hope to \"extrapolate to sequence lengths longer than the ones "
     "encountered during training\". Determinism is a property, not a stated goal.", "positional-encoding.md",
     "Vaswani 等人在 2017 年设计正弦编码，是为了满足三个约束：确定性、可外推、对相对位置敏感。",
     "§3.5 只给出两个理由：相对位置（pos + k 处的位置编码是 pos 处位置编码的线性函数：一次旋转，误差 "
     "{{ positional_encoding.relative.rotation_max_error }}），"
     "以及希望它能“外推到比训练时遇到的更长的序列长度”。确定性是一种性质，而不是论文陈述的目标。"),
    ("C000-27", "000 §3.1", "positions", "Sinusoidal encodings are deterministic.", HOLDS,
     "A closed formula of position and dimension, with no draw and no parameter; the seed's loop and the core agree "
     "to {{ claims.positions.pe_formula_error }}.", "positional-encoding.md",
     "正弦编码是确定性的。",
     "它是位置和维度的封闭公式，没有随机抽取，也没有参数；种子教程的循环与核心模块相差 "
     "{{ claims.positions.pe_formula_error }}。"),
    ("C000-28", "000 §3.1", "positions", "The encoding extrapolates to positions never seen in training.",
     only_when("it means the vectors can be computed", "它的意思是这些向量可以计算出来"),
     "Position {{ claims.positions.far_position }} is finite (max |PE| {{ claims.positions.pe_far_max }}). Whether a "
     "model uses it is untested here; the paper "
     "only says it "
     "\"may allow the model to extrapolate\" (§3.5).", "positional-encoding.md",
     "这种编码能外推到训练时从未见过的位置。",
     "位置 {{ claims.positions.far_position }} 的编码是有限的（max |PE| 为 "
     "{{ claims.positions.pe_far_max }}）。模型能否用好它，这里没有检验；论文只说它“可能让模型外推”（§3.5）。"),
    ("C000-29", "000 §3.1", "positions", "P_i − P_j reflects the distance |i − j|.", HOLDS,
     "‖P_i − P_j‖ depends only on i − j (spread {{ claims.positions.pe_distance_spread }}), though not monotonically "
     "({{ claims.positions.pe_distance_not_monotone }} "
     "decreases in the first 40 steps).", "positional-encoding.md",
     "P_i − P_j 反映了距离 |i − j|。",
     "‖P_i − P_j‖ 只取决于 i − j（离散程度 {{ claims.positions.pe_distance_spread }}），但并不单调（前 40 "
     "步中有 {{ claims.positions.pe_distance_not_monotone }} 次减小）。"),
    ("C000-30", "000 §3.1", "positions", "P(i, 2j) = sin(i/10000^(2j/d_model)), P(i, 2j+1) = cos(…).", HOLDS,
     "The seed's loop equals the core's `sinusoidal_positions` (difference {{ claims.positions.pe_formula_error }}). " + cite("§3.5."),
     "positional-encoding.md",
     "P(i, 2j) = sin(i/10000^(2j/d_model))，P(i, 2j+1) = cos(…)。",
     "种子教程的循环与核心模块的 `sinusoidal_positions` 相同（差 {{ claims.positions.pe_formula_error }}）。"
     "Vaswani 等人 2017，§3.5。"),
    ("C000-31", "000 §3.1", "positions", "Small j is a low-frequency wave, large j a high-frequency one.", FAILS,
     "Reversed: the period is {{ claims.positions.period_dim0 }} positions at dimension 0 and {{ "
     "claims.positions.period_last }} at dimension 126 (d_model = "
     "128).",
     "positional-encoding.md",
     "j 小是低频波，j 大是高频波。",
     "正好说反了：维度 0 的周期是 {{ claims.positions.period_dim0 }} 个位置，维度 126 的周期是 "
     "{{ claims.positions.period_last }} 个位置（d_model = 128）。"),
    ("C000-32", "000 §3.1", "positions", "LayerNorm after embedding + PE is mandatory because their scales "
     "differ.", FAILS,
     "std of the seed's word vectors {{ claims.positions.seed000_x_std }}, of its 6 encodings {{ "
     "claims.positions.pe6_std }} (long sequences {{ claims.positions.pe_long_std }}). "
     "The paper adds "
     "them and applies dropout, no LayerNorm (§3.4, §5.4).", "positional-encoding.md",
     "嵌入加位置编码之后必须做层归一化，因为两者的尺度不同。",
     "种子教程的词向量标准差为 {{ claims.positions.seed000_x_std }}，它的 6 个位置编码的标准差为 "
     "{{ claims.positions.pe6_std }}（长序列为 {{ claims.positions.pe_long_std }}）。论文把两者相加后做 "
     "dropout，没有层归一化（§3.4、§5.4）。"),
    ("C000-33", "000 §3.1", "positions", "The correct pipeline is (embedding + PE) → LayerNorm → "
     "Dropout.", only_when("you follow BERT", "你遵循 BERT 的做法"),
     "BERT's `embedding_postprocessor` ends in `layer_norm_and_dropout` (google-research/bert, modeling.py); the "
     "Transformer "
     "paper uses dropout only (§5.4).", "positional-encoding.md",
     "正确的流程是（嵌入 + 位置编码）→ 层归一化 → dropout。",
     "BERT 的 `embedding_postprocessor` 以 `layer_norm_and_dropout` 结尾（`google-research/bert`，`modeling.py`）"
     "；Transformer 论文只用 dropout（§5.4）。"),
    ("C000-34", "000 §3.1", "positions", "This made convergence 40% faster.", UNCHECKED, "An anecdote without a "
     "setup.", "",
     "这使收敛速度提升了 40%。",
     "一则没有给出实验设置的轶事。"),
    ("C000-74", "000 §5.2", "positions", "A pre-trained model's position encoding has maximum length "
     "512.", only_when("the model is BERT-like", "模型是类 BERT 的"),
     "BERT's `max_position_embeddings=512` is a learned table; sinusoidal encodings exist at any position (C000-28).",
     "positional-encoding.md",
     "预训练模型的位置编码最大长度为 512。",
     "BERT 的 `max_position_embeddings=512` 是一张学习得到的表；正弦编码在任何位置都存在（C000-28）。"),
    ("C000-75", "000 §5.2", "positions", "Fine-tuning on 128-token data overfits the first 128 positions and "
     "ignores the rest.", only_when("positions are a learned table, and \"ignores\" means \"never updates\"", "位置是一张学习得到的表，且“忽略”的意思是“从不更新”"),
     "Rows of a learned {{ debugging.positions.table_rows }}-row table that no input uses get gradient "
     "{{ debugging.positions.unused_grad }}: they keep their pre-trained values. Sinusoidal encodings have no parameters. "
     "Whether the used rows overfit needs fine-tuning runs.", "debugging.md#positions",
     "在 128 个词元的数据上微调，会过拟合前 128 个位置并忽略其余位置。",
     "一张学习得到的 {{ debugging.positions.table_rows }} 行的表中，没有输入用到的行得到的梯度为 "
     "{{ debugging.positions.unused_grad }}：它们保持预训练时的值。正弦编码没有参数。用到的行是否过拟合，"
     "需要真正做微调才知道。"),
    ("C000-76", "000 §5.2", "positions", "Fix: map the \"512-dim\" encoding to 128 dims, then bilinearly back to "
     "512.", FAILS,
     "512 is a number of positions, not a width. Resampling the table down to 128 positions and back moves dimension "
     "0 by "
     "{{ debugging.positions.resample_error_fast }} (values lie in [−1, 1]). Position interpolation (Chen et al. 2023) "
     "rescales position "
     "indices to "
     "extend a window, not to shrink it.", "debugging.md#positions",
     "修复方法：把“512 维”的编码映射到 128 维，再用双线性插值还原到 512。",
     "512 是位置的个数，不是宽度。把这张表重采样到 128 个位置再还原，维度 0 变化 "
     "{{ debugging.positions.resample_error_fast }}（取值范围是 [−1, 1]）。位置插值（Chen 等人 2023）"
     "重新缩放位置索引，是为了扩展窗口，而不是缩小窗口。"),
    ("C000-77", "000 §5.2", "positions", "This gave 2.3× faster convergence.", UNCHECKED, "An anecdote without a "
     "setup.", "",
     "这使收敛速度提升了 2.3 倍。",
     "一则没有给出实验设置的轶事。"),
    ("C000-83", "000 §6", "positions", "Without PE all words are equal and order is invisible.", only_when("there is "
     "no causal mask", "没有因果掩码"),
     "Permutation error {{ order_matters.permutation.equivariance_error }} without a mask, {{ "
     "order_matters.permutation.mask_equivariance_error }} with "
     "one.", "order-matters.md",
     "没有位置编码，所有词都是平等的，顺序不可见。",
     "置换误差：不加掩码时为 {{ order_matters.permutation.equivariance_error }}，加因果掩码时为 "
     "{{ order_matters.permutation.mask_equivariance_error }}。"),
    ("C000-84", "000 §6", "positions", "Transformers have no built-in notion of before and after.", only_when("there "
     "is no causal mask", "没有因果掩码"),
     "A causal mask alone breaks the permutation symmetry: gap {{ order_matters.permutation.mask_equivariance_error }}.", "order-matters.md",
     "Transformer 没有内置的先后概念。",
     "单是因果掩码就能打破置换对称性：差距为 {{ order_matters.permutation.mask_equivariance_error }}。"),
    ("C003-36", "003 S6", "positions", "Swapping two words gives exactly the same attention result (\"permutation "
     "invariance\").", FAILS,
     "It is equivariance: f(Px) = P f(x) to {{ order_matters.permutation.equivariance_error }}, but f(Px) differs from f(x) "
     "by {{ order_matters.permutation.invariance_error }}.",
     "order-matters.md",
     "交换两个词，注意力结果完全相同（“置换不变性”）。",
     "这是等变性：`f(Px) = P f(x)`，误差为 {{ order_matters.permutation.equivariance_error }}；但 `f(Px)` 与 "
     "`f(x)` 相差 {{ order_matters.permutation.invariance_error }}。"),
    ("C003-37", "003 S6", "positions", "Without PE the dot product depends only on the words, not their "
     "positions.", HOLDS,
     "Same measurement as C003-36.", "order-matters.md",
     "没有位置编码，点积只取决于词本身，与位置无关。",
     "与 C003-36 是同一个测量。"),
    ("C003-38", "003 S6", "positions", "\"I love you\" and \"You love I\" are treated as the same "
     "input.", only_when("\"same\" means the same set of outputs", "“相同”指的是同一组输出"),
     "Mean-pooled outputs agree to {{ order_matters.permutation.pooled_error }}; each token keeps its own output vector, "
     "which moves with it ({{ order_matters.permutation.equivariance_error }}).", "order-matters.md",
     "“I love you”和“You love I”会被视为相同输入。",
     "对输出取平均池化后，两者相差 {{ order_matters.permutation.pooled_error }}；"
     "但每个词元保留自己的输出向量，并随词元一起移动（{{ order_matters.permutation.equivariance_error }}）。"),
    ("C003-39", "003 S6", "positions", "Positional encodings are added to the word "
     "embeddings.", HOLDS, cite("§3.5."), "positional-encoding.md",
     "位置编码加到词嵌入上。",
     "Vaswani 等人 2017，§3.5。"),
    ("C003-40", "003 S6", "positions", "Addition was chosen over concatenation to keep the width and be efficient.",
     only_when("read as \"addition keeps the width\"", "把它理解为“相加保持宽度”"),
     "Adding keeps d_model = {{ claims.heads.add_width }}; concatenating gives {{ claims.heads.concat_width }}. The "
     "paper gives only that reason (\"so "
     "that the two "
     "can be summed\", §3.5).", "positional-encoding.md",
     "选择相加而不是拼接，是为了保持宽度、提高效率。",
     "相加保持 d_model = {{ claims.heads.add_width }}；拼接得到 {{ claims.heads.concat_width }}。"
     "论文给出的理由只有这一条（“使两者可以相加”，§3.5）。"),
    ("C003-46", "003 S8", "positions", "Positional encoding fixes the order blindness.", HOLDS,
     "With PE added, f(Px) and P f(x) differ by {{ order_matters.permutation.pe_equivariance_error }}.", "order-matters.md",
     "位置编码弥补了对顺序的盲区。",
     "加上位置编码后，`f(Px)` 与 `P f(x)` 相差 {{ order_matters.permutation.pe_equivariance_error }}。"),
    # ---------------------------------------------------------------- shapes and heads
    ("C000-35", "000 §3.2", "heads", "L = 6, d_model = 128, h = 2 give d_k = d_v = 64.", HOLDS, "128 / 2 = "
     "64.", "multi-head.md",
     "L = 6、d_model = 128、h = 2，得到 d_k = d_v = 64。",
     "128 / 2 = 64。"),
    ("C000-36", "000 §3.2", "heads", "X (6, 128) → fused W (128, 128) → reshape (6, 2, 64) → transpose (2, 6, "
     "64).", HOLDS,
     "Measured: {{ claims.heads.split_shapes }}.", "multi-head.md",
     "X (6, 128) → 融合的 W (128, 128) → `reshape` (6, 2, 64) → `transpose` (2, 6, 64)。",
     "实测：{{ claims.heads.split_shapes }}。"),
    ("C000-37", "000 §3.2", "heads", "Softmax runs over dim 1, the sequence dimension.", only_when("the scores are "
     "2-D (L, L)", "分数是 2 维的 (L, L)"),
     "For (h, L, L) scores, axis 1 leaves rows summing to as much as {{ claims.heads.axis1_row_sum_error }} away "
     "from 1; the last "
     "axis: "
     "{{ claims.heads.axis_last_row_sum_error }}.", "softmax.md",
     "softmax“是在序列维度dim1上做”（即 `dim=1`）。",
     "对形状为 (h, L, L) 的分数，沿轴 1 做 softmax 后，各行之和与 1 最多相差 "
     "{{ claims.heads.axis1_row_sum_error }}；沿最后一个轴：{{ claims.heads.axis_last_row_sum_error }}。"),
    ("C000-38", "000 §3.2", "heads", "Without splitting heads a 64-d Q would meet a 128-d K.", FAILS,
     "Unsplit, Q and K are both 128-d: Q @ Kᵀ has shape {{ claims.heads.unsplit_scores_shape }}.", "multi-head.md",
     "不拆分头的话，64 维的 Q 会与 128 维的 K 相乘。",
     "不拆分时，Q 和 K 都是 128 维：Q @ Kᵀ 的形状为 {{ claims.heads.unsplit_scores_shape }}。"),
    ("C000-39", "000 §3.2", "heads", "Per-head W of shape (128, 64) is a beginner's mistake that loses multi-head "
     "ability.", FAILS,
     "The paper defines per-head W_i^Q ∈ R^(d_model×d_k) (§3.2.2); the fused matrix is their concatenation "
     "(difference "
     "{{ multi_head.fused_vs_separate.tutorial_slice_error }}).", "multi-head.md",
     "把每个头的 W 设为 (128, 64) 是新手错误，会失去多头的能力。",
     "论文正是为每个头定义 W_i^Q ∈ R^(d_model×d_k)（§3.2.2）；融合的矩阵就是它们的拼接（差 "
     "{{ multi_head.fused_vs_separate.tutorial_slice_error }}）。"),
    ("C000-52", "000 §4.1", "heads", "All heads share one set of W; only the output is split.", FAILS,
     "Each head uses its own column block of W; no parameter is shared (C000-39).", "multi-head.md",
     "所有头共享一组 W，只是把输出拆开。",
     "每个头使用 W 中属于自己的列块；没有任何参数是共享的（C000-39）。"),
    ("C000-61", "000 §4.3", "heads", "Concatenate heads to (6, 128), then multiply by W_o (128, 128).", HOLDS,
     "Measured: {{ claims.heads.concat_shape }}. " + cite("§3.2.2."), "multi-head.md",
     "把各头拼接成 (6, 128)，再乘以 W_o (128, 128)。",
     "实测：{{ claims.heads.concat_shape }}。Vaswani 等人 2017，§3.2.2。"),
    ("C000-62", "000 §4.3", "heads", "W_o is a \"feature fuser\".", UNCHECKED, "A description, not a measurable "
     "claim.", "",
     "W_o 是一个“特征融合器”。",
     "这是一种描述，不是可测量的论断。"),
    ("C000-63", "000 §4.3", "heads", "Removing W_o cost 1.2 BLEU.", UNCHECKED, "The paper has no such ablation "
     "(Table 3).", "",
     "去掉 W_o 会损失 1.2 BLEU。",
     "论文中没有这样的消融实验（表 3）。"),
    ("C003-44", "003 S7", "heads", "The output has the input's shape (batch, seq_len, d_model).", HOLDS,
     "Seed 003's run: input, output, weights {{ claims.seed003.shapes }}.", "full-layer.md",
     "输出与输入形状相同 `(batch, seq_len, d_model)`。",
     "种子教程 003 的运行结果：输入、输出、权重的形状为 {{ claims.seed003.shapes }}。"),
    ("G-05", "common", "heads", "h heads of width d_model/h cost about as much as one full-width head.", HOLDS,
     "Multiply-adds for QKᵀ at L = 6: {{ claims.heads.madds_multi }} with 2 heads, {{ claims.heads.madds_single }} "
     "with one. "
     "" + cite("§3.2.2."), "multi-head.md",
     "h 个宽度为 d_model/h 的头，代价与一个全宽的头差不多。",
     "L = 6 时 QKᵀ 的乘加次数：2 个头为 {{ claims.heads.madds_multi }}，一个头为 "
     "{{ claims.heads.madds_single }}。Vaswani 等人 2017，§3.2.2。"),
    # ---------------------------------------------------------------- attention in today's models: rotary positions, fewer key/value heads
    ("G-21", "common", "positions", "With rotary position embeddings (RoPE) a score depends only on the offset m − n.",
     HOLDS,
     "Moving both positions changes q_m·k_n by at most {{ rotary.relative.max_spread }} (scores up to "
     "{{ rotary.relative.score_scale }}, positions up to {{ rotary.relative.largest_position }}): rounding. Su et al. "
     "2021 (RoFormer), section 3.2.", "rotary.md",
     "使用旋转位置编码（RoPE）时，分数只取决于偏移 m − n。",
     "同时移动两个位置，q_m·k_n 至多变化 {{ rotary.relative.max_spread }}（分数至多为 "
     "{{ rotary.relative.score_scale }}，位置最大到 {{ rotary.relative.largest_position }}）：这是舍入误差。Su 等人 "
     "2021（RoFormer），第 3.2 节。"),
    ("G-22", "common", "positions", "RoPE makes attention scores decay with distance.",
     only_when("the query and the key point the same way", "查询和键方向相同"),
     "RoFormer (section 3.4.3) bounds scores, it does not measure them. Independent random q, k: mean |score| "
     "{{ rotary.relative.random_near }} at offset 0, {{ rotary.relative.random_far }} beyond 512. A key equal to its query: "
     "{{ rotary.relative.same_near }}, then {{ rotary.relative.same_far }}.", "rotary.md",
     "RoPE 让注意力分数随距离衰减。",
     "RoFormer（第 3.4.3 节）给出的是分数的上界，而不是测量。相互独立的随机 q、k：偏移 0 处 |分数| 的平均值为 "
     "{{ rotary.relative.random_near }}，512 以后为 {{ rotary.relative.random_far }}。键等于查询时：先是 "
     "{{ rotary.relative.same_near }}，之后为 {{ rotary.relative.same_far }}。"),
    ("G-23", "common", "positions", "RoPE puts the position into every token's vector, as the sinusoidal encoding "
     "does.", FAILS,
     "Only q and k are rotated; values are not, and position reaches the output only through the weights: shifting every "
     "position by 1,000 changes the output by {{ rotary.relative.shift_change }}.", "rotary.md",
     "RoPE 像正弦编码一样，把位置放进每个词元的向量。",
     "只有 q 和 k 被旋转；值不旋转，位置只能通过权重影响输出：把每个位置都平移 1,000，输出变化 "
     "{{ rotary.relative.shift_change }}。"),
    ("G-24", "common", "positions", "GPT-J-style (adjacent pairs) and Llama-style (split halves) RoPE are "
     "incompatible.", FAILS,
     "Permuting each head's W_Q and W_K columns converts one into the other: scores agree to "
     "{{ rotary.pairing.converted_error }}. Without the permutation they differ by {{ rotary.pairing.unconverted_error }}.",
     "rotary.md",
     "GPT-J 式（相邻配对）与 Llama 式（对半配对）的 RoPE 互不兼容。",
     "把每个头的 W_Q 和 W_K 的列置换一下，就能从一种变成另一种：分数相差 {{ rotary.pairing.converted_error }}。"
     "不做置换，分数相差 {{ rotary.pairing.unconverted_error }}。"),
    ("G-25", "common", "positions", "Position interpolation keeps every rotary angle within the range seen in "
     "training.", HOLDS,
     "From {{ rotary.stretch.trained }} to {{ rotary.stretch.target }} positions: {{ rotary.stretch.unseen_pi }} pairs go "
     "more than one position past their trained angles (at most {{ rotary.stretch.beyond_pi }}), against "
     "{{ rotary.stretch.unseen_none }} without it. Chen et al. 2023, section 2.3.", "rotary.md",
     "位置插值让每个旋转角都保持在训练时见过的范围内。",
     "从 {{ rotary.stretch.trained }} 个位置到 {{ rotary.stretch.target }} 个位置：超出训练时角度一个位置以上的对有 "
     "{{ rotary.stretch.unseen_pi }} 个（最多超出 {{ rotary.stretch.beyond_pi }}），不做插值时有 "
     "{{ rotary.stretch.unseen_none }} 个。Chen 等人 2023，第 2.3 节。"),
    ("G-26", "common", "positions", "An NTK-aware base extends the context without extrapolating any rotary pair.",
     FAILS,
     "It keeps the fastest pair and divides the slowest pair's frequency by s, but "
     "{{ rotary.stretch.unseen_ntk }} pairs in between still go past their trained angles, by up to "
     "{{ rotary.stretch.beyond_ntk }} positions.", "rotary.md",
     "NTK 感知的基数可以扩展上下文，而不对任何旋转对做外推。",
     "它保持最快的一对不变，把最慢的一对的频率除以 s，但中间仍有 {{ rotary.stretch.unseen_ntk }} 对超出训练时的角度，"
     "最多超出 {{ rotary.stretch.beyond_ntk }} 个位置。"),
    ("G-27", "common", "heads", "Grouped-query attention with one group per head is multi-head attention, and with one "
     "group multi-query attention.", HOLDS,
     "Differences {{ kv_heads.groups.mha_difference }} and {{ kv_heads.groups.mqa_difference }}: the same numbers. Ainslie "
     "et al. 2023, section 2.2.", "kv-heads.md",
     "每个头一组的分组查询注意力就是多头注意力，只有一组时就是多查询注意力。",
     "差值为 {{ kv_heads.groups.mha_difference }} 和 {{ kv_heads.groups.mqa_difference }}：数值完全相同。Ainslie 等人 "
     "2023，第 2.2 节。"),
    ("G-28", "common", "heads", "Sharing key/value heads shrinks the KV cache by the factor h / h_kv.", HOLDS,
     "Measured on the cache arrays of Llama 2 70B (64 query heads, 8 key/value heads): "
     "{{ kv_heads.cache.llama2_70b_kib }} KiB per token against {{ kv_heads.cache.llama2_70b_mha_kib }} KiB.",
     "kv-heads.md",
     "共享键/值头让 KV 缓存缩小为 h_kv / h。",
     "在 Llama 2 70B（64 个查询头，8 个键/值头）的缓存数组上测得：每个词元 {{ kv_heads.cache.llama2_70b_kib }} KiB，"
     "不共享时为 {{ kv_heads.cache.llama2_70b_mha_kib }} KiB。"),
    ("G-29", "common", "heads", "Mean-pooling a multi-head checkpoint's key/value heads gives a grouped-query model "
     "with the same outputs.", FAILS,
     "Before any training, pooling 8 heads into 1 moves an untrained layer's output by "
     "{{ kv_heads.mean_pool.independent_1 }} of its size ({{ kv_heads.mean_pool.copies_1 }} for near-copies). Ainslie et "
     "al. 2023 (section 2.1) train again for 5% of the pre-training steps.", "kv-heads.md",
     "对多头检查点的键/值头做平均池化，就得到一个输出相同的分组查询模型。",
     "未经任何训练时，把 8 个头池化成 1 个，会让一个未训练层的输出移动其大小的 {{ kv_heads.mean_pool.independent_1 }}"
     "（近似副本时为 {{ kv_heads.mean_pool.copies_1 }}）。Ainslie 等人 2023（第 2.1 节）之后还要再训练预训练步数的 5%。"),
    ("G-30", "common", "heads", "Multi-head latent attention must rebuild every cached key and value at every step.",
     FAILS,
     "W_UK folds into the query and W_UV into W_O: the absorbed scores match the expanded ones to "
     "{{ kv_heads.latent.score_error }}, the outputs to {{ kv_heads.latent.out_error }}. DeepSeek-AI 2024, section "
     "2.1.2.", "kv-heads.md",
     "多头潜在注意力每一步都必须重建所有缓存的键和值。",
     "W_UK 可以吸收进查询，W_UV 可以吸收进 W_O：吸收后的分数与展开计算相差 {{ kv_heads.latent.score_error }}，输出相差 "
     "{{ kv_heads.latent.out_error }}。DeepSeek-AI 2024，第 2.1.2 节。"),
    ("G-31", "common", "heads", "RoPE can be applied to multi-head latent attention's keys without changing the "
     "absorbed matrices.", FAILS,
     "The rotation between q and k depends on both positions: one fixed W_UK misses by "
     "{{ kv_heads.latent.rope_fold_error }}. A decoupled rotary key restores the match "
     "({{ kv_heads.latent.decoupled_error }}). DeepSeek-AI 2024, section 2.1.3.", "kv-heads.md",
     "RoPE 可以直接用在多头潜在注意力的键上，而不改变吸收后的矩阵。",
     "q 与 k 之间的旋转取决于两个位置：一个固定的 W_UK 会差 {{ kv_heads.latent.rope_fold_error }}。解耦的旋转键使两者重新一致"
     "（{{ kv_heads.latent.decoupled_error }}）。DeepSeek-AI 2024，第 2.1.3 节。"),
    # ---------------------------------------------------------------- masks
    ("C000-40", "000 §3.3", "masks", "In the encoder every token is visible.", only_when("there is no padding", "没有填充"),
     "Without a padding mask a real token puts {{ debugging.padding.no_mask_pad_weight }} of its weight on padding; with "
     "it, "
     "{{ debugging.padding.padding_mask_pad_weight }}.",
     "debugging.md#padding",
     "编码器中每个词元都是可见的。",
     "没有填充掩码时，一个真实词元把 {{ debugging.padding.no_mask_pad_weight }} 的权重放在填充上；有了它，"
     "则为 {{ debugging.padding.padding_mask_pad_weight }}。"),
    ("C000-41", "000 §3.3", "masks", "The decoder must hide future tokens.", HOLDS,
     "Without a mask, changing the last token moves earlier outputs by {{ masks.leakage.no_mask_max_change }}; with "
     "a causal mask by "
     "{{ masks.leakage.causal_max_change }}.",
     "debugging.md#leaking-mask",
     "解码器必须遮住未来的词元。",
     "不加掩码时，改变最后一个词元，前面的输出变化 {{ masks.leakage.no_mask_max_change }}；"
     "加上因果掩码后变化 {{ masks.leakage.causal_max_change }}。"),
    ("C000-42", "000 §3.3", "masks", "np.triu(ones, k=1) marks exactly the pairs j > i.", HOLDS, "Checked for L = 6: "
     "{{ claims.masks.triu_is_future }}.",
     "masks.md",
     "`np.triu(ones, k=1)` 恰好标出 j > i 的那些位置对。",
     "对 L = 6 检查：{{ claims.masks.triu_is_future }}。"),
    ("C000-43", "000 §3.3", "masks", "Subtracting 1e9 makes the masked weights ≈ 0.",
     only_when("every row keeps a visible key and the dtype can hold 1e9 (float32 or wider)", "每一行都保留一个可见的键，且数据类型能表示 1e9（float32 或更宽）"),
     "The seed's own line, `scores - 1e9 * mask`, on its own scores (table below): in float64 the masked weights "
     "are {{ claims.masks.float64_naive_causal }}. When every key is masked, the seed's exp / sum gives "
     "{{ claims.masks.float64_naive_empty }} of {{ claims.masks.n_weights }} weights, and a max-subtracting softmax "
     "returns the *unmasked* rows (change {{ claims.masks.float64_stable_empty }}). float32 rounds −1e9 + s to steps "
     "of 64 (change {{ claims.masks.float32_stable_empty }}); float16 stores 1e9 as inf, and inf·0 = NaN makes "
     "{{ claims.masks.float16_stable_causal }} of {{ claims.masks.n_weights }} weights even under the causal mask.", "masks.md",
     "减去 1e9 使被掩码的权重 ≈ 0。",
     "种子教程自己的那一行 `scores - 1e9 * mask`，作用在它自己的分数上（见下表）：float64 下被掩码的权重为 "
     "{{ claims.masks.float64_naive_causal }}。当所有键都被掩码时，种子教程的 `exp / sum` 在 "
     "{{ claims.masks.n_weights }} 个权重中给出 {{ claims.masks.float64_naive_empty }}，而减去最大值的 "
     "softmax 会返回未加掩码的行（变化 {{ claims.masks.float64_stable_empty }}）。float32 把 −1e9 + s "
     "舍入到以 64 为步长的值（变化 {{ claims.masks.float32_stable_empty }}）；float16 把 1e9 存成 inf，而 "
     "inf·0 = NaN，即使在因果掩码下，{{ claims.masks.n_weights }} 个权重中也有 "
     "{{ claims.masks.float16_stable_causal }}。"),
    ("C000-44", "000 §3.3", "masks", "Masked weights are 0 and their gradient is 0.", HOLDS,
     "Largest gradient on a masked score: {{ debugging.gradients.masked_grad_max }}; a fully masked query gets "
     "{{ backward.gradcheck.masked_query_grad }}.", "debugging.md#detach",
     "被掩码的权重为 0，它们的梯度也为 0。",
     "被掩码的分数上最大的梯度：{{ debugging.gradients.masked_grad_max }}；一个完全被掩码的查询得到 "
     "{{ backward.gradcheck.masked_query_grad }}。"),
    ("C000-45", "000 §3.3", "masks", "Mask before the softmax, not after.", HOLDS,
     "After the softmax, subtracting 1e9 gives weights down to {{ masks.after_softmax.subtract_after_min }}; "
     "multiplying by the mask without renormalising leaves rows summing to {{ masks.after_softmax.no_renorm_min_sum "
     "}}, "
     "and their denominators still include the future.", "masks.md",
     "在 softmax 之前加掩码，而不是之后。",
     "在 softmax 之后减去 1e9，权重最低可达 {{ masks.after_softmax.subtract_after_min }}；"
     "乘以掩码而不重新归一化，各行之和只剩 {{ masks.after_softmax.no_renorm_min_sum }}，"
     "而且分母中仍然包含未来的词元。"),
    ("C000-46", "000 §3.3", "masks", "Subtracting the mask after the softmax is ineffective because the values "
     "are saturated.", FAILS,
     "It gives weights of {{ masks.after_softmax.subtract_after_min }}: garbage, and unrelated to saturation.",
     "masks.md",
     "若先 softmax 再减去掩码，数值已经饱和，减法无效。",
     "这样得到的权重为 {{ masks.after_softmax.subtract_after_min }}：是无意义的数，而且与饱和无关。"),
    ("C000-47", "000 §3.3", "masks", "A mask in the wrong place once crashed the author's training.", UNCHECKED, "An "
     "anecdote.", "",
     "掩码放错位置曾让作者的训练崩溃。",
     "一则轶事。"),
    ("C003-09", "003 S3", "masks", "Each word attends to all the other words.", only_when("there is no causal mask "
     "(it also attends to itself)", "没有因果掩码（它也关注自己）"),
     "See C003-02.", "masks.md",
     "每个词都关注其他所有词。",
     "见 C003-02。"),
    ("G-06", "common", "masks", "Filling masked scores with −∞ is always safe.", FAILS,
     "A row of 6 keys, all masked with −∞: the naive softmax returns {{ claims.masks.fully_masked_inf_nan }} NaN "
     "weights of "
     "6.", "debugging.md#nan-masked-rows",
     "用 −∞ 填充被掩码的分数总是安全的。",
     "一行 6 个键，全部用 −∞ 掩码：朴素的 softmax 在 6 个权重中返回 {{ claims.masks.fully_masked_inf_nan }} "
     "个 NaN。"),
    # ---------------------------------------------------------------- the seeds' code and outputs
    ("C000-01", "000 §1", "code", "The core is 20 lines of NumPy.", only_when("\"20\" means about 20", "“20”的意思是大约 20"),
     "The reconstructed function has {{ claims.seed000.statements }} statements.", "",
     "核心代码是 20 行 NumPy。",
     "重建的函数有 {{ claims.seed000.statements }} 条语句。"),
    ("C000-48", "000 §4.1", "code", "The implementation uses only NumPy.", HOLDS, "The reconstruction imports NumPy "
     "only (snippets/lib/claims_seeds.py).", "",
     "实现只用了 NumPy。",
     "重建的代码只导入 NumPy（`snippets/lib/claims_seeds.py`）。"),
    ("C000-49", "000 §4.1", "code", "20 core lines, every line commented.", only_when("\"every line\" means every "
     "block", "“每一行”的意思是每一组代码"),
     "{{ claims.seed000.statements }} statements; comments head blocks of lines (the stored text lost its line breaks).", "",
     "20 行核心代码，每一行都有注释。",
     "{{ claims.seed000.statements }} 条语句；注释写在每一组代码行的开头（保存下来的文本丢失了换行）。"),
    ("C000-50", "000 §4.1", "code", "The weights have shape (6, 6).", HOLDS, "Measured: "
     "{{ claims.seed000.weights_shape }}.", "",
     "权重的形状为 (6, 6)。",
     "实测：{{ claims.seed000.weights_shape }}。"),
    ("C000-51", "000 §4.1", "code", "The output has shape (6, 64).", HOLDS, "Measured: {{ claims.seed000.output_shape }} (head "
     "0 only).", "",
     "输出的形状为 (6, 64)。",
     "实测：{{ claims.seed000.output_shape }}（只算头 0）。"),
    ("C000-53", "000 §4.1", "code", "The function computes self-attention for a sentence.", only_when("the sentence "
     "has exactly 6 words", "句子恰好有 6 个词"),
     "Five words: {{ claims.seed000.five_words }}.", "debugging.md#shape-errors",
     "这个函数为一个句子计算自注意力。",
     "五个词：`{{ claims.seed000.five_words }}`。"),
    ("C000-54", "000 §4.1", "code", "The word vectors are random stand-ins for trained embeddings.", HOLDS,
     "Drawn per position, so \"The\" and \"the\" are unrelated vectors.", "tokens-to-vectors.md",
     "词向量是训练好的嵌入的随机替身。",
     "按位置抽取，所以 `The` 和 `the` 是毫不相关的向量。"),
    ("C000-55", "000 §4.2", "code", "The \"cat\" row is [0.02, 0.45, 0.08, 0.15, 0.03, 0.27].", FAILS,
     "The causal mask forces entries 3–6 to exactly 0 (measured max {{ claims.seed000.cat_future_max }}); the row is "
     "one-hot "
     "(weight "
     "{{ claims.seed000.cat_self }} on \"cat\" in our draw).", "masks.md",
     "`cat` 这一行是 [0.02, 0.45, 0.08, 0.15, 0.03, 0.27]。",
     "因果掩码把第 3–6 项强制设为恰好 0（实测最大值 {{ claims.seed000.cat_future_max }}）；"
     "这一行是独热的（我们这次抽取中 `cat` 上的权重为 {{ claims.seed000.cat_self }}）。"),
    ("C000-56", "000 §4.2", "code", "\"cat\" attends most to itself (0.45).", FAILS,
     "The row is one-hot, never 0.45; over {{ claims.seed000.n_draws }} random draws \"cat\" wins over \"The\" in {{ "
     "claims.seed000.cat_self_share }} (two "
     "visible keys).",
     "masks.md",
     "`cat` 最关注它自己（0.45）。",
     "这一行是独热的，从来不是 0.45；在 {{ claims.seed000.n_draws }} 次随机抽取中，`cat` 胜过 `The` 的比例为 "
     "{{ claims.seed000.cat_self_share }}（可见的键只有两个）。"),
    ("C000-57", "000 §4.2", "code", "Next, \"cat\" attends to \"mat\" (0.27) and \"on\" (0.15).", FAILS,
     "Future positions under the causal mask: weight {{ claims.seed000.cat_future_max }}.", "masks.md",
     "其次，`cat` 关注 `mat`（0.27）和 `on`（0.15）。",
     "它们是因果掩码下的未来位置：权重为 {{ claims.seed000.cat_future_max }}。"),
    ("C000-59", "000 §4.2", "code", "Without self-attention weight each word's representation would "
     "drift.", UNCHECKED,
     "Unsupported; the residual connection keeps a token's own vector.", "transformer-block.md",
     "没有自注意力权重，每个词的表示就会漂移。",
     "没有依据；残差连接保留了词元自己的向量。"),
    ("C003-14", "003 S4", "code", "Attention(Q, K, V) = softmax(QKᵀ/√d_k)V.", HOLDS, "Eq. 1; the core matches a loop "
     "oracle (tests).",
     "scaled-dot-product.md",
     "`Attention(Q, K, V) = softmax(QKᵀ/√d_k)V`。",
     "式 1；核心模块与循环实现的参照结果一致（见测试）。"),
    ("C003-15", "003 S4", "code", "The formula has five steps: projection, dot product, scale, softmax, weighted "
     "sum.", HOLDS,
     "As C000-02, with the projection counted.", "scaled-dot-product.md",
     "公式分五步：投影、点积、缩放、softmax、加权求和。",
     "与 C000-02 相同，只是把投影也算作一步。"),
    ("C003-26", "003 S5", "code", "Initialising W_q, W_k, W_v as randn·0.01 (\"small random numbers\") is a good "
     "start.", FAILS,
     "Seed 003's own run: every weight lies in [{{ scaled_dot_product.seed_claims.s003_weight_min }}, {{ "
     "scaled_dot_product.seed_claims.s003_weight_max }}] (uniform 0.2); output std "
     "{{ scaled_dot_product.seed_claims.s003_output_std }} vs "
     "input {{ scaled_dot_product.seed_claims.s003_x_std }}.", "debugging.md#dead-head",
     "把 W_q、W_k、W_v 初始化为 `randn`·0.01（“用小的随机数初始化”）是好的起点。",
     "种子教程 003 自己的运行结果：每个权重都落在 [{{ scaled_dot_product.seed_claims.s003_weight_min }}, "
     "{{ scaled_dot_product.seed_claims.s003_weight_max }}] 内（均匀的 0.2）；输出的标准差为 "
     "{{ scaled_dot_product.seed_claims.s003_output_std }}，而输入为 "
     "{{ scaled_dot_product.seed_claims.s003_x_std }}。"),
    ("C003-27", "003 S5", "code", "The class implements scaled dot-product self-attention.", HOLDS,
     "Single head, √d_k = √d_model, no mask, no W_o.", "scaled-dot-product.md",
     "这个类实现了缩放点积自注意力。",
     "单头，√d_k = √d_model，无掩码，无 W_o。"),
    ("C003-28", "003 S5", "code", "The class handles (batch, seq_len, d_model) input.", only_when("the input is 3-D", "输入是 3 维的"),
     "A 2-D input raises {{ claims.seed003.error_2d }}.", "",
     "这个类处理形状为 `(batch, seq_len, d_model)` 的输入。",
     "2 维输入会引发 `{{ claims.seed003.error_2d }}`。"),
    ("C003-29", "003 S5", "code", "Shapes (2, 5, 10), (2, 5, 10), (2, 5, 5).", HOLDS, "Measured: "
     "{{ claims.seed003.shapes }}.", "",
     "形状为 (2, 5, 10)、(2, 5, 10)、(2, 5, 5)。",
     "实测：{{ claims.seed003.shapes }}。"),
    ("C003-30", "003 S5", "code", "The printed row sum is 1.000.", HOLDS, "Measured: {{ claims.seed003.row_sum }}.", "",
     "打印出的行和为 1.000。",
     "实测：{{ claims.seed003.row_sum }}。"),
    ("C003-31", "003 S5", "code", "Same shape, and every word now carries its context.", only_when("the projections "
     "are not tiny", "投影不是极小的"),
     "With the class's init all 5 outputs of a sequence agree to {{ claims.seed003.token_spread }}: every token gets "
     "the same "
     "average.",
     "debugging.md#dead-head",
     "形状不变，而每个词现在都带上了上下文。",
     "用这个类的初始化，一个序列的全部 5 个输出彼此相差不到 {{ claims.seed003.token_spread }}："
     "每个词元得到的都是同一个平均值。"),
    ("C003-32", "003 S5", "code", "The heat map shows how much each word attends to the others.", FAILS,
     "With these weights the map is flat: {{ claims.seed003.n_labels }} distinct cell label(s): "
     "{{ claims.seed003.label_list }}.", "debugging.md#dead-head",
     "热力图显示每个词对其他词的关注程度。",
     "用这些权重画出的图是平的：格子里只有 {{ claims.seed003.n_labels }} 种不同的标签："
     "{{ claims.seed003.label_list }}。"),
    # ---------------------------------------------------------------- debugging table and tips
    ("C000-64", "000 §5.1", "debugging", "\"operands could not be broadcast together\" means Q/K/V dimensions do not "
     "match.", FAILS,
     "Mismatched Q/K raise a matmul error; the seed's own broadcast error comes from its 6×6 mask: "
     "{{ claims.seed000.five_words }}.",
     "debugging.md#shape-errors",
     "“operands could not be broadcast together”表示 Q/K/V 的维度不匹配。",
     "Q/K 不匹配会引发矩阵乘法错误；种子教程自己的广播错误来自它 6×6 的掩码："
     "`{{ claims.seed000.five_words }}`。"),
    ("C000-65", "000 §5.1", "debugging", "One-hot weights mean the scale is missing or too small.", FAILS,
     "The seed's code has the scale and is one-hot (mean top weight {{ claims.seed000.mean_top }} over its 6 rows; "
     "{{ scaled_dot_product.seed_claims.robust_share_one_hot_scaled }} of rows over {{ scaled_dot_product.seed_claims.robust_seeds }} draws); the "
     "cause is W's std (C000-22).",
     "debugging.md#one-hot-weights",
     "独热权重说明缺少缩放或缩放太小。",
     "种子教程的代码有缩放，却仍是独热的（它的 6 行平均最大权重为 {{ claims.seed000.mean_top }}；"
     "{{ scaled_dot_product.seed_claims.robust_seeds }} 次抽取中有 "
     "{{ scaled_dot_product.seed_claims.robust_share_one_hot_scaled }} 的行）；原因是 W 的标准差（C000-22）。"),
    ("C000-66", "000 §5.1", "debugging", "For NaN from exp overflow, clip scores to [−50, 50].", FAILS,
     "Clipping changes the weights: scores [120, 80, 60, 0] get top weight {{ debugging.nan.row_clipped_top }} instead of "
     "{{ debugging.nan.row_exact_top }}, and {{ debugging.nan.clip_zero_grad_share }} of the scores, every clipped one, "
     "get zero gradient; subtracting the max is exact ({{ debugging.nan.shift_error }}).", "debugging.md#nan-overflow",
     "exp 溢出产生 NaN 时，把分数裁剪到 [−50, 50]。",
     "裁剪会改变权重：分数 [120, 80, 60, 0] 的最大权重变为 {{ debugging.nan.row_clipped_top }}，而不是 "
     "{{ debugging.nan.row_exact_top }}；并且 {{ debugging.nan.clip_zero_grad_share }} 的分数，"
     "也就是每一个被裁剪的分数，梯度为零；减去最大值则是精确的（{{ debugging.nan.shift_error }}）。"),
    ("C000-67", "000 §5.1", "debugging", "Over-attending to \"The\" comes from a too-large PE; normalise it by its "
     "max.", FAILS,
     "max |PE| = {{ debugging.first_token.pe_max }} already, so the fix changes the encoding by "
     "{{ debugging.first_token.pe_fix_change }}; a causal mask alone gives the first key extra weight "
     "({{ debugging.first_token.causal_measured }} against {{ debugging.first_token.bidir_measured }} without it).",
     "debugging.md#first-word",
     "过度关注 `The` 是因为位置编码太大；用它的最大值做归一化。",
     "max |PE| 本来就是 {{ debugging.first_token.pe_max }}，所以这个修复使编码变化 "
     "{{ debugging.first_token.pe_fix_change }}；单是因果掩码就会让第一个键得到额外的权重（有掩码时 "
     "{{ debugging.first_token.causal_measured }}，没有时 {{ debugging.first_token.bidir_measured }}）。"),
    ("C000-68", "000 §5.1", "debugging", "Multi-head worse than single-head: W_o uninitialised; use "
     "randn·0.02.", UNCHECKED,
     "A training question. Table 3 (A): 1 head {{ claims.why.paper_dev_one_head }} vs {{ claims.why.paper_dev_base "
     "}} BLEU with "
     "8. The 0.02 itself is common practice: BERT's `initializer_range` and the standard deviation GPT-2's "
     "`model.py` draws its weights with, the attention output projection `c_proj` included (the GPT-2 paper also "
     "scales residual layers by 1/√N, see transformer-block.md). On this site's layer it "
     "makes the output {{ debugging.heads.wo_small_gain }} times the size of the concatenated heads.",
     "debugging.md#w-o",
     "多头不如单头：W_o 没有初始化；改用 `randn`·0.02。",
     "这是一个训练问题。表 3 (A)：1 个头 {{ claims.why.paper_dev_one_head }} BLEU，8 个头 "
     "{{ claims.why.paper_dev_base }}。0.02 本身是常见做法：它是 BERT 的 `initializer_range`，也是 GPT-2 的 "
     "`model.py` 抽取权重所用的标准差，注意力的输出投影 `c_proj` 也在内（GPT-2 论文还把残差层按 1/√N 缩放，"
     "见 Transformer 块一章）。在本站的层上，它使输出的大小为拼接后各头的 "
     "{{ debugging.heads.wo_small_gain }} 倍。"),
    ("C000-69", "000 §5.2", "debugging", "Plot attention maps during training to debug.", UNCHECKED, "Advice.", "",
     "训练时画出注意力图来调试。",
     "一条建议。"),
    ("C000-70", "000 §5.2", "debugging", "A head stuck on padding means a PE or mask bug.", only_when("\"bug\" means "
     "the padding mask", "“缺陷”指的是填充掩码"),
     "Padding weight {{ debugging.padding.no_mask_pad_weight }} without the mask, {{ "
     "debugging.padding.padding_mask_pad_weight }} with it; PE plays no "
     "part.", "debugging.md#padding",
     "某个头卡在填充上，说明位置编码或掩码有缺陷。",
     "填充上的权重：没有掩码时为 {{ debugging.padding.no_mask_pad_weight }}，有掩码时为 "
     "{{ debugging.padding.padding_mask_pad_weight }}；位置编码不起任何作用。"),
    ("C000-71", "000 §5.2", "debugging", "Weights stuck near uniform (≈0.1667) mean a dead head: check W_k's "
     "init.", HOLDS,
     "Seed 003's init at 6 tokens: weights in [{{ claims.seed003.six_min }}, {{ claims.seed003.six_max }}].", "debugging.md#dead-head",
     "权重停在均匀值附近（≈0.1667）说明是失效的头：检查 W_k 的初始化。",
     "种子教程 003 的初始化，6 个词元：权重落在 [{{ claims.seed003.six_min }}, {{ claims.seed003.six_max }}] "
     "内。"),
    ("C000-72", "000 §5.2", "debugging", "Check gradients numerically (gradcheck).", HOLDS,
     "The same check in NumPy: relative error {{ backward.gradcheck.max_rel_error }}.", "debugging.md#detach",
     "用数值方法检查梯度（`gradcheck`）。",
     "用 NumPy 做同样的检验：相对误差 {{ backward.gradcheck.max_rel_error }}。"),
    ("C000-73", "000 §5.2", "debugging", "Masking without .detach() lets gradient flow through the mask and causes "
     "NaN.", FAILS,
     "The gradient on masked scores is {{ debugging.gradients.masked_grad_max }}; NaN comes from fully masked −∞ rows "
     "(G-06).", "debugging.md#detach",
     "掩码时不调用 `.detach()`，梯度就会流过掩码并导致 NaN。",
     "被掩码的分数上的梯度为 {{ debugging.gradients.masked_grad_max }}；NaN 来自完全用 −∞ 掩码的行（G-06）。"),
    ("C000-78", "000 §5.2", "debugging", "An L1 penalty on attention weights makes a head sparse and local.", FAILS,
     "Every row's L1 norm is {{ claims.debugging.l1_row_norm }}; the penalty's gradient is {{ debugging.gradients.l1_grad_max }}.", "debugging.md#l1-penalty",
     "对注意力权重施加 L1 惩罚，会让头变得稀疏、局部。",
     "每一行的 L1 范数都是 {{ claims.debugging.l1_row_norm }}；惩罚项的梯度为 "
     "{{ debugging.gradients.l1_grad_max }}。"),
    ("C000-79", "000 §5.2", "debugging", "Penalising high short-range weights pushes a head to long range.", HOLDS,
     "Gradient descent on such a penalty raises the mean attended distance from {{ "
     "claims.debugging.mean_distance_before }} to "
     "{{ claims.debugging.mean_distance_after }}.",
     "debugging.md#l1-penalty",
     "惩罚短距离上的高权重，会把头推向长距离。",
     "对这样的惩罚做梯度下降，平均关注距离从 {{ claims.debugging.mean_distance_before }} 增加到 "
     "{{ claims.debugging.mean_distance_after }}。"),
    ("C000-80", "000 §5.2", "debugging", "This raised F1 by 5.7% on legal text.", UNCHECKED, "An anecdote without a "
     "setup.", "",
     "这在法律文本上把 F1 提高了 5.7%。",
     "一则没有给出实验设置的轶事。"),
    # ---------------------------------------------------------------- cost and the big picture
    ("C003-34", "003 S6", "cost", "Parallelism mainly helps training.", HOLDS,
     "All positions in one causal call equal position-by-position generation (difference {{ "
     "claims.cost.parallel_vs_stepwise }}); "
     "generation "
     "still needs one step per token.", "kv-cache.md",
     "并行化的优势主要体现在训练阶段。",
     "在一次因果调用中算出所有位置，与逐个位置生成的结果相同（差 {{ claims.cost.parallel_vs_stepwise }}）；"
     "生成时仍然每个词元一步。"),
    ("C003-35", "003 S6", "cost", "Each generated token still recomputes attention with all history: "
     "O(N).", only_when("a KV cache is kept (then nothing is recomputed)", "保留了 KV 缓存（这时不必重新计算任何东西）"),
     "Multiply-adds for one new token at N = {{ claims.cost.n_ctx }}, d = 64, counted as the KV-cache chapter counts "
     "a step (four projections, 4d², plus attention, 2Nd): {{ claims.cost.step_madds_layer_cache }} with a cache, "
     "{{ claims.cost.step_madds_layer_nocache }} recomputing every row. Scores and weighted sum alone are "
     "{{ claims.cost.step_madds_cache }} and {{ claims.cost.step_madds_nocache }}.", "kv-cache.md",
     "每生成一个词元，仍需与所有历史词元重新计算注意力：O(N)。",
     "N = {{ claims.cost.n_ctx }}、d = 64 时生成一个新词元的乘加次数，按 KV 缓存一章计算一步的方式（四个投影 "
     "4d²，加上注意力 2·N·d）：有缓存时为 {{ claims.cost.step_madds_layer_cache }}，每一行都重新计算时为 "
     "{{ claims.cost.step_madds_layer_nocache }}。只算分数和加权求和，则分别为 "
     "{{ claims.cost.step_madds_cache }} 和 {{ claims.cost.step_madds_nocache }}。"),
    ("C003-45", "003 S8", "cost", "Self-attention completely removes the RNN's serial bottleneck.", FAILS,
     "Decoding stays one token at a time: \"the decoder then generates an output sequence … one element at a time\" "
     "(§3).",
     "kv-cache.md",
     "自注意力“彻底解决了 RNN 的串行瓶颈”。",
     "解码仍然一次一个词元：“解码器随后……一次一个元素地生成输出序列”（§3）。"),
    ("C000-82", "000 §6", "cost", "RNNs assume time order is causal; CNNs that nearby means related.", UNCHECKED, "A "
     "framing.", "",
     "RNN 假设时间顺序就是因果；CNN 假设相邻就是相关。",
     "一种表述框架。"),
    ("C000-85", "000 §6", "cost", "Positional encoding is hand-crafted feature engineering; future models may drop "
     "it and learn positions from the token order.",
     only_when("\"positional encoding\" means the sinusoids: learned tables and no encoding at all are already in use", "“位置编码”指的是正弦编码：学习得到的位置表和完全不用编码的做法都已经在使用"),
     "Not only a prediction. The paper itself tried learned position embeddings: Table 3 (E), {{ "
     "claims.why.paper_dev_learned_pe }} against {{ claims.why.paper_dev_base }} BLEU with sinusoids; BERT and GPT-2 "
     "learn their position tables. Without any encoding a causal mask still breaks permutation equivariance "
     "(error {{ order_matters.permutation.mask_equivariance_error }}), and Haviv et al. 2022 train language models "
     "with no positional encoding that still learn positional information.", "positional-encoding.md",
     "位置编码是手工设计的特征工程；未来的模型可能抛弃它，从词元顺序中学习位置。",
     "这不只是预测。论文自己就试过学习得到的位置嵌入：表 3 (E)，{{ claims.why.paper_dev_learned_pe }} BLEU，"
     "正弦编码为 {{ claims.why.paper_dev_base }}；BERT 和 GPT-2 都学习自己的位置表。即使没有任何编码，"
     "因果掩码也会打破置换等变性（误差 {{ order_matters.permutation.mask_equivariance_error }}），而 Haviv "
     "等人 2022 训练出不用位置编码、仍能学到位置信息的语言模型。"),
    ("C000-86", "000 §6", "cost", "LLMs do not understand; they find the shortest path in vector "
     "space.", UNCHECKED, "An opinion.", "",
     "大语言模型并不理解；它们只是在向量空间中寻找最短路径。",
     "一种观点。"),
    ("C003-01", "003 S1", "cost", "Self-attention is the heart of the Transformer.", UNCHECKED, "An opinion.", "",
     "自注意力是 Transformer 的心脏。",
     "一种观点。"),
    ("C003-43", "003 S7", "cost", "Visualise attention heat maps to debug.", UNCHECKED, "Advice.", "",
     "可视化注意力热力图来调试。",
     "一条建议。"),
    ("C003-47", "003 S8", "cost", "Understand self-attention and you understand all "
     "LLMs.", UNCHECKED, "Rhetoric.", "",
     "理解了自注意力，你就掌握了所有大语言模型。",
     "修辞。"),
    # ---------------------------------------------------------------- attention in today's models (sliding window, cross)
    ("G-07", "common", "masks", "With sliding-window attention a token can never use information from beyond its "
     "window.", only_when("the model has one layer", "模型只有一层"),
     "In a stack the reach grows by W − 1 per layer: with W = {{ sliding_window.receptive_field.window }}, changing an "
     "input {{ sliding_window.receptive_field.last_layer_reach }} positions back changes the output after "
     "{{ sliding_window.receptive_field.n_layers }} layers (measured by changing each input in turn).",
     "sliding-window.md",
     "使用滑动窗口注意力时，一个词元永远用不到窗口之外的信息。",
     "在堆叠中，每多一层回溯范围就增加 W − 1：W = {{ sliding_window.receptive_field.window }} 时，改变 "
     "{{ sliding_window.receptive_field.last_layer_reach }} 个位置之前的输入，会改变 "
     "{{ sliding_window.receptive_field.n_layers }} 层之后的输出（依次改变每个输入测得）。"),
    ("G-08", "common", "masks", "Mistral 7B's 32 layers with a window of 4096 give a theoretical attention span of "
     "about 131K tokens.", HOLDS,
     "Jiang et al. 2023, Table 1 (32 layers, window_size 4096) and §2: \"approximately 131K tokens\". "
     "{{ sliding_window.memory.mistral_span_paper }} with the paper's window i − W … i, "
     "{{ sliding_window.memory.mistral_span }} with a window that counts the query itself.", "sliding-window.md",
     "Mistral 7B 有 32 层、窗口为 4096，理论注意力跨度约为 131K 个词元。",
     "Jiang 等人 2023，表 1（32 层，`window_size` 为 4096）和 §2：“约 131K 个词元”。按论文的窗口 i − W … i 为 "
     "{{ sliding_window.memory.mistral_span_paper }}，窗口把查询自己算在内时为 "
     "{{ sliding_window.memory.mistral_span }}。"),
    ("G-09", "common", "cost", "A rolling-buffer KV cache of W slots gives exactly the outputs of full attention "
     "under the window mask.", only_when("each chunk attends before it is written into the buffer",
                                         "每个块先计算注意力、再写入缓冲区"),
     "Attend-then-store matches for every chunk size (error {{ sliding_window.rolling_cache.max_error_rolling }}); "
     "store-then-attend is right only for chunks of {{ sliding_window.rolling_cache.bug_free_chunks }} and wrong "
     "by at least {{ sliding_window.rolling_cache.smallest_bug_error }} for every prefill longer than one token.",
     "sliding-window.md",
     "有 W 个槽位的滚动缓冲区 KV 缓存，给出的输出与窗口掩码下的完整注意力完全相同。",
     "先注意、再存入：每种块大小都一致（误差 {{ sliding_window.rolling_cache.max_error_rolling }}）；先存入、再注意："
     "只有块大小为 {{ sliding_window.rolling_cache.bug_free_chunks }} 时正确，预填充块只要长于一个词元，就至少错 "
     "{{ sliding_window.rolling_cache.smallest_bug_error }}。"),
    ("G-10", "common", "cost", "Mistral 7B's rolling buffer cuts the cache memory 8x on a sequence of 32k "
     "tokens.", HOLDS,
     "Jiang et al. 2023, §2 (\"reduces the cache memory usage by 8x\"): every layer caches W = "
     "{{ sliding_window.memory.mistral_window }} of {{ sliding_window.memory.mistral_length }} positions, "
     "{{ sliding_window.memory.mistral_fraction }}; the count of positions predicts a real cache's `nbytes`.",
     "sliding-window.md",
     "在 32k 个词元的序列上，Mistral 7B 的滚动缓冲区把缓存内存降为原来的 1/8。",
     "Jiang 等人 2023，§2（原文：“reduces the cache memory usage by 8x”）：每一层只缓存 "
     "{{ sliding_window.memory.mistral_length }} 个位置中的 W = "
     "{{ sliding_window.memory.mistral_window }} 个，即 {{ sliding_window.memory.mistral_fraction }}；按位置数算出的"
     "结果与真实缓存的 `nbytes` 一致。"),
    ("G-11", "common", "cost", "Interleaving local and global layers, as Gemma 2 does, saves as much KV-cache memory "
     "as a window in every layer.", FAILS,
     "At Gemma 2's {{ sliding_window.memory.gemma2_span }} tokens with window {{ sliding_window.memory.gemma2_window }} "
     "(Gemma Team 2024, §2) the alternating stack keeps {{ sliding_window.memory.gemma2_ratio }} of the full cache, "
     "windowing every layer would keep {{ sliding_window.memory.gemma2_all_local_ratio }}.", "sliding-window.md",
     "像 Gemma 2 那样让局部层与全局层交替，省下的 KV 缓存内存与每层都用窗口一样多。",
     "在 Gemma 2 的 {{ sliding_window.memory.gemma2_span }} 个词元、窗口 {{ sliding_window.memory.gemma2_window }} 下"
     "（Gemma Team 2024，§2），交替的堆叠保留完整缓存的 {{ sliding_window.memory.gemma2_ratio }}，每层都用窗口则保留 "
     "{{ sliding_window.memory.gemma2_all_local_ratio }}。"),
    ("G-12", "common", "masks", "In cross-attention the decoder's queries need a causal mask over the source "
     "sentence.", FAILS,
     cite("§3.2.3: encoder-decoder attention \"allows every position in the decoder to attend over all positions in "
     "the input sequence\". Only the padding mask applies: the first target word has weight on every source word "
     "in every head ({{ cross_attention.attend.first_query_sees_whole_source }}), the pad keys get "
     "{{ cross_attention.attend.max_pad_weight }}."), "cross-attention.md",
     "在交叉注意力中，解码器的查询需要对源句子使用因果掩码。",
     "Vaswani 等人 2017，§3.2.3：编码器–解码器注意力“使解码器中的每个位置都能关注输入序列中的所有位置”。只需要填充"
     "掩码：第一个目标词在每个头中都给每个源词一些权重（{{ cross_attention.attend.first_query_sees_whole_source }}），"
     "填充键得到 {{ cross_attention.attend.max_pad_weight }}。"),
    ("G-13", "common", "qkv", "In cross-attention the queries come from the encoder and the keys and values from "
     "the decoder.", FAILS,
     cite("§3.2.3: \"the queries come from the previous decoder layer, and the memory keys and values come from the "
     "output of the encoder\"."), "cross-attention.md",
     "在交叉注意力中，查询来自编码器，键和值来自解码器。",
     "Vaswani 等人 2017，§3.2.3：“查询来自前一个解码器层，而记忆中的键和值来自编码器的输出”。"),
    ("G-14", "common", "cost", "A decoder must recompute the cross-attention keys and values at every generation "
     "step.", FAILS,
     "They depend only on the encoder's output: projected once, reused by all {{ cross_attention.decode.l_q }} "
     "steps, the steps equal one call on the whole target to {{ cross_attention.decode.max_error }}. Once costs "
     "{{ cross_attention.decode.projections_once }} multiply-adds, every step "
     "{{ cross_attention.decode.projections_every_step }}.", "cross-attention.md",
     "解码器在生成的每一步都必须重新计算交叉注意力的键和值。",
     "它们只取决于编码器的输出：投影一次，{{ cross_attention.decode.l_q }} 步全都重复使用，逐步计算与对整个目标序列的"
     "一次调用相差 {{ cross_attention.decode.max_error }}。投影一次需要 {{ cross_attention.decode.projections_once }} "
     "次乘加，每步都重做则需要 {{ cross_attention.decode.projections_every_step }} 次。"),
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
DEBUGGING_ANCHORS = ("shape-errors", "one-hot-weights", "dead-head", "nan-overflow", "nan-masked-rows", "detach",
                     "padding", "leaking-mask", "first-word", "w-o", "l1-penalty", "positions")
LINK_TITLES.update({f"debugging.md#{a}": "Debugging" for a in DEBUGGING_ANCHORS})
LINK_TITLES.update({"rotary.md": "Rotary positions", "kv-heads.md": "Fewer KV heads"})
LINK_TITLES_ZH = {
    "why-attention.md": "为什么需要注意力", "tokens-to-vectors.md": "从词元到向量",
    "positional-encoding.md": "位置编码", "order-matters.md": "顺序很重要",
    "queries-keys-values.md": "查询、键和值", "softmax.md": "Softmax",
    "scaled-dot-product.md": "缩放点积", "masks.md": "掩码",
    "weighted-sum.md": "加权求和", "multi-head.md": "多头注意力", "full-layer.md": "完整的一层",
    "backward.md": "反向传播", "kv-cache.md": "KV 缓存", "online-softmax.md": "在线 softmax",
    "transformer-block.md": "Transformer 块", "claims.md#the-papers-numbers": "论文中的数字",
    "training.md": "学会注意",
}
LINK_TITLES_ZH.update({f"debugging.md#{a}": "调试注意力" for a in DEBUGGING_ANCHORS})
LINK_TITLES_ZH.update({"rotary.md": "旋转位置编码", "kv-heads.md": "更少的键头和值头"})
LINK_TITLES.update({"sliding-window.md": "Sliding window", "cross-attention.md": "Cross-attention"})
LINK_TITLES_ZH.update({"sliding-window.md": "滑动窗口注意力", "cross-attention.md": "交叉注意力"})
HEADER = {"en": ["ID", "Claim (source)", "Verdict", "Evidence"], "zh": ["编号", "论断（出处）", "判定", "证据"]}


def claims():
    """Every claim as a dict with the keys of FIELDS and ``verdict_zh``, in the order of CLAIMS."""
    return [{**dict(zip(FIELDS, row)), "verdict": str(row[4]), "verdict_zh": row[4].zh} for row in CLAIMS]


def source_zh(source):
    """"000 §2.1" -> "种子教程 000 §2.1"; "common" -> "常见说法"."""
    return "常见说法" if source == "common" else f"种子教程 {source}"


def _row_en(claim):
    evidence = claim["evidence"]
    if claim["see"]:
        evidence += f" [→ {LINK_TITLES[claim['see']]}]({claim['see']})"
    return [claim["id"], f"{claim['claim']} *({claim['source']})*", f"**{claim['verdict']}**", evidence]


def _row_zh(claim):
    """No italics: Chinese has none."""
    evidence = claim["evidence_zh"]
    if claim["see"]:
        evidence += f"[→ {LINK_TITLES_ZH[claim['see']]}]({claim['see']})"
    return [claim["id"], f"{claim['claim_zh']}（{source_zh(claim['source'])}）", f"**{claim['verdict_zh']}**", evidence]


def table_rows(topic, language="en"):
    """The claims table of one topic in ``language`` ("en" or "zh"): [ID, claim (source), verdict, evidence with
    its chapter link]."""
    row = {"en": _row_en, "zh": _row_zh}[language]
    return [row(claim) for claim in claims() if claim["topic"] == topic]
