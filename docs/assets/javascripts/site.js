// Site behaviour: one accessibility fix to Material, the language switch keeping the reader's place, and the
// loader of the explorables and exercises. (Math is rendered at build time; tables, display formulas and code
// blocks, which may scroll sideways, get their tabindex at build time too: scripts/fast_pages.py and
// scripts/material_workarounds.py, whose guard search_dialog_name checks the classes the first fix uses.) Material
// swaps pages without reloading (document$), so all three are applied on every page change.

// Material's search dialog has no accessible name (axe: aria-dialog-name); give it its search box's own,
// which Material words in the page's language.
function nameSearchDialog() {
  const name = document.querySelector(".md-search__input")?.getAttribute("aria-label");
  if (name) document.querySelector(".md-search")?.setAttribute("aria-label", name);
}

// The language switch links the same page in the other edition (scripts/editions.py); both editions give a
// heading the same id, so each link also takes the section the reader is at (the address's #anchor).
function switchKeepsTheSection() {
  for (const link of document.querySelectorAll("a.md-select__link[hreflang]")) {
    link.setAttribute("href", link.getAttribute("href").split("#")[0] + location.hash);
  }
}

// Explorables (explorables/*.js, README "Explorables") and exercises (exercises/exercises.js, README "Exercises"):
// an element [data-explorable="<name>"] or [data-check] loads its module, and the stylesheet of its kind, only when
// it comes near the screen. Without JavaScript an explorable's text stays, with the chapter's figure above it the
// figure of record; an exercise keeps its question, hint and solution.
const SCRIPTS = new URL(".", document.currentScript.src);
const LAZY = [
  { selector: "[data-explorable]", folder: "explorables/", module: (element) => `${element.dataset.explorable}.js`,
    style: "explorables.css" },
  { selector: "[data-check]", folder: "exercises/", module: () => "exercises.js", style: "exercises.css" },
];

function start(kind, element) {
  const folder = new URL(kind.folder, SCRIPTS);
  if (!document.querySelector(`link[data-lazy="${kind.style}"]`)) {
    const style = Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL(kind.style, folder) });
    style.dataset.lazy = kind.style;
    document.head.append(style);
  }
  import(new URL(kind.module(element), folder).href).then((module) => module.default(element));
}

function loadNearTheScreen() {
  for (const kind of LAZY) {
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries.filter((e) => e.isIntersecting)) {
        observer.unobserve(entry.target);
        start(kind, entry.target);
      }
    }, { rootMargin: "600px 0px" });
    document.querySelectorAll(`${kind.selector}:not([data-ready])`).forEach((element) => observer.observe(element));
  }
}

function onEveryPage() {
  nameSearchDialog();
  switchKeepsTheSection();
  loadNearTheScreen();
}

if (typeof document$ !== "undefined") {
  document$.subscribe(onEveryPage);
} else {
  document.addEventListener("DOMContentLoaded", onEveryPage);
}
window.addEventListener("hashchange", switchKeepsTheSection);
