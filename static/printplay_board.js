/* Star Trek Print&Play: pick a move on the mat (templates/tactical/rulesets/printplay/play.html).
   A tap or click anywhere on the mat chooses the move whose end (a dot) is nearest; the move list
   follows, and "Move" sends it. Without JavaScript the list alone does the same. */
(function () {
  "use strict";
  var svg = document.querySelector("#board svg");
  var select = document.getElementById("pp-move");
  if (!svg || !select) { return; }
  var dots = Array.prototype.slice.call(svg.querySelectorAll(".pp-dot"));
  if (!dots.length) { return; }
  var hint = document.getElementById("pp-chosen");

  function mark() {
    dots.forEach(function (d) { d.classList.toggle("chosen", d.getAttribute("data-move") === select.value); });
  }

  function choose(dot) {
    select.value = dot.getAttribute("data-move");
    if (hint) { hint.textContent = "Chosen: " + dot.getAttribute("data-label"); }
    mark();
  }

  svg.addEventListener("click", function (ev) {
    var pt = svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    var p = pt.matrixTransform(svg.getScreenCTM().inverse());
    var best = null, bestD = Infinity;
    dots.forEach(function (d) {
      var dx = d.cx.baseVal.value - p.x, dy = d.cy.baseVal.value - p.y, dd = dx * dx + dy * dy;
      if (dd < bestD) { bestD = dd; best = d; }
    });
    if (best) { choose(best); }
  });
  select.addEventListener("change", mark);
  mark();
})();
