import { providerAnswerSummary, type AnswerFacts } from "./provider-answer";
import type { SaleSellers } from "./seller";
import { SETTLEMENT_WORDS } from "./settlement";

export interface TimelineFacts extends AnswerFacts, SaleSellers {
  attempts: number;
  createdAt: Date;
  settlerName: string | null;
}

export interface TimelineEntry {
  kind: "sent" | "answer" | "settlement";
  /** Null while the provider's answer is awaited: that entry comes last. */
  at: Date | null;
  text: string;
}

/** "por Ana Souza", "por Ana Souza, via integração crm", "pela integração crm". */
function sentBy({ agentName, integrationName }: SaleSellers): string {
  const integration = `integração ${integrationName}`;
  if (agentName === null) return `pela ${integration}`;
  return integrationName === null ? `por ${agentName}` : `por ${agentName}, via ${integration}`;
}

/**
 * What happened to a sale, oldest first: the agent (or an integration's API key) sent it, the provider answered (or
 * did not), a supervisor confirmed with the provider. The answer and the confirmation are separate entries, each at
 * its own time.
 */
export function saleTimeline(facts: TimelineFacts, timeoutMs: number): TimelineEntry[] {
  const attempts = facts.attempts > 1 ? ` (${facts.attempts} tentativas)` : "";
  const entries: TimelineEntry[] = [
    { kind: "sent", at: facts.createdAt, text: `Enviada ao fornecedor ${sentBy(facts)}${attempts}.` },
    { kind: "answer", at: facts.completedAt, text: providerAnswerSummary(facts, timeoutMs) },
  ];
  if (facts.resolution && facts.settledAt) {
    const words = SETTLEMENT_WORDS[facts.resolution];
    entries.push({
      kind: "settlement",
      at: facts.settledAt,
      text: `Conferida por ${facts.settlerName ?? "um supervisor"}: ${words.finding}; ${words.outcome}.`,
    });
  }
  const time = (entry: TimelineEntry) => entry.at?.getTime() ?? Number.POSITIVE_INFINITY;
  return entries.sort((a, b) => time(a) - time(b));
}
