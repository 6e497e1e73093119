// Site behaviour: small accessibility fixes to Material (math is rendered at build time).
// Material swaps pages without reloading (document$), so apply them on every page change.

// Display formulas and tables may scroll sideways: make them reachable by keyboard
// (axe: scrollable-region-focusable). Whether they overflow depends on fonts and width, so mark them all.
function focusScrollables() {
  for (const element of document.querySelectorAll(".md-typeset__scrollwrap, div.arithmatex")) {
    element.setAttribute("tabindex", "0");
  }
}

// Material's search dialog has no accessible name (axe: aria-dialog-name); give it one.
function nameSearchDialog() {
  document.querySelector(".md-search")?.setAttribute("aria-label", "Search the site");
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
