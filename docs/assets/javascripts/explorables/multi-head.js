// Every head's weights side by side: h among the divisors of d_model on the running sentence (exported by
// snippets/multi_head/explorable.py), causal mask on or off. Starts at the chapter's figure: h = 2, causal.
import { attention, causalMask, exported, fill, heatmap, labelsOf, matmul, mount, splitHeads } from "./core.js";


export default async function (element) {
  const data = await exported(element);
  const labels = labelsOf(element);
  const dModel = data.x[0].length, n = data.x.length;
  const divisors = Array.from({ length: dModel }, (_, i) => i + 1).filter((h) => dModel % h === 0);
  const [q, k, v] = [data.w_q, data.w_k, data.w_v].map((w) => matmul(data.x, w)); // each (L, d_model)
  return mount(element, {
    specs: { h: { values: divisors }, causal: { type: "boolean" } },
    labels,
    initial: { h: 2, causal: true },
    compute({ h, causal }) {
      const mask = causal ? causalMask(n) : null;
      const [qs, ks, vs] = [q, k, v].map((m) => splitHeads(m, h)); // each h arrays (L, d_head)
      const heads = qs.map((qi, i) => attention(qi, ks[i], vs[i], mask));
      const concat = data.x.map((_, t) => heads.flatMap((head) => head.output[t])); // (L, d_model): merge heads
      return { tokens: data.tokens, d_head: dModel / h, weights: heads.map((head) => head.weights),
        output: matmul(concat, data.w_o) };
    },
    draw(state, figure) {
      figure.replaceChildren(...state.weights.map((w, i) => {
        const svg = heatmap(w, state.tokens, state.tokens, { title: fill(labels.head, { i }), label: fill(labels.cells, { i }) });
        if (state.params.h > 2) svg.classList.add("explorable--small");
        return svg;
      }));
      return fill(labels.summary, { h: state.params.h, d_head: state.d_head, rows: state.output.length,
        columns: state.output[0].length });
    },
  });
}
