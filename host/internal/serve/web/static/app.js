// BesluitBron: a little enhancement. Every page works without it.
// A platform that is still answering (slow or queued) is asked again and
// filled in when its answer is there; a document still loading reloads.
(function () {
  "use strict";
  var MAX_TRIES = 20;

  function delay(el) {
    var eta = parseInt(el.getAttribute("data-eta") || "0", 10);
    return Math.min(Math.max(eta, 2), 15) * 1000;
  }

  function refresh(section, tries) {
    var url = section.getAttribute("data-fragment");
    if (!url || tries > MAX_TRIES) return;
    fetch(url, { headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (r.ok) return r.text();
        // Past the client limits (429) the server says how long to wait.
        return Promise.reject(parseInt(r.headers.get("Retry-After") || "0", 10));
      })
      .then(function (html) {
        var box = document.createElement("div");
        box.innerHTML = html;
        var fresh = box.querySelector("section.platform");
        if (!fresh) return;
        section.replaceWith(fresh);
        if (fresh.hasAttribute("data-fragment")) {
          setTimeout(function () { refresh(fresh, tries + 1); }, delay(fresh));
        }
      })
      .catch(function (wait) {
        var secs = typeof wait === "number" && wait > 0 ? Math.min(wait, 60) : 5;
        setTimeout(function () { refresh(section, tries + 1); }, secs * 1000);
      });
  }

  function start() {
    document.querySelectorAll("section.platform[data-fragment]").forEach(function (s) {
      setTimeout(function () { refresh(s, 1); }, delay(s));
    });
    var doc = document.querySelector("[data-reload]");
    if (doc) {
      var eta = parseInt(doc.getAttribute("data-reload") || "0", 10);
      setTimeout(function () { location.reload(); }, Math.min(Math.max(eta, 2), 15) * 1000);
    }
    var form = document.getElementById("search-form");
    var results = document.getElementById("results");
    if (form && results) {
      form.addEventListener("submit", function () {
        var msg = document.createElement("p");
        msg.setAttribute("role", "status");
        msg.className = "busy";
        msg.textContent = document.documentElement.lang === "en" ? "Searching…" : "Bezig met zoeken…";
        results.replaceChildren(msg);
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
