// Site behaviour: one accessibility fix to Material, the language switch keeping the reader's place, and the
// explorables' loader. (Math is rendered at build time; tables, display formulas and code blocks, which may scroll
// sideways, get their tabindex at build time too: scripts/fast_pages.py and scripts/material_workarounds.py, whose
// guard search_dialog_name checks the classes the first fix uses.) Material swaps pages without reloading
// (document$), so all three are applied on every page change.

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

// Explorables (explorables/*.js, README "Explorables"): an element [data-explorable="<name>"] loads its module and
// the explorables' stylesheet only when it comes near the screen; without JavaScript it keeps its text, and the
// chapter's figure above it stays the figure of record.
const EXPLORABLES = new URL("explorables/", document.currentScript.src);

function startExplorable(element) {
  if (!document.querySelector("link[data-explorables]")) {
    const style = Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL("explorables.css", EXPLORABLES) });
    style.dataset.explorables = "";
    document.head.append(style);
  }
  import(new URL(`${element.dataset.explorable}.js`, EXPLORABLES).href).then((module) => module.default(element));
}

function loadExplorablesNearTheScreen() {
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries.filter((e) => e.isIntersecting)) {
      observer.unobserve(entry.target);
      startExplorable(entry.target);
    }
  }, { rootMargin: "600px 0px" });
  document.querySelectorAll("[data-explorable]:not([data-ready])").forEach((element) => observer.observe(element));
}

function onEveryPage() {
  nameSearchDialog();
  switchKeepsTheSection();
  loadExplorablesNearTheScreen();
}

if (typeof document$ !== "undefined") {
  document$.subscribe(onEveryPage);
} else {
  document.addEventListener("DOMContentLoaded", onEveryPage);
}
window.addEventListener("hashchange", switchKeepsTheSection);
