// What-if run page: poll progress.json and move the <progress> bar; reload for the results.
(function () {
  "use strict";
  var box = document.getElementById("whatif-progress");
  if (!box) return;
  var bar = document.getElementById("whatif-bar");
  var done = document.getElementById("whatif-done");
  var status = document.getElementById("whatif-status");
  var labels = { queued: "Queued", running: "Running", done: "Done", failed: "Failed" };
  function poll() {
    fetch(box.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (p) {
        bar.value = p.done; bar.max = p.trials; bar.textContent = p.done + " / " + p.trials;
        done.textContent = p.done;
        status.textContent = labels[p.status] || p.status;
        if (p.status === "done" || p.status === "failed") { window.location.reload(); return; }
        window.setTimeout(poll, 1000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 500);
})();
