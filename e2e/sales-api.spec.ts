import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { E2E_PORTS, E2E_UPSTREAM_TIMEOUT_MS } from "./support/environment";
import { apiSale, saleInFlight, sandboxControl, sandboxStats } from "./support/sandbox";

const body = () => apiSale({ birthDate: "1988-12-01" });

test.describe("POST /api/sales", () => {
  test("accepts a sale (201) and replays it for the same Idempotency-Key (200)", async ({
    signedIn: page,
  }) => {
    const key = randomUUID();
    const sale = body();
    const first = await page.request.post("/api/sales", { data: sale, headers: { "Idempotency-Key": key } });
    expect(first.status()).toBe(201);
    expect(await first.json()).toMatchObject({ submissionId: key, status: "accepted", replay: false });

    const again = await page.request.post("/api/sales", { data: sale, headers: { "Idempotency-Key": key } });
    expect(again.status()).toBe(200);
    expect(await again.json()).toMatchObject({ submissionId: key, status: "accepted", replay: true });
    expect((await sandboxStats()).saleRequests).toBe(1);
  });

  test("refuses invalid input with pt-BR field errors and sends nothing (400)", async ({
    signedIn: page,
  }) => {
    const response = await page.request.post("/api/sales", {
      data: { ...body(), customerDocument: "111.111.111-11", customerPhone: undefined },
      headers: { "Idempotency-Key": randomUUID() },
    });
    expect(response.status()).toBe(400);
    expect(await response.json()).toEqual({
      error: "invalid_fields",
      message: "Corrija os campos indicados.",
      fieldErrors: {
        customerDocument: "CPF inválido: os dígitos não podem ser todos iguais.",
        customerPhone: "Informe o telefone.",
      },
    });
    const noKey = await page.request.post("/api/sales", { data: body() });
    expect(noKey.status()).toBe(400);
    expect((await noKey.json()).error).toBe("idempotency_key_required");
    expect((await sandboxStats()).saleRequests).toBe(0);
  });

  test("refuses a cross-site request even with the session cookie (403)", async ({ signedIn: page }) => {
    const response = await page.request.post("/api/sales", {
      data: body(),
      headers: { "Idempotency-Key": randomUUID(), Origin: "https://evil.example" },
    });
    expect(response.status()).toBe(403);
    // The origin is AUTH_URL's: a host the client names itself (no trusted proxy here) changes nothing.
    for (const host of ["evil.example", `localhost:${E2E_PORTS.app}, evil.example`]) {
      const forged = await page.request.post("/api/sales", {
        data: body(),
        headers: {
          "Idempotency-Key": randomUUID(),
          Origin: "https://evil.example",
          "X-Forwarded-Host": host,
        },
      });
      expect(forged.status()).toBe(403);
      expect((await forged.json()).error).toBe("cross_site");
    }
    expect((await sandboxStats()).saleRequests).toBe(0);
  });

  test("answers 409 while the same sale is in flight, and 504 when the provider times out", async ({
    signedIn: page,
  }) => {
    // The second request goes once the provider has the first, not after a guessed pause.
    const sale = body();
    const first = await saleInFlight(page.request, { data: sale, holdMs: E2E_UPSTREAM_TIMEOUT_MS - 1_000 });
    const second = await page.request.post("/api/sales", {
      data: sale,
      headers: { "Idempotency-Key": first.key },
    });
    expect(first.answered(), "the first sale was still on its way").toBe(false);
    expect([(await first.answer).status(), second.status()]).toEqual([201, 409]);
    // The ledger's word for a sale on its way to the provider, in the API as in the database.
    expect(await second.json()).toMatchObject({ status: "pending", title: "Venda em envio", replay: true });
    expect((await sandboxStats()).saleRequests).toBe(1);

    await sandboxControl("POST", "reset");
    await sandboxControl("POST", "faults", { kind: "timeout" });
    const timedOut = await page.request.post("/api/sales", {
      data: body(),
      headers: { "Idempotency-Key": randomUUID() },
    });
    expect(timedOut.status()).toBe(504);
    expect(await timedOut.json()).toMatchObject({ status: "unknown" });
  });
});
