export type SandboxLog = (entry: Record<string, unknown>) => void;

export const writeJsonLine: SandboxLog = (entry) => {
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), service: "sandbox", ...entry })}\n`,
  );
};
