// Site behaviour: one accessibility fix to Material, and the language switch keeping the reader's place. (Math is
// rendered at build time; tables, display formulas and code blocks, which may scroll sideways, get their tabindex
// at build time too: scripts/fast_pages.py and scripts/material_workarounds.py, whose guard search_dialog_name
// checks the classes the first fix uses.) Material swaps pages without reloading (document$), so both are applied
// on every page change.

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

function onEveryPage() {
  nameSearchDialog();
  switchKeepsTheSection();
}

if (typeof document$ !== "undefined") {
  document$.subscribe(onEveryPage);
} else {
  document.addEventListener("DOMContentLoaded", onEveryPage);
}
window.addEventListener("hashchange", switchKeepsTheSection);
