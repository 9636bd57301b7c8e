// The CAM starting-fleet picker (templates/cam/detail.html, 000 CAM 4.0 / 1.5).
// Without script: the Period's SDs are listed, and "Add" posts the form and comes back to the
// fleet's card (#starting-<seat>). With it: a search box and a Period filter, and "Add" posts in
// the background and refreshes only the fleet's card, so the page stays where it was (a phone's
// reader is not sent back to the top after every ship: issue 23 item 14).
(function () {
  "use strict";

  function filterer(picker) {
    var search = picker.querySelector(".sd-search"), all = picker.querySelector(".sd-all");
    function filter() {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
      picker.querySelectorAll(".sd-row").forEach(function (row) {
        var text = row.getAttribute("data-search");
        var ok = (all.checked || !row.classList.contains("sd-other")) &&
          words.every(function (w) { return text.indexOf(w) >= 0; });
        row.hidden = !ok;
        if (ok) { shown += 1; }
      });
      picker.querySelector(".sd-none").hidden = shown > 0;
    }
    search.addEventListener("input", filter);
    all.addEventListener("change", filter);
  }

  function adder(form) {
    var card = form.closest(".starting-fleet"), status = card.querySelector(".fleet-status");
    form.addEventListener("submit", function (event) {
      var button = event.submitter;
      if (!button || button.name !== "add_sd" || !window.fetch) {
        return;  // "Save fleet", or an old browser: the ordinary post
      }
      event.preventDefault();
      var data = new FormData(form);
      data.append("add_sd", button.value);
      button.disabled = true;
      status.textContent = "Adding…";
      fetch(form.action, {method: "POST", body: data, credentials: "same-origin",
                          headers: {"X-Requested-With": "fetch"}})
        .then(function (response) { return response.text(); })
        .then(function (html) {
          // an inert <template> (a DOMParser document would apply the page's inline styles, which
          // the Content-Security-Policy refuses)
          var doc = document.createElement("template");
          doc.innerHTML = html;
          var fresh = doc.content.getElementById(card.id), error = doc.content.getElementById("error");
          if (error || !fresh) {
            status.textContent = error ? error.textContent.trim() : "The ship could not be added: reload the page.";
            status.classList.add("errorlist");
            return;
          }
          card.querySelector(".fleet-summary").replaceWith(fresh.querySelector(".fleet-summary"));
          var text = card.querySelector("textarea[name=fleet]"), freshText = fresh.querySelector("textarea[name=fleet]");
          if (text && freshText) { text.value = freshText.value; }
          var name = form.querySelector("input[name=add_name]");
          if (name) { name.value = ""; }
          status.classList.remove("errorlist");
          status.textContent = "Ship added to the starting fleet: " +
            button.closest("tr").querySelector("td").firstChild.textContent.trim() + ".";
        })
        .catch(function () {
          status.textContent = "The ship could not be added (no answer): try again.";
          status.classList.add("errorlist");
        })
        .then(function () { button.disabled = false; });
    });
  }

  function start() {
    document.querySelectorAll(".sd-picker").forEach(filterer);
    document.querySelectorAll(".starting-fleet .fleet-form").forEach(adder);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
