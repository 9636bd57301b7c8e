// Embedded battle page (templates/tactical/play.html): click a green square to choose where the
// activated ship moves; while it is not your card (or not your turn to deploy), poll the small
// state endpoint and reload the page when the battle has moved on.
(function () {
  "use strict";
  const dataEl = document.getElementById("battle-data");
  if (!dataEl) return;
  const data = JSON.parse(dataEl.textContent);

  const select = document.getElementById("move-select");
  const board = document.getElementById("board");
  if (select && board) {
    board.addEventListener("click", function (ev) {
      const sq = ev.target.closest(".sq.reach");
      if (!sq) return;
      const x = sq.dataset.x, y = sq.dataset.y;
      const options = Array.from(select.options).filter(o => o.dataset.x === x && o.dataset.y === y);
      if (!options.length) return;
      // Clicking the same square again cycles through the facings the ship can end with there.
      const current = options.indexOf(select.selectedOptions[0]);
      select.value = options[(current + 1) % options.length].value;
      document.querySelectorAll(".sq.chosen").forEach(el => el.classList.remove("chosen"));
      sq.classList.add("chosen");
      sq.style.fill = "#4f9a63";
      document.getElementById("move-button").focus();
    });
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
