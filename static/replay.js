/* The battle replay (templates/tactical/replay.html): step with the links or the arrow keys, or
 * play it (issue 13 item 19): each step's frame is fetched and swapped in place, at the chosen
 * speed, until the end or until paused. Without JavaScript the links step page by page. */
(function () {
  "use strict";
  var frame = document.getElementById("replay-frame");
  var controls = document.getElementById("replay-controls");
  if (!frame || !controls || !window.fetch || !window.URL) return;
  var button = document.getElementById("replay-play");
  var speed = document.getElementById("replay-speed");
  var state = document.getElementById("replay-state");
  var timer = null, playing = false, busy = false;
  controls.hidden = false;

  function link(id) { return document.getElementById(id); }
  // ``auto``: a step the player fetches by itself; paused while it is on its way, it is not taken.
  function show(href, then, auto) {
    busy = true;
    var url = new URL(href, window.location.href);
    url.searchParams.set("frame", "1");  // the step's frame alone
    fetch(url, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (r) { if (!r.ok) throw new Error("the server answered " + r.status); return r.text(); })
      .then(function (text) {
        if (auto && !playing) return;
        var holder = document.createElement("template");  // inert: nothing in it runs or loads
        holder.innerHTML = text;
        var next = holder.content.getElementById("replay-frame");
        if (!next) throw new Error("no replay in the answer");
        frame.replaceWith(next);
        frame = next;
        history.replaceState(null, "", href);
        if (then) then();
      })
      .catch(function (err) { pause(); state.textContent = "Stopped: " + err.message; })
      .finally(function () { busy = false; });
  }
  function tick() {
    timer = null;
    if (!playing) return;
    var next = link("next");
    if (!next) { pause(); state.textContent = "The end of the battle."; return; }
    show(next.href, function () { if (playing) timer = setTimeout(tick, Number(speed.value)); }, true);
  }
  function play() {
    playing = true;
    button.textContent = "❚❚ Pause";
    button.setAttribute("aria-pressed", "true");
    state.textContent = "Playing";
    if (!link("next")) {  // at the end: play again from the start
      var first = link("first");
      if (first) { show(first.href, function () { timer = setTimeout(tick, Number(speed.value)); }, true); return; }
    }
    tick();
  }
  function pause() {
    playing = false;
    if (timer) { clearTimeout(timer); timer = null; }
    button.textContent = "▶ Play";
    button.setAttribute("aria-pressed", "false");
    state.textContent = "Paused";
  }
  button.addEventListener("click", function () { if (playing) pause(); else if (!busy) play(); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target && /INPUT|SELECT|TEXTAREA|BUTTON/.test(ev.target.tagName)) return;
    var a = ev.key === "ArrowLeft" ? link("prev") : ev.key === "ArrowRight" ? link("next") : null;
    if (a && !busy) { pause(); show(a.href); }
    else if (ev.key === " ") { ev.preventDefault(); button.click(); }
  });
})();
