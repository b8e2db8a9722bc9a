/** Display helpers shared by pages: pt-BR, São Paulo time, CPF masked in lists. */
const dateTime = new Intl.DateTimeFormat("pt-BR", {
  dateStyle: "short",
  timeStyle: "medium",
  timeZone: "America/Sao_Paulo",
});

export const formatDateTime = (date: Date) => dateTime.format(date);

/** "52998224725" → "***.982.247-**": enough to tell customers apart in a list, not to identify one. */
export function maskCpf(digits: string): string {
  return `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`;
}

export function formatCpf(digits: string): string {
  return `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`;
}

export function formatPhone(digits: string): string {
  return digits.length === 11
    ? `(${digits.slice(0, 2)}) ${digits.slice(2, 7)}-${digits.slice(7)}`
    : `(${digits.slice(0, 2)}) ${digits.slice(2, 6)}-${digits.slice(6)}`;
}

export function formatIsoDate(iso: string): string {
  const [year, month, day] = iso.split("-");
  return `${day}/${month}/${year}`;
}

/** The one status vocabulary: the outcome panel ("Venda aceita"), the history, the sale page and the export. */
export const STATUS_LABELS = {
  pending: "Em envio",
  accepted: "Aceita",
  rejected: "Recusada",
  failed: "Não enviada",
  unknown: "A confirmar",
} as const;
