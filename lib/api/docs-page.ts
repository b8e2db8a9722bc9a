import "server-only";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * /api/v1/docs: the OpenAPI document in Swagger UI (swagger-ui-dist), served from this app's own node_modules, so
 * it works offline and under the pages' Content-Security-Policy: its scripts carry the response's nonce, its
 * stylesheet is same-origin, and it needs no eval. Its few icons drawn as data: images stay blank (img-src 'self').
 */

const SWAGGER_UI = join(process.cwd(), "node_modules/swagger-ui-dist");

// A file, not an inline script: only the nonce'd files run, and this one has nothing to hide from a cache.
const START = `window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
});
`;

export const DOCS_ASSETS = {
  "swagger-ui.css": {
    type: "text/css; charset=utf-8",
    read: () => readFileSync(join(SWAGGER_UI, "swagger-ui.css")),
  },
  "swagger-ui-bundle.js": {
    type: "text/javascript; charset=utf-8",
    read: () => readFileSync(join(SWAGGER_UI, "swagger-ui-bundle.js")),
  },
  "start.js": { type: "text/javascript; charset=utf-8", read: () => Buffer.from(START) },
} as const;
export type DocsAsset = keyof typeof DOCS_ASSETS;

export const isDocsAsset = (name: string): name is DocsAsset => Object.hasOwn(DOCS_ASSETS, name);

const loaded = new Map<DocsAsset, Buffer>();

/** A file of the page, read once: they change only with the package. */
export function docsAsset(name: DocsAsset): Buffer {
  let content = loaded.get(name);
  if (!content) {
    content = DOCS_ASSETS[name].read();
    loaded.set(name, content);
  }
  return content;
}

export function docsPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Partner Sales API</title>
    <link rel="stylesheet" href="/api/v1/docs/swagger-ui.css">
  </head>
  <body>
    <noscript>The API is described in <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</noscript>
    <div id="swagger-ui"></div>
    <script nonce="${nonce}" src="/api/v1/docs/swagger-ui-bundle.js"></script>
    <script nonce="${nonce}" src="/api/v1/docs/start.js"></script>
  </body>
</html>
`;
}
