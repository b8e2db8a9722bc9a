import "server-only";
import type { Plan } from "@/lib/config/plans";
import { getConfig } from "@/lib/env";
import { planOptions, type PlanOption } from "@/lib/plan-options";
import type { ShownScript } from "@/lib/sales/offer-script";

export type { PlanOption } from "@/lib/plan-options";

let built: { plans: readonly Plan[]; options: PlanOption[] } | undefined;

/** The configured catalogue as the form shows it, or null when none is configured (a UUID is typed instead). */
export function listPlans(): PlanOption[] | null {
  const { plans } = getConfig();
  if (!plans) return null;
  if (built?.plans !== plans) built = { plans, options: planOptions(plans) };
  return built.options;
}

/** The offer script of plan `planId` as the form shows it, or null (no script, or no such plan). */
export function shownScriptOf(planId: string): ShownScript | null {
  return listPlans()?.find((plan) => plan.id.toLowerCase() === planId.toLowerCase())?.script ?? null;
}
