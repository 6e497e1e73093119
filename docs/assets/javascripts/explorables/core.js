// The explorables' shared core: the definitions of snippets/lib/attention.py in float64 (JavaScript numbers are
// IEEE doubles, as NumPy's float64), the seeded generator of snippets/lib/seeded.py, parameter checking, the
// contract window.explorables.get(element) -> {set(params), state()}, and SVG drawing. Arrays are nested plain
// arrays: a matrix (L, d) is an array of L rows of d numbers.

// ---- the math, as in snippets/lib/attention.py ----

// Numerically stable softmax of one row; -Infinity gets weight 0, an all -Infinity row gives zeros.
export function softmax(row) {
  const peak = Math.max(...row);
  if (peak === -Infinity) return row.map(() => 0);
  const e = row.map((x) => Math.exp(x - peak));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / total);
}

export const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);
export const transpose = (m) => m[0].map((_, j) => m.map((row) => row[j]));
export const matmul = (a, b) => a.map((row) => transpose(b).map((col) => dot(row, col)));

// softmax(q k^T / sqrt(d_k)) v with a boolean mask (true = may attend): q (Lq, d_k), k (Lk, d_k), v (Lk, d_v).
export function attention(q, k, v, mask) {
  const scale = Math.sqrt(q[0].length);
  const scores = q.map((qi, i) => k.map((kj, j) => (mask && !mask[i][j] ? -Infinity : dot(qi, kj) / scale)));
  const weights = scores.map(softmax); // (Lq, Lk)
  return { weights, output: matmul(weights, v) }; // output (Lq, d_v)
}

export const causalMask = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => j <= i));
export const paddingMask = (length, n) => Array.from({ length: n }, () => Array.from({ length: n }, (_, j) => j < length));

// (L, d_model) -> h arrays (L, d_model / h): head i takes features i*d_head ... (i+1)*d_head - 1.
export const splitHeads = (x, h) => {
  const dHead = x[0].length / h;
  return Array.from({ length: h }, (_, i) => x.map((row) => row.slice(i * dHead, (i + 1) * dHead)));
};

// Sinusoidal encodings: PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(p / base^(2i/d)).
export function sinusoidal(nPositions, dModel, base) {
  return Array.from({ length: nPositions }, (_, p) => Array.from({ length: dModel }, (_, c) => {
    const angle = p / base ** ((c - (c % 2)) / dModel);
    return c % 2 ? Math.cos(angle) : Math.sin(angle);
  }));
}

// Rotary position embedding of one row x (d) at a position (RoFormer, eq. 34), pairs (2i, 2i+1) as apply_rope's
// "interleaved": (a, b) -> (a cos - b sin, a sin + b cos) at the angle position * base^(-2i/d).
export function rope(x, position, base) {
  const out = x.slice();
  for (let i = 0; 2 * i < x.length; i++) {
    const angle = position * base ** (-(2 * i) / x.length);
    const [a, b] = [x[2 * i], x[2 * i + 1]];
    out[2 * i] = a * Math.cos(angle) - b * Math.sin(angle);
    out[2 * i + 1] = a * Math.sin(angle) + b * Math.cos(angle);
  }
  return out;
}

// Shannon entropy in bits (0 log 0 = 0).
export const entropyBits = (p) => -p.reduce((sum, x) => sum + (x > 0 ? x * Math.log2(x) : 0), 0);
export const argmax = (row) => row.indexOf(Math.max(...row));

// ---- the seeded generator of snippets/lib/seeded.py (SplitMix64 on BigInt; normals by Box-Muller) ----

const MASK64 = (1n << 64n) - 1n;
export function normals(seed, count) {
  let state = BigInt(seed);
  const uniform = () => { // (0, 1): the top 53 bits of the next SplitMix64 output, plus half a step
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    z ^= z >> 31n;
    return (Number(z >> 11n) + 0.5) / 2 ** 53;
  };
  const out = [];
  while (out.length < count) {
    const radius = Math.sqrt(-2 * Math.log(uniform()));
    const angle = 2 * Math.PI * uniform();
    out.push(radius * Math.cos(angle), radius * Math.sin(angle));
  }
  return out.slice(0, count);
}

// ---- parameters: every explorable declares its inputs; set() checks all of them before changing anything ----

const allowed = (spec) => (spec.values ? `one of ${JSON.stringify(spec.values)}`
  : spec.type === "boolean" ? "true or false"
    : `${spec.type === "integer" ? "a whole number" : "a number"} in [${spec.min}, ${spec.max}]`);

export function checkParams(specs, current, params) {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new TypeError("set() takes an object of parameters, e.g. " + JSON.stringify(current));
  }
  const next = { ...current };
  for (const [name, x] of Object.entries(params)) {
    const spec = specs[name];
    if (!spec) throw new RangeError(`unknown parameter "${name}": the parameters are ${Object.keys(specs).join(", ")}`);
    const ok = spec.values ? spec.values.includes(x)
      : spec.type === "boolean" ? typeof x === "boolean"
        : typeof x === "number" && Number.isFinite(x) && x >= spec.min && x <= spec.max
          && (spec.type !== "integer" || Number.isInteger(x));
    if (!ok) throw new RangeError(`parameter "${name}" must be ${allowed(spec)}, got ${JSON.stringify(x)}`);
    next[name] = x;
  }
  return next;
}

// ---- the page: the registry, the controls, the drawing ----

const registry = new WeakMap();
window.explorables = { get: (element) => registry.get(element) };

// The explorable's labels in the page's language: scripts/words/<language>.toml, written into data-words by the build.
export const labelsOf = (element) => JSON.parse(element.dataset.words);
// A label with its {placeholders} filled in from `values`.
export const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, name) => values[name]);
export const fixed = (x, digits) => (Object.is(x, -0) ? 0 : x).toFixed(digits);

// Data the build exported: docs/generated/<chapter>/<snippet>/values.json, next to the site's root.
export async function exported(element) {
  const root = new URL("../../../", import.meta.url);
  const response = await fetch(new URL(`generated/${element.dataset.values}/values.json`, root));
  const values = await response.json();
  return Object.fromEntries(Object.entries(values).map(([name, entry]) => [name, entry.value]));
}

const el = (tag, attributes = {}, ...children) => {
  const node = tag.startsWith("svg:") ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [name, x] of Object.entries(attributes)) node.setAttribute(name, x);
  node.append(...children);
  return node;
};
export { el };

let controlCount = 0;
// A native labelled control for one parameter: a range with its value, a select, or a checkbox.
function control(name, spec, label, onInput) {
  const id = `explorable-${name}-${++controlCount}`;
  let input;
  if (spec.values) {
    input = el("select", { id });
    for (const [i, x] of spec.values.entries()) input.append(el("option", { value: i }, spec.labels ? spec.labels[i] : String(x)));
  } else if (spec.type === "boolean") {
    input = el("input", { id, type: "checkbox" });
  } else {
    input = el("input", { id, type: "range", min: spec.slider?.[0] ?? spec.min, max: spec.slider?.[1] ?? spec.max,
      step: spec.slider ? "any" : spec.step ?? 1 });
  }
  const shown = el("output", { for: id });
  const read = () => (spec.values ? spec.values[Number(input.value)] : spec.type === "boolean" ? input.checked
    : spec.fromSlider ? spec.fromSlider(Number(input.value)) : Number(input.value));
  input.addEventListener(spec.type === "boolean" || spec.values ? "change" : "input", () => onInput({ [name]: read() }));
  const show = (x, params) => {
    if (spec.values) input.value = spec.values.indexOf(x);
    else if (spec.type === "boolean") input.checked = x;
    else {
      input.value = spec.toSlider ? spec.toSlider(x) : x;
      shown.textContent = spec.format ? spec.format(x, params) : String(x);
    }
  };
  return { node: el("div", { class: "explorable__control" }, el("label", { for: id }, label), input, shown), show };
}

// Mount an explorable on `element`: `specs` its parameters, `labels` their labels in the page's language,
// `compute(params)` -> state (inputs and every number shown), `draw(state)` updates the figure and the text.
export function mount(element, { specs, labels, initial, compute, draw }) {
  let params = { ...initial };
  let current = compute(params);
  const controls = Object.entries(specs).map(([name, spec]) => control(name, spec, labels[name], (change) => api.set(change)));
  const summary = el("p", { class: "explorable__summary", "aria-live": "polite" });
  const figure = el("div", { class: "explorable__figure" });
  element.append(el("div", { class: "explorable__controls" }, ...controls.map((c) => c.node)), figure, summary);
  const render = () => {
    Object.keys(specs).forEach((name, i) => controls[i].show(params[name], params));
    summary.textContent = draw({ params, ...current }, figure);
  };
  const api = {
    set(change) {
      const next = checkParams(specs, params, change); // throws before anything changes
      const state = compute(next);
      params = next;
      current = state;
      render();
      return api.state();
    },
    state: () => JSON.parse(JSON.stringify({ params, ...current })),
  };
  render();
  registry.set(element, api);
  element.dataset.ready = "true";
  return api;
}

// ---- SVG figures ----

const VIRIDIS = ["440154", "48186a", "472d7b", "424086", "3b528b", "33638d", "2c728e", "26828e", "21918c", "1fa088",
  "28ae80", "3fbc73", "5ec962", "84d44b", "addc30", "d8e219", "fde725"].map((hex) => [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)));

// matplotlib's viridis at x in [0, 1] (17 stops, linear in between), as [r, g, b] in 0..255.
export function viridis(x) {
  const t = Math.min(Math.max(x, 0), 1) * (VIRIDIS.length - 1);
  const i = Math.min(Math.floor(t), VIRIDIS.length - 2);
  return VIRIDIS[i].map((c, n) => Math.round(c + (VIRIDIS[i + 1][n] - c) * (t - i)));
}

const luminance = (rgb) => rgb.map((c) => c / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);

// A weights heatmap on the fixed 0-1 scale, each cell labelled with its weight (masked cells: "·").
export function heatmap(weights, rows, columns, { title, allowed, label }) {
  const cell = 34, left = 58, top = title ? 22 : 4, n = rows.length, m = columns.length;
  const svg = el("svg:svg", { viewBox: `0 0 ${left + m * cell + 4} ${top + n * cell + 56}`, role: "img",
    "aria-label": label, class: "explorable__heatmap" });
  if (title) svg.append(el("svg:text", { x: left + (m * cell) / 2, y: 14, "text-anchor": "middle" }, title));
  weights.forEach((row, i) => {
    svg.append(el("svg:text", { x: left - 4, y: top + i * cell + cell / 2 + 4, "text-anchor": "end" }, rows[i]));
    row.forEach((w, j) => {
      const rgb = viridis(w);
      const ink = luminance(rgb) > 0.18 ? "#000" : "#fff"; // the higher contrast of black and white text
      const masked = allowed && !allowed[i][j];
      svg.append(el("svg:rect", { x: left + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1,
        fill: `rgb(${rgb.join(",")})`, "data-cell": `${i},${j}` }));
      svg.append(el("svg:text", { x: left + j * cell + cell / 2 - 0.5, y: top + i * cell + cell / 2 + 4, fill: ink,
        "text-anchor": "middle", class: "explorable__cell", "data-cell": `${i},${j}` }, masked ? "·" : fixed(w, 2)));
    });
  });
  columns.forEach((name, j) => {
    const x = left + j * cell + cell / 2, y = top + n * cell + 6;
    svg.append(el("svg:text", { x, y, transform: `rotate(45 ${x} ${y})` }, name));
  });
  return svg;
}

// Horizontal bars for one row of weights in [0, 1], each with its label and value.
export function bars(values, names, { label }) {
  const width = 220, row = 22, left = 64;
  const svg = el("svg:svg", { viewBox: `0 0 ${left + width + 56} ${values.length * row + 4}`, role: "img",
    "aria-label": label, class: "explorable__bars" });
  values.forEach((x, i) => {
    svg.append(el("svg:text", { x: left - 6, y: i * row + 15, "text-anchor": "end" }, names[i]));
    svg.append(el("svg:rect", { x: left, y: i * row + 3, width: x * width, height: row - 6, class: "explorable__bar",
      "data-value": i }));
    svg.append(el("svg:text", { x: left + x * width + 4, y: i * row + 15, class: "explorable__number", "data-value": i },
      fixed(x, 3)));
  });
  return svg;
}

// A line through (x, y) points with its axes' ranges written at the ends.
export function line(xs, ys, { label, xLabel, yLabel }) {
  const width = 320, height = 160, left = 44, bottom = 36;
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(0, ...ys), Math.max(...ys)];
  const px = (x) => left + ((x - x0) / (x1 - x0 || 1)) * width;
  const py = (y) => 8 + (1 - (y - y0) / (y1 - y0 || 1)) * height;
  const svg = el("svg:svg", { viewBox: `0 0 ${left + width + 10} ${height + 8 + bottom}`, role: "img",
    "aria-label": label, class: "explorable__line" });
  svg.append(el("svg:path", { d: `M${left} ${py(0)}H${left + width}`, class: "explorable__axis" }));
  svg.append(el("svg:polyline", { points: xs.map((x, i) => `${px(x)},${py(ys[i])}`).join(" "), "data-points": ys.length }));
  const tick = (x, y, text, anchor) => svg.append(el("svg:text", { x, y, "text-anchor": anchor }, text));
  tick(left - 4, py(y1) + 4, fixed(y1, 2), "end");
  tick(left - 4, py(y0) + 4, fixed(y0, 2), "end");
  tick(left, height + 24, String(x0), "middle");
  tick(left + width, height + 24, String(x1), "middle");
  tick(left + width / 2, height + 38, xLabel, "middle");
  svg.append(el("svg:text", { x: 10, y: 8 + height / 2, transform: `rotate(-90 10 ${8 + height / 2})`, "text-anchor": "middle" }, yLabel));
  return svg;
}
