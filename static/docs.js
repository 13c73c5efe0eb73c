// Starts the vendored Swagger UI on /docs. A file rather than FastAPI's inline
// script, so that /docs keeps the same CSP as every other page.
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", () => {
    SwaggerUIBundle({
      url: "/openapi.json",
      dom_id: "#swagger-ui",
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      deepLinking: true,
      // The validator's badge is an image from another site: the CSP would refuse it.
      validatorUrl: null,
    });
  });
})();
