import { readFileSync } from "node:fs";
import { z } from "zod";

export const planSchema = z.object({
  id: z.uuid(),
  name: z.string().trim().min(1).max(120),
  description: z.string().trim().max(500).default(""),
  /** What the customer pays, in reais (shown as "R$ 29,90"); optional. */
  price: z.number().nonnegative().max(1_000_000).multipleOf(0.01).optional(),
});

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
