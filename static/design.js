/* The ship designer's running BP total (templates/orders/design.html; issue 13 item 21).
 * "003 Star Ship Design Rules": a design's BP must add up exactly to its ship type's BP. The
 * costs come from the page (campaign/order_views.py design_bp_rules, the engine's own constants);
 * the server still checks every rule when the design is saved. Plain JavaScript, no build step. */
(function () {
  "use strict";

  var rulesEl = document.getElementById("design-bp-rules");
  var tally = document.getElementById("bp-tally");
  if (!rulesEl || !tally) { return; }
  var R = JSON.parse(rulesEl.textContent);
  var form = tally.closest("form");

  function field(name) { return form.elements.namedItem(name); }
  function count(name) {
    var el = field(name);
    var n = el ? parseInt(el.value, 10) : 0;
    return isNaN(n) || n < 0 ? 0 : n;
  }
  function ticked(name) { var el = field(name); return !!(el && el.checked); }

  function lines() {
    var out = [];
    var hull = count("hull"), engine = count("engine");
    out.push(["Hull Strength " + hull, hull * R.hull]);
    if (ticked("nanobot_skin")) { out.push(["Nanobot Skin", hull * R.hull]); }
    out.push(["Engine " + engine, engine * R.engine]);
    var ff = field("force_field") ? field("force_field").value : "";
    if (ff) { out.push(["Force Fields " + ff, R.force_field[ff] || 0]); }
    if (ticked("improved_force_fields")) { out.push(["Improved Force Field Generators", R.improved_force_fields]); }
    Object.keys(R.weapons).forEach(function (key) {
      var n = count("weapon_" + key);
      if (n) { out.push([R.weapons[key].label + " x" + n, R.weapons[key].bp * n]); }
    });
    if (ticked("stealth_field")) { out.push(["Stealth Field Generator", R.stealth_field]); }
    var boarding = count("boarding_parties");
    if (boarding) { out.push(["Boarding Party x" + boarding, boarding * R.boarding_parties]); }
    var cargo = count("cargo");
    if (cargo) { out.push(["Cargo Capacity " + cargo, cargo * R.cargo]); }
    if (ticked("core_containment_capacitor")) { out.push(["Core Containment Capacitor (3C)", R.core_containment_capacitor]); }
    if (ticked("ai_supercomputer")) { out.push(["AI Supercomputer", R.ai_supercomputer]); }
    return out;
  }

  function update() {
    var parts = lines();
    var total = parts.reduce(function (sum, p) { return sum + p[1]; }, 0);
    var type = R.types[field("ship_type").value];
    var target = type ? type.bp : null;
    document.getElementById("bp-total").textContent = total;
    document.getElementById("bp-target").textContent = target === null ? "–" : target;
    document.getElementById("bp-type").textContent = type ? type.label : "–";
    var status = document.getElementById("bp-status");
    if (target === null) {
      status.textContent = ""; status.className = "";
    } else if (total === target) {
      status.textContent = "exactly right"; status.className = "ok";
    } else if (total < target) {
      status.textContent = (target - total) + " BP still to spend"; status.className = "bad";
    } else {
      status.textContent = (total - target) + " BP too many"; status.className = "bad";
    }
    var list = document.getElementById("bp-lines");
    list.textContent = "";
    parts.forEach(function (p) {
      var li = document.createElement("li");
      li.textContent = p[0] + ": " + p[1] + " BP";
      list.appendChild(li);
    });
  }

  form.addEventListener("input", update);
  form.addEventListener("change", update);
  tally.hidden = false;
  update();
})();
