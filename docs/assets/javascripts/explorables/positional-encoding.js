// The dot product PE(0) . PE(offset) as a function of the offset, for sinusoidal encodings of width d_model and
// base (the paper's 10000). Starts at the chapter's figure: d_model = 16, base 10000, offsets 0 to 63.
import { dot, fixed, line, mount, sinusoidal, zh } from "./core.js";

const N_POSITIONS = 64;
const LABELS = {
  en: { d_model: "d_model", base: "base", chart: "PE(0) · PE(offset) against the offset", x: "offset", y: "dot product",
    summary: (s) => `PE(0) · PE(0) = ${fixed(s.dots[0], 2)}; lowest dot ${fixed(Math.min(...s.dots), 2)} at offset ${s.dots.indexOf(Math.min(...s.dots))}.` },
  zh: { d_model: "d_model", base: "底数", chart: "PE(0) · PE(偏移) 随偏移的变化", x: "偏移", y: "点积",
    summary: (s) => `PE(0) · PE(0) = ${fixed(s.dots[0], 2)}；最小点积 ${fixed(Math.min(...s.dots), 2)}，在偏移 ${s.dots.indexOf(Math.min(...s.dots))} 处。` },
};

export default function (element) {
  const labels = LABELS[zh() ? "zh" : "en"];
  return mount(element, {
    specs: {
      d_model: { type: "integer", min: 2, max: 512, step: 2, slider: [1, 9], fromSlider: (x) => 2 * Math.round(2 ** x / 2) || 2,
        toSlider: Math.log2 },
      base: { type: "number", min: 10, max: 1e6, slider: [1, 6], fromSlider: (x) => Math.round(10 ** x),
        toSlider: Math.log10, format: (x) => String(x) },
    },
    labels,
    initial: { d_model: 16, base: 10000 },
    compute({ d_model, base }) {
      if (d_model % 2) throw new RangeError(`parameter "d_model" must be an even whole number in [2, 512], got ${d_model}`);
      const pe = sinusoidal(N_POSITIONS, d_model, base); // (P, d_model)
      return { offsets: pe.map((_, p) => p), dots: pe.map((row) => dot(pe[0], row)) };
    },
    draw(state, figure) {
      figure.replaceChildren(line(state.offsets, state.dots, { label: `${labels.chart}: ${state.dots.slice(0, 8).map((d) => fixed(d, 2)).join(", ")} …`,
        xLabel: labels.x, yLabel: labels.y }));
      return labels.summary(state);
    },
  });
}
