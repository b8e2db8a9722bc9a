import "server-only";
import type { Plan } from "@/lib/config/plans";
import { getConfig } from "@/lib/env";

export type PlanOption = Pick<Plan, "id" | "name" | "description">;

/** The configured catalogue, or null when none is configured (the plan is then typed as a UUID). */
export function listPlans(): PlanOption[] | null {
  return getConfig().plans?.map(({ id, name, description }) => ({ id, name, description })) ?? null;
}
