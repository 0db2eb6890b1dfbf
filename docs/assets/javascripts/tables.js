// A table wider than its box scrolls sideways; a line above it says so, on any
// screen where it does (a phone, most often). Run on every page Material shows,
// instant navigation included, and again when the window changes width.
(function () {
  "use strict";
  const HINT = "tfsl-scroll-hint";

  function mark() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (box) {
      const hint = box.previousElementSibling;
      const has = hint !== null && hint.classList.contains(HINT);
      const overflows = box.scrollWidth > box.clientWidth + 1;
      if (overflows && !has) {
        const line = document.createElement("p");
        line.className = HINT;
        line.textContent = "Wider than the screen: scroll the table sideways for every column →";
        box.parentNode.insertBefore(line, box);
      } else if (!overflows && has) {
        hint.remove();
      }
    });
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(mark);
  } else {
    document.addEventListener("DOMContentLoaded", mark);
  }
  window.addEventListener("resize", mark);
  document.addEventListener("change", mark);  // a content tab shown: its tables now have a width
})();
