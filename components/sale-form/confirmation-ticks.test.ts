import { describe, expect, it } from "vitest";
import { EVIDENCE_FIELDS } from "@/lib/validation/evidence";
import { SALE_FIELDS } from "@/lib/validation/sale";
import { firstMissingConfirmation, FORM_FIELDS_IN_ORDER, withTick } from "./confirmation-ticks";

const CONFIRMATIONS = [
  { id: "valor", text: "Valor aceito", required: true },
  { id: "ofertas", text: "Aceita ofertas", required: false },
  { id: "dados", text: "Dados autorizados", required: true },
];

describe("withTick", () => {
  it("records the moment of a tick in UTC and forgets it on untick", () => {
    const ticked = withTick({}, "valor", true, new Date("2026-11-29T13:40:01.123-03:00"));
    expect(ticked).toEqual({ valor: "2026-11-29T16:40:01.123Z" });
    const both = withTick(ticked, "dados", true, new Date("2026-11-29T16:41:00.000Z"));
    expect(withTick(both, "valor", false, new Date())).toEqual({ dados: "2026-11-29T16:41:00.000Z" });
  });

  it("gives a tick again a new moment, and leaves the ticks it was given alone", () => {
    const first = withTick({}, "valor", true, new Date("2026-11-29T16:40:00.000Z"));
    const again = withTick(first, "valor", true, new Date("2026-11-29T16:45:00.000Z"));
    expect(again).toEqual({ valor: "2026-11-29T16:45:00.000Z" });
    expect(first).toEqual({ valor: "2026-11-29T16:40:00.000Z" });
  });
});

describe("firstMissingConfirmation", () => {
  it("names the first required confirmation not ticked, in the script's order, skipping optional ones", () => {
    expect(firstMissingConfirmation(CONFIRMATIONS, {})?.id).toBe("valor");
    expect(firstMissingConfirmation(CONFIRMATIONS, { valor: "2026-11-29T16:40:00.000Z" })?.id).toBe("dados");
    const required = { valor: "2026-11-29T16:40:00.000Z", dados: "2026-11-29T16:41:00.000Z" };
    expect(firstMissingConfirmation(CONFIRMATIONS, required)).toBeNull();
  });
});

describe("FORM_FIELDS_IN_ORDER", () => {
  it("holds every field once: the plan, its confirmations, then the sale's others in order", () => {
    expect([...FORM_FIELDS_IN_ORDER].sort()).toEqual([...SALE_FIELDS, ...EVIDENCE_FIELDS].sort());
    expect(FORM_FIELDS_IN_ORDER.slice(0, 2)).toEqual(["planId", "confirmations"]);
    expect(
      FORM_FIELDS_IN_ORDER.filter(
        (field) => field !== "planId" && (SALE_FIELDS as readonly string[]).includes(field),
      ),
    ).toEqual(SALE_FIELDS.filter((field) => field !== "planId"));
  });
});
