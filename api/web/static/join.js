// A join link (/join#campaign=ID&token=TOKEN): post the fragment's token to /login. The
// fragment never reaches the server; it is taken out of the address bar and the history
// before anything else happens.
(function () {
  "use strict";
  var found = new URLSearchParams(window.location.hash.slice(1));
  window.history.replaceState(null, "", window.location.pathname);
  var form = document.getElementById("join");
  if (!found.get("token")) {
    document.getElementById("join-missing").hidden = false;
    return;
  }
  form.elements.campaign.value = found.get("campaign") || "";
  form.elements.token.value = found.get("token");
  form.submit();
})();
