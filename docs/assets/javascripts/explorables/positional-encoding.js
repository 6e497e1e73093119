// The dot product as a function of the offset, for encodings of width d_model and base (the paper's 10000):
// sinusoidal, PE(0) . PE(offset); or rotary, the score of q = k = (1, ..., 1) rotated to positions 0 and offset,
// rope(q, 0) . rope(k, offset). Starts at the chapter's figure: sinusoidal, d_model = 16, base 10000, offsets 0 to 63.
import { dot, fill, fixed, labelsOf, line, mount, rope, sinusoidal } from "./core.js";

const N_POSITIONS = 64;

export default function (element) {
  const labels = labelsOf(element);
  return mount(element, {
    specs: {
      encoding: { values: ["sinusoidal", "rotary"], labels: labels.encodings },
      d_model: { type: "integer", min: 2, max: 512, step: 2, slider: [1, 9], fromSlider: (x) => 2 * Math.round(2 ** x / 2) || 2,
        toSlider: Math.log2 },
      base: { type: "number", min: 10, max: 1e6, slider: [1, 6], fromSlider: (x) => Math.round(10 ** x),
        toSlider: Math.log10, format: (x) => String(x) },
    },
    labels,
    initial: { encoding: "sinusoidal", d_model: 16, base: 10000 },
    compute({ encoding, d_model, base }) {
      if (d_model % 2) throw new RangeError(`parameter "d_model" must be an even whole number in [2, 512], got ${d_model}`);
      const offsets = Array.from({ length: N_POSITIONS }, (_, p) => p);
      if (encoding === "rotary") {
        const ones = Array(d_model).fill(1); // q = k = (1, ..., 1); rope(q, 0) = q
        return { offsets, dots: offsets.map((m) => dot(ones, rope(ones, m, base))) };
      }
      const pe = sinusoidal(N_POSITIONS, d_model, base); // (P, d_model)
      return { offsets, dots: pe.map((row) => dot(pe[0], row)) };
    },
    draw(state, figure) {
      figure.replaceChildren(line(state.offsets, state.dots, { label: `${labels.chart}: ${state.dots.slice(0, 8).map((d) => fixed(d, 2)).join(", ")} …`,
        xLabel: labels.x, yLabel: labels.y }));
      const lowest = Math.min(...state.dots);
      return fill(labels.summary, { first: fixed(state.dots[0], 2), lowest: fixed(lowest, 2), offset: state.dots.indexOf(lowest) });
    },
  });
}
