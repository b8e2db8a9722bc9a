import type { ErrorCode } from "@/lib/errors";

/** The one result shape of every server action: `(previous, formData) => ActionState`. */
export type FieldErrors<Field extends string = string> = Partial<Record<Field, string>>;

export type ActionState<Field extends string = string, Data = undefined> =
  | { ok: true; data: Data; message: string | null }
  | {
      ok: false;
      fieldErrors: FieldErrors<Field>;
      message: string | null;
      /** The error's code, for a form that acts on it (the sale form keeps a `not_confirmed` sale as sent). */
      error?: ErrorCode;
      /** What was typed, for forms whose uncontrolled inputs React resets after an action. */
      values?: Partial<Record<Field, string>>;
    };

export const INITIAL_ACTION_STATE = {
  ok: false,
  fieldErrors: {},
  message: null,
} as const satisfies ActionState;
