// Render the math that pymdownx.arithmatex leaves in .arithmatex spans, and the $...$ of notebook pages.
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

if (typeof document$ !== "undefined") {
  document$.subscribe(renderMath);
} else {
  document.addEventListener("DOMContentLoaded", renderMath);
}
