export type SandboxLog = (entry: Record<string, unknown>) => void;

export function formatJsonLine(entry: Record<string, unknown>): string {
  return `${JSON.stringify({ time: new Date().toISOString(), service: "sandbox", ...entry })}\n`;
}

export const writeJsonLine: SandboxLog = (entry) => {
  process.stdout.write(formatJsonLine(entry));
};
