import "server-only";
import type { Plan } from "@/lib/config/plans";
import { getConfig } from "@/lib/env";
import { planOptions, type PlanOption } from "@/lib/plan-options";

export type { PlanOption } from "@/lib/plan-options";

let built: { plans: readonly Plan[]; options: PlanOption[] } | undefined;

/** The configured catalogue as the form shows it, or null when none is configured (a UUID is typed instead). */
export function listPlans(): PlanOption[] | null {
  const { plans } = getConfig();
  if (!plans) return null;
  if (built?.plans !== plans) built = { plans, options: planOptions(plans) };
  return built.options;
}
