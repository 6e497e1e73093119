// Masks on the chapter's batch (exported by snippets/masks/explorable.py): none, causal, padding or both, on
// sentence a (the running sentence) or b ("The cat sat." padded); the weights heatmap and one query's output row.
// Starts at the chapter's figure "padding mask, sentence b".
import { attention, causalMask, exported, fixed, heatmap, mount, paddingMask, zh } from "./core.js";

const MASKS = ["none", "causal", "padding", "both"];
const LABELS = {
  en: { mask: "mask", sentence: "sentence", query: "query", masks: ["none", "causal", "padding", "causal + padding"],
    title: "weights (rows: queries, columns: keys)",
    cells: (s) => `attention weights, mask: ${LABELS.en.masks[MASKS.indexOf(s.params.mask)]}, sentence ${s.params.sentence}`,
    summary: (s) => `Query "${s.tokens[s.params.query]}": output row (${s.output_row.map((x) => fixed(x, 2)).join(", ")}); weight on masked keys ${fixed(s.masked_weight, 2)}.` },
  zh: { mask: "掩码", sentence: "句子", query: "查询", masks: ["无", "因果", "填充", "因果 + 填充"],
    title: "权重（行：查询，列：键）",
    cells: (s) => `注意力权重，掩码：${LABELS.zh.masks[MASKS.indexOf(s.params.mask)]}，句子 ${s.params.sentence}`,
    summary: (s) => `查询“${s.tokens[s.params.query]}”：输出行 (${s.output_row.map((x) => fixed(x, 2)).join(", ")})；被掩码的键所得权重 ${fixed(s.masked_weight, 2)}。` },
};

export default async function (element) {
  const data = await exported(element);
  const labels = LABELS[zh() ? "zh" : "en"];
  const n = data.tokens[0].length;
  return mount(element, {
    specs: {
      mask: { values: MASKS, labels: labels.masks },
      sentence: { values: ["a", "b"] },
      query: { type: "integer", min: 0, max: n - 1, format: (i, params) => data.tokens[params.sentence === "a" ? 0 : 1][i] },
    },
    labels,
    initial: { mask: "padding", sentence: "b", query: 1 },
    compute({ mask, sentence, query }) {
      const b = sentence === "a" ? 0 : 1;
      const causal = causalMask(n), padding = paddingMask(data.lengths[b], n);
      const allowed = causal.map((row, i) => row.map((c, j) => (mask === "causal" || mask === "both" ? c : true)
        && (mask === "padding" || mask === "both" ? padding[i][j] : true))); // (L, L)
      const { weights, output } = attention(data.q[b], data.k[b], data.v[b], allowed);
      const maskedWeight = weights[query].reduce((sum, w, j) => sum + (allowed[query][j] ? 0 : w), 0);
      return { tokens: data.tokens[b], allowed, weights, output, output_row: output[query], masked_weight: maskedWeight };
    },
    draw(state, figure) {
      figure.replaceChildren(heatmap(state.weights, state.tokens, state.tokens,
        { title: labels.title, allowed: state.allowed, label: labels.cells(state) }));
      return labels.summary(state);
    },
  });
}
