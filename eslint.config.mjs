import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

const root = import.meta.dirname;

// Packages that only run on the server (a database driver, the telemetry SDKs, Node's own modules).
const SERVER_PACKAGES = [
  /^node:/,
  /^server-only$/,
  /^pg$/,
  /^drizzle-orm/,
  /^@electric-sql\//,
  /^prom-client$/,
  /^@opentelemetry\/(?!api$)/,
];

/** The file an import names, for the app's own modules (`@/…` or relative); undefined for packages. */
function resolveImport(source, importer) {
  const base = source.startsWith("@/")
    ? join(root, source.slice(2))
    : source.startsWith(".")
      ? resolve(dirname(importer), source)
      : undefined;
  if (!base) return undefined;
  return ["", ".ts", ".tsx", "/index.ts", "/index.tsx"]
    .map((suffix) => base + suffix)
    .find((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
}

const serverOnlyCache = new Map();
/** A module marked `import "server-only"`: it may hold secrets or reach the database. */
function isServerOnlyModule(path) {
  if (!serverOnlyCache.has(path)) {
    serverOnlyCache.set(path, /^import ["']server-only["'];?$/m.test(readFileSync(path, "utf8")));
  }
  return serverOnlyCache.get(path);
}

// Client-safe modules sized for the server, each with the part of it made for the browser (the page budget).
const SERVER_SIZED = new Map([
  [join(root, "lib/errors/index.ts"), "lib/errors/embed-frame or lib/errors/not-confirmed"],
  [join(root, "lib/errors/embed.ts"), "lib/errors/embed-frame (a refusal's message comes with its answer)"],
]);

/**
 * Client code (a "use client" module, or anything in lib/validation, which the browser runs too) imports nothing
 * that runs only on the server: no module marked server-only and no server package; nor a whole table it needs
 * a part of (SERVER_SIZED): by import, export from or import(). Type-only imports are erased and allowed; server
 * actions ("use server" modules) are how a client calls the server, and allowed. A rule sees one file: a shared
 * module without "use client" that client code imports is checked by the build (server-only throws) and the
 * page budget (e2e/page-weight.spec.ts).
 */
const clientBoundary = {
  meta: {
    type: "problem",
    messages: {
      serverOnly:
        "{{where}} runs in the browser: it cannot import {{source}}, which runs only on the server.",
      serverSized:
        "{{where}} runs in the browser: {{source}} would carry the server's whole table to it; import {{part}}.",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const body = context.sourceCode.ast.body;
    const useClient = body.some(
      (node) => node.type === "ExpressionStatement" && node.directive === "use client",
    );
    const validation = file.startsWith(join(root, "lib/validation/"));
    if (!useClient && !validation) return {};
    const where = useClient ? "A client component" : "lib/validation";
    /** A module this file loads at run time (an import, an export from, an import()). */
    function check(node, sourceNode) {
      if (sourceNode?.type !== "Literal") return;
      const source = String(sourceNode.value);
      const path = resolveImport(source, file);
      const serverOnly = path
        ? isServerOnlyModule(path)
        : SERVER_PACKAGES.some((pattern) => pattern.test(source));
      if (serverOnly) context.report({ node, messageId: "serverOnly", data: { where, source } });
      else if (SERVER_SIZED.has(path)) {
        context.report({
          node,
          messageId: "serverSized",
          data: { where, source, part: SERVER_SIZED.get(path) },
        });
      }
    }
    const typeOnly = (node) =>
      node.importKind === "type" ||
      node.exportKind === "type" ||
      (node.specifiers?.length > 0 &&
        node.specifiers.every(
          (specifier) => specifier.importKind === "type" || specifier.exportKind === "type",
        ));
    return {
      ImportDeclaration: (node) => typeOnly(node) || check(node, node.source),
      ExportNamedDeclaration: (node) => typeOnly(node) || check(node, node.source),
      ExportAllDeclaration: (node) => typeOnly(node) || check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

// Import patterns of the layer rules below (a later block's options replace an earlier one's, so blocks that
// overlap repeat them).
const NOTHING_IMPORTS_APP = {
  group: ["@/app", "@/app/*", "**/app/*"],
  message: "app/ is Next.js's routes: nothing else imports them.",
};
const SQL_IN_LIB_DB = {
  group: ["drizzle-orm", "drizzle-orm/*"],
  message: "SQL lives in lib/db/queries: add a query there and call it.",
};
const NO_HTTP_IN_DAL = {
  group: [
    "next/server",
    "@/lib/http/json",
    "@/lib/http/limited",
    "@/lib/api/sale-status",
    "**/http/json",
    "**/http/limited",
    "**/api/sale-status",
  ],
  message:
    "lib/dal is data access and its permission checks: return data or a typed refusal; the route decides the HTTP answer.",
};
const DAL_BELOW_USE_CASES = {
  group: [
    "@/lib/sales/sell",
    "@/lib/actions",
    "@/lib/actions/*",
    "@/lib/api/api-key",
    "**/sales/sell",
    "**/actions",
    "**/actions/*",
    "**/api/api-key",
  ],
  message:
    "lib/dal is below the use cases (lib/sales/sell.ts), actions and routes' doors: they call it, not it them.",
};
const ERRORS_ARE_WORDS = {
  group: [
    "@/lib/dal",
    "@/lib/dal/*",
    "@/lib/db",
    "@/lib/db/*",
    "@/lib/env",
    "**/dal",
    "**/dal/*",
    "**/db",
    "**/db/*",
    "**/env",
    "server-only",
  ],
  allowTypeImports: true,
  message:
    "lib/errors holds codes and their words, for server and browser: it reads no data and no configuration.",
};

export default defineConfig([
  ...nextVitals,
  ...nextTypescript,
  {
    plugins: { "partner-sales": { rules: { "client-boundary": clientBoundary } } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "partner-sales/client-boundary": "error",
    },
  },
  {
    // The layers: pages, route handlers and components read and write through lib/dal (and lib/actions), which
    // go through lib/db/queries; they may name the database's types.
    files: ["app/**", "components/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/lib/db", "@/lib/db/*"],
              allowTypeImports: true,
              message: "Pages, routes and components reach the database through lib/dal, never lib/db.",
            },
          ],
        },
      ],
    },
  },
  {
    // app/ is Next.js's: its routes are imported by nothing but Next.js.
    ignores: ["app/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [NOTHING_IMPORTS_APP],
        },
      ],
    },
  },
  {
    // Every SQL statement lives in lib/db (its queries, migrations and connection); tests and the benchmarks'
    // data generators may write their own. (Later blocks win: these repeat the app/ rule above.)
    files: ["components/**", "lib/**", "scripts/**", "auth.ts", "proxy.ts", "instrumentation.ts"],
    ignores: ["lib/db/**", "**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [SQL_IN_LIB_DB, NOTHING_IMPORTS_APP],
        },
      ],
    },
  },
  {
    files: ["app/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [SQL_IN_LIB_DB],
        },
      ],
    },
  },
  {
    // lib/dal answers in data and typed refusals, under the use cases; lib/errors is words only. (Later blocks
    // win: these repeat the rules above that also cover them.)
    files: ["lib/dal/**"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [SQL_IN_LIB_DB, NOTHING_IMPORTS_APP, NO_HTTP_IN_DAL, DAL_BELOW_USE_CASES] },
      ],
    },
  },
  {
    files: ["lib/errors/**"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [SQL_IN_LIB_DB, NOTHING_IMPORTS_APP] }],
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [ERRORS_ARE_WORDS] }],
    },
  },
  globalIgnores([
    ".next/**",
    "out/**",
    "build/**",
    "next-env.d.ts",
    ".data/**",
    "test-results/**",
    "playwright-report/**",
    "bench/results/**",
    "bench/floor/.next/**",
    ".tmp/**",
  ]),
]);
