import type {
  ExampleObject,
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  PathsObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from "openapi3-ts/oas31";
import { API_SCOPES, type ApiScope } from "@/lib/auth/api-keys";
import type { Plan } from "@/lib/config/plans";
import { getConfig } from "@/lib/env";
import { errorBody, RETRY_AFTER_SECONDS, type ErrorCode } from "@/lib/errors";
import { searchCursor } from "./cursors";
import { DOCS_ASSETS } from "./docs-page";
import {
  EXAMPLE_FEED_CURSOR,
  EXAMPLE_SALE,
  EXAMPLE_SALE_ID,
  exampleFieldErrors,
  SALE_RESULTS,
} from "./openapi-examples";
import { componentSchemas, listSalesParameters, schemaRef, type ComponentId } from "./openapi-schemas";
import { planCatalogue } from "./responses";

type Operation = OperationObject & { "x-required-scopes"?: ApiScope[] };

const SCOPES: Record<ApiScope, string> = {
  "sales:write": "make sales (`POST /sales`)",
  "sales:read":
    "read every sale of this deployment (`GET /sales`, `GET /sales/{submissionId}`), without customer data",
  "sales:read-customer":
    "with `sales:read`, also the customer's data (`customer`) and the provider's message",
  "sales:on-behalf": "with `sales:write`, name the agent a sale is made for (`agent`)",
  "plans:read": "read the plan catalogue (`GET /plans`)",
};

const DESCRIPTION = `The integrations' API of Partner Sales: sell the provider's plans from your own systems, read the
sales back and follow their changes.

**Keys.** Every operation but the documentation (\`/openapi.json\`, \`/docs\`) needs \`Authorization: Bearer psk_…\`,
an API key an operator made (\`npm run api-keys -- create --name <integration> --scopes …\`). A key holds scopes:

${API_SCOPES.map((scope) => `- \`${scope}\`: ${SCOPES[scope]}`).join("\n")}

Without a key, or with one that is unknown, revoked or expired: 401 with \`WWW-Authenticate\`. Without the scope an
operation names (\`x-required-scopes\`): 403 \`insufficient_scope\`, whose \`WWW-Authenticate\` names the scope.

**Errors** share one shape, \`{ "error": <code>, "message": <pt-BR>, "fieldErrors"?: { <field>: <pt-BR> } }\`:
programs decide by \`error\`, people read \`message\`. A path that names no operation is a 404 \`api_not_found\`,
a method a path does not have a 405 \`method_not_allowed\` with \`Allow\`.

**Limits.** Each integration has a budget of sales and of reads per minute, shared by its keys: past it, 429
\`rate_limited\` with \`Retry-After\` (seconds). A 503 says when to come back the same way.

**Selling** is idempotent: send a fresh UUID as \`Idempotency-Key\` with each sale and the very same key when you
send it again after a lost answer. The ledger answers the first outcome again (\`replay: true\`) and never sells twice.
An \`unknown\` outcome (the provider did not confirm) must not be sent again: a supervisor settles it, and the
changes feed tells you when.

**The changes feed** (\`GET /sales?updatedAfter=…\`) lists every sale whose record changed, oldest change first.
Start from a date-time, then poll with each answer's \`nextCursor\`. Changes younger than a few seconds are held
back, so a poll never skips one committed late.`;

const REALM = 'Bearer realm="partner-sales"';
/** Builds the paths, noting every error code an answer uses (the `Error` schema lists exactly those). */
function pathsAndErrorCodes(plans: readonly Plan[] | null) {
  const codes = new Set<ErrorCode>();
  const fieldErrors = exampleFieldErrors();
  const errorExample = (code: ErrorCode) => {
    codes.add(code);
    return { value: errorBody(code, fieldErrors[code]) };
  };
  const json = (schema: ReferenceObject | SchemaObject, examples?: Record<string, ExampleObject>) => ({
    "application/json": { schema, ...(examples ? { examples } : {}) },
  });
  const ref = (id: ComponentId) => schemaRef(id);
  const header = (id: "Retry-After" | "Location") => ({ $ref: `#/components/headers/${id}` });
  const refusal = (
    description: string,
    refused: ErrorCode[],
    headers?: Record<string, HeaderObject | ReferenceObject>,
  ): ResponseObject => ({
    description,
    ...(headers ? { headers } : {}),
    content: json(ref("Error"), Object.fromEntries(refused.map((code) => [code, errorExample(code)]))),
  });
  const challenge = (description: string, example: string) => ({
    "WWW-Authenticate": { description, schema: { type: "string" }, example } satisfies HeaderObject,
  });
  const retryAfter = { "Retry-After": header("Retry-After") };
  const forbidden = (description: string, scope: ApiScope) =>
    refusal(
      description,
      ["insufficient_scope"],
      challenge("Names the missing scope.", `${REALM}, error="insufficient_scope", scope="${scope}"`),
    );

  /** An operation behind a key with `scope`: its security, and the refusals of the key check (its own win). */
  const secured = (scope: ApiScope, operation: Operation): Operation => ({
    ...operation,
    description: `${operation.description}\n\nNeeds an API key with the \`${scope}\` scope.`,
    security: [{ apiKey: [scope] }],
    "x-required-scopes": [scope],
    responses: {
      "401": refusal(
        "No API key, or one that is unknown, revoked or expired.",
        ["api_key_required", "api_key_invalid"],
        challenge(
          `\`${REALM}\`, with \`, error="invalid_token"\` when a key was sent.`,
          `${REALM}, error="invalid_token"`,
        ),
      ),
      "403": forbidden(`The key lacks the \`${scope}\` scope.`, scope),
      "429": refusal("The integration's budget for this minute is spent.", ["rate_limited"], retryAfter),
      "503": refusal("The service cannot answer now.", ["service_unavailable"], retryAfter),
      ...operation.responses,
    },
  });

  const located = { Location: header("Location") };
  const saleResults = (description: string, ...names: (keyof typeof SALE_RESULTS)[]) => ({
    description,
    headers: located,
    content: json(ref("SaleResult"), Object.fromEntries(names.map((name) => [name, SALE_RESULTS[name]]))),
  });
  const resultOrError = { oneOf: [ref("SaleResult"), ref("Error")] };

  const paths: PathsObject = {
    "/sales": {
      post: secured("sales:write", {
        operationId: "createSale",
        tags: ["Sales"],
        summary: "Sell a plan",
        description:
          "Records the sale in the ledger, sends it to the provider and answers its outcome. With `agent` (scope " +
          "`sales:on-behalf`) the sale is also the named agent's. Every recorded outcome carries `Location`.",
        parameters: [{ $ref: "#/components/parameters/IdempotencyKey" }],
        requestBody: { required: true, content: json(ref("SaleRequest")) },
        responses: {
          "201": saleResults("Accepted by the provider.", "accepted"),
          "200": saleResults("The same Idempotency-Key again: the first outcome, `replay: true`.", "replay"),
          "400": refusal(
            "Invalid fields (`fieldErrors`), no Idempotency-Key, or a body that is no JSON object.",
            ["invalid_fields", "idempotency_key_required", "invalid_json"],
          ),
          "403": forbidden(
            "The key lacks the `sales:write` scope, or names an `agent` without `sales:on-behalf`.",
            "sales:on-behalf",
          ),
          "409": {
            description:
              "`pending`: another request with this Idempotency-Key waits for the provider (with `Location`); or " +
              "the key belongs to another sale.",
            headers: located,
            content: json(resultOrError, {
              pending: SALE_RESULTS.pending,
              idempotency_key_in_use: errorExample("idempotency_key_in_use"),
            }),
          },
          "413": refusal("The body is larger than a sale can be.", ["payload_too_large"]),
          "415": refusal("The body is not `application/json`.", ["unsupported_media_type"]),
          "422": {
            description:
              "Rejected by the provider (`fieldErrors` names the fields, when it does; with `Location`); or " +
              "`agent` names no active agent, and nothing was sent.",
            headers: located,
            content: json(resultOrError, {
              rejected: SALE_RESULTS.rejected,
              agent_unknown: errorExample("agent_unknown"),
              agent_disabled: errorExample("agent_disabled"),
            }),
          },
          "502": saleResults(
            "`failed`: nothing reached the provider (`canRetry` says whether to send again); or `unknown`: its " +
              "answer did not say whether it registered the sale (do not send again).",
            "failed",
            "unknown",
          ),
          "503": refusal(
            "Nothing was sent (the ledger could not be written, or the sale is being settled): try again later " +
              "with the same Idempotency-Key.",
            ["service_unavailable", "not_confirmed"],
            retryAfter,
          ),
          "504": saleResults(
            "`unknown`: the provider did not answer in time (do not send again).",
            "timeout",
          ),
        },
      }),
      get: secured("sales:read", {
        operationId: "listSales",
        tags: ["Sales"],
        summary: "Search the sales, or follow their changes",
        description:
          "Search: the filters, newest first, `limit` per page; pass `nextCursor` as `cursor` for the next page " +
          "(null on the last). Changes feed: `updatedAfter` alone (with `limit`), oldest change first; poll with " +
          "`nextCursor`, which is always set. `customer` only with `sales:read-customer`.",
        parameters: listSalesParameters(),
        responses: {
          "200": {
            description: "A page of sales.",
            content: json(ref("SaleList"), {
              search: { value: { sales: [EXAMPLE_SALE], nextCursor: searchCursor(EXAMPLE_SALE_ID) } },
              feed: { value: { sales: [EXAMPLE_SALE], nextCursor: EXAMPLE_FEED_CURSOR } },
            }),
          },
          "400": refusal("An unknown parameter, a bad value or cursor (`fieldErrors` names it).", [
            "invalid_query",
          ]),
        },
      }),
    },
    "/sales/{submissionId}": {
      get: secured("sales:read", {
        operationId: "getSale",
        tags: ["Sales"],
        summary: "Read a sale",
        description:
          "Any sale of this deployment, by its submissionId. `customer` only with `sales:read-customer`.",
        parameters: [
          {
            name: "submissionId",
            in: "path",
            required: true,
            description: "The Idempotency-Key the sale was made with (its answer's `Location` names it).",
            schema: { type: "string", format: "uuid" },
            example: EXAMPLE_SALE_ID,
          },
        ],
        responses: {
          "200": {
            description: "The sale.",
            content: json(ref("ApiSale"), { accepted: { value: EXAMPLE_SALE } }),
          },
          "404": refusal("No sale with this submissionId.", ["sale_not_found"]),
        },
      }),
    },
    "/plans": {
      get: secured("plans:read", {
        operationId: "listPlans",
        tags: ["Plans"],
        summary: "List the plans a sale may name",
        description:
          "This deployment's catalogue; without one the list is empty and any UUID goes to the provider.",
        responses: {
          "200": {
            description: "The catalogue.",
            content: json(ref("PlanCatalogue"), { catalogue: { value: planCatalogue(plans) } }),
          },
        },
      }),
    },
    "/evidence-keys": {
      get: {
        operationId: "getEvidenceKeys",
        tags: ["Evidence"],
        summary: "The keys dispute packs are signed with",
        description:
          "A JWKS (RFC 7517) of Ed25519 public keys: a sale's dispute pack, downloaded by a supervisor, carries a " +
          "compact JWS (EdDSA) its header's `kid` names here. Public: no key needed.",
        security: [],
        responses: {
          "200": {
            description: "The public keys.",
            content: json({
              type: "object",
              properties: { keys: { type: "array", items: { type: "object" } } },
              required: ["keys"],
            }),
          },
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        tags: ["Documentation"],
        summary: "This document",
        description: "Public: no key needed.",
        security: [],
        responses: {
          "200": { description: "The OpenAPI 3.1 document.", content: json({ type: "object" }) },
        },
      },
    },
    "/docs": {
      get: {
        operationId: "getDocumentationPage",
        tags: ["Documentation"],
        summary: "This document, for people",
        description: "This document in Swagger UI. Public: no key needed.",
        security: [],
        responses: {
          "200": { description: "An HTML page.", content: { "text/html": { schema: { type: "string" } } } },
        },
      },
    },
    "/docs/{asset}": {
      get: {
        operationId: "getDocumentationAsset",
        tags: ["Documentation"],
        summary: "A file of the documentation page",
        description: "Its script and stylesheet. Public: no key needed.",
        security: [],
        parameters: [
          {
            name: "asset",
            in: "path",
            required: true,
            schema: { type: "string", enum: Object.keys(DOCS_ASSETS) },
          },
        ],
        responses: {
          "200": {
            description: "The file.",
            content: {
              "text/css": { schema: { type: "string" } },
              "text/javascript": { schema: { type: "string" } },
            },
          },
          "404": refusal("No such file.", ["api_not_found"]),
        },
      },
    },
  };
  // What a path answers to a method it does not have (see the description).
  codes.add("method_not_allowed");
  return { paths, codes: [...codes].sort() };
}

export function buildOpenApiDocument(plans: readonly Plan[] | null): OpenAPIObject {
  const { paths, codes } = pathsAndErrorCodes(plans);
  return {
    openapi: "3.1.0",
    info: { title: "Partner Sales API", version: "1", description: DESCRIPTION },
    servers: [{ url: "/api/v1" }],
    tags: [
      { name: "Sales", description: "Sell, read the sales back, follow their changes." },
      { name: "Plans", description: "What a sale may name." },
      { name: "Evidence", description: "Check a scripted sale's dispute pack." },
      { name: "Documentation" },
    ],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "psk_<id>_<secret>",
          description:
            "An integration's API key. Each operation names the scope it needs in `security` and " +
            "`x-required-scopes`.",
        },
      },
      schemas: componentSchemas(plans, codes),
      parameters: {
        IdempotencyKey: {
          name: "Idempotency-Key",
          in: "header",
          required: true,
          description:
            "A UUID of your own for this sale: the sale's `submissionId`. Send the same one again only to repeat " +
            "the same sale (after a lost answer): it is never sold twice.",
          schema: { type: "string", format: "uuid" },
          example: EXAMPLE_SALE_ID,
        },
      },
      headers: {
        "Retry-After": {
          description: "Seconds to wait before trying again.",
          schema: { type: "integer", minimum: 1 },
          example: RETRY_AFTER_SECONDS,
        },
        Location: {
          description: "Where the sale is read: `/api/v1/sales/{submissionId}`.",
          schema: { type: "string" },
          example: `/api/v1/sales/${EXAMPLE_SALE_ID}`,
        },
      },
    },
  };
}

let built: { plans: readonly Plan[] | null; document: OpenAPIObject } | undefined;

/** Built once per configuration: its plan catalogue gives the examples of `planId`. */
export function openApiDocument(): OpenAPIObject {
  const { plans } = getConfig();
  if (built?.plans !== plans) built = { plans, document: buildOpenApiDocument(plans) };
  return built.document;
}
