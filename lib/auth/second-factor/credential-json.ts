/** A WebAuthn answer is a few kilobytes at most: anything bigger, or not its shape, is refused before any parsing. */
const MAX_LENGTH = 16_384;

/**
 * The browser's WebAuthn answer as a server action receives it (JSON text): an object with the id and response the
 * verifier reads, or null. The verifier checks everything else (signatures, challenge, origin).
 */
export function parseCredentialJson(value: unknown): Record<string, unknown> | null {
  if (typeof value !== "string" || value.length > MAX_LENGTH) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { id, rawId, response, type } = parsed as Record<string, unknown>;
  if (typeof id !== "string" || typeof rawId !== "string" || type !== "public-key") return null;
  if (typeof response !== "object" || response === null) return null;
  return parsed as Record<string, unknown>;
}
