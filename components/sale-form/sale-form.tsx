"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import {
  startTransition,
  useActionState,
  useEffect,
  useMemo,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
} from "react";
import { useForm, useWatch } from "react-hook-form";
import { buttonClass } from "@/components/ui/button";
import { FormField, inputClassName } from "@/components/ui/form-field";
import { Notice } from "@/components/ui/notice";
import type { SaleActionState } from "@/lib/actions/sales";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { userMessageFor } from "@/lib/errors";
import type { PlanOption } from "@/lib/dal/plans";
import { maskFor, SALE_FIELD_MASKS } from "@/lib/masks";
import {
  createSaleSchema,
  EMPTY_SALE,
  SALE_FIELDS,
  type SaleField,
  type SaleFormValues,
  type ValidSale,
} from "@/lib/validation/sale";
import { OutcomePanel } from "./outcome-panel";
import { SlowAnswerNotice } from "./slow-answer-notice";
import { newSubmissionId } from "./submission-id";
import { useMaskedInput } from "./use-masked-input";

/** The server action that submits the form (lib/actions/sales.ts). */
type SaleAction = (previous: SaleActionState, formData: FormData) => Promise<SaleActionState>;

export interface SaleFormProps {
  plans: PlanOption[] | null;
  initialSubmissionId: string;
  saleAction: SaleAction;
  /** Values to put in the form (from a partner portal); a new nonce applies them again. Never submits. */
  prefill?: { values: Partial<SaleFormValues>; nonce: number };
  /** Called with each recorded outcome; carries no personal data. */
  onOutcome?: (outcome: {
    submissionId: string;
    protocol: string;
    status: string;
    externalId: string | null;
  }) => void;
  /** Put the cursor in CPF when the form appears (not inside a portal, whose page owns the focus). */
  autoFocus?: boolean;
}

export function SaleForm({
  plans,
  initialSubmissionId,
  saleAction,
  prefill,
  onOutcome,
  autoFocus = false,
}: SaleFormProps) {
  const schema = useMemo(() => createSaleSchema({ planIds: plans?.map((plan) => plan.id) ?? null }), [plans]);
  const form = useForm<SaleFormValues, unknown, ValidSale>({
    resolver: zodResolver(schema),
    mode: "onTouched",
    defaultValues: EMPTY_SALE,
    // Focus follows the visual order below, not the order fields happened to register in.
    shouldFocusError: false,
  });
  const { register, formState, setError, clearErrors, setFocus, reset, setValue, control } = form;
  const appliedPrefill = useRef<number | null>(null);

  const [submissionId, setSubmissionId] = useState(initialSubmissionId);
  const busy = useRef(false);
  const outcomeArrived = useRef(false);
  const panelHeading = useRef<HTMLHeadingElement>(null);
  const messageRef = useRef<HTMLParagraphElement>(null);
  const submitButton = useRef<HTMLButtonElement>(null);
  const newSaleButton = useRef<HTMLButtonElement>(null);
  const confirmKnownCustomer = useRef(false);

  const focusFirstError = (errors: Partial<Record<SaleField, unknown>>) => {
    const first = SALE_FIELDS.find((field) => errors[field]);
    if (first) setFocus(first);
    return Boolean(first);
  };

  const [answer, dispatch, pending] = useActionState(
    async (previous: SaleActionState, payload: FormData): Promise<SaleActionState> => {
      // A dropped connection keeps the same submissionId, so sending again replays instead of duplicating.
      const next = await saleAction(previous, payload)
        .catch((): SaleActionState => ({
          ok: false,
          fieldErrors: {},
          message: userMessageFor("not_confirmed"),
        }))
        .finally(() => {
          busy.current = false;
        });
      outcomeArrived.current = true;
      const fieldErrors = next.ok
        ? "fieldErrors" in next.data
          ? next.data.fieldErrors
          : {}
        : next.fieldErrors;
      for (const field of SALE_FIELDS) {
        if (fieldErrors[field]) setError(field, { type: "server", message: fieldErrors[field] });
      }
      if (next.ok && next.data.status !== "known-customer") {
        const sale = next.data;
        // A refused sale is fixed and sent as a new submission; a failed one (nothing sent) keeps its id. An
        // accepted one leaves the form empty for the next customer, its outcome shown above.
        if (sale.status === "rejected") setSubmissionId(newSubmissionId());
        if (sale.status === "accepted") {
          reset(EMPTY_SALE);
          setSubmissionId(newSubmissionId());
        }
        // The id of the sale that was sent, not whatever the field holds by the time the answer arrives.
        onOutcome?.({
          submissionId: sale.submissionId,
          protocol: sale.protocol,
          status: sale.status,
          externalId: String(payload.get("externalId") ?? "").trim() || null,
        });
      }
      return next;
    },
    INITIAL_ACTION_STATE,
  );

  // The last answer until the agent dismisses it (an edit, "Nova venda"): plain state, not an action, so that
  // clearing it never marks the form busy (which would lock the field being typed in).
  const [dismissed, setDismissed] = useState<SaleActionState | null>(null);
  const state: SaleActionState = answer === dismissed ? INITIAL_ACTION_STATE : answer;
  const result = state.ok ? state.data : null;
  // An unknown sale must not go again, so its data stays as sent until the agent starts a new sale.
  // Sent, answer unknown (or still on its way in another request): the same data may go again under the same
  // submissionId, never edited data, which the ledger would answer with the first sale's outcome.
  const notConfirmed = !state.ok && state.message === userMessageFor("not_confirmed");
  const sameSaleOnly = notConfirmed || result?.status === "pending";
  const locked = pending || result?.status === "unknown" || sameSaleOnly;
  // A portal's prefill is for the next customer: it waits while a sale is on its way or must not be touched.
  // Nor while the agent corrects a refused or failed sale: only a form nobody has touched since it was (re)started.
  const open =
    !pending && (answer === INITIAL_ACTION_STATE || result?.status === "accepted" || !formState.isDirty);

  // After each answer the focus goes where the agent's next key belongs, and the outcome is in view: the next
  // customer's CPF after an accepted sale, the field the provider refused, "Enviar de novo" when nothing was
  // sent, "Nova venda" after an unknown one; otherwise the outcome's heading.
  useEffect(() => {
    if (pending || !outcomeArrived.current) return;
    outcomeArrived.current = false;
    if (!state.ok) {
      if (focusFirstError(state.fieldErrors)) return;
      (state.message === userMessageFor("not_confirmed")
        ? submitButton.current
        : messageRef.current
      )?.focus();
      return;
    }
    panelHeading.current?.parentElement?.scrollIntoView({ block: "nearest" });
    const outcome = state.data;
    switch (outcome.status) {
      case "accepted":
        setFocus("customerDocument");
        return;
      case "rejected":
        if (!focusFirstError(outcome.fieldErrors)) panelHeading.current?.focus();
        return;
      case "failed":
        (outcome.canRetry ? submitButton.current : panelHeading.current)?.focus();
        return;
      case "unknown":
        newSaleButton.current?.focus();
        return;
      default:
        panelHeading.current?.focus();
    }
    // focusFirstError and setFocus are stable for the form's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state, pending]);

  useEffect(() => {
    if (!prefill || !open || appliedPrefill.current === prefill.nonce) return;
    appliedPrefill.current = prefill.nonce;
    for (const field of SALE_FIELDS) {
      const value = prefill.values[field];
      if (value === undefined) continue;
      const mask = maskFor(field);
      // Shown as if pasted, and checked like typing, so a bad value is flagged before anyone submits.
      setValue(field, mask ? mask(value) : value, {
        shouldValidate: true,
        shouldDirty: true,
      });
    }
  }, [prefill, open, setValue]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const formElement = event.currentTarget;
    // Only a press of "Enviar mesmo assim" confirms a known customer, never an Enter in a field.
    const confirmed = confirmKnownCustomer.current;
    confirmKnownCustomer.current = false;
    void form.handleSubmit(() => {
      // A second click or Enter while the first is on its way does nothing.
      if (busy.current) return;
      busy.current = true;
      const formData = new FormData(formElement);
      if (confirmed) formData.set("knownCustomer", "confirmed");
      startTransition(() => dispatch(formData));
    }, focusFirstError)(event);
  };

  // The outcome describes the data it was given: any edit makes it stale, so it goes, with the provider's marks
  // on the fields (the fix is sent as a new submission).
  const clearOutcome = () => {
    if (locked || (state.ok === false && !state.message)) return;
    for (const field of SALE_FIELDS) {
      if (formState.errors[field]?.type === "server") clearErrors(field);
    }
    setDismissed(answer);
  };

  // Enter sends the sale from every field: a select does not submit its form by itself.
  const submitOnEnter = (event: KeyboardEvent<HTMLSelectElement>) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    event.currentTarget.form?.requestSubmit();
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
    setDismissed(answer);
  };

  const cpf = useMaskedInput(register("customerDocument"), SALE_FIELD_MASKS.customerDocument);
  const phone = useMaskedInput(register("customerPhone"), SALE_FIELD_MASKS.customerPhone);
  const birthDate = useMaskedInput(register("birthDate"), SALE_FIELD_MASKS.birthDate);
  const error = (field: SaleField) => formState.errors[field]?.message;
  const chosenPlanId = useWatch({ control, name: "planId" });
  const chosenPlan = plans?.find((plan) => plan.id === chosenPlanId);

  const newSale = (primary: boolean) => (
    <button
      type="button"
      ref={newSaleButton}
      onClick={startNewSale}
      className={primary ? PRIMARY_BUTTON : SECONDARY_BUTTON}
    >
      Nova venda
    </button>
  );

  return (
    <form onSubmit={submit} onChange={clearOutcome} noValidate className="space-y-5" aria-busy={pending}>
      <input type="hidden" name="submissionId" value={submissionId} />
      {!state.ok && state.message ? (
        <Notice tone="error" ref={messageRef} tabIndex={-1} className="text-sm focus:outline-none">
          {state.message}
        </Notice>
      ) : null}
      {result ? (
        <OutcomePanel result={result} headingRef={panelHeading}>
          {result.status === "unknown" ? newSale(true) : null}
          {result.status === "known-customer" ? (
            <button
              type="button"
              onClick={(event) => {
                confirmKnownCustomer.current = true;
                event.currentTarget.form?.requestSubmit();
              }}
              className={PRIMARY_BUTTON}
            >
              Enviar mesmo assim
            </button>
          ) : null}
        </OutcomePanel>
      ) : null}
      <fieldset disabled={locked} className="grid gap-4 sm:grid-cols-2">
        <legend className="sr-only">Dados do cliente</legend>
        <FormField id="customerDocument" label="CPF" error={error("customerDocument")}>
          {(control) => (
            <input
              {...control}
              {...cpf}
              autoFocus={autoFocus}
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
          hint={
            plans
              ? chosenPlan?.summary || undefined
              : "Identificador do plano (UUID), como informado pelo fornecedor."
          }
        >
          {(control) =>
            plans ? (
              <select
                {...control}
                {...register("planId")}
                onKeyDown={submitOnEnter}
                className={inputClassName}
              >
                <option value="">Selecione o plano</option>
                {plans.map((plan) => (
                  <option key={plan.id} value={plan.id}>
                    {plan.label}
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

      {/* Mounted afresh for each sale on its way, so its count starts at zero. */}
      {pending ? <SlowAnswerNotice /> : null}
      {result?.status === "unknown" ? null : (
        <div className="flex flex-wrap gap-3">
          {result?.status === "known-customer" ? null : (
            <button
              type="submit"
              ref={submitButton}
              disabled={pending}
              // Keeps focus in the field on press: its blur would validate it, push this button down with an
              // error line, and the release would land beside the button, losing the click.
              onMouseDown={(event) => event.preventDefault()}
              className={PRIMARY_BUTTON}
            >
              {pending
                ? "Enviando venda…"
                : result?.status === "failed" || sameSaleOnly
                  ? "Enviar de novo"
                  : "Enviar venda"}
            </button>
          )}
          {result && result.status !== "accepted" && !pending ? newSale(false) : null}
        </div>
      )}
    </form>
  );
}

const PRIMARY_BUTTON = buttonClass({ size: "lg" });
const SECONDARY_BUTTON = buttonClass({ variant: "secondary", size: "lg" });
