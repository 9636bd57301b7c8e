/* The orders page's "Your battles" card (templates/tactical/_battle_preference.html): save the
 * battle preference in place through the API (PUT /api/campaigns/<id>/battle-preference/), so the
 * orders typed on the same page and not yet saved stay where they are (issue 13 item 7). Without
 * JavaScript the form posts and the page reloads as before. */
(function () {
  "use strict";
  var form = document.getElementById("battle-preference-form");
  if (!form || !window.fetch) return;
  var status = document.getElementById("battle-preference-status");
  var select = form.querySelector("select[name=preference]");
  function say(text, bad) {
    status.textContent = text;
    status.className = bad ? "error" : "muted";
  }
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var button = form.querySelector("button[type=submit]");
    button.disabled = true;
    say("Saving…", false);
    fetch(form.dataset.api, {
      method: "PUT",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json",
                "X-CSRFToken": form.querySelector("input[name=csrfmiddlewaretoken]").value},
      body: JSON.stringify({preference: select.value})
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (body) { return {ok: r.ok, body: body}; });
    }).then(function (res) {
      if (res.ok) say("Saved: " + res.body.label.toLowerCase() + ".", false);
      else say("Battle preference not changed: " + (res.body.detail || "the server refused it"), true);
    }).catch(function () {
      say("Battle preference not changed: the server could not be reached.", true);
    }).finally(function () { button.disabled = false; });
  });
})();
