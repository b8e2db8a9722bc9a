"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMemo } from "react";
import { useForm, useWatch } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { FormField, inputClassName } from "@/components/ui/form-field";
import { Notice } from "@/components/ui/notice";
import type { PlanOption } from "@/lib/plans";
import { SALE_FIELD_MASKS } from "@/lib/masks";
import { MAX_RECORDING_ID_LENGTH } from "@/lib/validation/evidence";
import {
  createSaleSchema,
  EMPTY_SALE,
  type SaleField,
  type SaleFormValues,
  type ValidSale,
} from "@/lib/validation/sale";
import { OfferScript } from "./offer-script";
import { OutcomePanel } from "./outcome-panel";
import { SlowAnswerNotice } from "./slow-answer-notice";
import { submitOnEnter } from "./submit-on-enter";
import { useMaskedInput } from "./use-masked-input";
import { useOutcomeFocus } from "./use-outcome-focus";
import { RECORDING_ID_CONTROL, useSaleEvidence } from "./use-sale-evidence";
import { usePortalPrefill, type Prefill } from "./use-portal-prefill";
import { useSaleSubmission, type OutcomeReport, type SaleAction } from "./use-sale-submission";

export interface SaleFormProps {
  plans: PlanOption[] | null;
  initialSubmissionId: string;
  saleAction: SaleAction;
  /** Values to put in the form (from a partner portal); a new nonce applies them again. Never submits. */
  prefill?: Prefill;
  /** Called with each recorded outcome; carries no personal data. */
  onOutcome?: OutcomeReport;
  /** Put the cursor in the plan when the form appears (not inside a portal, whose page owns the focus). */
  autoFocus?: boolean;
}

/**
 * The sale form: what the agent types, rendered. Its jobs are hooks of their own: the trip to the server
 * (useSaleSubmission), where the focus goes after it (useOutcomeFocus), a portal's prefill (usePortalPrefill),
 * the masks (useMaskedInput, lib/masks.ts).
 */
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
  const { register, formState, setFocus, setValue, control } = form;
  const chosenPlanId = useWatch({ control, name: "planId" });
  const chosenPlan = plans?.find((plan) => plan.id === chosenPlanId);
  const evidence = useSaleEvidence(chosenPlan?.script ?? null);
  const scripted = evidence.script !== null;

  const submission = useSaleSubmission({ form, saleAction, initialSubmissionId, onOutcome, evidence });
  const { submissionId, state, result, pending, sameSaleOnly, locked } = submission;

  const { panelHeadingRef, messageRef, submitButtonRef, newSaleButtonRef, focusFirstFieldWhenCleared } =
    useOutcomeFocus(submission, setFocus);
  usePortalPrefill(prefill, submission.openToPrefill, setValue, evidence.prefillRecordingId);

  const startNewSale = () => {
    submission.startNewSale();
    focusFirstFieldWhenCleared();
  };

  const cpf = useMaskedInput(register("customerDocument"), SALE_FIELD_MASKS.customerDocument);
  const phone = useMaskedInput(register("customerPhone"), SALE_FIELD_MASKS.customerPhone);
  const birthDate = useMaskedInput(register("birthDate"), SALE_FIELD_MASKS.birthDate);
  const error = (field: SaleField) => formState.errors[field]?.message;

  const newSale = (primary: boolean) => (
    <Button
      ref={newSaleButtonRef}
      onClick={startNewSale}
      variant={primary ? "primary" : "secondary"}
      size="lg"
    >
      Nova venda
    </Button>
  );

  return (
    <form
      onSubmit={submission.submit}
      onChange={submission.clearOutcome}
      noValidate
      className="space-y-5"
      aria-busy={pending}
    >
      <input type="hidden" name="submissionId" value={submissionId} />
      {!state.ok && state.message ? (
        <Notice tone="error" ref={messageRef} tabIndex={-1} className="text-sm focus:outline-none">
          {state.message}
        </Notice>
      ) : null}
      {result ? (
        <OutcomePanel result={result} headingRef={panelHeadingRef}>
          {result.status === "unknown" ? newSale(true) : null}
          {result.status === "known_customer" ? (
            <Button
              size="lg"
              onClick={(event) => {
                submission.confirmKnownCustomer();
                event.currentTarget.form?.requestSubmit();
              }}
            >
              Enviar mesmo assim
            </Button>
          ) : null}
        </OutcomePanel>
      ) : null}
      {/* The plan first, as the offer comes first on the call. With an offer script, wide screens get a third
          column for it, beside every field (no scrolling between reading and typing), and Tab goes from the plan
          to its confirmations there and back to the CPF beside the plan (a row of its own for the plan would push
          the button out of a 1366×657 view); narrower ones, a portal's frame too, show it under the plan. */}
      <fieldset
        disabled={locked}
        className={`grid gap-4 sm:grid-cols-2 ${scripted ? "lg:grid-cols-[1fr_1fr_minmax(20rem,1.2fr)] lg:grid-rows-[repeat(4,auto)_1fr]" : ""}`}
      >
        <legend className="sr-only">Dados do cliente</legend>
        <FormField
          id="planId"
          label="Plano"
          className={scripted ? "sm:col-span-2 lg:col-span-1" : undefined}
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
                autoFocus={autoFocus}
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
                autoFocus={autoFocus}
                autoComplete="off"
                spellCheck={false}
                className={inputClassName}
              />
            )
          }
        </FormField>
        <OfferScript
          evidence={evidence}
          className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 sm:col-span-2 lg:col-span-1 lg:col-start-3 lg:row-span-full lg:row-start-1 lg:self-start"
        />
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
        {scripted ? (
          <FormField
            id={RECORDING_ID_CONTROL}
            label="ID da gravação da chamada"
            error={evidence.recordingIdError}
            hint="Opcional. Copie do discador, que grava a chamada."
          >
            {(control) => (
              <input
                {...control}
                name="recordingId"
                value={evidence.recordingId}
                onChange={(event) => evidence.changeRecordingId(event.currentTarget.value)}
                onBlur={evidence.checkRecordingId}
                autoComplete="off"
                spellCheck={false}
                maxLength={MAX_RECORDING_ID_LENGTH}
                className={inputClassName}
              />
            )}
          </FormField>
        ) : null}
      </fieldset>

      {/* Mounted afresh for each sale on its way, so its count starts at zero. */}
      {pending ? <SlowAnswerNotice /> : null}
      {result?.status === "unknown" ? null : (
        <div className="flex flex-wrap gap-3">
          {result?.status === "known_customer" ? null : (
            <Button
              type="submit"
              size="lg"
              ref={submitButtonRef}
              disabled={pending}
              // Keeps focus in the field on press: its blur would validate it, push this button down with an
              // error line, and the release would land beside the button, losing the click.
              onMouseDown={(event) => event.preventDefault()}
            >
              {pending
                ? "Enviando venda…"
                : result?.status === "failed" || sameSaleOnly
                  ? "Enviar de novo"
                  : "Enviar venda"}
            </Button>
          )}
          {result && result.status !== "accepted" && !pending ? newSale(false) : null}
        </div>
      )}
    </form>
  );
}
