import { errorPage, ERROR_PAGE_PATH } from "./error-page";
import { FAULT_KINDS, TARGETS, type FaultKind, type Target } from "./faults";
import { json, type SandboxRequest, type SandboxResponse } from "./http";
import { UUID_PATTERN, type Plan } from "./plans";
import type { SandboxState } from "./state";

export const CONTROL_PREFIX = "/__sandbox/";

export interface ControlContext {
  state: SandboxState;
  plans: readonly Plan[];
}

class ControlInputError extends Error {}

type Control = (input: Record<string, unknown>, context: ControlContext) => SandboxResponse;

const ok = (details: Record<string, unknown> = {}) => json(200, { ok: true, ...details });

function allowOnly(input: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new ControlInputError(`Campo(s) desconhecido(s): ${unknown.join(", ")}.`);
}

function integerField(
  input: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  fallback?: number,
) {
  const value = input[name] ?? fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ControlInputError(`'${name}' deve ser um inteiro de ${min} a ${max}.`);
  }
  return value;
}

function choiceField<T extends string>(
  input: Record<string, unknown>,
  name: string,
  choices: readonly T[],
  fallback?: T,
): T {
  const value = input[name] ?? fallback;
  if (!choices.includes(value as T)) {
    throw new ControlInputError(`'${name}' deve ser um destes: ${choices.join(", ")}.`);
  }
  return value as T;
}

const queuedFaults = ({ state }: ControlContext) => ({
  sale: [...state.faults.sale],
  token: [...state.faults.token],
});

const CONTROLS: Record<string, Partial<Record<string, Control>>> = {
  stats: { GET: (_input, { state }) => json(200, state.stats) },
  sales: { GET: (_input, { state }) => json(200, state.sales) },
  requests: { GET: (_input, { state }) => json(200, state.requests) },
  plans: { GET: (_input, { plans }) => json(200, plans) },
  "plans/withdraw": {
    POST: (input, { state }) => {
      allowOnly(input, ["id"]);
      if (typeof input.id !== "string" || !UUID_PATTERN.test(input.id)) {
        throw new ControlInputError("'id' deve ser o UUID de um plano.");
      }
      state.withdrawnPlanIds.add(input.id.toLowerCase());
      return ok({ withdrawn: [...state.withdrawnPlanIds] });
    },
  },
  reset: {
    POST: (_input, { state }) => {
      state.reset();
      return ok();
    },
  },
  faults: {
    GET: (_input, context) =>
      json(200, { faults: queuedFaults(context), latencyMs: context.state.latencyMs }),
    POST: (input, context) => {
      allowOnly(input, ["kind", "count", "target"]);
      const kind = choiceField<FaultKind>(input, "kind", FAULT_KINDS);
      const count = integerField(input, "count", 1, 1000, 1);
      const target = choiceField<Target>(input, "target", TARGETS, "sale");
      context.state.faults[target].push(...Array<FaultKind>(count).fill(kind));
      return ok({ faults: queuedFaults(context) });
    },
    DELETE: (_input, { state }) => {
      state.clearFaults();
      return ok();
    },
  },
  latency: {
    POST: (input, { state }) => {
      allowOnly(input, ["ms", "target"]);
      const ms = integerField(input, "ms", 0, 120_000);
      const target = choiceField(input, "target", [...TARGETS, "all"], "all");
      for (const each of TARGETS) if (target === "all" || target === each) state.latencyMs[each] = ms;
      return ok({ latencyMs: state.latencyMs });
    },
  },
  "tokens/revoke": { POST: (_input, { state }) => ok({ revoked: state.tokens.revokeAll() }) },
  "token-lifetime": {
    POST: (input, { state }) => {
      allowOnly(input, ["seconds"]);
      state.tokenLifetimeSeconds = integerField(input, "seconds", 0, 31_536_000);
      return ok({ seconds: state.tokenLifetimeSeconds });
    },
  },
};

function parseInput(request: SandboxRequest): Record<string, unknown> {
  if (request.rawBody.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(request.rawBody);
  } catch {
    throw new ControlInputError("O corpo deve ser JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ControlInputError("O corpo deve ser um objeto JSON.");
  }
  return value as Record<string, unknown>;
}

export function handleControlRequest(request: SandboxRequest, context: ControlContext): SandboxResponse {
  if (request.pathname === ERROR_PAGE_PATH) return errorPage();
  const name = request.pathname.slice(CONTROL_PREFIX.length);
  const methods = Object.hasOwn(CONTROLS, name) ? CONTROLS[name] : undefined;
  if (!methods)
    return json(404, { ok: false, message: `Nenhum controle do sandbox em ${request.pathname}.` });
  const control = methods[request.method];
  if (!control) {
    const allowed = Object.keys(methods).join(", ");
    return json(405, { ok: false, message: `Use ${allowed} em ${request.pathname}.` }, { allow: allowed });
  }
  try {
    return control(parseInput(request), context);
  } catch (error) {
    if (error instanceof ControlInputError) return json(400, { ok: false, message: error.message });
    throw error;
  }
}
