import type { AgentRole } from "@/lib/db/schema";

/** Public by design: sandbox mode prints them at start. Never created when PARTNER_API_BASE_URL is set. */
export const DEMO_PASSWORD = "demo1234";
export const DEMO_ACCOUNTS: readonly { email: string; name: string; role: AgentRole }[] = [
  { email: "agente@demo.local", name: "Agente Demo", role: "agent" },
  { email: "supervisor@demo.local", name: "Supervisora Demo", role: "supervisor" },
];
