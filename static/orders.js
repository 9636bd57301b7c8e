/* The order page's editor (templates/orders/orders.html): plain JavaScript, no build step.
 *
 * It keeps one order set in the documented JSON format (docs/orders.md), edits it through the
 * forms and the map, mirrors it into the page's JSON text area (which also works without
 * JavaScript), and after every change asks the server for a preview (POST .../orders/preview/):
 * the server validates everything. The path editor offers exactly the steps the order check
 * accepts: it applies the server's PathRules (D.paths: black holes, worm holes and star gates;
 * campaign/rules/eventhorizon/orders.py) with the same step costs (issue 23 item 2).
 */
(function () {
  "use strict";

  var dataEl = document.getElementById("order-data");
  if (!dataEl) return;
  var D = JSON.parse(dataEl.textContent);
  document.documentElement.classList.add("js");

  function $(id) { return document.getElementById(id); }
  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function option(value, label) { return h("option", { value: value, text: label }); }
  function fmt(c) { return "(" + c[0] + "," + c[1] + ")"; }
  function clone(v) { return JSON.parse(JSON.stringify(v)); }
  function csrf() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  // --- the order set ----------------------------------------------------------------------
  var orders;
  function load(raw) {
    raw = raw || {};
    orders = {
      purchases: clone(raw.purchases || []),
      split: clone(raw.split || []),
      merge: clone(raw.merge || []),
      moves: clone(raw.moves || []),
      standing: raw.standing ? clone(raw.standing) : null,
    };
  }
  function toJSON() {
    var out = {};
    ["purchases", "split", "merge", "moves"].forEach(function (k) { if (orders[k].length) out[k] = orders[k]; });
    if (orders.standing) out.standing = orders.standing;
    return out;
  }
  load(D.orders);

  // --- fleets: yours, after this turn's splits and merges -----------------------------------
  var shipMove = {};
  D.fleets.forEach(function (f) { f.ships.forEach(function (s) { shipMove[s.id] = s.move; }); });
  function speedOf(ships) {
    if (!ships.length) return 0;
    return Math.min.apply(null, ships.map(function (s) { return shipMove[s] || 0; }));
  }
  function fleetKey(key) { return typeof key === "string" ? key : Number(key); }
  function effectiveFleets() {
    var byId = {};
    var list = [];
    D.fleets.forEach(function (f) {
      var e = { key: f.id, label: "Fleet " + f.id, x: f.x, y: f.y, ships: f.ships.map(function (s) { return s.id; }) };
      byId[f.id] = e; list.push(e);
    });
    orders.split.forEach(function (s) {
      var parent = byId[s.fleet];
      if (!parent) return;
      parent.ships = parent.ships.filter(function (id) { return s.ships.indexOf(id) < 0; });
      var e = { key: s.as, label: "“" + s.as + "” (from fleet " + s.fleet + ")", x: parent.x, y: parent.y, ships: s.ships.slice() };
      list.push(e);
    });
    orders.merge.forEach(function (m) {
      var first = byId[m.fleets[0]];
      if (!first) return;
      m.fleets.slice(1).forEach(function (id) {
        var other = byId[id];
        if (!other) return;
        first.ships = first.ships.concat(other.ships);
        other.mergedInto = first.key;
      });
    });
    list.forEach(function (e) { e.speed = speedOf(e.ships); });
    return list.filter(function (e) { return e.mergedInto === undefined; });
  }
  function fleetByKey(key) {
    return effectiveFleets().filter(function (f) { return f.key === key; })[0] || null;
  }

  // --- grid: the steps a path may take (PathRules.step_cost on the server) --------------------
  function onMap(x, y) { return x >= 0 && y >= 0 && x < D.grid.width && y < D.grid.height; }
  function neighbours(x, y) {
    var steps;
    if (D.grid.kind === "hex") {
      // odd-r offset rows (campaign/rules/grid.py): odd rows are shoved right by half a hex.
      steps = (y % 2 === 0)
        ? [[-1, 0], [1, 0], [-1, -1], [0, -1], [-1, 1], [0, 1]]
        : [[-1, 0], [1, 0], [0, -1], [1, -1], [0, 1], [1, 1]];
    } else {
      steps = [[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [0, 1], [1, 1]];
    }
    return steps.map(function (d) { return [x + d[0], y + d[1]]; }).filter(function (c) { return onMap(c[0], c[1]); });
  }
  var P = D.paths || { blocked: [], jumps: [] };
  function cellKey(c) { return c[0] + "," + c[1]; }
  var blocked = {};
  P.blocked.forEach(function (c) { blocked[cellKey(c)] = true; });
  var jumpGroups = P.jumps.map(function (group) {
    var set = {}; group.forEach(function (c) { set[cellKey(c)] = true; }); return { cells: group, has: set };
  });
  function isJump(a, b) {
    return cellKey(a) !== cellKey(b) && jumpGroups.some(function (g) { return g.has[cellKey(a)] && g.has[cellKey(b)]; });
  }
  // Moves a step costs (0: a jump), or null when the order check would refuse it.
  function stepCost(here, c) {
    if (!onMap(c[0], c[1]) || blocked[cellKey(c)]) return null;
    if (isJump(here, c)) return 0;
    return neighbours(here[0], here[1]).some(function (n) { return n[0] === c[0] && n[1] === c[1]; }) ? 1 : null;
  }
  // Every cell one step from ``here``, with its cost.
  function legalSteps(here) {
    var out = {};
    neighbours(here[0], here[1]).forEach(function (c) { if (!blocked[cellKey(c)]) out[cellKey(c)] = { cell: c, cost: 1 }; });
    jumpGroups.forEach(function (g) {
      if (!g.has[cellKey(here)]) return;
      g.cells.forEach(function (c) { if (cellKey(c) !== cellKey(here) && !blocked[cellKey(c)]) out[cellKey(c)] = { cell: c, cost: 0 }; });
    });
    return Object.keys(out).map(function (k) { return out[k]; });
  }

  // --- the map ------------------------------------------------------------------------------
  var svg = document.querySelector("#order-map svg");
  var cells = {};
  var plotLayer = null;
  var SVGNS = "http://www.w3.org/2000/svg";
  if (svg) {
    Array.prototype.forEach.call(svg.querySelectorAll(".cell[data-x]"), function (g) {
      cells[g.getAttribute("data-x") + "," + g.getAttribute("data-y")] = g;
    });
    Array.prototype.forEach.call(svg.querySelectorAll(".fleet[data-owner]"), function (g) {
      if (Number(g.getAttribute("data-owner")) === D.seat) g.classList.add("mine");
    });
    plotLayer = document.createElementNS(SVGNS, "g");
    plotLayer.setAttribute("class", "plot");
    plotLayer.setAttribute("pointer-events", "none");
    svg.appendChild(plotLayer);
  }
  function centre(c) {
    var g = cells[c[0] + "," + c[1]];
    if (!g) return null;
    var shape = g.querySelector("polygon, rect") || g;
    var box = shape.getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  }

  var selected = null; // a fleet key: a number, or a split label

  function moveFor(key) {
    return orders.moves.filter(function (m) { return m.fleet === key; })[0] || null;
  }
  function pathOf(key) { var m = moveFor(key); return m ? m.path : []; }
  // The moves a path costs, as the order check counts them; a step it would refuse (a path
  // typed into the JSON box, say) counts one move and makes the path "bad".
  function pathCost(fleet, path) {
    var here = [fleet.x, fleet.y], steps = 0, bad = false;
    path.forEach(function (c) {
      var cost = stepCost(here, c);
      if (cost === null) { bad = true; cost = 1; }
      steps += cost; here = c;
    });
    return { steps: steps, bad: bad };
  }
  function stepsOf(fleet, path) { return pathCost(fleet, path).steps; }
  // The cells the selected fleet's path may enter next (none once its moves are spent).
  function nextSteps(fleet) {
    var path = pathOf(fleet.key);
    var cost = pathCost(fleet, path);
    if (cost.bad) return [];
    var end = path.length ? path[path.length - 1] : [fleet.x, fleet.y];
    return legalSteps(end).filter(function (s) { return cost.steps + s.cost <= fleet.speed; });
  }

  function drawPaths() {
    if (!plotLayer) return;
    while (plotLayer.firstChild) plotLayer.removeChild(plotLayer.firstChild);
    effectiveFleets().forEach(function (f) {
      var path = pathOf(f.key);
      if (!path.length) return;
      var pts = [[f.x, f.y]].concat(path).map(centre).filter(Boolean);
      var line = document.createElementNS(SVGNS, "polyline");
      line.setAttribute("points", pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "));
      var active = f.key === selected;
      line.setAttribute("stroke", active ? "#ffb300" : "#1f5fa8");
      line.setAttribute("stroke-width", active ? "4" : "3");
      line.setAttribute("stroke-dasharray", active ? "" : "6 4");
      line.setAttribute("stroke-opacity", "0.9");
      plotLayer.appendChild(line);
      var end = pts[pts.length - 1];
      var dot = document.createElementNS(SVGNS, "circle");
      dot.setAttribute("cx", end[0]); dot.setAttribute("cy", end[1]); dot.setAttribute("r", "4");
      dot.setAttribute("fill", active ? "#ffb300" : "#1f5fa8");
      plotLayer.appendChild(dot);
    });
    Object.keys(cells).forEach(function (k) { cells[k].classList.remove("reach"); });
    Array.prototype.forEach.call(svg.querySelectorAll(".fleet.selected"), function (g) { g.classList.remove("selected"); });
    var fleet = selected === null ? null : fleetByKey(selected);
    if (fleet) {
      nextSteps(fleet).forEach(function (s) {
        var g = cells[cellKey(s.cell)];
        if (g) g.classList.add("reach");
      });
      var marker = svg.querySelector('.fleet[data-fleet="' + (typeof fleet.key === "number" ? fleet.key : "") + '"]');
      if (marker) marker.classList.add("selected");
    }
  }

  function select(key) {
    selected = key;
    var fleet = key === null ? null : fleetByKey(key);
    if (!fleet) { selected = null; }
    $("plot-fleet").textContent = fleet ? fleet.label + " at " + fmt([fleet.x, fleet.y]) : "no fleet selected";
    var pill = $("plot-steps");
    if (fleet) {
      var cost = pathCost(fleet, pathOf(fleet.key));
      pill.textContent = cost.steps + " of " + fleet.speed + " moves" + (cost.bad ? " (a step the check refuses)" : "");
      pill.className = "pill " + (cost.bad || cost.steps > fleet.speed ? "bad" : "ok");
    } else {
      pill.textContent = ""; pill.className = "pill";
    }
    drawPaths();
    renderFleets();
  }

  function appendStep(c) {
    if (selected === null) return;
    var fleet = fleetByKey(selected);
    // Only a step the order check accepts: a cell outlined on the map.
    if (!fleet || !nextSteps(fleet).some(function (s) { return cellKey(s.cell) === cellKey(c); })) return;
    var move = moveFor(selected);
    if (!move) { move = { fleet: selected, path: [] }; orders.moves.push(move); }
    move.path.push(c);
    changed();
    select(selected);
  }
  function undoStep() {
    var move = selected === null ? null : moveFor(selected);
    if (!move) return;
    move.path.pop();
    if (!move.path.length) orders.moves.splice(orders.moves.indexOf(move), 1);
    changed(); select(selected);
  }
  function clearPath(key) {
    var move = moveFor(key);
    if (move) orders.moves.splice(orders.moves.indexOf(move), 1);
    changed(); select(selected);
  }

  if (svg) {
    svg.addEventListener("click", function (ev) {
      var fleetG = ev.target.closest ? ev.target.closest(".fleet") : null;
      var cellG = ev.target.closest ? ev.target.closest(".cell[data-x]") : null;
      if (fleetG && Number(fleetG.getAttribute("data-owner")) === D.seat) {
        var fid = Number(fleetG.getAttribute("data-fleet"));
        // A click on one of your fleets picks it, unless you are plotting a path for another
        // fleet: then it is the cell under the marker that the path enters.
        if (selected === null || (selected !== fid && !pathOf(selected).length)) { select(fid); return; }
        if (selected === fid && !pathOf(fid).length) { select(null); return; }
      }
      if (cellG && selected !== null) {
        appendStep([Number(cellG.getAttribute("data-x")), Number(cellG.getAttribute("data-y"))]);
      }
    });
  }
  $("plot-undo").addEventListener("click", undoStep);
  $("plot-clear").addEventListener("click", function () { if (selected !== null) clearPath(selected); });
  $("plot-done").addEventListener("click", function () { select(null); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "TEXTAREA") return;
    if (ev.key === "Escape") select(null);
    if (ev.key === "Backspace" && selected !== null) { ev.preventDefault(); undoStep(); }
  });

  // --- fleets table, splits, merges ---------------------------------------------------------
  function renderFleets() {
    var body = $("fleet-rows");
    body.innerHTML = "";
    var fleets = effectiveFleets();
    $("no-fleets").hidden = fleets.length > 0;
    fleets.forEach(function (f) {
      var path = pathOf(f.key);
      var steps = stepsOf(f, path);
      var names = f.ships.map(function (id) {
        var ship = null;
        D.fleets.forEach(function (df) { df.ships.forEach(function (s) { if (s.id === id) ship = s; }); });
        return ship ? "#" + id + " " + (ship.name || ship.design || "") + (ship.damaged ? " (damaged)" : "") : "#" + id;
      });
      body.appendChild(h("tr", { style: f.key === selected ? "background:#fff8d6" : null }, [
        h("td", { text: f.label }),
        h("td", { text: fmt([f.x, f.y]) }),
        h("td", { text: names.join(", ") }),
        h("td", { text: String(f.speed) }),
        h("td", { text: path.length ? path.map(fmt).join(" → ") + " (" + steps + "/" + f.speed + ")" : "holds" }),
        h("td", {}, [
          h("button", { type: "button", class: "small", text: f.key === selected ? "Done" : "Plot",
                        onclick: function () { select(f.key === selected ? null : f.key); } }),
          path.length ? h("button", { type: "button", class: "small", text: "Clear", onclick: function () { clearPath(f.key); } }) : "",
        ]),
      ]));
    });
    // split: fleets with two or more ships
    var splitSel = $("split-fleet");
    var keep = splitSel.value;
    splitSel.innerHTML = "";
    D.fleets.filter(function (f) { return f.ships.length > 1; }).forEach(function (f) {
      splitSel.appendChild(option(f.id, "Fleet " + f.id + " at " + fmt([f.x, f.y])));
    });
    if (keep) splitSel.value = keep;
    renderSplitShips();
    var mergeBox = $("merge-fleets");
    mergeBox.innerHTML = "";
    D.fleets.forEach(function (f) {
      mergeBox.appendChild(h("label", { class: "inline" }, [
        h("input", { type: "checkbox", value: f.id, class: "merge-pick" }), " Fleet " + f.id + " " + fmt([f.x, f.y])]));
    });
    var list = $("regroup-list");
    list.innerHTML = "";
    orders.split.forEach(function (s, i) {
      list.appendChild(h("li", {}, ["Split ships " + s.ships.join(", ") + " off fleet " + s.fleet + " as “" + s.as + "” ",
        h("button", { type: "button", text: "✕", title: "remove", onclick: function () {
          orders.moves = orders.moves.filter(function (m) { return m.fleet !== s.as; });
          orders.split.splice(i, 1); changed(); select(null); } })]));
    });
    orders.merge.forEach(function (m, i) {
      list.appendChild(h("li", {}, ["Merge fleets " + m.fleets.join(", ") + " into fleet " + m.fleets[0] + " ",
        h("button", { type: "button", text: "✕", title: "remove", onclick: function () {
          orders.merge.splice(i, 1); changed(); renderFleets(); } })]));
    });
    renderStandingFleets();
  }
  function renderSplitShips() {
    var box = $("split-ships");
    box.innerHTML = "";
    var fleet = D.fleets.filter(function (f) { return String(f.id) === $("split-fleet").value; })[0];
    if (!fleet) { box.appendChild(h("span", { class: "muted", text: "No fleet has two or more ships." })); return; }
    fleet.ships.forEach(function (s) {
      box.appendChild(h("label", { class: "inline" }, [h("input", { type: "checkbox", value: s.id, class: "split-pick" }),
        " #" + s.id + " " + (s.name || s.design) + " (move " + s.move + ")"]));
    });
  }
  $("split-fleet").addEventListener("change", renderSplitShips);
  $("split-add").addEventListener("click", function () {
    var fleet = Number($("split-fleet").value);
    var ships = Array.prototype.map.call(document.querySelectorAll(".split-pick:checked"), function (i) { return Number(i.value); });
    var label = $("split-label").value.trim();
    if (!fleet || !ships.length || !label) { status("Pick a fleet, the ships to split off and a label.", true); return; }
    orders.split.push({ fleet: fleet, ships: ships, as: label });
    $("split-label").value = label + " 2";
    changed(); renderFleets(); select(selected);
  });
  $("merge-add").addEventListener("click", function () {
    var ids = Array.prototype.map.call(document.querySelectorAll(".merge-pick:checked"), function (i) { return Number(i.value); });
    if (ids.length < 2) { status("Tick two or more fleets to merge.", true); return; }
    orders.merge.push({ fleets: ids });
    changed(); renderFleets(); select(selected);
  });

  // --- purchases ----------------------------------------------------------------------------
  var resources = {};
  D.resources.forEach(function (r) {
    resources[r.key] = r;
    $("buy-resource").appendChild(option(r.key, r.label + " — " + r.cost + " BP"));
  });
  D.worlds.forEach(function (w) {
    $("buy-at").appendChild(option(w.x + "," + w.y, fmt([w.x, w.y]) + " " + w.kind + (w.home ? " (home)" : "")
      + (w.structures.length ? ": " + w.structures.join(", ") : "")));
  });
  $("buy-at").appendChild(option("other", "another hex…"));
  D.technologies.forEach(function (t) {
    $("buy-tech").appendChild(option(t.key, t.label + (t.have ? " (researched)" : "")));
  });
  function buyHelp() {
    var r = resources[$("buy-resource").value];
    $("buy-help").textContent = r ? r.label + ": " + r.cost + " BP, " + r.where + (r.requires ? "; " + r.requires : "") + "." : "";
    $("buy-tech-label").hidden = $("buy-resource").value !== "research_facility";
    $("buy-xy").hidden = $("buy-at").value !== "other";
  }
  $("buy-resource").addEventListener("change", function () { applyOptions(); buyHelp(); });
  $("buy-at").addEventListener("change", buyHelp);

  // What can be ordered now (issue 13 item 14): the server works it out after the purchases
  // listed so far and sends it with every preview; what cannot be ordered is disabled, with why.
  var options = D.options || { resources: {}, dockyards: {} };
  function offer(select, reasonOf, labelOf) {
    Array.prototype.forEach.call(select.options, function (o) {
      if (!o.hasAttribute("data-label")) o.setAttribute("data-label", o.textContent);
      var why = reasonOf(o.value);
      o.disabled = !!why;
      o.textContent = o.getAttribute("data-label") + (why ? " — not now: " + why : "");
      o.title = why || "";
    });
    if (select.selectedOptions.length && select.selectedOptions[0].disabled) {
      var first = Array.prototype.filter.call(select.options, function (o) { return !o.disabled; })[0];
      if (first) select.value = first.value;
    }
  }
  function applyOptions(fresh) {
    if (fresh) options = fresh;
    var res = options.resources || {}, yards = options.dockyards || {};
    offer($("buy-resource"), function (key) { return res[key] && !res[key].ok ? res[key].reason : ""; });
    var chosen = res[$("buy-resource").value];
    offer($("buy-at"), function (at) { return chosen && chosen.worlds && chosen.worlds[at] ? chosen.worlds[at] : ""; });
    offer($("build-dockyard"), function (id) { return yards[id] || ""; });
    var designsOk = options.designs || {};
    offer($("build-design"), function (name) { return designsOk[name] || ""; });
    offer($("repair-dockyard"), function (id) { return yards[id] || ""; });
    buyHelp();
  }
  $("buy-add").addEventListener("click", function () {
    var at, pick = $("buy-resource").selectedOptions[0], place = $("buy-at").selectedOptions[0];
    if (!pick || pick.disabled) { status("Nothing can be bought now: " + (pick ? pick.title : "no resource"), true); return; }
    if (place && place.disabled) { status("Not there: " + place.title, true); return; }
    if ($("buy-at").value === "other") {
      at = [parseInt($("buy-x").value, 10), parseInt($("buy-y").value, 10)];
      if (isNaN(at[0]) || isNaN(at[1])) { status("Give the hex's x and y.", true); return; }
    } else {
      at = $("buy-at").value.split(",").map(Number);
    }
    var item = { buy: $("buy-resource").value, at: at };
    if (item.buy === "research_facility") item.technology = $("buy-tech").value;
    orders.purchases.push(item);
    changed(); renderPurchases();
  });

  var designs = {};
  D.designs.forEach(function (d) {
    designs[d.name] = d;
    $("build-design").appendChild(option(d.name, d.name + " — " + d.ship_type + ", " + d.bp + " BP, " + d.build_time
      + " turn(s), move " + d.move + (d.own ? " (yours)" : "")));
  });
  function dockyardLabel(d) { return "#" + d.id + " at " + fmt([d.x, d.y]) + (d.building ? " (building " + d.building + ")" : ""); }
  D.dockyards.forEach(function (d) {
    $("build-dockyard").appendChild(option(d.id, dockyardLabel(d)));
    $("repair-dockyard").appendChild(option(d.id, dockyardLabel(d)));
  });
  if (!D.repairs.length) $("repair-ship").appendChild(option("", "no damaged ships"));
  D.repairs.forEach(function (s) {
    $("repair-ship").appendChild(option(s.id, s.name + " at " + fmt([s.x, s.y]) + (s.cost !== null ? ", " + s.cost + " BP" : "")));
  });
  applyOptions();
  $("build-add").addEventListener("click", function () {
    if (!$("build-design").value || !$("build-dockyard").value) { status("Pick a design and a dockyard.", true); return; }
    if ($("build-design").selectedOptions[0].disabled) { status($("build-design").value + ": " + $("build-design").selectedOptions[0].title, true); return; }
    if ($("build-dockyard").selectedOptions[0].disabled) { status("Dockyard " + $("build-dockyard").value + ": " + $("build-dockyard").selectedOptions[0].title, true); return; }
    var item = { build: $("build-design").value, dockyard: Number($("build-dockyard").value) };
    if ($("build-hero").checked) item.hero_crew = true;
    if ($("build-name").value.trim()) item.name = $("build-name").value.trim();
    orders.purchases.push(item);
    $("build-name").value = ""; $("build-hero").checked = false;
    changed(); renderPurchases();
  });
  $("repair-add").addEventListener("click", function () {
    if (!$("repair-ship").value || !$("repair-dockyard").value) { status("Pick a damaged ship and a dockyard.", true); return; }
    orders.purchases.push({ repair: Number($("repair-ship").value), dockyard: Number($("repair-dockyard").value) });
    changed(); renderPurchases();
  });

  function describe(p) {
    if (p.buy !== undefined) {
      var r = resources[p.buy];
      return [(r ? r.label : p.buy) + " at " + fmt(p.at || ["?", "?"]) + (p.technology ? ", researching " + p.technology.replace(/_/g, " ") : ""),
        r ? r.cost : null];
    }
    if (p.build !== undefined) {
      var d = designs[p.build];
      return ["Build " + p.build + (p.name ? " ‘" + p.name + "’" : "") + (p.hero_crew ? " with hero crew" : "") + " at dockyard " + p.dockyard,
        d ? d.bp + (p.hero_crew ? 30 : 0) : null];
    }
    if (p.repair !== undefined) {
      var s = D.repairs.filter(function (x) { return x.id === p.repair; })[0];
      return ["Repair ship " + p.repair + " at dockyard " + p.dockyard, s ? s.cost : null];
    }
    return [JSON.stringify(p), null];
  }
  function renderPurchases() {
    var list = $("purchase-list");
    list.innerHTML = "";
    var total = 0;
    orders.purchases.forEach(function (p, i) {
      var d = describe(p);
      if (d[1] !== null) total += d[1];
      list.appendChild(h("li", {}, [d[0] + (d[1] !== null ? " — " + d[1] + " BP " : " "),
        h("button", { type: "button", text: "↑", title: "earlier", disabled: i === 0 ? "disabled" : null, onclick: function () {
          orders.purchases.splice(i - 1, 0, orders.purchases.splice(i, 1)[0]); changed(); renderPurchases(); } }),
        h("button", { type: "button", text: "↓", title: "later", disabled: i === orders.purchases.length - 1 ? "disabled" : null, onclick: function () {
          orders.purchases.splice(i + 1, 0, orders.purchases.splice(i, 1)[0]); changed(); renderPurchases(); } }),
        h("button", { type: "button", text: "✕", title: "remove", onclick: function () {
          orders.purchases.splice(i, 1); changed(); renderPurchases(); } }),
      ]));
    });
    $("purchase-estimate").textContent = orders.purchases.length
      ? "About " + total + " BP of your " + D.bp + " BP; the preview has the exact figure." : "Nothing bought: banked BP stay banked.";
  }

  // --- standing orders ----------------------------------------------------------------------
  function standingDraft() { return orders.standing || clone(D.standing); }
  function renderStanding() {
    var on = !!orders.standing;
    $("standing-change").checked = on;
    var s = standingDraft();
    s.invasion = s.invasion || [];
    $("standing-loss").value = s.loss_order || "cheapest";
    $("standing-initiative").value = s.initiative || "first";
    renderDrift(s);
    Array.prototype.forEach.call($("standing-form").querySelectorAll("input, select, button"), function (el) { el.disabled = !on; });
    var list = $("invasion-list");
    list.innerHTML = "";
    if (!s.invasion.length) list.appendChild(h("li", { class: "muted", text: "No rules: every fleet fights." }));
    s.invasion.forEach(function (o, i) {
      var what = o.fleet !== undefined ? "Fleet " + o.fleet : (o.hex ? "Hex " + fmt(o.hex) : "Everything else");
      var text = what + ": " + o.response + (o.response === "retreat" ? (o.retreat_to ? " to " + fmt(o.retreat_to) : " to the nearest friendly world") : "") + " ";
      list.appendChild(h("li", {}, [text, h("button", { type: "button", text: "✕", title: "remove", disabled: on ? null : "disabled",
        onclick: function () { orders.standing.invasion.splice(i, 1); changed(); renderStanding(); } })]));
    });
    invScope();
  }
  function renderStandingFleets() {
    var sel = $("inv-fleet");
    sel.innerHTML = "";
    D.fleets.forEach(function (f) { sel.appendChild(option(f.id, "Fleet " + f.id + " at " + fmt([f.x, f.y]))); });
  }
  function invScope() {
    $("inv-hex").hidden = $("inv-scope").value !== "hex";
    $("inv-fleet").hidden = $("inv-scope").value !== "fleet";
    $("inv-retreat").hidden = $("inv-response").value !== "retreat";
  }
  // Drift order (003 Particle Cloud: "the opponent moves the ship/fleet"; docs/rulings.md P2).
  function renderDrift(s) {
    var mode = s.drift ? Object.keys(s.drift)[0] : "";
    $("drift-mode").value = mode;
    $("drift-hex").hidden = !mode;
    if (mode) { $("drift-x").value = s.drift[mode][0]; $("drift-y").value = s.drift[mode][1]; }
    $("drift-note").textContent = D.steered_drift ? "(you steer it when you are its nearest opponent)"
      : "(this campaign's drift is random: the steered-drift option is off)";
  }
  function driftChanged() {
    var mode = $("drift-mode").value;
    $("drift-hex").hidden = !mode;
    var x = parseInt($("drift-x").value, 10), y = parseInt($("drift-y").value, 10);
    if (!mode) { delete orders.standing.drift; }
    else if (!isNaN(x) && !isNaN(y)) { orders.standing.drift = {}; orders.standing.drift[mode] = [x, y]; }
    else { return; }
    changed();
  }
  $("drift-mode").addEventListener("change", driftChanged);
  $("drift-x").addEventListener("change", driftChanged);
  $("drift-y").addEventListener("change", driftChanged);
  $("inv-scope").addEventListener("change", invScope);
  $("inv-response").addEventListener("change", invScope);
  $("standing-change").addEventListener("change", function () {
    orders.standing = this.checked ? standingDraft() : null;
    if (orders.standing) orders.standing.invasion = orders.standing.invasion || [];
    changed(); renderStanding();
  });
  $("standing-loss").addEventListener("change", function () { orders.standing.loss_order = this.value; changed(); });
  $("standing-initiative").addEventListener("change", function () { orders.standing.initiative = this.value; changed(); });
  $("inv-add").addEventListener("click", function () {
    var rule = { response: $("inv-response").value };
    var scope = $("inv-scope").value;
    if (scope === "hex") {
      var hx = parseInt($("inv-x").value, 10), hy = parseInt($("inv-y").value, 10);
      if (isNaN(hx) || isNaN(hy)) { status("Give the hex's x and y.", true); return; }
      rule.hex = [hx, hy];
    } else if (scope === "fleet") {
      if (!$("inv-fleet").value) { status("You have no fleet to give a rule.", true); return; }
      rule.fleet = Number($("inv-fleet").value);
    }
    if (rule.response === "retreat") {
      var rx = parseInt($("inv-rx").value, 10), ry = parseInt($("inv-ry").value, 10);
      if (!isNaN(rx) && !isNaN(ry)) rule.retreat_to = [rx, ry];
    }
    orders.standing.invasion.push(rule);
    changed(); renderStanding();
  });

  // --- JSON text area, preview, save, ready -------------------------------------------------
  var textarea = document.querySelector("#orders-form textarea");
  var dirty = false;
  var previewTimer = null;
  var previewSeq = 0;

  function status(text, bad) {
    var el = $("save-status");
    el.textContent = text;
    el.className = bad ? "error" : "muted";
  }
  function changed(fromText) {
    dirty = true;
    if (!fromText && textarea) textarea.value = JSON.stringify(toJSON(), null, 2);
    status("unsaved changes");
    clearTimeout(previewTimer);
    previewTimer = setTimeout(preview, 350);
  }
  function api(method, url, body) {
    return fetch(url, {
      method: method, credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRFToken": csrf() },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) { return { status: r.status, data: data }; });
    });
  }
  function problem(data) {
    if (!data) return "the server did not answer";
    var v = data.orders || data.detail || data.ready || data;
    if (Array.isArray(v)) v = v.join(" ");
    return typeof v === "string" ? v : JSON.stringify(v);
  }
  function showPreview(ok, data) {
    var pill = $("preview-status");
    $("preview-lines").innerHTML = "";
    if (ok) {
      pill.textContent = "orders are valid"; pill.className = "pill ok";
      $("preview-error").textContent = "";
      $("preview-cost").textContent = data.cost;
      $("preview-left").textContent = data.bp_left;
      (data.lines || []).slice(1).forEach(function (line) { $("preview-lines").appendChild(h("li", { text: line.trim() })); });
      if (!data.lines || data.lines.length < 2) $("preview-lines").appendChild(h("li", { class: "muted", text: "Hold: nothing bought, no fleet moves." }));
      // Warnings are not refusals: the orders are valid but may lose the campaign (no ships).
      (data.warnings || []).forEach(function (w) { $("preview-lines").appendChild(h("li", { class: "pill warn", text: "Warning: " + w })); });
      if ((data.warnings || []).length) { pill.textContent = "valid, with a warning"; pill.className = "pill warn"; }
    } else {
      var problems = (data && data.problems) || [];
      pill.textContent = problems.length > 1 ? problems.length + " problems" : "refused"; pill.className = "pill bad";
      $("preview-error").textContent = "";
      if (problems.length) {
        // Every problem, not the first (issue 13 item 14).
        var list = h("ul", { class: "items", id: "preview-problems" });
        problems.forEach(function (p) { list.appendChild(h("li", { text: p.text })); });
        $("preview-error").appendChild(list);
      } else {
        $("preview-error").textContent = typeof data === "string" ? data : problem(data);
      }
      $("preview-cost").textContent = "–"; $("preview-left").textContent = "–";
    }
    if (data && data.options) applyOptions(data.options);
  }
  function preview() {
    var seq = ++previewSeq;
    var body = toJSON();
    if (textarea && document.activeElement === textarea) {
      try { body = JSON.parse(textarea.value || "{}"); } catch (e) { showPreview(false, "not valid JSON: " + e.message); return; }
    }
    api("POST", D.urls.preview, { orders: body }).then(function (res) {
      if (seq !== previewSeq) return; // a newer preview is on its way
      if (res.status === 200) showPreview(true, res.data);
      else showPreview(false, res.data && res.data.problems ? res.data : problem(res.data));
    }).catch(function () { if (seq === previewSeq) showPreview(false, "could not reach the server"); });
  }
  function save() {
    return api("PUT", D.urls.orders, { orders: toJSON(), turn: D.turn }).then(function (res) {
      if (res.status === 200) {
        dirty = false;
        $("revision").textContent = res.data.revision;
        status("saved (revision " + res.data.revision + ")");
        showPreview(true, { cost: D.bp - res.data.bp_left, bp_left: res.data.bp_left, lines: res.data.preview,
                            warnings: res.data.warnings });
        return true;
      }
      status(res.status === 409 ? problem(res.data) : "not saved: " + problem(res.data), true);
      if (res.status === 400) showPreview(false, res.data && res.data.problems ? res.data : problem(res.data));
      return false;
    }).catch(function () { status("could not reach the server: not saved", true); return false; });
  }
  function setReady(ready) {
    $("ready-state").textContent = ready ? "ready" : "not ready";
    $("ready-state").className = "pill" + (ready ? " ok" : "");
    $("ready-button").textContent = ready ? "Not ready yet" : "Save and mark ready";
    D.ready = ready;
  }
  $("save-button").addEventListener("click", save);
  $("ready-button").addEventListener("click", function () {
    var want = !D.ready;
    var first = want && dirty ? save() : Promise.resolve(true);
    first.then(function (ok) {
      if (!ok) return;
      api("POST", D.urls.ready, { ready: want, turn: D.turn }).then(function (res) {
        if (res.status !== 200) { status(problem(res.data), true); return; }
        setReady(res.data.ready);
        if (res.data.turn_status === "done") {
          status("everyone was ready: the turn has been processed. Reloading…");
          setTimeout(function () { window.location.reload(); }, 1200);
        } else {
          status(res.data.ready ? "you are ready" : "you are no longer ready");
        }
      });
    });
  });
  var form = $("orders-form");
  if (form) {
    form.addEventListener("submit", function (ev) {
      // With JavaScript the text area is saved through the API (the page keeps its state);
      // the plain POST is the fallback without it.
      ev.preventDefault();
      var parsed;
      try { parsed = JSON.parse(textarea.value || "{}"); } catch (e) { status("not valid JSON: " + e.message, true); return; }
      load(parsed); refresh();
      var wantReady = form.querySelector("input[name=ready]").checked;
      save().then(function (ok) {
        if (ok && wantReady !== D.ready) $("ready-button").click();
      });
    });
  }
  if (textarea) {
    textarea.addEventListener("input", function () { changed(true); });
  }
  $("load-json").addEventListener("click", function () {
    try { load(JSON.parse(textarea.value || "{}")); } catch (e) { status("not valid JSON: " + e.message, true); return; }
    refresh(); changed();
  });
  window.addEventListener("beforeunload", function (ev) {
    if (dirty) { ev.preventDefault(); ev.returnValue = ""; }
  });

  // --- countdown ----------------------------------------------------------------------------
  var countdown = $("countdown");
  function tick() {
    if (countdown.getAttribute("data-paused")) { countdown.textContent = "paused: no turn is processed until the moderator resumes"; return; }
    var iso = countdown.getAttribute("data-deadline");
    if (!iso) { countdown.textContent = "no deadline: the turn is processed when every player is ready"; return; }
    var left = Math.floor((new Date(iso).getTime() - Date.now()) / 1000);
    if (left <= 0) { countdown.textContent = "deadline passed: the turn will be processed shortly"; return; }
    var d = Math.floor(left / 86400), hh = Math.floor(left % 86400 / 3600), mm = Math.floor(left % 3600 / 60), ss = left % 60;
    function two(n) { return (n < 10 ? "0" : "") + n; }
    countdown.textContent = (d ? d + " d " : "") + two(hh) + ":" + two(mm) + ":" + two(ss) + " left";
    countdown.title = "deadline " + new Date(iso).toString();
  }
  tick();
  setInterval(tick, 1000);

  function refresh() {
    renderFleets(); renderPurchases(); renderStanding(); select(selected);
  }
  refresh();
  if (D.open) preview();
})();
