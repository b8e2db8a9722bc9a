import "server-only";
import { getConfig } from "@/lib/env";
import { findPlan, planName, planOptions, type PlanOption } from "@/lib/plans";
import type { ShownScript } from "@/lib/sales/offer-script";

export type { PlanOption } from "@/lib/plans";

// The configured catalogue, for pages, actions and the sale path (lib/plans.ts does the work).

/** The configured catalogue as the form shows it, or null when none is configured (a UUID is typed instead). */
export function listPlans(): PlanOption[] | null {
  const { plans } = getConfig();
  return plans ? planOptions(plans) : null;
}

/** The offer script of plan `planId` as the form shows it, or null (no script, or no such plan). */
export function shownScriptOf(planId: string): ShownScript | null {
  return findPlan(listPlans(), planId)?.script ?? null;
}

/** A plan's name in the configured catalogue, or its id when it does not know it (any more). */
export function configuredPlanName(planId: string): string {
  return planName(getConfig().plans, planId);
}
