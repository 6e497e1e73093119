// Saturation live: one query and L = 7 keys with N(0, 1) components from the seeded generator (snippets/lib/seeded.py),
// d_k from 1 to 1024, scores q . k_j with or without 1/sqrt(d_k): their spread and the row's weights.
import { argmax, bars, dot, entropyBits, fill, fixed, labelsOf, mount, normals, softmax } from "./core.js";

const L = 7; // keys per row, as the chapter's saturation.py

export default function (element) {
  const labels = labelsOf(element);
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
      const names = state.weights.map((_, j) => fill(labels.key, { i: j + 1 }));
      figure.replaceChildren(bars(state.weights, names, { label: `${labels.chart}: ${state.weights.map((w) => fixed(w, 3)).join(", ")}` }));
      return fill(labels.summary, { std: fixed(state.score_std, 2), weight: fixed(state.top_weight, 3),
        entropy: fixed(state.entropy_bits, 2) });
    },
  });
}
