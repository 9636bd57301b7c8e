// Star Sectors board (templates/tactical/rulesets/starsectors/play.html): orders picked on the map.
// The board (tactical/rules/starsectors/board.py) draws, for each of your ships that may take an
// order, its legal orders with a place on the map as marks (.ss-go, each with its action's JSON):
// the hex a move or warp jump ends on, the turns, the enemy ships and mines it may attack. A tap on
// a mark chooses it and "Confirm" sends it; a tap on another of your ships shows its arc, marks and
// order buttons instead. Every order is also a button beside the board: this only fills the form.
// Zoom and pan: static/map.js (a drag pans, never orders).
(function () {
  "use strict";
  const board = document.querySelector("#board svg.ss-board");
  const form = document.getElementById("ss-confirm-form");
  if (!board || !form) return;
  const input = document.getElementById("ss-pick-action");
  const confirm = document.getElementById("ss-confirm");
  const choice = document.getElementById("ss-pick-choice");
  const text = document.getElementById("ss-pick-label");
  const picker = document.getElementById("ss-picker");
  const alts = document.getElementById("ss-pick-alts");
  let picked = null;

  function take(action, words) {
    input.value = action;
    text.textContent = words;
    alts.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.action === action)));
  }

  // The other orders of the same place (a warp jump to the hex a move reaches, an attack with the
  // banks, a ram): buttons under "Chosen" that switch the choice.
  function offer(mark) {
    alts.textContent = "";
    alts.hidden = !mark.dataset.alts;
    if (!mark.dataset.alts) return;
    JSON.parse(mark.dataset.alts).forEach((alt) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "ss-alt";
      button.dataset.action = JSON.stringify(alt.action);
      button.textContent = alt.label;
      button.addEventListener("click", () => take(button.dataset.action, alt.label));
      alts.appendChild(button);
    });
  }

  function clear() {
    if (picked) picked.classList.remove("ss-picked");
    picked = null;
    input.value = "";
    confirm.disabled = true;
    choice.hidden = true;
    alts.hidden = true;
    alts.textContent = "";
    picker.classList.remove("ss-chosen");
  }

  function choose(mark) {
    clear();
    picked = mark;
    mark.classList.add("ss-picked");
    offer(mark);
    take(mark.dataset.action, mark.dataset.label);
    choice.hidden = false;
    confirm.disabled = false;
    picker.classList.add("ss-chosen");
  }

  function select(ship) {
    clear();
    board.dataset.selected = ship;
    board.querySelectorAll("g.ss-plan, g.ss-arc").forEach((g) => {
      if (g.dataset.for === ship) g.removeAttribute("display"); else g.setAttribute("display", "none");
    });
    board.querySelectorAll("g.ss-ship").forEach((g) => g.classList.toggle("ss-selected", g.dataset.ship === ship));
    document.querySelectorAll(".ss-group").forEach((g) => { g.hidden = g.dataset.ship !== ship; });
  }

  // On a phone the map opens zoomed in on the ship to order, its marks big enough for a finger
  // ("Whole map" shows it all again).
  const frame = document.getElementById("board");
  const me = board.querySelector('g.ss-ship[data-ship="' + board.dataset.selected + '"]');
  if (me && window.matchMedia("(max-width: 600px)").matches) {
    const box = me.querySelector("polygon.ss-hull").getBBox();
    frame.dispatchEvent(new CustomEvent("map:focus", {detail: {x: box.x + box.width / 2, y: box.y + box.height / 2,
                                                               zoom: 2.2}}));
  }

  // Only the selected ship's order buttons show (all of them without the script).
  document.querySelectorAll(".ss-group[data-other]").forEach((g) => { g.hidden = true; });

  let down = null;
  board.addEventListener("pointerdown", (event) => { down = {x: event.clientX, y: event.clientY}; });
  board.addEventListener("click", (event) => {
    if (down && Math.abs(event.clientX - down.x) + Math.abs(event.clientY - down.y) >= 4) return;
    const mark = event.target.closest(".ss-go");
    if (mark && !mark.closest('g.ss-plan[display="none"]')) return choose(mark);
    const ship = event.target.closest("g.ss-ship[data-candidate]");
    if (ship && ship.dataset.ship !== board.dataset.selected) select(ship.dataset.ship);
  });
  document.getElementById("ss-clear").addEventListener("click", clear);
})();
