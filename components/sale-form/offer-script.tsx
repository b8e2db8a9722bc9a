"use client";

import { useRef } from "react";
import { confirmationControlId, type SaleEvidence } from "./use-sale-evidence";
import { submitOnEnter } from "./submit-on-enter";

/** The next control of the form after `from` that takes the focus (hidden, disabled and fieldsets skipped). */
function focusNextControl(from: HTMLInputElement) {
  const controls = [...(from.form?.elements ?? [])] as HTMLElement[];
  controls
    .slice(controls.indexOf(from) + 1)
    .find(
      (control) =>
        !(control instanceof HTMLFieldSetElement) &&
        !(control instanceof HTMLInputElement && control.type === "hidden") &&
        !control.matches(":disabled") &&
        control.tabIndex >= 0 &&
        control.getClientRects().length > 0,
    )
    ?.focus();
}

/**
 * The chosen plan's offer script beside the fields: the text the agent reads, then a checkbox per confirmation to
 * tick as the customer says yes. A tick from the keyboard moves on to the next confirmation, then to the next
 * field, so a confirmation costs one key. Posts the script's hash and the ticks (JSON) it showed.
 */
export function OfferScript({ evidence, className }: { evidence: SaleEvidence; className?: string }) {
  const { script, ticks, confirmationsError: error } = evidence;
  // A pointer press on a row: the click that follows is the mouse's, which leaves the focus where it is.
  const pointerPressed = useRef(false);
  if (!script) return null;
  return (
    <section aria-labelledby="offer-script-heading" data-offer-script className={className}>
      <h2 id="offer-script-heading" className="text-base font-semibold text-slate-900">
        Roteiro da oferta{" "}
        <span className="text-sm font-normal text-slate-600">(versão {script.version})</span>
      </h2>
      <p className="mt-1 text-sm whitespace-pre-line text-slate-800">{script.text}</p>
      <fieldset className="mt-2" aria-describedby={error ? "confirmations-error" : undefined}>
        <legend className="text-sm font-medium text-slate-800">Confirmações do cliente</legend>
        {script.confirmations.map((confirmation) => {
          const id = confirmationControlId(confirmation.id);
          const ticked = Object.hasOwn(ticks, confirmation.id);
          const invalid = Boolean(error) && confirmation.required && !ticked;
          return (
            <div
              key={confirmation.id}
              className="mt-1.5 flex items-start gap-2"
              onPointerDown={() => {
                pointerPressed.current = true;
              }}
            >
              <input
                type="checkbox"
                id={id}
                checked={ticked}
                onChange={(event) => evidence.tick(confirmation.id, event.currentTarget.checked)}
                onClick={(event) => {
                  const fromKeyboard = event.detail === 0 && !pointerPressed.current;
                  pointerPressed.current = false;
                  if (fromKeyboard && event.currentTarget.checked) focusNextControl(event.currentTarget);
                }}
                onKeyDown={submitOnEnter}
                aria-invalid={invalid || undefined}
                aria-describedby={invalid ? "confirmations-error" : undefined}
                className="mt-0.5 size-5 shrink-0 accent-brand-600"
              />
              <label htmlFor={id} className="text-sm text-slate-800">
                {confirmation.text}
                {confirmation.required ? null : <span className="text-slate-600"> (opcional)</span>}
              </label>
            </div>
          );
        })}
        {error ? (
          <p id="confirmations-error" className="mt-1.5 text-sm text-red-700">
            {error}
          </p>
        ) : null}
      </fieldset>
      <input type="hidden" name="scriptHash" value={script.hash} />
      <input type="hidden" name="confirmations" value={JSON.stringify(ticks)} />
    </section>
  );
}
