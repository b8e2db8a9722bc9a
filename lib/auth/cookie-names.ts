/** Auth.js's session cookie: the plain name over http and inside portals (auth.ts), `__Secure-` over https. */
export const SESSION_COOKIE = "authjs.session-token";
export const SECURE_SESSION_COOKIE = `__Secure-${SESSION_COOKIE}`;
