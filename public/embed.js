/*! Partner Sales embed — mounts the sale form in a partner portal. No dependencies.
 *  PartnerSales.mount(element, { src, token, prefill, onEvent, title, initialHeight, appearance })
 *    → { iframe, prefill(fields), unmount() }
 *  token: the signed token from your backend, or a function returning (a promise of) a fresh one. It is posted
 *  to the frame once the frame asks for it (never put in an address); a function is called each time it asks.
 *  appearance: { brandColor, radius, fontFamily }, optional; the app checks it (partner-sales:warning if not).
 *  TypeScript declarations: embed.d.ts, next to this file.
 */
(function () {
  "use strict";
  var PREFIX = "partner-sales:";
  // Each appearance setting's parameter in the frame's address (the app validates them: lib/embed-appearance.ts).
  var APPEARANCE_PARAMETERS = { brandColor: "brand-color", radius: "radius", fontFamily: "font-family" };
  // How long the frame has to say its first word (ready, or an error it shows) before this script tells the
  // portal frame_unavailable: 10 s after the iframe loads (a frame the browser refused, or could not reach, loads
  // at once as the browser's own error page, which never speaks), or 30 s after mounting if it never loads.
  var FIRST_WORD_AFTER_LOAD_MS = 10000;
  var FIRST_WORD_AFTER_MOUNT_MS = 30000;

  function mount(element, options) {
    if (!element || !options || !options.src)
      throw new Error("PartnerSales.mount(element, { src }) is required");
    var url = new URL(options.src, window.location.href);
    if (url.searchParams.has("token"))
      throw new Error("PartnerSales.mount: pass the token as the token option, never in src");
    // Not the token: only that one is coming, so the frame waits for it rather than showing a sign-in link.
    if (options.token) url.searchParams.set("sign-in", "portal");
    var appearance = options.appearance || {};
    Object.keys(APPEARANCE_PARAMETERS).forEach(function (setting) {
      var value = appearance[setting];
      if (value !== undefined && value !== null)
        url.searchParams.set(APPEARANCE_PARAMETERS[setting], String(value));
    });
    var origin = url.origin;
    var iframe = document.createElement("iframe");
    iframe.src = url.href;
    iframe.title = options.title || "Partner Sales: nova venda";
    // Lets the app learn this page's origin (to address its events) where location.ancestorOrigins is missing.
    iframe.referrerPolicy = "origin";
    iframe.style.width = "100%";
    iframe.style.border = "0";
    iframe.style.display = "block";
    iframe.style.height = (options.initialHeight || 640) + "px";

    function emit(event) {
      if (typeof options.onEvent === "function") options.onEvent(event);
    }

    // Until the frame speaks: a frame that never does gets one error event; one that speaks late goes on as usual.
    var heard = false;
    var silence = setTimeout(unavailable, FIRST_WORD_AFTER_MOUNT_MS);
    function unavailable() {
      if (heard) return;
      heard = true;
      if (window.console) {
        console.warn(
          "PartnerSales: the frame from " +
            origin +
            " never became ready (frame_unavailable). " +
            "Is this page's origin in the app's EMBED_ALLOWED_ORIGINS, and is the app reachable?",
        );
      }
      emit({ type: PREFIX + "error", code: "frame_unavailable" });
    }
    function onLoad() {
      if (heard) return;
      clearTimeout(silence);
      silence = setTimeout(unavailable, FIRST_WORD_AFTER_LOAD_MS);
    }

    function send(message) {
      // To the app's exact origin: if the frame was navigated elsewhere, the browser drops the message.
      if (iframe.contentWindow) iframe.contentWindow.postMessage(message, origin);
    }

    function sendToken() {
      var token = options.token;
      new Promise(function (resolve) {
        resolve(typeof token === "function" ? token() : token);
      })
        .then(
          function (value) {
            return typeof value === "string" && value ? value : null;
          },
          function () {
            return null;
          },
        )
        .then(function (value) {
          // null: the frame says the portal gave no token (partner-sales:error token_unavailable).
          send({ type: PREFIX + "token", token: value });
        });
    }

    function onMessage(event) {
      // Only the app's own frame, from the app's own origin.
      if (event.origin !== origin || event.source !== iframe.contentWindow) return;
      var data = event.data;
      if (!data || typeof data.type !== "string" || data.type.indexOf(PREFIX) !== 0) return;
      heard = true;
      clearTimeout(silence);
      if (data.type === PREFIX + "resize" && typeof data.height === "number" && data.height > 0) {
        iframe.style.height = Math.ceil(data.height) + "px";
      }
      // For the portal's developers, who may not be listening: the frame ignored part of the appearance.
      if (data.type === PREFIX + "warning" && window.console) {
        console.warn("PartnerSales: appearance." + data.setting + " was ignored (" + data.code + ")");
      }
      if (data.type === PREFIX + "ready") {
        if (data.awaitingToken === true) {
          if (options.token) sendToken();
        } else if (options.prefill) {
          send({ type: PREFIX + "prefill", fields: options.prefill });
        }
      }
      emit(data);
    }

    window.addEventListener("message", onMessage);
    iframe.addEventListener("load", onLoad);
    element.appendChild(iframe);
    return {
      iframe: iframe,
      prefill: function (fields) {
        send({ type: PREFIX + "prefill", fields: fields });
      },
      unmount: function () {
        window.removeEventListener("message", onMessage);
        iframe.removeEventListener("load", onLoad);
        clearTimeout(silence);
        heard = true;
        if (iframe.parentNode) iframe.parentNode.removeChild(iframe);
      },
    };
  }

  window.PartnerSales = { mount: mount };
})();
