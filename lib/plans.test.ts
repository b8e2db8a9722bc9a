import { describe, expect, it } from "vitest";
import { planSchema } from "@/lib/config/plans";
import { planOptions } from "./plans";

const plan = (name: string, extra: { price?: number; description?: string } = {}) => ({
  id: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
  name,
  description: "",
  ...extra,
});

describe("the plan select's options", () => {
  it("start with the part of the name that tells plans apart, so type-ahead finds them", () => {
    const labels = planOptions([plan("Plano Essencial"), plan("Plano Família"), plan("Plano Premium")]).map(
      (option) => option.label,
    );
    expect(labels).toEqual(["Essencial", "Família", "Premium"]);
  });

  it("keep whole names that share no leading word, or where a name would be left empty", () => {
    expect(planOptions([plan("Essencial"), plan("Família")]).map((option) => option.label)).toEqual([
      "Essencial",
      "Família",
    ]);
    expect(planOptions([plan("Plano"), plan("Plano Família")]).map((option) => option.label)).toEqual([
      "Plano",
      "Plano Família",
    ]);
    expect(planOptions([plan("Plano Único")])[0]?.label).toBe("Plano Único");
  });

  it("show the price in reais and the description", () => {
    const [option] = planOptions([plan("Essencial", { price: 29.9, description: "Serviços básicos." })]);
    expect(option?.label).toBe("Essencial — R$\u00a029,90 — Serviços básicos.");
    expect(option?.summary).toBe("R$\u00a029,90 — Serviços básicos.");
  });
});

describe("a plan's price in PLANS_FILE", () => {
  it("is optional, in reais, with at most two decimal places", () => {
    expect(planSchema.safeParse(plan("A")).success).toBe(true);
    expect(planSchema.safeParse(plan("A", { price: 29.9 })).success).toBe(true);
    expect(planSchema.safeParse(plan("A", { price: 0.07 })).success).toBe(true);
    expect(planSchema.safeParse(plan("A", { price: 29.999 })).success).toBe(false);
    expect(planSchema.safeParse(plan("A", { price: -1 })).success).toBe(false);
    expect(planSchema.safeParse({ ...plan("A"), price: "29,90" }).success).toBe(false);
  });
});
