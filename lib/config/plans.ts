import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * What the agent reads to the customer before selling the plan, and what the customer must confirm (issue 36: the
 * sale's evidence). `{plano}` and `{preco}` in the texts become the plan's name and price as the form shows them.
 */
export const offerScriptSchema = z.object({
  /** The partner's name for this text's version ("2026-11", "v3"): recorded with every sale made with it. */
  version: z.string().trim().min(1).max(40),
  text: z.string().trim().min(1).max(4_000),
  confirmations: z
    .array(
      z.object({
        /** Stable within the version: the record names each confirmation by it. */
        id: z
          .string()
          .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "use lower-case letters, digits and hyphens (at most 40)"),
        text: z.string().trim().min(1).max(300),
        required: z.boolean().default(true),
      }),
    )
    .max(10)
    .default([])
    .refine((items) => new Set(items.map((item) => item.id)).size === items.length, {
      message: "confirmation ids must be unique",
    }),
});

export type OfferScript = z.infer<typeof offerScriptSchema>;

export const planSchema = z
  .object({
    id: z.uuid(),
    name: z.string().trim().min(1).max(120),
    description: z.string().trim().max(500).default(""),
    /** What the customer pays, in reais (shown as "R$ 29,90"); optional. */
    price: z.number().nonnegative().max(1_000_000).multipleOf(0.01).optional(),
    /** The offer script and the customer's confirmations; without one the plan sells as any other. */
    script: offerScriptSchema.optional(),
  })
  .refine(
    (plan) =>
      plan.price !== undefined ||
      !plan.script ||
      ![plan.script.text, ...plan.script.confirmations.map((item) => item.text)].some((text) =>
        text.includes("{preco}"),
      ),
    { message: "the script says {preco} but the plan has no price", path: ["script"] },
  );

export type Plan = z.infer<typeof planSchema>;

const catalogueSchema = z
  .array(planSchema)
  .min(1)
  .refine((plans) => new Set(plans.map((plan) => plan.id.toLowerCase())).size === plans.length, {
    message: "plan ids must be unique",
  });

export class PlanCatalogueError extends Error {
  override readonly name = "PlanCatalogueError";
}

export function readPlanCatalogue(path: string): Plan[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new PlanCatalogueError(`cannot read ${path} (${code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PlanCatalogueError(`${path} is not valid JSON`);
  }
  const parsed = catalogueSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at [${issue.path.join(".")}]` : "";
    throw new PlanCatalogueError(`${path}${where}: ${issue?.message ?? "invalid catalogue"}`);
  }
  return parsed.data;
}
