// Site behaviour: render math with the vendored KaTeX; small accessibility fixes to Material.
// Material swaps pages without reloading (document$), so render on every page change.
function renderMath() {
  const options = {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "$", right: "$", display: false },
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: false,
  };
  for (const element of document.querySelectorAll(".arithmatex, .jp-RenderedMarkdown")) {
    renderMathInElement(element, options);
  }
}

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
    renderMath();
    nameSearchDialog();
    focusScrollables();
  });
} else {
  document.addEventListener("DOMContentLoaded", () => {
    renderMath();
    nameSearchDialog();
    focusScrollables();
  });
}
