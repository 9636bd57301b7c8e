// My Trek V board (templates/tactical/rulesets/mytrek/play.html): orders picked on the board.
// The ship being ordered is the board's data-selected. In a move phase a tap ahead of it moves it
// forward, a tap beside or behind turns it that way, a tap on it holds; in an attack phase a tap on
// an enemy ship attacks it (the whole ship, the first weapon offered). Every choice is also a
// button or a list beside the board: this only presses it. Zoom and pan: static/map.js.
(function () {
  "use strict";
  const board = document.querySelector("#board svg.mytrek-board");
  if (!board || !board.dataset.selected) return;
  const me = board.querySelector('g.ship[data-ship="' + board.dataset.selected + '"]');
  if (!me) return;
  const sx = +me.dataset.x, sy = +me.dataset.y, facing = +me.dataset.facing;
  const VECTORS = [[0, -1], [1, 0], [0, 1], [-1, 0]];

  function move(how) {
    const button = document.querySelector('.mt-move[data-how="' + how + '"]');
    if (button) button.click();
  }

  function attack(target) {
    const list = document.querySelector("#attack-choice");
    if (!list) return false;
    const option = Array.from(list.options).find((o) => o.dataset.target === target && !o.dataset.system);
    if (!option) return false;
    list.value = option.value;
    document.querySelector("#attack-button").click();
    return true;
  }

  // The board pans by dragging (static/map.js): a press that moved is a pan, not an order.
  let down = null;
  board.addEventListener("pointerdown", (event) => { down = {x: event.clientX, y: event.clientY}; });
  board.addEventListener("click", (event) => {
    if (down && Math.abs(event.clientX - down.x) + Math.abs(event.clientY - down.y) >= 4) return;
    const ship = event.target.closest("g.ship");
    if (ship && ship !== me && attack(ship.dataset.ship)) return;
    if (!document.querySelector(".mt-move")) return;
    const square = event.target.closest("rect.sq");
    const at = square || ship;
    if (!at) return;
    const dx = +at.dataset.x - sx, dy = +at.dataset.y - sy;
    if (dx === 0 && dy === 0) return move("H");
    const [fx, fy] = VECTORS[facing];
    const ahead = dx * fx + dy * fy, right = -dx * fy + dy * fx;
    if (ahead > 0 && Math.abs(right) <= ahead) return move("F");
    move(right > 0 ? "R" : "L");
  });
})();
