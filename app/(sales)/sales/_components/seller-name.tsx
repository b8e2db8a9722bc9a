import { sellerParts, type SaleSellers } from "@/lib/sales/seller";

/**
 * Who sold it, as the history shows it. An integration's name is what an operator called a system ("crm-sp"), kept
 * as written: `data-name` tells readers and checks of the app's pt-BR words that it is a name, not a word of ours.
 */
export function SellerName(sellers: SaleSellers) {
  return sellerParts(sellers).map((part, index) =>
    part.name ? (
      <span key={index} data-name translate="no">
        {part.text}
      </span>
    ) : (
      part.text
    ),
  );
}
