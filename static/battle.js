// Embedded battle page (templates/tactical/play.html): click a green square to choose where the
// activated ship moves, then its facing; while it is not your card (or not your turn to deploy), poll the small
// state endpoint and reload the page when the battle has moved on.
(function () {
  "use strict";
  const dataEl = document.getElementById("battle-data");
  if (!dataEl) return;
  const data = JSON.parse(dataEl.textContent);

  // Moving (issue 13 item 19): the legal destinations are the green squares; clicking one offers
  // the facings the ship can end with there, one button each, and a button moves the ship. The
  // long list of every move stays as the page's fallback without JavaScript.
  const select = document.getElementById("move-select");
  const board = document.getElementById("board");
  if (select && board) {
    const moves = Array.from(select.options).map(o => (
      {value: o.value, x: o.dataset.x, y: o.dataset.y, facing: o.dataset.facing, path: o.dataset.path}));
    const list = document.getElementById("move-list"), hint = document.getElementById("move-hint");
    const choice = document.getElementById("move-choice"), facings = document.getElementById("move-facings");
    const dest = document.getElementById("move-dest");
    list.hidden = true;
    select.disabled = true;  // not sent: the facing button pressed carries the move
    hint.hidden = false;
    const clear = function () {
      board.querySelectorAll(".sq.chosen").forEach(el => { el.classList.remove("chosen"); el.style.fill = ""; });
      choice.hidden = true;
      hint.hidden = false;
    };
    const choose = function (sq) {
      const here = moves.filter(m => m.x === sq.dataset.x && m.y === sq.dataset.y);
      if (!here.length) return;
      clear();
      sq.classList.add("chosen");
      sq.style.fill = "#4f9a63";
      dest.textContent = "(" + sq.dataset.x + ", " + sq.dataset.y + ")";
      facings.textContent = "";
      here.forEach(m => {
        const b = document.createElement("button");
        b.type = "submit"; b.name = "move"; b.value = m.value; b.className = "move-facing";
        b.dataset.facing = m.facing; b.textContent = "Face " + m.facing; b.title = "Path: " + m.path;
        facings.appendChild(b);
      });
      choice.hidden = false;
      hint.hidden = true;
      facings.querySelector("button").focus({preventScroll: true});
      choice.scrollIntoView({block: "nearest"});
    };
    board.addEventListener("click", function (ev) {
      // A ship drawn on a square (turning in place) lies over it: look under the pointer.
      let sq = ev.target.closest(".sq.reach");
      if (!sq) sq = document.elementsFromPoint(ev.clientX, ev.clientY).find(el => el.matches && el.matches(".sq.reach"));
      if (sq) choose(sq);
    });
    document.getElementById("move-cancel").addEventListener("click", clear);
  }

  // Poll while someone else is to act: their card, or their deployment.
  const waiting = (data.status === "playing" && !data.yourTurn) || (data.status === "deploying" && !data.deployMine);
  if (!waiting) return;
  let busy = false;
  setInterval(function () {
    if (busy || document.hidden) return;
    busy = true;
    fetch(data.state, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(r => r.ok ? r.json() : null)
      .then(s => {
        if (s && (s.steps !== data.steps || s.status !== data.status || s.your_turn
                  || (s.deployment && s.deployment.yours))) window.location.reload();
      })
      .catch(() => {})
      .finally(() => { busy = false; });
  }, 2500);
})();
