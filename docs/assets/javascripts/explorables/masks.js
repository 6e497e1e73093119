// Masks on the chapter's batch (exported by snippets/masks/explorable.py): none, causal, padding or both, on
// sentence a (the running sentence) or b ("The cat sat." padded); the weights heatmap and one query's output row.
// Starts at the chapter's figure "padding mask, sentence b".
import { attention, causalMask, exported, fill, fixed, heatmap, labelsOf, mount, paddingMask } from "./core.js";

const MASKS = ["none", "causal", "padding", "both"];

export default async function (element) {
  const data = await exported(element);
  const labels = labelsOf(element);
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
        { title: labels.title, allowed: state.allowed,
          label: fill(labels.cells, { mask: labels.masks[MASKS.indexOf(state.params.mask)], sentence: state.params.sentence }) }));
      return fill(labels.summary, { query: state.tokens[state.params.query],
        row: state.output_row.map((x) => fixed(x, 2)).join(", "), weight: fixed(state.masked_weight, 2) });
    },
  });
}
