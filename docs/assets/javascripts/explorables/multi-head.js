// Every head's weights side by side: h among the divisors of d_model on the running sentence (exported by
// snippets/multi_head/explorable.py), causal mask on or off. Starts at the chapter's figure: h = 2, causal.
import { attention, causalMask, exported, heatmap, matmul, mount, splitHeads, zh } from "./core.js";

const LABELS = {
  en: { h: "heads h", causal: "causal mask", head: (i) => `head ${i}`,
    cells: (i) => `weights of head ${i} (rows: queries, columns: keys)`,
    summary: (s) => `${s.params.h} heads of width d_head = ${s.d_head}; output shape (${s.output.length}, ${s.output[0].length}).` },
  zh: { h: "头数 h", causal: "因果掩码", head: (i) => `头 ${i}`,
    cells: (i) => `头 ${i} 的权重（行：查询，列：键）`,
    summary: (s) => `${s.params.h} 个头，每个头宽 d_head = ${s.d_head}；输出形状 (${s.output.length}, ${s.output[0].length})。` },
};

export default async function (element) {
  const data = await exported(element);
  const labels = LABELS[zh() ? "zh" : "en"];
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
        const svg = heatmap(w, state.tokens, state.tokens, { title: labels.head(i), label: labels.cells(i) });
        if (state.params.h > 2) svg.classList.add("explorable--small");
        return svg;
      }));
      return labels.summary(state);
    },
  });
}
