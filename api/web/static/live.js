// A page's live area (#live): follow the campaign's stream (GET /campaigns/{id}/live,
// Server-Sent Events, the session cookie's role) and, once the campaign is past the
// version the area shows, reload the area from the page's own address. While the reader
// is filling in a form there, say so instead and let them reload when they are ready.
(function () {
  "use strict";
  var source = null, followed = null, dirty = false, busy = false, behind = 0;
  var reloading = 0;  // the version a reload of the area was asked for (0: none)

  function area() { return document.getElementById("live"); }
  function shown() { var a = area(); return a ? Number(a.dataset.version || 0) : 0; }

  // `asked`: the reader's own "Show it", swapped in whatever they typed.
  function reload(asked) {
    reloading = asked === true ? 0 : Math.max(behind, shown() + 1);
    behind = 0;
    window.htmx.ajax("GET", window.location.pathname + window.location.search,
                     {target: "#live", select: "#live", swap: "outerHTML",
                      headers: {"X-Refit-Live": "1"}});
  }

  function tell(version) {
    var a = area(), note = document.getElementById("live-note");
    if (!a) { return; }
    if (!note) {
      note = document.createElement("p");
      note.id = "live-note";
      note.className = "live-note";
      note.setAttribute("role", "status");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.textContent = "Show it";
      button.addEventListener("click", function () { reload(true); });
      note.appendChild(document.createElement("span"));
      note.appendChild(button);
      a.parentNode.insertBefore(note, a);
    }
    note.firstChild.textContent = "The campaign moved on (version " + version + "). ";
  }

  function changed(version) {
    if (version <= shown()) { return; }  // this page's own action, already shown
    behind = Math.max(behind, version);
    if (busy) { return; }  // the answer to this page's own request comes first
    if (dirty) { tell(behind); } else { reload(); }
  }

  function follow() {
    var a = area(), wanted = a ? a.dataset.live : null;
    var note = document.getElementById("live-note");
    dirty = false;
    if (note && behind <= shown()) { note.remove(); }
    if (wanted === followed) { return; }
    if (source) { source.close(); }
    source = null;
    followed = wanted;
    if (!wanted || !window.EventSource) { return; }
    source = new EventSource(wanted + "?after=" + shown());
    source.addEventListener("appended", function (message) {
      changed(Number(message.lastEventId));
    });
  }

  document.addEventListener("DOMContentLoaded", follow);
  document.addEventListener("htmx:afterSettle", follow);
  document.addEventListener("input", function (event) {
    var a = area();
    if (a && a.contains(event.target)) { dirty = true; }
  });
  // A reload asked for before the reader began typing in the area comes back after: its
  // answer would wipe what they typed, so it is not swapped in; the note says instead.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var asked = event.detail.requestConfig || {};
    if (!reloading || !asked.headers || asked.headers["X-Refit-Live"] !== "1") { return; }
    var version = reloading;
    reloading = 0;
    if (dirty) {
      event.detail.shouldSwap = false;
      behind = Math.max(behind, version);
      tell(behind);
    }
  });
  document.addEventListener("htmx:beforeRequest", function () { busy = true; });
  document.addEventListener("htmx:afterRequest", function () {
    busy = false;  // its answer is swapped in and settled well within 100 ms
    window.setTimeout(function () { if (behind > shown()) { changed(behind); } }, 100);
  });
})();
