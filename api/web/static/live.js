// A page's live area (#live): follow the campaign's stream (GET /campaigns/{id}/live,
// Server-Sent Events, the session cookie's role) and, once the campaign is past the
// version the area shows, reload the area from the page's own address. While the reader
// is filling in a form there, say so instead and let them reload when they are ready.
(function () {
  "use strict";
  var source = null, followed = null, dirty = false, busy = false, behind = 0;

  function area() { return document.getElementById("live"); }
  function shown() { var a = area(); return a ? Number(a.dataset.version || 0) : 0; }

  function reload() {
    behind = 0;
    window.htmx.ajax("GET", window.location.pathname + window.location.search,
                     {target: "#live", select: "#live", swap: "outerHTML"});
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
      button.addEventListener("click", reload);
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
  document.addEventListener("htmx:beforeRequest", function () { busy = true; });
  document.addEventListener("htmx:afterRequest", function () {
    busy = false;  // its answer is swapped in and settled well within 100 ms
    window.setTimeout(function () { if (behind > shown()) { changed(behind); } }, 100);
  });
})();
