// Site behaviour: small accessibility fixes to Material (math is rendered at build time).
// Material swaps pages without reloading (document$), so apply them on every page change.

// Tables may scroll sideways in the wrapper Material's script puts them in: make them reachable by keyboard
// (axe: scrollable-region-focusable). Whether they overflow depends on fonts and width, so mark them all.
// Display formulas and code blocks get their tabindex at build time (scripts/fast_pages.py).
function focusScrollables() {
  for (const element of document.querySelectorAll(".md-typeset__scrollwrap")) {
    element.setAttribute("tabindex", "0");
  }
}

// Material's search dialog has no accessible name (axe: aria-dialog-name); give it its search box's own,
// which Material words in the page's language.
function nameSearchDialog() {
  const name = document.querySelector(".md-search__input")?.getAttribute("aria-label");
  if (name) document.querySelector(".md-search")?.setAttribute("aria-label", name);
}

if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    nameSearchDialog();
    focusScrollables();
  });
} else {
  document.addEventListener("DOMContentLoaded", () => {
    nameSearchDialog();
    focusScrollables();
  });
}
