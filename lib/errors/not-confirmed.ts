/**
 * What the sale form says by itself when a sale's answer never arrived (the connection dropped, the server went
 * away mid-request): nobody knows whether it was recorded, and sending the same sale again is safe. The
 * `not_confirmed` error's message (lib/errors), apart so that the form's JavaScript carries this one message, not
 * the whole table.
 */
export const NOT_CONFIRMED_MESSAGE =
  "Não foi possível confirmar o envio. Envie novamente: se a venda já tiver sido registrada, ela não será duplicada.";
