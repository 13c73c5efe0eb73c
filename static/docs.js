// Starts the vendored Swagger UI on /docs. A file rather than FastAPI's inline
// script, so that /docs keeps the same CSP as every other page.
(function () {
  "use strict";

  // Swagger UI's own dark theme follows a class on the page; Kaboom follows the system's scheme, and so does
  // this page, also when the scheme changes while it is open.
  const dark = window.matchMedia("(prefers-color-scheme: dark)");
  const follow = () => document.documentElement.classList.toggle("dark-mode", dark.matches);
  follow();
  dark.addEventListener("change", follow);

  // What Swagger UI draws as an operation opens misses what a keyboard and a screen reader need: the request
  // body's field has no name, and an example that scrolls sideways takes no focus, so a keyboard cannot
  // scroll it. Both are given as they appear.
  function mend(root) {
    for (const field of root.querySelectorAll(".body-param textarea:not([aria-label])")) {
      field.setAttribute("aria-label", "Request body");
    }
    for (const example of root.querySelectorAll(".highlight-code > pre:not([tabindex])")) {
      example.tabIndex = 0;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    const root = document.getElementById("swagger-ui");
    new MutationObserver(() => mend(root)).observe(root, { childList: true, subtree: true });
    SwaggerUIBundle({
      url: "/openapi.json",
      dom_id: "#swagger-ui",
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      // A deep link is an <a> inside each operation's button: a control in a control, which screen readers
      // and keyboards cannot use (axe's nested-interactive). The operations keep their ids.
      deepLinking: false,
      // The validator's badge is an image from another site: the CSP would refuse it.
      validatorUrl: null,
    });
  });
})();
