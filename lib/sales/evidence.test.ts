import { describe, expect, it } from "vitest";
import { buildEvidence, evidenceContent, evidenceHash, readEvidenceFields } from "./evidence";
import { SCRIPTED_PLAN, SHOWN_SCRIPT } from "@/test/offer-script";
import { sha256Hex, shownScriptContent, showScript, type ShownScript } from "./offer-script";

const plan = SCRIPTED_PLAN;
const script = SHOWN_SCRIPT;
const now = new Date("2026-11-29T13:00:00.000Z");
const seller = { submissionId: "6f1c1d8e-8a3b-4c4e-9a51-0b7f3c2d1e00", agentId: "a1", door: "password" };
const ticked = (ids: string[], at = "2026-11-29T12:58:30.250Z") =>
  Object.fromEntries(ids.map((id) => [id, at]));

describe("the offer script as shown", () => {
  it("puts the plan's name and price in the texts, and hashes what the agent sees", () => {
    expect(script.text).toBe("O Plano Completo custa R$\u00a069,90 por mês.");
    expect(script.confirmations[0]).toEqual({
      id: "valor",
      text: "O cliente aceitou o valor de R$\u00a069,90 por mês",
      required: true,
    });
    expect(script.hash).toBe(sha256Hex(shownScriptContent(script)));
    // Another text is another hash: the record names the text, not only its version.
    expect(showScript({ ...plan, price: 79.9 })!.hash).not.toBe(script.hash);
  });

  it("is null for a plan without one", () => {
    expect(showScript({ name: "Plano Essencial", price: 29.9 })).toBeNull();
  });
});

describe("the evidence of a scripted sale", () => {
  it("records the script, each confirmation ticked with its time, the recording's digest", () => {
    const built = buildEvidence(
      script,
      { scriptHash: script.hash, confirmedAt: ticked(["dados", "valor"]), recordingId: "call-2026/11#42" },
      seller,
      now,
    );
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.recordingId).toBe("call-2026/11#42");
    expect(built.record).toMatchObject({
      scriptVersion: "2026-11",
      scriptHash: script.hash,
      scriptText: script.text,
      recordingIdDigest: sha256Hex("call-2026/11#42"),
      agentId: "a1",
      door: "password",
    });
    // In the script's order, whatever order they were ticked in; the optional one not ticked is not there.
    expect(built.record.confirmations.map((item) => item.id)).toEqual(["valor", "dados"]);
    expect(built.record.confirmations[0]!.confirmedAt).toBe("2026-11-29T12:58:30.250Z");
    expect(evidenceHash(built.record)).toBe(sha256Hex(evidenceContent(built.record)));
  });

  it("refuses a sale whose required confirmations are not all ticked, naming them", () => {
    expect(
      buildEvidence(
        script,
        { scriptHash: script.hash, confirmedAt: ticked(["dados"]), recordingId: null },
        seller,
        now,
      ),
    ).toEqual({ ok: false, problem: { code: "confirmations_missing", missing: ["valor"] } });
  });

  it("reads a confirmation named like an object's own property only when it was ticked", () => {
    const named = showScript({
      ...plan,
      script: { ...plan.script, confirmations: [{ id: "constructor", text: "Confirmou", required: true }] },
    }) as ShownScript;
    const confirm = (confirmedAt: Record<string, string>) =>
      buildEvidence(named, { scriptHash: named.hash, confirmedAt, recordingId: null }, seller, now);
    expect(confirm({})).toEqual({
      ok: false,
      problem: { code: "confirmations_missing", missing: ["constructor"] },
    });
    expect(confirm(ticked(["constructor"])).ok).toBe(true);
  });

  it("refuses a script the form showed that is not the plan's now", () => {
    const built = buildEvidence(
      script,
      { scriptHash: "0".repeat(64), confirmedAt: ticked(["valor", "dados"]), recordingId: null },
      seller,
      now,
    );
    expect(built).toEqual({ ok: false, problem: { code: "script_changed" } });
  });

  it.each([
    [
      "a confirmation the script does not have",
      { ...ticked(["valor", "dados"]), outra: "2026-11-29T12:58:30.250Z" },
    ],
    ["a time that is not ISO 8601 UTC", ticked(["valor", "dados"], "29/11/2026 12:58")],
    ["a time in the future", ticked(["valor", "dados"], "2026-11-29T13:30:00.000Z")],
    ["a time before this call", ticked(["valor", "dados"], "2026-11-28T13:00:00.000Z")],
  ])("refuses %s", (_case, confirmedAt) => {
    expect(
      buildEvidence(script, { scriptHash: script.hash, confirmedAt, recordingId: null }, seller, now),
    ).toEqual({
      ok: false,
      problem: { code: "confirmations_invalid" },
    });
  });

  it("dates the ticks by the server's clock when the sender's runs off, and only then", () => {
    const record = (confirmedAt: Record<string, string>, sentAt: string | null) => {
      const built = buildEvidence(
        script,
        { scriptHash: script.hash, confirmedAt, recordingId: null, sentAt },
        seller,
        now,
      );
      return built.ok ? built.record.confirmations.map((item) => item.confirmedAt) : built.problem;
    };
    // Ten minutes fast: ticked "13:08:30", sent "13:10:00" by its clock; 12:58:30 by the server's.
    expect(
      record(ticked(["valor", "dados"], "2026-11-29T13:08:30.250Z"), "2026-11-29T13:10:00.000Z"),
    ).toEqual(["2026-11-29T12:58:30.250Z", "2026-11-29T12:58:30.250Z"]);
    // An hour slow, the same.
    expect(
      record(ticked(["valor", "dados"], "2026-11-29T11:58:30.250Z"), "2026-11-29T12:00:00.000Z"),
    ).toEqual(["2026-11-29T12:58:30.250Z", "2026-11-29T12:58:30.250Z"]);
    // Within the trip's time of the server's clock: as the sender says.
    expect(record(ticked(["valor", "dados"]), "2026-11-29T12:59:40.000Z")).toEqual([
      "2026-11-29T12:58:30.250Z",
      "2026-11-29T12:58:30.250Z",
    ]);
    // Not a time, or a day and more off: refused.
    expect(record(ticked(["valor", "dados"]), "ontem")).toEqual({ code: "confirmations_invalid" });
    expect(record(ticked(["valor", "dados"]), "2026-11-27T12:59:40.000Z")).toEqual({
      code: "confirmations_invalid",
    });
  });

  it.each([["x".repeat(101)], ["gravação 42"], ["<script>"]])(
    "refuses the recording id %j",
    (recordingId) => {
      expect(
        buildEvidence(
          script,
          { scriptHash: script.hash, confirmedAt: ticked(["valor", "dados"]), recordingId },
          seller,
          now,
        ),
      ).toEqual({ ok: false, problem: { code: "recording_id_invalid" } });
    },
  );
});

describe("the form's evidence fields", () => {
  it("reads the ticks' JSON, the script's hash and the recording id", () => {
    expect(
      readEvidenceFields({
        scriptHash: ` ${script.hash} `,
        confirmations: JSON.stringify(ticked(["valor"])),
        recordingId: "  ",
      }),
    ).toEqual({ scriptHash: script.hash, confirmedAt: ticked(["valor"]), recordingId: null, sentAt: null });
    expect(readEvidenceFields({ confirmationsSentAt: "2026-11-29T13:00:00.000Z" })).toEqual({
      scriptHash: "",
      confirmedAt: {},
      recordingId: null,
      sentAt: "2026-11-29T13:00:00.000Z",
    });
  });

  it.each([["{"], ["[]"], ['{"valor": 1}'], ["null"], [`{"a":"${"x".repeat(4_000)}"}`]])(
    "calls %j malformed",
    (confirmations) => {
      expect(readEvidenceFields({ confirmations })).toBe("malformed");
    },
  );
});
