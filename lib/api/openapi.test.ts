import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { compileErrors, dereference, validate } from "@readme/openapi-parser";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { OpenAPIObject, ParameterObject, ResponseObject, SchemaObject } from "openapi3-ts/oas31";
import { describe, expect, it } from "vitest";
import { API_SCOPES } from "@/lib/auth/api-keys";
import { readPlanCatalogue } from "@/lib/config/plans";
import { SALE_FIELDS } from "@/lib/validation/sale";
import { buildOpenApiDocument } from "./openapi";

const ROOT = join(import.meta.dirname, "../..");
const API_ROUTES = join(ROOT, "app/api/v1");
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

const demoPlans = readPlanCatalogue(join(ROOT, "sandbox/demo-plans.json"));
const document = buildOpenApiDocument(demoPlans);

function operations(doc: OpenAPIObject) {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => item?.[method]).map((method) => ({ path, method, operation: item![method]! })),
  );
}

/**
 * Every route.ts under app/api/v1 as the document names it, with the methods it handles itself (the rest answer
 * the API's JSON 405, `otherMethods(...allowed)`, whose Allow list is read too).
 */
function routeFiles() {
  const files = readdirSync(API_ROUTES, { recursive: true, encoding: "utf8" }).filter(
    (file) => file === "route.ts" || file.endsWith(`${sep}route.ts`),
  );
  return files
    .map((file) => ({
      segments: relative(API_ROUTES, join(API_ROUTES, file)).split(sep).slice(0, -1),
      source: readFileSync(join(API_ROUTES, file), "utf8"),
    }))
    .filter(({ segments }) => !segments.some((segment) => segment.startsWith("[[...")))
    .map(({ segments, source }) => ({
      path: `/${segments.map((segment) => segment.replace(/^\[(\w+)\]$/, "{$1}")).join("/")}`,
      methods: [
        ...source.matchAll(
          /export\s+(?:async\s+)?(?:function|const)\s+(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b/g,
        ),
      ]
        .map((match) => match[1]!.toLowerCase())
        .sort(),
      allowed: /otherMethods\(([^)]*)\)/
        .exec(source)?.[1]!
        .split(",")
        .map((method) => method.trim().replace(/"/g, "").toLowerCase())
        .sort(),
    }));
}

describe("the OpenAPI document of /api/v1", () => {
  it.each([
    ["with the demo catalogue", demoPlans],
    ["without a catalogue", null],
  ])("is a valid OpenAPI 3.1 document %s", async (_, plans) => {
    const result = await validate(structuredClone(buildOpenApiDocument(plans)) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(result.specification).toBe("OpenAPI");
    expect(result.warnings).toEqual([]);
  });

  it("has JSON Schema 2020-12 schemas, and every example fits its schema", async () => {
    // The OpenAPI meta-schema leaves schema objects alone (`type: "strin"` passes): ajv checks them and the examples.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const doc = (await dereference(structuredClone(document) as never)) as OpenAPIObject;
    const checked: string[] = [];
    const fits = (where: string, schema: object, example: unknown) => {
      const check = ajv.compile(schema);
      expect(check(example), `${where}: ${ajv.errorsText(check.errors)}`).toBe(true);
      checked.push(where);
    };
    for (const [name, schema] of Object.entries(doc.components!.schemas as Record<string, SchemaObject>)) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText()}`).toBe(true);
      for (const [index, example] of (schema.examples ?? []).entries())
        fits(`${name} [${index}]`, schema, example);
    }
    for (const { path, method, operation } of operations(doc)) {
      for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
        expect(ajv.validateSchema(parameter.schema!), `${parameter.name}: ${ajv.errorsText()}`).toBe(true);
        if (parameter.example !== undefined)
          fits(`${path} ${parameter.name}`, parameter.schema!, parameter.example);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const media of Object.values((response as ResponseObject).content ?? {})) {
          for (const [name, example] of Object.entries(media.examples ?? {})) {
            fits(`${method} ${path} ${status} ${name}`, media.schema!, (example as { value: unknown }).value);
          }
        }
      }
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it("documents every route under app/api/v1 with the methods it handles (the catch-all 404 aside)", () => {
    const routes = routeFiles();
    expect(routes.map((route) => route.path)).toContain("/sales/{submissionId}");
    const documented = Object.fromEntries(
      Object.entries(document.paths ?? {}).map(([path, item]) => [
        path,
        METHODS.filter((method) => item?.[method]).sort(),
      ]),
    );
    expect(documented).toEqual(Object.fromEntries(routes.map((route) => [route.path, route.methods])));
    for (const route of routes)
      expect(route.allowed, `${route.path}: otherMethods(…)`).toEqual(route.methods);
  });

  it("names the scopes of lib/auth/api-keys.ts, each operation's in `security` and `x-required-scopes`", () => {
    const named = new Set<string>();
    const open: string[] = [];
    for (const { path, operation } of operations(document)) {
      const security = operation.security ?? document.security;
      if (security?.length === 0) {
        open.push(path);
        continue;
      }
      const scopes = (operation as { "x-required-scopes"?: string[] })["x-required-scopes"];
      expect(security).toEqual([{ apiKey: scopes }]);
      for (const scope of scopes ?? []) named.add(scope);
      expect(operation.description).toContain(`\`${scopes?.[0]}\``);
      expect(Object.keys(operation.responses ?? {})).toEqual(expect.arrayContaining(["401", "403", "429"]));
    }
    expect(open.sort()).toEqual(["/docs", "/docs/{asset}", "/evidence-keys", "/openapi.json"]);
    expect(API_SCOPES).toEqual(expect.arrayContaining([...named]));
    for (const scope of API_SCOPES) expect(document.info.description).toContain(`\`${scope}\``);
  });

  it("says which header a refusal carries: WWW-Authenticate on 401 and 403, Retry-After on 429", () => {
    for (const { operation } of operations(document)) {
      const responses = operation.responses as Record<string, ResponseObject>;
      if (!responses["401"]) continue;
      expect(Object.keys(responses["401"].headers ?? {})).toEqual(["WWW-Authenticate"]);
      expect(Object.keys(responses["403"]!.headers ?? {})).toEqual(["WWW-Authenticate"]);
      expect(Object.keys(responses["429"]!.headers ?? {})).toEqual(["Retry-After"]);
    }
  });

  it("asks for an Idempotency-Key to sell, and takes the sale fields of the form's schema", () => {
    const sell = document.paths!["/sales"]!.post!;
    expect(sell.parameters).toEqual([{ $ref: "#/components/parameters/IdempotencyKey" }]);
    const body = document.components!.schemas!.SaleRequest as SchemaObject;
    expect(Object.keys(body.properties ?? {})).toEqual([...SALE_FIELDS, "agent"]);
    expect(body.required).toEqual([
      "customerDocument",
      "customerName",
      "customerEmail",
      "customerPhone",
      "planId",
    ]);
  });

  it("takes the query parameters of the route's own schema", () => {
    const list = document.paths!["/sales"]!.get!;
    const names = (list.parameters as ParameterObject[]).map((parameter) => parameter.name);
    expect(names).toEqual([
      "protocol",
      "externalId",
      "status",
      "createdFrom",
      "createdTo",
      "updatedAfter",
      "cursor",
      "limit",
    ]);
  });
});
