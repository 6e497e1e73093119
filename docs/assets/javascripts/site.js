// Site behaviour: one accessibility fix to Material. (Math is rendered at build time; tables, display formulas and
// code blocks, which may scroll sideways, get their tabindex at build time too: scripts/fast_pages.py and
// scripts/material_workarounds.py, whose guard search_dialog_name checks the classes this fix uses.)
// Material swaps pages without reloading (document$), so the fix is applied on every page change.

// Material's search dialog has no accessible name (axe: aria-dialog-name); give it its search box's own,
// which Material words in the page's language.
function nameSearchDialog() {
  const name = document.querySelector(".md-search__input")?.getAttribute("aria-label");
  if (name) document.querySelector(".md-search")?.setAttribute("aria-label", name);
}

if (typeof document$ !== "undefined") {
  document$.subscribe(nameSearchDialog);
} else {
  document.addEventListener("DOMContentLoaded", nameSearchDialog);
}
