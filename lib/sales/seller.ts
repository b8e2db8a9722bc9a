/**
 * Who sold a sale: the agent (in a session, or named by an integration's API key that sold on their behalf), the
 * integration whose key sent it, or both. The ledger always holds at least one (`sales_sold_by_someone`).
 */
export interface SaleSellers {
  agentName: string | null;
  integrationName: string | null;
}

/** A piece of the seller's words; `name` marks an integration's name, which the operator chose (not our words). */
export interface SellerPart {
  text: string;
  name?: true;
}

/** The history's seller cell: "Ana Souza", "Ana Souza · via crm", "crm (integração)" (an integration alone). */
export function sellerParts({ agentName, integrationName }: SaleSellers): SellerPart[] {
  const integration: SellerPart = { text: integrationName ?? "", name: true };
  if (agentName === null)
    return integrationName === null ? [{ text: "—" }] : [integration, { text: " (integração)" }];
  return integrationName === null ? [{ text: agentName }] : [{ text: `${agentName} · via ` }, integration];
}
