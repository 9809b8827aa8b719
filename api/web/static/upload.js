// The admin's import form (templates/import.html): the file is sent with XMLHttpRequest so
// the page can show the upload's progress (<progress>, upload.onprogress), then the
// server's answer (the same page, rendered) replaces the result area. Without this script
// the form posts as any other. A file over the import's limit is refused before sending.
(function () {
  "use strict";

  function show(form, sent, total) {
    var box = form.querySelector(".upload-progress");
    var bar = box.querySelector("progress");
    var said = box.querySelector("output");
    box.hidden = false;
    bar.max = total || 1;
    bar.value = sent;
    said.textContent = Math.round(100 * sent / (total || 1)) + "% of " +
      (total / 1048576).toFixed(1) + " MB";
  }

  function answer(form, status, text) {
    var result = document.getElementById("import-result");
    var page = new DOMParser().parseFromString(text, "text/html");
    var found = page.getElementById("import-result");
    if (found) {
      result.replaceChildren.apply(result, Array.from(found.childNodes));
    } else {  // not the page: the body gate's JSON refusal (413), or a network fault
      var said = "the upload failed (" + status + ")";
      try { said = JSON.parse(text).error.message; } catch (e) { /* not JSON either */ }
      var p = document.createElement("p");
      p.className = "error";
      p.setAttribute("role", "alert");
      p.textContent = "Refused: " + said;
      result.replaceChildren(p);
    }
    form.querySelector(".upload-progress output").textContent =
      status === 201 ? "uploaded and imported" : "uploaded; refused";
    form.querySelector("button[type=submit]").disabled = false;
  }

  function send(event) {
    var form = event.target;
    var file = form.querySelector("input[type=file]").files[0];
    if (!file) return;  // the browser's own `required` check says so
    event.preventDefault();
    var limit = Number(form.dataset.limit);
    if (limit && file.size > limit) {
      answer(form, 413, JSON.stringify({error: {message: "the file is " + file.size +
        " bytes, over the import's limit of " + limit + " bytes"}}));
      form.querySelector(".upload-progress output").textContent = "not sent";
      return;
    }
    var request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.upload.onprogress = function (e) { show(form, e.loaded, e.total || file.size); };
    request.onload = function () { answer(form, request.status, request.responseText); };
    request.onerror = function () { answer(form, 0, ""); };
    form.querySelector("button[type=submit]").disabled = true;
    show(form, 0, file.size);
    request.send(new FormData(form));
  }

  document.addEventListener("submit", function (event) {
    if (event.target.matches && event.target.matches("form[data-upload]")) send(event);
  });
})();
