import type { Frame, Page } from "@playwright/test";

/**
 * English that must not reach a pt-BR reader: the words our own code and the provider's answers are made of.
 * Matched as whole words, in any letter case.
 */
export const ENGLISH_WORDS = [
  "the",
  "sale",
  "sales",
  "submitted",
  "sent",
  "error",
  "server",
  "timeout",
  "pending",
  "accepted",
  "rejected",
  "failed",
  "unknown",
  "registered",
  "confirmed",
  "malformed",
  "interrupted",
  "unreachable",
  "answer",
  "http",
  "submissionid",
  "partnersource",
  "details",
  "status",
] as const;

/** Portuguese words joined by a hyphen: "e-mail", and a verb with its pronoun ("vendê-la", "pode-se"). */
const PORTUGUESE_HYPHENATED = /^(e-mail|bem-vind[ao]s?|\p{L}+-(se|me|te|lhes?|nos|vos|[ln]?[oa]s?))$/u;

export interface EnglishWord {
  word: string;
  /** The text it was found in, to tell where. */
  in: string;
}

/**
 * English words and raw codes (`server-error`, `partner_api`, `submissionId`) in what a person reads on the page:
 * the title, visible text (screen-reader-only text included) and readable attributes (aria-label, title,
 * placeholder, alt). The provider's verbatim message (`[data-provider-message]`), the supervisors' technical
 * details (`[data-technical-details]`) and what an agent typed as they got it (`[data-customer-data]`, such as the
 * partner's customer id) are skipped, and so are names an operator gave (`[data-name]`: an integration's, "crm-sp")
 * and the product's name, Partner Sales.
 */
export async function englishWordsIn(page: Page | Frame): Promise<EnglishWord[]> {
  const texts = await page.evaluate(() => {
    const skipped =
      "[data-provider-message], [data-technical-details], [data-customer-data], [data-name], script, style, noscript, template";
    const readable = (element: Element | null) =>
      element !== null && !element.closest(skipped) && element.checkVisibility({ visibilityProperty: true });
    const found = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.textContent?.trim() && readable(node.parentElement)) found.push(node.textContent);
    }
    for (const element of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
      if (!readable(element)) continue;
      for (const name of ["aria-label", "title", "placeholder", "alt"]) {
        const value = element.getAttribute(name);
        if (value) found.push(value);
      }
    }
    return found;
  });

  const words = new Set<string>(ENGLISH_WORDS);
  const hits: EnglishWord[] = [];
  for (const raw of texts) {
    const text = raw.replace(/\s+/g, " ").trim();
    // Not words: the product's name and e-mail addresses (customer data, whatever they hold).
    const prose = text.replaceAll("Partner Sales", " ").replace(/\S+@\S+/g, " ");
    for (const [token] of prose.matchAll(/[\p{L}\p{N}]+(?:[-_][\p{L}\p{N}]+)*/gu)) {
      const rawCode = /[-_]/.test(token) && /^[a-z]/.test(token) && !PORTUGUESE_HYPHENATED.test(token);
      const camelCase = /^[a-z]+[A-Z]/.test(token);
      const english = token.split(/[-_]/).some((part) => words.has(part.toLowerCase()));
      if (rawCode || camelCase || english) hits.push({ word: token, in: text });
    }
  }
  return hits;
}
