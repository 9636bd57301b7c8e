// The Buoyz 'N Da 'Hood play page (templates/tactical/rulesets/buoyz/play.html): zoom and pan on
// the table (wheel, pinch, drag, buttons: the patterns of static/map.js), and moves picked on the
// board. The page's JSON "bz-plan" (tactical/rules/buoyz/play/page.py board_plan) lists each ship's
// legal moves with their paths in the SVG's pixels; a click, or a drag from the ship, snaps to the
// nearest legal move's end, shows its path, the inches used and left and the turning points
// spent, and "Confirm move" submits that move through the ship's own list form (the same action
// JSON as choosing it in the list). Without JavaScript the list and the forms do everything.
(function () {
  "use strict";
  const frame = document.getElementById("board");
  const svg = frame ? frame.querySelector("svg.board.buoyz") : null;
  if (!svg) return;
  const NS = "http://www.w3.org/2000/svg";

  // --- zoom and pan -------------------------------------------------------------------------
  const vb = svg.getAttribute("viewBox").split(/[\s,]+/).map(Number);
  const home = {x: vb[0], y: vb[1], w: vb[2], h: vb[3]};
  let view = Object.assign({}, home);
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  frame.classList.add("bz-live");
  frame.style.aspectRatio = home.w + " / " + home.h;
  const toolbar = document.getElementById("bz-toolbar");
  if (toolbar) toolbar.hidden = false;

  let redraw = null;  // the move picker's overlay, drawn again at each zoom (its targets keep their size on screen)
  function apply() {
    svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
    if (redraw) redraw();
  }
  // Screen pixels per SVG pixel now (the board is scaled to its frame and zoomed).
  function scale() {
    const m = svg.getScreenCTM();
    return m && m.a > 0 ? m.a : 1;
  }
  const TARGET_PX = 12.5;  // a move's tap target: 25 screen pixels across, over the 24 asked (issue 23 item 18)
  function toSvg(clientX, clientY) {
    const m = svg.getScreenCTM();
    if (!m) return {x: view.x + view.w / 2, y: view.y + view.h / 2};
    const pt = svg.createSVGPoint();
    pt.x = clientX; pt.y = clientY;
    const p = pt.matrixTransform(m.inverse());
    return {x: p.x, y: p.y};
  }
  function zoom(factor, cx, cy) {
    const w = Math.min(home.w * 1.5, Math.max(home.w / 30, view.w / factor));  // deep enough to part a cluster of moves
    const f = w / view.w;
    if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
    view = {x: cx - (cx - view.x) * f, y: cy - (cy - view.y) * f, w: w, h: view.h * f};
    apply();
  }
  document.querySelectorAll("[data-bz-zoom]").forEach(b => b.addEventListener("click", function () {
    const how = b.dataset.bzZoom;
    if (how === "in") zoom(1.5); else if (how === "out") zoom(1 / 1.5); else { view = Object.assign({}, home); apply(); }
  }));
  // Open on what the nomination is about: the selected ship with its fire arcs and turning
  // template (the whole table is one button away), so a phone shows it big enough to tap.
  function focus() {
    const parts = Array.from(svg.querySelectorAll("g.ship.selected, g.fire-arcs, g.turn-template"));
    if (!parts.length) return;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    parts.forEach(g => {
      const b = g.getBBox();
      if (!b.width && !b.height) return;
      x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.width); y1 = Math.max(y1, b.y + b.height);
    });
    if (!isFinite(x0)) return;
    const ratio = home.h / home.w;
    let w = Math.max(home.w / 5, (x1 - x0) * 1.4, (y1 - y0) * 1.4 / ratio);
    w = Math.min(w, home.w);
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    view = {x: cx - w / 2, y: cy - w * ratio / 2, w: w, h: w * ratio};
    apply();
  }
  focus();
  frame.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    const p = toSvg(ev.clientX, ev.clientY);
    zoom(ev.deltaY < 0 ? 1.2 : 1 / 1.2, p.x, p.y);
  }, {passive: false});

  // --- the move picker ----------------------------------------------------------------------
  const planEl = document.getElementById("bz-plan");
  const plan = planEl ? JSON.parse(planEl.textContent) : null;
  const picker = document.getElementById("bz-picker");
  const ships = {};
  (plan ? plan.ships : []).forEach(s => {
    // each move's action JSON and label are its option's in the ship's list (its place: m.i)
    const select = document.querySelector(`form.move-form[data-ship="${s.ship}"] select[name=move]`);
    if (!select) return;
    s.moves.forEach(m => { const o = select.options[m.i]; m.label = o ? o.textContent : ""; });
    s.select = select;
    ships[s.ship] = s;
  });
  let current = null, chosen = null;
  let drag = null;  // a pointer pressed on the board (below: pointers)
  redraw = function () { draw(); };
  const flags = {lay_mine: false, sweep: false, web: false};
  const FLAG_NAMES = {lay_mine: "Lay a mine (5.10)", sweep: "Sweep mines (Minesweeper)", web: "Spin a web (7.3)"};
  const overlay = document.createElementNS(NS, "g");
  overlay.setAttribute("id", "bz-overlay");
  svg.appendChild(overlay);

  function el(name, attrs) {
    const e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(k => e.setAttribute(k, attrs[k]));
    return e;
  }
  function candidates() {
    if (!current) return [];
    return current.moves.filter(m => !!m.lay_mine === flags.lay_mine && !!m.sweep === flags.sweep && !!m.web === flags.web);
  }
  function endOf(m) { return m.px[m.px.length - 1]; }
  function fmt(n) { return (Math.round(n * 100) / 100).toString(); }

  function draw() {
    overlay.textContent = "";
    if (!current) return;
    const seen = new Set();
    candidates().forEach(m => {
      const e = endOf(m), key = e[0].toFixed(1) + "," + e[1].toFixed(1);
      if (seen.has(key)) return;
      seen.add(key);
      // the dot as drawn, and round it a tap target of TARGET_PX screen pixels whatever the
      // zoom (a tap on it, or anywhere, chooses the nearest legal end: ``snap``)
      const k = scale();
      overlay.appendChild(el("circle", {class: "bz-hit", cx: e[0], cy: e[1], r: Math.max(3.2, TARGET_PX / k)}));
      overlay.appendChild(el("circle", {class: "bz-cand", cx: e[0], cy: e[1], r: Math.max(3.2, 5 / k)}));
    });
    if (chosen) {
      overlay.appendChild(el("polyline", {class: "bz-path", points: chosen.px.map(p => p.join(",")).join(" ")}));
      chosen.px.slice(1, -1).forEach(p => overlay.appendChild(el("circle", {class: "bz-turnpoint", cx: p[0], cy: p[1], r: 3})));
      const e = endOf(chosen), size = 9;
      overlay.appendChild(el("polygon", {class: "bz-ghost", points: `0,${-size} ${size * 0.7},${size} 0,${size * 0.45} ${-size * 0.7},${size}`,
                                         transform: `translate(${e[0]} ${e[1]}) rotate(${chosen.heading})`}));
    }
  }
  // A phone: once a move is chosen, "Confirm move" is brought on screen (the picker sits under
  // the board, which may end near the foot of the screen); not while a finger drags a move.
  function confirmInView() {
    if (!chosen || drag || !window.matchMedia("(max-width: 600px)").matches) return;
    const box = document.getElementById("bz-confirm").getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) picker.scrollIntoView({block: "nearest"});
  }
  function show() {
    const label = document.getElementById("bz-pick-label");
    document.getElementById("bz-pick-choice").hidden = !chosen;
    document.getElementById("bz-pick-hint").hidden = !!chosen;
    document.getElementById("bz-confirm").disabled = !chosen;
    if (!chosen) { draw(); return; }
    label.textContent = chosen.label;
    syncList();
    const headings = document.getElementById("bz-headings"), e = endOf(chosen);
    headings.textContent = "";
    const here = candidates().filter(m => Math.hypot(endOf(m)[0] - e[0], endOf(m)[1] - e[1]) <= 0.05);
    if (here.length > 1) {
      headings.append("Other ways to end here: ");
      here.forEach(m => {
        if (m === chosen) return;
        const b = document.createElement("button");
        b.type = "button"; b.className = "bz-heading"; b.textContent = m.label.replace(/^Ship \d+: /, "");
        b.addEventListener("click", function () { chosen = m; show(); });
        headings.appendChild(b);
      });
    }
    document.getElementById("bz-pick-distance").textContent =
      `${fmt(chosen.used)}" of ${fmt(current.allowance)}" used, ${fmt(chosen.left)}" left`;
    const most = Math.max(Math.abs(chosen.turn), Math.abs(chosen.turn_end));
    document.getElementById("bz-pick-turning").textContent = current.turning
      ? `${chosen.turned} turning point(s) spent, ${Math.max(0, current.turning - most)} of Turning ${current.turning} left`
        + (current.agile ? " (Agile: a turn at the start and one at the end)" : "")
      : "no turning";
    draw();
    confirmInView();
  }
  function snap(p) {
    let best = null, bestD = Infinity;
    candidates().forEach(m => {
      // the move whose end lies nearest: a drag along the path passes its ends in turn; of
      // moves ending at the same point, the one turning least (its other headings are offered)
      const e = endOf(m), d = Math.hypot(e[0] - p.x, e[1] - p.y);
      if (d < bestD - 0.05 || (Math.abs(d - bestD) <= 0.05 && m.turned < best.turned)) { best = m; bestD = d; }
    });
    return best;
  }
  function select(shipId) {
    current = ships[shipId] || null;
    chosen = null;
    Object.keys(flags).forEach(k => { flags[k] = false; });
    const box = document.getElementById("bz-flags");
    box.textContent = "";
    if (current) {
      Object.keys(FLAG_NAMES).forEach(k => {
        if (!current.moves.some(m => m[k])) return;
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.type = "checkbox"; input.name = "bz-" + k; input.dataset.flag = k;
        input.addEventListener("change", function () { flags[k] = input.checked; chosen = null; show(); });
        label.append(input, " " + FLAG_NAMES[k]);
        box.appendChild(label);
      });
    }
    mark(shipId);
    picker.hidden = !current;
    fitTargets();
    show();
  }
  // Zoom in until the ship's move ends lie at least two target radii apart on screen, so that a
  // finger can choose among a cluster of them (a phone's whole table makes them 9 px apart).
  function fitTargets() {
    const ends = [], seen = new Set();
    candidates().forEach(m => {
      const e = endOf(m), key = e[0].toFixed(1) + "," + e[1].toFixed(1);
      if (!seen.has(key)) { seen.add(key); ends.push(e); }
    });
    if (ends.length < 2 || !window.matchMedia("(max-width: 600px)").matches) return;  // a desktop board is big enough
    let dmin = Infinity;
    for (let i = 0; i < ends.length; i++) {
      for (let j = i + 1; j < ends.length; j++) {
        dmin = Math.min(dmin, Math.hypot(ends[i][0] - ends[j][0], ends[i][1] - ends[j][1]));
      }
    }
    const need = 2 * TARGET_PX / Math.max(dmin, 0.5);  // screen pixels per SVG pixel
    if (scale() >= need) return;
    const xs = ends.map(e => e[0]), ys = ends.map(e => e[1]);
    const cx = (Math.min(...xs) + Math.max(...xs)) / 2, cy = (Math.min(...ys) + Math.max(...ys)) / 2;
    view.x = cx - view.w / 2; view.y = cy - view.h / 2;
    zoom(need / scale(), cx, cy);
  }
  // The list form of the current ship, showing the move chosen on the board: the same option,
  // so "Confirm move" sends exactly what choosing it in the list sends.
  function syncList() {
    if (!current || !chosen || !current.select.options[chosen.i]) return null;
    current.select.selectedIndex = chosen.i;
    return current.select.form;
  }
  function confirmMove() {
    const form = syncList();
    if (!form) return;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }

  // Which of the side's ships the page is about: its arcs and turning template on the board
  // (drawn hidden for each of them by tactical/rules/buoyz/board.py), its group of choices.
  function mark(shipId) {
    const id = String(shipId);
    svg.querySelectorAll("g.fire-arcs[data-for], g.turn-template[data-for]").forEach(g => {
      g.style.display = g.dataset.for === id ? "inline" : "none";
    });
    svg.querySelectorAll("g.ship").forEach(g => g.classList.toggle("bz-current", g.dataset.ship === id));
    document.querySelectorAll(".choice-group[data-ship]").forEach(g => g.classList.toggle("bz-current", g.dataset.ship === id));
  }
  const groupShips = new Set(Array.from(document.querySelectorAll(".choice-group[data-ship]")).map(g => g.dataset.ship));
  // Focusing a ship's choices shows its arcs (nothing moves on the page, so a click lands where
  // it was aimed); choosing a move in the list shows it on the board too.
  document.querySelectorAll(".choice-group[data-ship]").forEach(g => g.addEventListener("focusin", function () {
    if (!ships[g.dataset.ship]) mark(g.dataset.ship);
  }));
  document.querySelectorAll("form.move-form[data-ship] select[name=move]").forEach(sel => sel.addEventListener("change", function () {
    const id = sel.closest("form").dataset.ship;
    if (!ships[id]) return;
    if (!current || String(current.ship) !== id) select(id);
    const m = current.moves.find(m => m.i === sel.selectedIndex);
    if (m) {
      Object.keys(flags).forEach(k => { flags[k] = !!m[k]; });
      document.querySelectorAll("#bz-flags input[data-flag]").forEach(i => { i.checked = flags[i.dataset.flag]; });
      chosen = m;
      show();
    }
  }));

  // The fire form: "every weapon at ship N" fills in each weapon's dice at that target; a main
  // weapon fires at one target (5.2), so setting it at one clears it at the others.
  document.querySelectorAll(".bz-fire").forEach(box => {
    const inputs = Array.from(box.querySelectorAll("input[type=number][name^='dice:']"));
    const targets = [...new Set(Array.from(box.querySelectorAll(".bz-target")).map(t => t.dataset.target))];
    const bar = document.createElement("p");
    bar.className = "bz-quick";
    targets.forEach(t => {
      const b = document.createElement("button");
      b.type = "button"; b.dataset.target = t; b.textContent = "Every weapon at ship " + t;
      b.addEventListener("click", function () {
        inputs.forEach(i => { i.value = i.name.split(":")[2] === t ? i.dataset.max : "0"; });
      });
      bar.appendChild(b);
    });
    if (targets.length) box.insertBefore(bar, box.firstChild);
    box.querySelectorAll("tr[data-weapon]").forEach(row => {
      if (!/one target/.test(row.cells[0].textContent)) return;
      const mine = Array.from(row.querySelectorAll("input[type=number]"));
      mine.forEach(i => i.addEventListener("input", function () {
        if (Number(i.value) > 0) mine.forEach(o => { if (o !== i) o.value = "0"; });
      }));
    });
  });

  const ids = Object.keys(ships);
  if (ids.length && picker) {
    const selectedG = svg.querySelector("g.ship.selected");
    const first = selectedG && ships[selectedG.dataset.ship] ? selectedG.dataset.ship : ids[0];
    document.getElementById("bz-confirm").addEventListener("click", confirmMove);
    document.getElementById("bz-cancel").addEventListener("click", function () { chosen = null; show(); });
    select(first);
  }

  // --- AC counters: their listed destinations on the board ---------------------------------
  // A dot per destination; clicking one chooses it in that kind's list (attack run, CAP, …),
  // draws the flight's line, and the list's "Fly" button sends it.
  const flights = plan && plan.flights ? plan.flights : [];
  const acLayer = document.createElementNS(NS, "g");
  acLayer.setAttribute("id", "bz-ac-overlay");
  svg.appendChild(acLayer);
  function pickFlight(f, m) {
    const form = document.querySelector(`form.bz-fly[data-flight="${f.flight}"][data-kind="${m.c}"]`);
    if (!form) return;
    const sel = form.querySelector("select[name=move]");
    sel.selectedIndex = m.i;
    acLayer.querySelectorAll(".bz-ac-line").forEach(l => l.remove());
    acLayer.appendChild(el("line", {class: "bz-ac-line", x1: f.px[0], y1: f.px[1], x2: m.px[0], y2: m.px[1]}));
    form.classList.add("bz-picked");
    form.querySelector("button[type=submit]").focus({preventScroll: true});
    form.scrollIntoView({block: "nearest"});
  }
  flights.forEach(f => f.moves.forEach(m => {
    const dot = el("rect", {class: "bz-ac-cand", x: m.px[0] - 3.5, y: m.px[1] - 3.5, width: 7, height: 7,
                            "data-flight": f.flight, "data-kind": m.c, "data-index": m.i});
    dot.addEventListener("click", function () { pickFlight(f, m); });
    acLayer.appendChild(dot);
  }));

  // --- pointers: one drags (a move from the ship, else the view), two pinch -----------------
  const touches = {};
  let pinch = null;
  function spread() {
    const p = Object.values(touches);
    return {d: Math.hypot(p[0].x - p[1].x, p[0].y - p[1].y), x: (p[0].x + p[1].x) / 2, y: (p[0].y + p[1].y) / 2};
  }
  function nearShip(p) {
    if (!current) return false;
    const r = Math.max(14, 14 * view.w / home.w * 1.5);
    return Math.hypot(current.px[0] - p.x, current.px[1] - p.y) <= r;
  }
  frame.addEventListener("pointerdown", function (ev) {
    touches[ev.pointerId] = {x: ev.clientX, y: ev.clientY};
    if (Object.keys(touches).length === 2) { drag = null; pinch = spread(); return; }
    if (ev.button !== 0 || Object.keys(touches).length > 2) return;
    const p = toSvg(ev.clientX, ev.clientY);
    drag = {sx: ev.clientX, sy: ev.clientY, start: p, moved: false, picking: nearShip(p), target: ev.target};
    if (drag.picking && frame.setPointerCapture) frame.setPointerCapture(ev.pointerId);
  });
  function lift(ev) {
    delete touches[ev.pointerId];
    if (pinch && Object.keys(touches).length < 2) { pinch = null; drag = null; return true; }
    return false;
  }
  window.addEventListener("pointercancel", function (ev) { lift(ev); drag = null; });
  window.addEventListener("pointermove", function (ev) {
    if (touches[ev.pointerId]) touches[ev.pointerId] = {x: ev.clientX, y: ev.clientY};
    if (pinch && Object.keys(touches).length === 2) {
      const now = spread();
      if (now.d > 0 && pinch.d > 0) { const c = toSvg(now.x, now.y); zoom(now.d / pinch.d, c.x, c.y); }
      pinch = now;
      return;
    }
    if (!drag) return;
    if (!drag.moved && Math.abs(ev.clientX - drag.sx) + Math.abs(ev.clientY - drag.sy) < 4) return;
    drag.moved = true;
    const now = toSvg(ev.clientX, ev.clientY);
    if (drag.picking) {
      const m = snap(now);
      if (m && m !== chosen) { chosen = m; show(); }
      return;
    }
    view.x += drag.start.x - now.x;
    view.y += drag.start.y - now.y;
    apply();
  });
  window.addEventListener("pointerup", function (ev) {
    if (lift(ev) || !drag) return;
    const d = drag;
    drag = null;
    if (d.moved) { if (d.picking) confirmInView(); return; }
    // A click: on one of the side's ships with moves, select it; else snap to the nearest move.
    const g = d.target && d.target.closest ? d.target.closest("g.ship") : null;
    if (g && ships[g.dataset.ship] && (!current || String(current.ship) !== g.dataset.ship)) { select(g.dataset.ship); return; }
    if (g && !current && groupShips.has(g.dataset.ship)) {
      mark(g.dataset.ship);
      const group = document.querySelector(`.choice-group[data-ship="${g.dataset.ship}"]`);
      if (group) group.scrollIntoView({block: "nearest"});
      return;
    }
    if (!current || (g && String(current.ship) === g.dataset.ship)) return;
    const m = snap(d.start);
    if (m) { chosen = m; show(); }
  });
})();
