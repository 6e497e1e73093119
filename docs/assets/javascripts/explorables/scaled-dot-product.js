// Saturation live: one query and L = 7 keys with N(0, 1) components from the seeded generator (snippets/lib/seeded.py),
// d_k from 1 to 1024, scores q . k_j with or without 1/sqrt(d_k): their spread and the row's weights.
import { argmax, bars, dot, entropyBits, fixed, mount, normals, softmax, zh } from "./core.js";

const L = 7; // keys per row, as the chapter's saturation.py
const LABELS = {
  en: { d_k: "d_k", scaled: "divide by √d_k", seed: "generator seed", keys: (i) => `key ${i + 1}`,
    chart: "weights of the random query over its 7 keys",
    summary: (s) => `Scores spread (standard deviation) ${fixed(s.score_std, 2)}; largest weight ${fixed(s.top_weight, 3)}; entropy ${fixed(s.entropy_bits, 2)} bits.` },
  zh: { d_k: "d_k", scaled: "除以 √d_k", seed: "生成器种子", keys: (i) => `键 ${i + 1}`,
    chart: "随机查询对 7 个键的权重",
    summary: (s) => `分数的标准差 ${fixed(s.score_std, 2)}；最大权重 ${fixed(s.top_weight, 3)}；熵 ${fixed(s.entropy_bits, 2)} 比特。` },
};

export default function (element) {
  const labels = LABELS[zh() ? "zh" : "en"];
  return mount(element, {
    specs: {
      d_k: { type: "integer", min: 1, max: 1024, slider: [0, 10], fromSlider: (x) => Math.round(2 ** x), toSlider: Math.log2 },
      scaled: { type: "boolean" },
      seed: { type: "integer", min: 0, max: 1000 },
    },
    labels,
    initial: { d_k: 64, scaled: false, seed: 0 },
    compute({ d_k, scaled, seed }) {
      const draws = normals(seed, (L + 1) * d_k); // the query first, then the keys, row by row
      const q = draws.slice(0, d_k); // (d_k,)
      const k = Array.from({ length: L }, (_, j) => draws.slice((j + 1) * d_k, (j + 2) * d_k)); // (L, d_k)
      const scores = k.map((kj) => dot(q, kj) / (scaled ? Math.sqrt(d_k) : 1)); // (L,)
      const mean = scores.reduce((a, b) => a + b, 0) / L;
      const weights = softmax(scores);
      return { q, k, scores, score_std: Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / L), weights,
        top_weight: weights[argmax(weights)], entropy_bits: entropyBits(weights) };
    },
    draw(state, figure) {
      const names = state.weights.map((_, j) => labels.keys(j));
      figure.replaceChildren(bars(state.weights, names, { label: `${labels.chart}: ${state.weights.map((w) => fixed(w, 3)).join(", ")}` }));
      return labels.summary(state);
    },
  });
}
