import { z } from "zod";
import { saleStatus } from "@/lib/db/schema";
import { parseProtocol } from "@/lib/sales/protocol";
import { MAX_EXTERNAL_ID_LENGTH } from "@/lib/validation/contact";

/**
 * What /api/v1 reads besides a sale's own fields (lib/validation/sale.ts): the agent a key with `sales:on-behalf`
 * sells for, and the query of `GET /api/v1/sales`. The routes validate with these and the OpenAPI document
 * (lib/api/openapi.ts) is written from them, so the two cannot disagree.
 */

/** The agent a sale is also attributed to: by id or by e-mail, one of the two. */
export const agentReferenceSchema = z
  .union([
    z.strictObject({ id: z.uuid().meta({ description: "The agent's id." }) }),
    z.strictObject({
      email: z.email().max(254).meta({ description: "The e-mail the agent is registered with." }),
    }),
  ])
  .meta({
    description:
      "Only with the `sales:on-behalf` scope: the active agent this sale is also attributed to (history, export, " +
      "dashboard).",
    examples: [{ email: "ana.souza@parceiro.com.br" }],
  });
export type AgentReference = z.infer<typeof agentReferenceSchema>;

const PAGE_SIZE = { default: 50, max: 100 };
const LIMIT_MESSAGE = `Use um número inteiro de 1 a ${PAGE_SIZE.max}.`;

/** An opaque cursor: only ever something this API wrote, so a small, printable bound is enough. */
const cursorText = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,120}$/, "Cursor inválido: use o nextCursor de uma resposta.");

const dateTime = z.iso.datetime({
  offset: true,
  message: "Use uma data e hora ISO 8601 com fuso, como 2026-11-29T09:00:00-03:00.",
});

export const listSalesQuerySchema = z
  .strictObject({
    protocol: z
      .string()
      .max(20, { error: "Protocolo inválido." })
      .transform((typed, context) => {
        const protocol = parseProtocol(typed);
        if (!protocol) context.addIssue({ code: "custom", message: "Protocolo inválido." });
        return protocol ?? "";
      })
      .optional()
      .meta({ description: "The sale's protocol, with or without its dash.", example: "7KQ2M-X9R4B" }),
    externalId: z
      .string()
      .min(1, { error: "Informe o externalId." })
      .max(MAX_EXTERNAL_ID_LENGTH, {
        error: `O externalId tem no máximo ${MAX_EXTERNAL_ID_LENGTH} caracteres.`,
      })
      .optional()
      .meta({ description: "The partner's own id for the sale, as sent in `externalId`." }),
    status: z
      .enum(saleStatus.enumValues, { error: `Status inválido: use ${saleStatus.enumValues.join(", ")}.` })
      .optional(),
    createdFrom: dateTime.optional().meta({ description: "Sales created at or after this time." }),
    createdTo: dateTime.optional().meta({ description: "Sales created before this time." }),
    updatedAfter: z
      .union([dateTime, cursorText])
      .optional()
      .meta({
        description:
          "The changes feed: every sale whose row changed after this point (a `nextCursor`, or a date-time to " +
          "start from), oldest change first. Not combined with the filters above.",
      }),
    cursor: cursorText.optional().meta({ description: "The `nextCursor` of the previous page of a search." }),
    limit: z.coerce
      .number({ error: LIMIT_MESSAGE })
      .int({ error: LIMIT_MESSAGE })
      .min(1, { error: LIMIT_MESSAGE })
      .max(PAGE_SIZE.max, { error: LIMIT_MESSAGE })
      .default(PAGE_SIZE.default)
      .meta({ description: `Sales per page (1–${PAGE_SIZE.max}).` }),
  })
  .superRefine((query, context) => {
    if (query.updatedAfter === undefined) return;
    for (const name of ["protocol", "externalId", "status", "createdFrom", "createdTo", "cursor"] as const) {
      if (query[name] !== undefined) {
        context.addIssue({
          code: "custom",
          path: [name],
          message:
            "O feed de mudanças (updatedAfter) não se combina com filtros: use só updatedAfter e limit.",
        });
      }
    }
  });
export type ListSalesQuery = z.infer<typeof listSalesQuerySchema>;
