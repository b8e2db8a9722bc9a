/**
 * Who sold a sale: the agent (in a session, or named by an integration's API key that sold on their behalf), the
 * integration whose key sent it, or both. The ledger always holds at least one (`sales_sold_by_someone`).
 */
export interface SaleSellers {
  agentName: string | null;
  integrationName: string | null;
}

/** The history's seller cell: "Ana Souza", "Ana Souza · via crm", "crm (integração)" (an integration alone). */
export function sellerName({ agentName, integrationName }: SaleSellers): string {
  if (agentName === null) return integrationName === null ? "—" : `${integrationName} (integração)`;
  return integrationName === null ? agentName : `${agentName} · via ${integrationName}`;
}
