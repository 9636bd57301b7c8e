/* Show <time class="local-time" datetime="…"> in the reader's own time zone (the server writes
 * UTC as the fallback text), e.g. "Tue 1 Dec, 18:00 (in 2 d 4 h)". */
(function () {
  "use strict";
  function left(ms) {
    if (ms <= 0) { return "passed"; }
    var m = Math.round(ms / 60000), d = Math.floor(m / 1440), h = Math.floor((m % 1440) / 60);
    return "in " + (d ? d + " d " + h + " h" : h ? h + " h " + (m % 60) + " min" : (m % 60) + " min");
  }
  function show() {
    var fmt = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
    document.querySelectorAll("time.local-time").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (isNaN(when)) { return; }
      el.textContent = fmt.format(when) + " (" + left(when - Date.now()) + ")";
      el.title = when.toISOString();
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", show); } else { show(); }
})();
