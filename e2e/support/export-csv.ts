/** The history export's header row (lib/sales/sales-csv.ts), as a spreadsheet reads it: one place for the specs. */
export const EXPORT_HEADER =
  "Data;Protocolo;Situação;Agente;Integração;Cliente;CPF;Plano;ID do cliente no parceiro;Mensagem do fornecedor;Conferida por;Conferida em;Versão do roteiro;Hash do roteiro;Confirmações do cliente;ID da gravação";
