// Exercises (scripts/exercises.py, README "Exercises"): each element [data-check] gets an answer box and a button.
// A reply is the answer, one of the usual mistakes whose results the build computed, or neither, decided exactly
// as check() of snippets/lib/exercises.py decides (tests/site/test_exercises.py runs both on the same replies).
// The verdict is written into a status region, which screen readers announce politely: the words for a right
// answer, the feedback the page wrote for that mistake, or the page's hint.

const FULL_WIDTH = { "０": "0", "１": "1", "２": "2", "３": "3", "４": "4", "５": "5", "６": "6", "７": "7", "８": "8",
  "９": "9", "．": ".", "，": ",", "－": "-", "（": "(", "）": ")", "×": "x", "−": "-" };
const THOUSANDS = /^[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?$/; // 34,560 or 1,024.5: commas between thousands
const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const SEPARATORS = /[\s,、;]+/;
const QUOTES = /^['"“”‘’]+|['"“”‘’]+$/g;

export function kindOf(answer, text) {
  if (typeof answer === "number") return text.includes(".") ? "number" : "whole";
  if (Array.isArray(answer)) return answer.every(Number.isInteger) ? "shape" : "words";
  return "word";
}

function read(reply, kind) {
  const text = String(reply).replace(/[０-９．，－（）×−]/g, (c) => FULL_WIDTH[c]).trim();
  if (kind === "number" || kind === "whole") {
    const plain = THOUSANDS.test(text) ? text.replaceAll(",", "") : text;
    return NUMBER.test(plain) && Number.isFinite(Number(plain)) ? Number(plain) : null;
  }
  if (kind === "shape") {
    const parts = text.replace(/^[()[\] ]+|[()[\] ]+$/g, "").split(/[\s,x*、]+/).filter(Boolean);
    return parts.length && parts.every((p) => /^[0-9]+$/.test(p)) ? parts.map(Number) : null;
  }
  const words = text.replace(/^[[\]]+|[[\]]+$/g, "").split(SEPARATORS).map((w) => w.replace(QUOTES, ""))
    .filter(Boolean); // 'the' or “the” as written in prose
  if (kind === "word") return words.length === 1 ? words[0] : null;
  return words.length ? words : null;
}

// An option as compared: a number by its value (-1e4 is -10000.0), a word in any case (Output is output).
const option = (word) => (NUMBER.test(word) ? Number(word) : word.toLowerCase());

function same(reply, target, kind, decimals) {
  if (kind === "number") return Math.abs(reply - target) <= 0.5 * 10 ** -decimals + 1e-12;
  if (kind === "word") return option(reply) === option(target);
  if (kind === "shape" || kind === "words") return reply.length === target.length && reply.every((x, i) => x === target[i]);
  return reply === target;
}

// ["right", null], ["mistake", its name] or ["wrong", null] for a reply to data = {answer, text, mistakes}.
export function check(reply, { answer, text, mistakes }) {
  const kind = kindOf(answer, text);
  const decimals = kind === "number" ? text.split(".")[1].length : 0;
  const value = read(reply, kind);
  if (value === null) return ["wrong", null];
  if (same(value, answer, kind, decimals)) return ["right", null];
  const mistake = Object.keys(mistakes).find((name) => same(value, mistakes[name], kind, decimals));
  return mistake === undefined ? ["wrong", null] : ["mistake", mistake];
}

export default function mountExercise(element) {
  const data = JSON.parse(element.dataset.check);
  const words = JSON.parse(element.dataset.words);
  const id = `answer-${element.dataset.exercise.replaceAll(".", "-")}`;
  const form = document.createElement("form");
  form.className = "exercise-form";
  const label = Object.assign(document.createElement("label"), { htmlFor: id, textContent: words.answer });
  const input = Object.assign(document.createElement("input"), { id, type: "text", autocomplete: "off",
    spellcheck: false, autocapitalize: "off" });
  if (typeof data.answer === "number") input.inputMode = "decimal";
  const button = Object.assign(document.createElement("button"), { type: "submit", textContent: words.check });
  const result = Object.assign(document.createElement("div"), { className: "exercise-result" });
  result.setAttribute("role", "status");
  form.append(label, input, button);
  const hint = element.querySelector(":scope > .exercise-hint");
  element.insertBefore(form, hint);
  element.insertBefore(result, hint);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const [verdict, mistake] = check(input.value, data);
    const shown = verdict === "right" ? [document.createTextNode(words.right)]
      : verdict === "mistake" ? cloned(element.querySelector(`:scope > .exercise-mistake[data-mistake="${mistake}"]`))
        : [Object.assign(document.createElement("p"), { textContent: words.wrong }), ...cloned(hint)];
    result.replaceChildren(...shown);
    result.dataset.verdict = verdict;
    result.dataset.feedback = mistake ?? "";
  });
  element.dataset.ready = "true";
}

function cloned(block) {
  return [...block.childNodes].map((node) => node.cloneNode(true));
}
