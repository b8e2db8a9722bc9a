import type { Database } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import { showScript, type ShownScript } from "@/lib/sales/offer-script";

/** The scripted plan of the evidence's tests, as the sandbox's Plano Completo: two required confirmations, one not. */
export const SCRIPTED_PLAN = {
  name: "Plano Completo",
  price: 69.9,
  script: {
    version: "2026-11",
    text: "O {plano} custa {preco} por mês.",
    confirmations: [
      { id: "valor", text: "O cliente aceitou o valor de {preco} por mês", required: true },
      { id: "dados", text: "O cliente autorizou o uso dos dados", required: true },
      { id: "ofertas", text: "O cliente aceita ofertas", required: false },
    ],
  },
};

/** SCRIPTED_PLAN's script as the form shows it. */
export const SHOWN_SCRIPT = showScript(SCRIPTED_PLAN) as ShownScript;

/** The agent who sells in the evidence's tests: its id. */
export const anAgent = async (db: Database): Promise<string> =>
  (await insertAgent(db, { email: "ana@example.com", name: "Ana", role: "agent", passwordHash: null })).id;
