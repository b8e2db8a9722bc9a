export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

// RFC 6749 section 2.3.1 form-encodes both parts before they are joined with ":" and base64-encoded.
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    return null;
  }
}

/**
 * The client credentials of an `Authorization: Basic` header: null when the header uses another scheme or is
 * absent, "malformed" when it is Basic but does not decode to `id:secret`.
 */
export function basicCredentials(authorization: string | undefined): BasicCredentials | "malformed" | null {
  const [scheme, ...parameters] = (authorization ?? "").trim().split(/ +/);
  if (scheme?.toLowerCase() !== "basic") return null;
  const [encoded] = parameters;
  if (parameters.length !== 1 || !encoded || !BASE64.test(encoded) || encoded.length % 4 !== 0) {
    return "malformed";
  }
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(encoded, "base64"));
  } catch {
    return "malformed";
  }
  const colon = decoded.indexOf(":");
  if (colon === -1) return "malformed";
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (clientId === null || clientSecret === null) return "malformed";
  return { clientId, clientSecret };
}
