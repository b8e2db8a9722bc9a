import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { EMBED_ERROR_CODES, PORTAL_SIDE_ERROR_CODES } from "@/lib/errors/embed";

const page = readFileSync("docs/embedding.md", "utf8");
const section = page.slice(page.indexOf("## Events and error codes"), page.indexOf("## Appearance"));
const firstColumn = (pattern: RegExp) => [...section.matchAll(pattern)].map((match) => match[1]);

describe("what portal developers read", () => {
  // The project's type-check skips declaration files (skipLibCheck): an error inside this one would only show as
  // a type quietly turned `any`. A portal compiles it with no Node types and none of ours.
  it("public/embed.d.ts compiles on its own, strictly, with the DOM library only", () => {
    const program = ts.createProgram(["public/embed.d.ts"], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      lib: ["lib.es2020.d.ts", "lib.dom.d.ts"],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    expect(problems).toEqual([]);
  });

  it("the embedding page's table lists every error code the frame or embed.js may post, and no other", () => {
    const codes = firstColumn(/^\| `([a-z_]+)` +\|/gm).filter((cell) => cell !== "code"); // not the header
    expect(codes.sort()).toEqual([...EMBED_ERROR_CODES, ...PORTAL_SIDE_ERROR_CODES].sort());
  });

  it("the embedding page lists every event and message, as public/embed.d.ts declares them", () => {
    const declarations = readFileSync("public/embed.d.ts", "utf8");
    const declared = [...declarations.matchAll(/type: "(partner-sales:[a-z]+)"/g)].map((match) => match[1]);
    expect(firstColumn(/^\| `(partner-sales:[a-z]+)` +\|/gm).sort()).toEqual(declared.sort());
  });
});
