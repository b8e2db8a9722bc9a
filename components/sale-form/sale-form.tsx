"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { startTransition, useActionState, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { useForm } from "react-hook-form";
import { FormField, inputClassName } from "@/components/ui/form-field";
import type { SaleActionState } from "@/app/(sales)/actions";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { userMessageFor } from "@/lib/errors";
import type { PlanOption } from "@/lib/dal/plans";
import { cpfMask, dateMask, phoneMask, type Mask } from "@/lib/masks";
import {
  createSaleSchema,
  EMPTY_SALE,
  SALE_FIELDS,
  type SaleField,
  type SaleFormValues,
  type ValidSale,
} from "@/lib/validation/sale";
import { OutcomePanel } from "./outcome-panel";
import { newSubmissionId } from "./submission-id";
import { useMaskedInput } from "./use-masked-input";

type SubmitSale = (previous: SaleActionState, formData: FormData) => Promise<SaleActionState>;

const RESET = "reset";

export interface SaleFormProps {
  plans: PlanOption[] | null;
  initialSubmissionId: string;
  submitSale: SubmitSale;
  /** Values to put in the form (from a partner portal); a new nonce applies them again. Never submits. */
  prefill?: { values: Partial<SaleFormValues>; nonce: number };
  /** Called with each recorded outcome; carries no personal data. */
  onOutcome?: (outcome: { submissionId: string; status: string; externalId: string | null }) => void;
}

const MASKS: Partial<Record<SaleField, Mask>> = {
  customerDocument: cpfMask,
  customerPhone: phoneMask,
  birthDate: dateMask,
};

export function SaleForm({ plans, initialSubmissionId, submitSale, prefill, onOutcome }: SaleFormProps) {
  const schema = useMemo(() => createSaleSchema({ planIds: plans?.map((plan) => plan.id) ?? null }), [plans]);
  const form = useForm<SaleFormValues, unknown, ValidSale>({
    resolver: zodResolver(schema),
    mode: "onTouched",
    defaultValues: EMPTY_SALE,
    // Focus follows the visual order below, not the order fields happened to register in.
    shouldFocusError: false,
  });
  const { register, formState, setError, setFocus, reset, setValue } = form;
  const appliedPrefill = useRef<number | null>(null);

  const [submissionId, setSubmissionId] = useState(initialSubmissionId);
  const busy = useRef(false);

  const focusFirstError = (errors: Partial<Record<SaleField, unknown>>) => {
    const first = SALE_FIELDS.find((field) => errors[field]);
    if (first) setFocus(first);
  };

  const [state, dispatch, pending] = useActionState(
    async (previous: SaleActionState, payload: FormData | typeof RESET): Promise<SaleActionState> => {
      if (payload === RESET) return INITIAL_ACTION_STATE;
      // A dropped connection keeps the same submissionId, so sending again replays instead of duplicating.
      const next = await submitSale(previous, payload)
        .catch((): SaleActionState => ({
          ok: false,
          fieldErrors: {},
          message: userMessageFor("not_confirmed"),
        }))
        .finally(() => {
          busy.current = false;
        });
      const fieldErrors = next.ok ? next.data.fieldErrors : next.fieldErrors;
      for (const field of SALE_FIELDS) {
        if (fieldErrors[field]) setError(field, { type: "server", message: fieldErrors[field] });
      }
      focusFirstError(fieldErrors);
      // A refused sale is fixed and sent as a new submission; a failed one (nothing sent) keeps its id.
      if (next.ok && next.data.status === "rejected") setSubmissionId(newSubmissionId());
      if (next.ok) {
        // The id of the sale that was sent, not whatever the field holds by the time the answer arrives.
        onOutcome?.({
          submissionId: next.data.submissionId,
          status: next.data.status,
          externalId: String(payload.get("externalId") ?? "").trim() || null,
        });
      }
      return next;
    },
    INITIAL_ACTION_STATE,
  );

  const result = state.ok ? state.data : null;
  const finished = result?.status === "accepted" || result?.status === "unknown";
  // A portal's prefill is for the next customer: it waits while a sale is on its way or its outcome is shown.
  const open = !pending && !result;

  useEffect(() => {
    if (!prefill || !open || appliedPrefill.current === prefill.nonce) return;
    appliedPrefill.current = prefill.nonce;
    for (const field of SALE_FIELDS) {
      const value = prefill.values[field];
      if (value === undefined) continue;
      const mask = MASKS[field];
      // Shown as if pasted (a birth date in ISO form too), and checked like typing, so a bad value is flagged
      // before anyone submits.
      setValue(field, mask ? mask(value) : value, {
        shouldValidate: true,
        shouldDirty: true,
      });
    }
  }, [prefill, open, setValue]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const formElement = event.currentTarget;
    void form.handleSubmit(() => {
      // A second click or Enter while the first is on its way does nothing.
      if (busy.current) return;
      busy.current = true;
      const formData = new FormData(formElement);
      startTransition(() => dispatch(formData));
    }, focusFirstError)(event);
  };

  // CPF takes the focus once the outcome is gone: only then is the fieldset (disabled while a sale is finished)
  // enabled again, which a transition may commit frames later; a focus asked for sooner is lost.
  const focusCpfWhenCleared = useRef(false);
  useEffect(() => {
    if (result || !focusCpfWhenCleared.current) return;
    focusCpfWhenCleared.current = false;
    setFocus("customerDocument");
  }, [result, setFocus]);

  const startNewSale = () => {
    reset(EMPTY_SALE);
    setSubmissionId(newSubmissionId());
    focusCpfWhenCleared.current = true;
    startTransition(() => dispatch(RESET));
  };

  const cpf = useMaskedInput(register("customerDocument"), cpfMask);
  const phone = useMaskedInput(register("customerPhone"), phoneMask);
  const birthDate = useMaskedInput(register("birthDate"), dateMask);
  const error = (field: SaleField) => formState.errors[field]?.message;

  return (
    <form onSubmit={submit} noValidate className="space-y-5" aria-busy={pending}>
      <input type="hidden" name="submissionId" value={submissionId} />
      <fieldset disabled={finished} className="grid gap-4 sm:grid-cols-2">
        <legend className="sr-only">Dados do cliente</legend>
        <FormField id="customerDocument" label="CPF" error={error("customerDocument")}>
          {(control) => (
            <input
              {...control}
              {...cpf}
              autoComplete="off"
              placeholder="000.000.000-00"
              className={inputClassName}
            />
          )}
        </FormField>
        <FormField id="customerName" label="Nome completo" error={error("customerName")}>
          {(control) => (
            <input
              {...control}
              {...register("customerName")}
              autoComplete="name"
              className={inputClassName}
            />
          )}
        </FormField>
        <FormField id="customerEmail" label="E-mail" error={error("customerEmail")}>
          {(control) => (
            <input
              {...control}
              {...register("customerEmail")}
              type="email"
              autoComplete="email"
              className={inputClassName}
            />
          )}
        </FormField>
        <FormField id="customerPhone" label="Telefone" error={error("customerPhone")}>
          {(control) => (
            <input
              {...control}
              {...phone}
              type="tel"
              autoComplete="tel-national"
              placeholder="(00) 00000-0000"
              className={inputClassName}
            />
          )}
        </FormField>
        <FormField
          id="planId"
          label="Plano"
          error={error("planId")}
          hint={plans ? undefined : "Identificador do plano (UUID), como informado pelo fornecedor."}
        >
          {(control) =>
            plans ? (
              <select {...control} {...register("planId")} className={inputClassName}>
                <option value="">Selecione o plano</option>
                {plans.map((plan) => (
                  <option key={plan.id} value={plan.id}>
                    {plan.name}
                  </option>
                ))}
              </select>
            ) : (
              <input
                {...control}
                {...register("planId")}
                autoComplete="off"
                spellCheck={false}
                className={inputClassName}
              />
            )
          }
        </FormField>
        <FormField id="birthDate" label="Data de nascimento" error={error("birthDate")} hint="Opcional.">
          {(control) => (
            <input
              {...control}
              {...birthDate}
              autoComplete="bday"
              placeholder="DD/MM/AAAA"
              className={inputClassName}
            />
          )}
        </FormField>
        <FormField
          id="externalId"
          label="ID do cliente no parceiro"
          error={error("externalId")}
          hint="Opcional."
        >
          {(control) => (
            <input
              {...control}
              {...register("externalId")}
              autoComplete="off"
              maxLength={100}
              className={inputClassName}
            />
          )}
        </FormField>
      </fieldset>

      {!state.ok && state.message ? (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900">
          {state.message}
        </p>
      ) : null}
      {result ? <OutcomePanel result={result} /> : null}

      <div className="flex flex-wrap gap-3">
        {finished ? (
          <button
            type="button"
            onClick={startNewSale}
            className="rounded-md bg-brand-700 px-5 py-2.5 font-medium text-white hover:bg-brand-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-600 focus-visible:ring-offset-2"
          >
            Nova venda
          </button>
        ) : (
          <>
            <button
              type="submit"
              disabled={pending}
              // Keeps focus in the field on press: its blur would validate it, push this button down with an
              // error line, and the release would land beside the button, losing the click.
              onMouseDown={(event) => event.preventDefault()}
              className="rounded-md bg-brand-700 px-5 py-2.5 font-medium text-white hover:bg-brand-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-600 focus-visible:ring-offset-2 disabled:opacity-70"
            >
              {pending ? "Enviando venda…" : "Enviar venda"}
            </button>
            {result && !pending ? (
              <button
                type="button"
                onClick={startNewSale}
                className="rounded-md border border-slate-300 bg-white px-5 py-2.5 font-medium text-slate-800 hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-600 focus-visible:ring-offset-2"
              >
                Nova venda
              </button>
            ) : null}
          </>
        )}
      </div>
    </form>
  );
}
