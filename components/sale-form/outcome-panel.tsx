import type { ReactNode, Ref } from "react";
import { Notice, type NoticeTone } from "@/components/ui/notice";
import type { KnownCustomer } from "@/lib/sales/sell";
import type { SaleResult } from "@/lib/sales/sale-result";

const TONE: Record<SaleResult["status"] | KnownCustomer["status"], NoticeTone> = {
  accepted: "success",
  rejected: "error",
  failed: "warning",
  unknown: "warning",
  pending: "progress",
  known_customer: "warning",
};

/**
 * The outcome of the last submission: what happened in our words, the provider's own words quoted apart, the
 * protocol to read to the customer, and the next action. The heading takes the focus where no action does.
 */
export function OutcomePanel({
  result,
  headingRef,
  children,
}: {
  result: SaleResult | KnownCustomer;
  headingRef: Ref<HTMLHeadingElement>;
  /** The outcome's next action. */
  children?: ReactNode;
}) {
  const known = result.status === "known_customer";
  return (
    <Notice
      as="div"
      tone={TONE[result.status]}
      // Every outcome but an accepted sale needs the agent now, a sale on its way (progress) included.
      role={result.status === "accepted" ? "status" : "alert"}
      data-status={result.status}
      className="scroll-mt-4"
    >
      <h2 ref={headingRef} tabIndex={-1} className="font-semibold focus:outline-none">
        {known
          ? result.earlier === "accepted"
            ? "Este cliente já tem este plano"
            : "Este cliente tem uma venda deste plano a confirmar"
          : result.title}
      </h2>
      {known ? (
        <p className="mt-1 text-sm">
          {result.earlier === "accepted" ? "Venda aceita" : "Venda enviada sem confirmação do fornecedor"} em{" "}
          {result.soldAt}, protocolo <span className="font-mono">{result.protocol}</span>.{" "}
          {result.earlier === "accepted"
            ? "Se o cliente quer mesmo outra assinatura igual, envie mesmo assim; se não, altere o plano ou o CPF."
            : "Ela pode ter sido registrada: envie de novo só se um supervisor confirmou que não foi; se não, altere o plano ou o CPF."}
        </p>
      ) : (
        <>
          <p className="mt-1 text-sm">
            {result.detail}
            {result.status === "accepted" ? " O formulário já está pronto para a próxima venda." : null}
          </p>
          {result.upstreamMessage ? (
            <p className="mt-1 text-sm">
              Mensagem do fornecedor: <q data-provider-message>{result.upstreamMessage}</q>
            </p>
          ) : null}
          {result.customerScript ? (
            <p className="mt-2 text-sm">
              <span className="font-medium">Diga ao cliente:</span> “{result.customerScript}”
            </p>
          ) : null}
          <p className="mt-2 text-sm">
            Protocolo:{" "}
            <strong className="font-mono text-base tracking-wider" data-protocol>
              {result.protocol}
            </strong>
          </p>
        </>
      )}
      {children ? <div className="mt-3 flex flex-wrap gap-3">{children}</div> : null}
    </Notice>
  );
}
