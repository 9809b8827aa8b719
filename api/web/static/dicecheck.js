// The roll audit page's dice check (CONTRACT "Dice"): from the revealed seed, the sides'
// shares and the roll's key alone, WebCrypto recomputes the dice and compares them with the
// dice recorded. It reads no recheck of the server's: a player need not trust the server.
(function () {
  "use strict";

  function bytesOf(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }

  function hexOf(bytes) {
    return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  async function hmac(key, data) {
    var k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" },
                                          false, ["sign"]);
    return new Uint8Array(await crypto.subtle.sign("HMAC", k, data));
  }

  // E = HMAC-SHA256(S, share_1 || share_2 ...), or S with no shares; the dice are read from
  // HMAC-SHA256(E, K): bytes in order, b < 252 gives b % 6 + 1.
  async function diceOf(seedHex, shareHexes, key, count) {
    var seed = bytesOf(seedHex);
    if (shareHexes.length) {
      var joined = bytesOf(shareHexes.join(""));
      seed = await hmac(seed, joined);
    }
    var digest = await hmac(seed, new TextEncoder().encode(key));
    return Array.from(digest).filter(function (b) { return b < 252; })
      .slice(0, count).map(function (b) { return b % 6 + 1; });
  }

  async function check(button) {
    var said = document.getElementById("dice-checked");
    if (!window.crypto || !crypto.subtle) {
      said.textContent = "This browser gives this page no WebCrypto (it needs HTTPS or " +
        "localhost): check the dice with `refit verify` instead.";
      return;
    }
    var d = button.dataset;
    var recorded = d.dice.split(" ").map(Number);
    var shares = d.shares ? d.shares.split(" ") : [];
    var computed = await diceOf(d.seed, shares, d.key, recorded.length);
    var committed = hexOf(new Uint8Array(await crypto.subtle.digest("SHA-256", bytesOf(d.seed))));
    var same = computed.join(" ") === recorded.join(" ");
    said.dataset.computed = computed.join(" ");
    said.dataset.matches = String(same);
    said.className = "check " + (same ? "ok" : "bad");
    said.textContent = "Computed dice: " + computed.join(" ") + " (recorded: " +
      recorded.join(" ") + "): " + (same ? "the dice match the revealed seed."
                                          : "the dice do NOT match the revealed seed.") +
      (!d.commitment ? "" : committed === d.commitment
        ? " The seed's SHA-256 is the commitment published before the roll."
        : " The seed's SHA-256 is NOT the commitment published before the roll.");
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-dice-check]");
    if (button) check(button);
  });
})();
