// Softmax with a temperature: the query "cat"'s scores q . k_j / sqrt(d_k) (scaling on) / T, their weights, the top
// weight and the entropy in bits. Starts at T = 1 with scaling, the chapter's table row "T = 1".
import { argmax, bars, dot, entropyBits, exported, fill, fixed, labelsOf, mount, softmax } from "./core.js";


export default async function (element) {
  const data = await exported(element);
  const labels = labelsOf(element);
  const dK = data.q_cat.length;
  return mount(element, {
    specs: {
      temperature: { type: "number", min: 0.01, max: 100, slider: [-2, 2], fromSlider: (x) => 10 ** x,
        toSlider: Math.log10, format: (x) => x.toPrecision(3) },
      scale: { type: "boolean" },
    },
    labels,
    initial: { temperature: 1, scale: true },
    compute({ temperature, scale }) {
      const scores = data.keys.map((k) => dot(data.q_cat, k) / (scale ? Math.sqrt(dK) : 1) / temperature); // (L,)
      const weights = softmax(scores);
      const top = argmax(weights);
      return { tokens: data.tokens, query: data.query, d_k: dK, scores, weights, top_key: data.tokens[top],
        top_weight: weights[top], entropy_bits: entropyBits(weights) };
    },
    draw(state, figure) {
      figure.replaceChildren(bars(state.weights, state.tokens, { label: fill(labels.chart, { query: state.query }) + ": "
        + state.tokens.map((t, i) => `${t} ${fixed(state.weights[i], 3)}`).join(", ") }));
      return fill(labels.summary, { key: state.top_key, weight: fixed(state.top_weight, 3),
        entropy: fixed(state.entropy_bits, 2) });
    },
  });
}
