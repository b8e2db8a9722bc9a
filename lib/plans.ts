import type { Plan } from "@/lib/config/plans";
import { showScript, type ShownScript } from "@/lib/sales/offer-script";

// What the app does with the plan catalogue: the form's options, a plan by its id, its name and its offer script.
// The catalogue itself is configuration (PLANS_FILE, read and checked by lib/config/plans.ts); the pages reach it
// through lib/dal/plans.ts. Client-safe: no configuration is read here.

/** A plan as the form's select shows it. */
export interface PlanOption {
  id: string;
  name: string;
  /** What the option reads: the distinctive part of the name first (type-ahead finds it), price, description. */
  label: string;
  /** Price and description, for the field's hint once the plan is chosen. */
  summary: string;
  /** The offer script the agent reads and the confirmations the customer gives, or null: none for this plan. */
  script: ShownScript | null;
}

const price = new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" });

/**
 * The words every plan's name starts with ("Plano Essencial", "Plano Família"): the field's label already says
 * them, and a select's type-ahead matches only the start of an option, so with them no letter picks a plan.
 */
function sharedLeadingWords(names: readonly string[]): string {
  if (names.length < 2) return "";
  const split = names.map((name) => name.split(/\s+/));
  let shared = 0;
  while (split.every((words) => words.length > shared + 1 && words[shared] === split[0]![shared]))
    shared += 1;
  return split[0]!.slice(0, shared).join(" ");
}

const optionsOf = new WeakMap<readonly Plan[], PlanOption[]>();

/** The catalogue as the form shows it; worked out once per catalogue. */
export function planOptions(plans: readonly Plan[]): PlanOption[] {
  let options = optionsOf.get(plans);
  if (!options) optionsOf.set(plans, (options = buildOptions(plans)));
  return options;
}

/** The plan `planId` names (letter case aside), if the catalogue has it. */
export function findPlan<T extends { id: string }>(
  plans: readonly T[] | null,
  planId: string,
): T | undefined {
  const wanted = planId.toLowerCase();
  return plans?.find((plan) => plan.id.toLowerCase() === wanted);
}

/** A plan's name in the catalogue, or its id when the catalogue does not know it (any more). */
export function planName(plans: readonly Plan[] | null, planId: string): string {
  return findPlan(plans, planId)?.name ?? planId;
}

function buildOptions(plans: readonly Plan[]): PlanOption[] {
  const prefix = sharedLeadingWords(plans.map((plan) => plan.name));
  return plans.map((plan) => {
    const name = prefix ? plan.name.slice(prefix.length).trim() : plan.name;
    const summary = [plan.price === undefined ? null : price.format(plan.price), plan.description || null]
      .filter(Boolean)
      .join(" — ");
    return {
      id: plan.id,
      name: plan.name,
      label: summary ? `${name} — ${summary}` : name,
      summary,
      script: showScript(plan),
    };
  });
}
