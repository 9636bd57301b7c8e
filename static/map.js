/* Sector Command map: wheel and pinch zoom, drag pan, zoom buttons, reset, hover details.
 * Plain JavaScript, no libraries. Works on any <svg class="campaign-map"> inside an element
 * with data-map-viewport (or the SVG its data-map-svg selector names: the My Trek V board), or
 * fetched from the element's data-map-src; the hover panel is the element with id "map-hover" (optional).
 * Clicks on cells and fleets are announced as "map:cell" / "map:fleet" CustomEvents on the
 * viewport (detail: {x, y} or {fleet, owner, x, y}) for pages that want to use them. */
(function () {
  "use strict";

  function setup(viewport) {
    var svg = viewport.querySelector(viewport.getAttribute("data-map-svg") || "svg.campaign-map");
    if (!svg) { return; }
    var vb = svg.getAttribute("viewBox").split(/[\s,]+/).map(Number);
    var home = { x: vb[0], y: vb[1], w: vb[2], h: vb[3] };
    var view = { x: home.x, y: home.y, w: home.w, h: home.h };
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    svg.style.width = "100%";
    svg.style.height = "100%";
    svg.style.cursor = "grab";
    // On a narrow screen the viewport takes the map's own proportions (site.css caps its height),
    // so the whole map fits the screen instead of floating in a tall dark frame.
    viewport.style.aspectRatio = home.w + " / " + home.h;

    // Coordinate labels (issue 13 item 13) stay at the top and left edges of the view and keep
    // their size on screen however far the map is zoomed.
    var colLabels = svg.querySelector("g.coord-cols"), rowLabels = svg.querySelector("g.coord-rows");
    function placeLabels() {
      if (!colLabels || !rowLabels) { return; }
      var k = view.w / home.w;
      var font = Number(colLabels.getAttribute("data-font")) * k;
      var margin = Number(colLabels.getAttribute("data-margin")) * k;
      // The view is letterboxed into the viewport: its visible corner is where the SVG's is.
      var box = svg.getBoundingClientRect();
      var corner = box.width ? toMap(box.left, box.top) : { x: view.x, y: view.y };
      var top = Math.max(home.y, corner.y), left = Math.max(home.x, corner.x);
      [colLabels, rowLabels].forEach(function (g) { g.setAttribute("font-size", font.toFixed(2)); });
      var strip = colLabels.querySelector("rect");
      strip.setAttribute("y", top); strip.setAttribute("height", margin);
      colLabels.querySelectorAll("text").forEach(function (t) { t.setAttribute("y", (top + margin / 2).toFixed(2)); });
      strip = rowLabels.querySelector("rect");
      strip.setAttribute("x", left); strip.setAttribute("width", margin);
      rowLabels.querySelectorAll("text").forEach(function (t) { t.setAttribute("x", (left + margin / 2).toFixed(2)); });
    }

    function apply() {
      svg.setAttribute("viewBox", view.x + " " + view.y + " " + view.w + " " + view.h);
      placeLabels();
    }
    window.addEventListener("resize", placeLabels);

    // Screen point -> map point, using the SVG's own transform (handles letterboxing).
    function toMap(clientX, clientY) {
      var pt = svg.createSVGPoint();
      pt.x = clientX; pt.y = clientY;
      var m = svg.getScreenCTM();
      if (!m) { return { x: view.x + view.w / 2, y: view.y + view.h / 2 }; }
      var p = pt.matrixTransform(m.inverse());
      return { x: p.x, y: p.y };
    }

    function zoom(factor, cx, cy) {
      var minW = home.w / 40, maxW = home.w * 2;
      var w = Math.min(maxW, Math.max(minW, view.w / factor));
      var f = w / view.w;
      if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
      view.x = cx - (cx - view.x) * f;
      view.y = cy - (cy - view.y) * f;
      view.w = w;
      view.h = view.h * f;
      apply();
    }

    function reset() {
      view = { x: home.x, y: home.y, w: home.w, h: home.h };
      apply();
    }

    // data-map-wheel="off" (a map inside a longer page): the wheel scrolls the page.
    if (viewport.getAttribute("data-map-wheel") !== "off") viewport.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var p = toMap(ev.clientX, ev.clientY);
      zoom(ev.deltaY < 0 ? 1.2 : 1 / 1.2, p.x, p.y);
    }, { passive: false });

    // One pointer drags the map; two (fingers on a phone) pinch-zoom it about their midpoint.
    var drag = null;
    var touches = {};
    var pinch = null;
    function touchCount() { return Object.keys(touches).length; }
    function spread() {
      var p = Object.keys(touches).map(function (id) { return touches[id]; });
      return { d: Math.hypot(p[0].x - p[1].x, p[0].y - p[1].y), x: (p[0].x + p[1].x) / 2, y: (p[0].y + p[1].y) / 2 };
    }
    viewport.addEventListener("pointerdown", function (ev) {
      touches[ev.pointerId] = { x: ev.clientX, y: ev.clientY };
      if (touchCount() === 2) {
        drag = null;
        pinch = spread();
        return;
      }
      if (ev.button !== 0 || touchCount() > 2) { return; }
      drag = { sx: ev.clientX, sy: ev.clientY, start: toMap(ev.clientX, ev.clientY), moved: false };
    });
    function lift(ev) {
      delete touches[ev.pointerId];
      if (pinch && touchCount() < 2) { pinch = null; drag = null; return true; }
      return false;
    }
    window.addEventListener("pointercancel", function (ev) { lift(ev); drag = null; });
    window.addEventListener("pointermove", function (ev) {
      if (touches[ev.pointerId]) { touches[ev.pointerId] = { x: ev.clientX, y: ev.clientY }; }
      if (pinch && touchCount() === 2) {
        var now = spread();
        if (now.d > 0 && pinch.d > 0) {
          var c = toMap(now.x, now.y);
          zoom(now.d / pinch.d, c.x, c.y);
        }
        pinch = now;
        return;
      }
      if (!drag) { return; }
      if (!drag.moved && Math.abs(ev.clientX - drag.sx) + Math.abs(ev.clientY - drag.sy) < 4) { return; }
      if (!drag.moved) { drag.moved = true; svg.style.cursor = "grabbing"; }
      var now = toMap(ev.clientX, ev.clientY);
      view.x += drag.start.x - now.x;
      view.y += drag.start.y - now.y;
      apply();
    });
    window.addEventListener("pointerup", function (ev) {
      if (lift(ev) || !drag) { return; }
      var wasDrag = drag.moved;
      drag = null;
      svg.style.cursor = "grab";
      if (wasDrag) { return; }
      var fleet = ev.target.closest ? ev.target.closest("g.fleet") : null;
      var cell = ev.target.closest ? ev.target.closest("g.cell") : null;
      if (fleet && viewport.contains(fleet)) {
        viewport.dispatchEvent(new CustomEvent("map:fleet", { bubbles: true, detail: {
          fleet: Number(fleet.dataset.fleet), owner: Number(fleet.dataset.owner),
          x: cell ? Number(cell.dataset.x) : null, y: cell ? Number(cell.dataset.y) : null } }));
      } else if (cell && viewport.contains(cell)) {
        viewport.dispatchEvent(new CustomEvent("map:cell", { bubbles: true, detail: {
          x: Number(cell.dataset.x), y: Number(cell.dataset.y) } }));
      }
    });

    // The details panel: the viewport's data-map-hover names it (default "map-hover"). Hovering
    // a cell fills it; so does tapping one, for phones, where nothing hovers.
    var hover = document.getElementById(viewport.getAttribute("data-map-hover") || "map-hover");
    if (hover) {
      var idle = hover.textContent, pinned = false;
      var show = function (cell) {
        var title = cell.querySelector(":scope > title");
        hover.textContent = "";
        var lines = title ? title.textContent.split("; ")
          : ["(" + cell.dataset.x + "," + cell.dataset.y + ") empty space"];
        lines.forEach(function (line) {
          var div = document.createElement("div");
          div.textContent = line;
          hover.appendChild(div);
        });
      };
      var cellAt = function (ev) {
        var cell = ev.target.closest ? ev.target.closest("g.cell") : null;
        if (cell && !cell.dataset.x) {  // a non-interactive map: the title names the cell
          var t = cell.querySelector(":scope > title");
          var m = t ? /^\((\d+),(\d+)\)/.exec(t.textContent) : null;
          if (m) { cell.dataset.x = m[1]; cell.dataset.y = m[2]; }
        }
        return cell;
      };
      svg.addEventListener("mouseover", function (ev) {
        var cell = cellAt(ev);
        if (cell && !pinned) { show(cell); }
      });
      svg.addEventListener("click", function (ev) {
        var cell = cellAt(ev);
        if (cell) { show(cell); pinned = ev.pointerType === "touch" || ev.pointerType === "pen"; }
      });
      svg.addEventListener("mouseleave", function () { if (!pinned) { hover.textContent = idle; } });
    }

    // A page may centre the view on a point of the map and zoom in ("map:focus" on the viewport,
    // detail {x, y, zoom}: map units, and how many times the whole map; the Star Sectors board on a phone).
    viewport.addEventListener("map:focus", function (ev) {
      var d = ev.detail || {};
      var k = Math.max(1, Number(d.zoom) || 1);
      view.w = home.w / k; view.h = home.h / k;
      view.x = Math.min(Math.max(home.x, Number(d.x) - view.w / 2), home.x + home.w - view.w);
      view.y = Math.min(Math.max(home.y, Number(d.y) - view.h / 2), home.y + home.h - view.h);
      apply();
    });

    document.querySelectorAll("[data-map-action]").forEach(function (button) {
      button.addEventListener("click", function () {
        var action = button.getAttribute("data-map-action");
        if (action === "in") { zoom(1.5); } else if (action === "out") { zoom(1 / 1.5); } else { reset(); }
      });
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName)) { return; }
      if (ev.key === "+" || ev.key === "=") { zoom(1.5); }
      else if (ev.key === "-") { zoom(1 / 1.5); }
      else if (ev.key === "0") { reset(); }
    });

    // Highlight a fleet listed in the side panel.
    document.querySelectorAll("[data-focus-fleet]").forEach(function (link) {
      link.addEventListener("click", function (ev) {
        ev.preventDefault();
        var g = svg.querySelector('g.fleet[data-fleet="' + link.getAttribute("data-focus-fleet") + '"]');
        if (!g) { return; }
        var box = g.getBBox();
        view.w = home.w / 6; view.h = home.h / 6;
        view.x = box.x + box.width / 2 - view.w / 2;
        view.y = box.y + box.height / 2 - view.h / 2;
        apply();
        g.querySelectorAll("rect").forEach(function (r) {
          r.setAttribute("stroke-width", "2");
          setTimeout(function () { r.setAttribute("stroke-width", "0.5"); }, 1500);
        });
      });
    });
  }

  // A viewport with data-map-src gets its picture from that URL (the map SVG, revalidated by
  // its ETag, so a map seen before costs the server a 304), then becomes interactive.
  function load(viewport) {
    var src = viewport.getAttribute("data-map-src");
    if (!src || viewport.querySelector("svg.campaign-map")) { setup(viewport); return; }
    fetch(src, { credentials: "same-origin", headers: { "Accept": "image/svg+xml" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("the server answered " + response.status); }
        return response.text();
      })
      .then(function (text) {
        viewport.innerHTML = text;
        setup(viewport);
        viewport.setAttribute("data-map-loaded", "1");
        viewport.dispatchEvent(new CustomEvent("map:loaded", { bubbles: true }));
      })
      .catch(function (err) {
        viewport.textContent = "The map could not be loaded (" + err.message + "). Reload the page to try again.";
        viewport.style.color = "#f3c4c4";
        viewport.style.padding = "1rem";
      });
  }

  function init() {
    document.querySelectorAll("[data-map-viewport]").forEach(load);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
