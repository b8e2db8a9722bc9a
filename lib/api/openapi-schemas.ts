import type { ParameterObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import { z } from "zod";
import type { Plan } from "@/lib/config/plans";
import type { ErrorCode } from "@/lib/errors";
import {
  createSaleSchema,
  EMPTY_SALE,
  fieldErrorsOf,
  SALE_FIELDS,
  type SaleField,
} from "@/lib/validation/sale";
import { agentReferenceSchema, listSalesQuerySchema } from "./requests";
import { apiPlanCatalogueSchema, apiSaleListSchema, errorBodySchema, saleResultSchema } from "./responses";
import {
  apiCustomerSchema,
  apiSaleSchema,
  apiSellerSchema,
  apiSettlementSchema,
} from "./sale-representation";

/**
 * The OpenAPI document's schemas, converted from the zod schemas the routes validate with and answer by (zod 4's
 * own JSON Schema output, draft 2020-12: OpenAPI 3.1's dialect). Only descriptions are added here.
 */

const COMPONENTS = "#/components/schemas/";
export const schemaRef = (id: ComponentId): ReferenceObject => ({ $ref: COMPONENTS + id });

type Io = "input" | "output";

function jsonSchemaOptions(io: Io) {
  return {
    target: "draft-2020-12",
    io,
    override: ({ jsonSchema }: { jsonSchema: z.core.JSONSchema.BaseSchema }) => {
      // `format` says it all; zod's own date-time regex would only lengthen the document.
      if (jsonSchema.format === "date-time") delete jsonSchema.pattern;
      // Answers may gain fields: a client must not be told that none will ever come.
      if (io === "output" && jsonSchema.additionalProperties === false)
        delete jsonSchema.additionalProperties;
    },
  } as const;
}

/** Each schema under its id, the ones among them referring to each other by `$ref`. */
function components(schemas: Record<string, z.ZodType>, io: Io): Record<string, SchemaObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const converted = z.toJSONSchema(registry, { ...jsonSchemaOptions(io), uri: (id) => COMPONENTS + id });
  return Object.fromEntries(
    Object.entries(converted.schemas).map(([id, schema]) => {
      if (id === "__shared") throw new Error("a schema used twice needs an id of its own");
      // `$id` would be a fragment (not allowed in 2020-12) and `$schema` is the document's dialect already.
      const { $id, $schema, ...rest } = schema;
      void $id;
      void $schema;
      return [id, rest as SchemaObject];
    }),
  );
}

const SALE_FIELD_DOCS: Record<SaleField, { description: string; examples: string[] }> = {
  customerDocument: {
    description: "The customer's CPF: 11 digits with valid check digits, with or without punctuation.",
    examples: ["529.982.247-25"],
  },
  customerName: {
    description:
      "Full name, 3–120 characters: letters (accents too), spaces, `'`, `-` and `.`. Sent trimmed, inner spaces " +
      "collapsed.",
    examples: ["Maria Souza"],
  },
  customerEmail: {
    description: "E-mail address, at most 254 characters; sent trimmed, in lower case.",
    examples: ["maria.souza@example.com"],
  },
  customerPhone: {
    description:
      "DDD and number, punctuation allowed: 11 digits for a mobile (9 after the DDD), 10 for a landline (2–5 " +
      "after the DDD). Sent as digits, without country code.",
    examples: ["(11) 98765-4321"],
  },
  planId: {
    description: "The plan's id (a UUID).",
    examples: ["3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14"],
  },
  birthDate: {
    description:
      "Optional: `DD/MM/AAAA` or `YYYY-MM-DD`; a real date, not in the future, at most 130 years ago. Sent as " +
      "`YYYY-MM-DD`.",
    examples: ["1990-05-17"],
  },
  externalId: {
    description:
      "Optional: your own id for the sale, at most 100 characters; `GET /sales?externalId=` finds it.",
    examples: ["CRM-991"],
  },
};

/**
 * The body of `POST /sales`: the sale form's own schema (lib/validation/sale.ts) as it reads its input, plus `agent`.
 * The route reads a missing field as an empty one, so the required fields are those an empty value fails.
 */
function saleRequestSchema(plans: readonly Plan[] | null): SchemaObject {
  const sale = createSaleSchema({ planIds: plans?.map((plan) => plan.id) ?? null });
  const { properties = {} } = z.toJSONSchema(sale, jsonSchemaOptions("input"));
  const empty = sale.safeParse(EMPTY_SALE);
  const required = empty.success ? [] : Object.keys(fieldErrorsOf(empty.error));
  const docs = {
    ...SALE_FIELD_DOCS,
    planId: plans
      ? {
          description: "A plan of the catalogue, by its id (`GET /plans` lists them).",
          examples: plans.map((plan) => plan.id),
        }
      : {
          description: "The plan's id (a UUID). This deployment has no catalogue: the provider decides.",
          examples: SALE_FIELD_DOCS.planId.examples,
        },
  };
  return {
    type: "object",
    description: "A sale: the customer, the plan, and optionally the agent it is made for.",
    properties: {
      ...Object.fromEntries(
        SALE_FIELDS.map((field) => [field, { ...(properties[field] as SchemaObject), ...docs[field] }]),
      ),
      agent: schemaRef("AgentReference"),
    },
    required,
    examples: [
      {
        customerDocument: "529.982.247-25",
        customerName: "Maria Souza",
        customerEmail: "maria.souza@example.com",
        customerPhone: "(11) 98765-4321",
        planId: docs.planId.examples[0],
        externalId: "CRM-991",
      },
    ],
  } as SchemaObject;
}

export type ComponentId =
  | "ApiSale"
  | "ApiSeller"
  | "ApiSettlement"
  | "ApiCustomer"
  | "SaleList"
  | "SaleResult"
  | "PlanCatalogue"
  | "Error"
  | "SaleRequest"
  | "AgentReference";

/** The document's `components.schemas`; `errorCodes`: the codes its answers use. */
export function componentSchemas(
  plans: readonly Plan[] | null,
  errorCodes: readonly ErrorCode[],
): Record<ComponentId, SchemaObject> {
  const error = errorBodySchema
    .extend({
      error: errorBodySchema.shape.error
        .extract(errorCodes as [ErrorCode, ...ErrorCode[]])
        .meta({ description: "A stable code, for programs: the ones each answer below lists." }),
    })
    .meta({ description: "Every refusal of the API: a code for programs and a message for people (pt-BR)." });
  return {
    ...components(
      {
        ApiSale: apiSaleSchema,
        ApiSeller: apiSellerSchema,
        ApiSettlement: apiSettlementSchema,
        ApiCustomer: apiCustomerSchema,
        SaleList: apiSaleListSchema,
        SaleResult: saleResultSchema,
        PlanCatalogue: apiPlanCatalogueSchema,
        Error: error,
      },
      "output",
    ),
    ...components({ AgentReference: agentReferenceSchema }, "input"),
    SaleRequest: saleRequestSchema(plans),
  } as Record<ComponentId, SchemaObject>;
}

/** `GET /sales`'s query, one parameter per property of the route's own query schema. */
export function listSalesParameters(): ParameterObject[] {
  const query = z.toJSONSchema(listSalesQuerySchema, jsonSchemaOptions("input"));
  const required = new Set(query.required ?? []);
  return Object.entries(query.properties ?? {}).map(([name, property]) => {
    const { description, ...schema } = property as SchemaObject;
    return { name, in: "query" as const, required: required.has(name), description, schema };
  });
}
