// Who calls /api/v1, once lib/api/api-key.ts has checked its key, and what that caller may read.

/** Who calls /api/v1: an integration, through one of its keys. */
export interface ApiCaller {
  integrationId: string;
  integration: string;
  keyId: string;
  prefix: string;
  scopes: ReadonlySet<string>;
  /** `api-key:<integration>`: the door in the log and the trail. */
  door: string;
}

/**
 * Whether the caller may read customers' data (`sales:read-customer`), and with it the provider's words, which may
 * repeat that data: LGPD art. 6, III, least data by default, in every answer of /api/v1.
 */
export const readsCustomer = (caller: ApiCaller): boolean => caller.scopes.has("sales:read-customer");
