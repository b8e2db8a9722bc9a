const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A domain as listed (`parceira.com.br`, `@parceira.com.br`, any letter case), lower-cased; null when it is none. */
export function emailDomainFrom(entry: string): string | null {
  const domain = entry.trim().toLowerCase().replace(/^@/, "");
  return DOMAIN.test(domain) ? domain : null;
}

/** A comma-separated list of domains (a variable's value), each checked; `refuse` says which entry is none. */
export function emailDomainsIn(list: string | undefined, refuse: (entry: string) => never): string[] {
  return (list ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => emailDomainFrom(entry) ?? refuse(entry));
}

/** Exact domains only: `parceira.com.br` lets in neither `x.parceira.com.br` nor `parceira.com.br.evil.example`. */
export function emailDomainAllowed(email: string, allowedDomains: readonly string[]): boolean {
  if (allowedDomains.length === 0) return true;
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return allowedDomains.includes(domain);
}
