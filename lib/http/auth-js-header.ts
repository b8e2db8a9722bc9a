/**
 * Auth.js answers a request that carries X-Auth-Return-Redirect with JSON (`{url}`) instead of throwing its refusal,
 * and next-auth's server-side signIn() sends the incoming request's headers on: a refused sign-in would then look,
 * to the action or route that called signIn(), like one that went through (no lock message; a portal token's
 * refusal answered 200). Only Auth.js's own browser client sends the header, to its own routes (/api/auth/*, which
 * keep it). The proxy drops it from what pages and server actions see; a route that signs in refuses it.
 */
export const AUTH_JS_REDIRECT_HEADER = "x-auth-return-redirect";
