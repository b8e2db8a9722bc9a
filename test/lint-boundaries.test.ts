import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root });

/** The rules that fire on `code` as if it were the file at `path` (which need not exist). */
async function rulesFiring(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return result!.messages.map((message) => message.ruleId ?? message.message);
}

describe("the layers, as lint rules", () => {
  it.each([
    [
      "a client component imports the database",
      "components/widget.tsx",
      '"use client";\nimport { getDb } from "@/lib/db";\nexport const x = getDb;\n',
      "partner-sales/client-boundary",
    ],
    [
      "a client component imports a server-only module by a relative path",
      "components/sale-form/widget.tsx",
      '"use client";\nimport { verifySession } from "../../lib/dal/session";\nexport const x = verifySession;\n',
      "partner-sales/client-boundary",
    ],
    [
      "a client component imports a server package",
      "app/(sales)/widget.tsx",
      '"use client";\nimport pg from "pg";\nexport const x = pg;\n',
      "partner-sales/client-boundary",
    ],
    [
      "a client component takes the whole error table for one message",
      "components/sale-form/widget.tsx",
      '"use client";\nimport { userMessageFor } from "@/lib/errors";\nexport const x = userMessageFor("not_confirmed");\n',
      "partner-sales/client-boundary",
    ],
    [
      "a client component takes the frame's whole table for its own messages",
      "components/embed/widget.tsx",
      '"use client";\nimport { EMBED_ERROR_MESSAGES } from "@/lib/errors/embed";\nexport const x = EMBED_ERROR_MESSAGES.token_expired;\n',
      "partner-sales/client-boundary",
    ],
    [
      "a client component passes the whole error table on",
      "components/widget.ts",
      '"use client";\nexport { userMessageFor } from "@/lib/errors";\n',
      "partner-sales/client-boundary",
    ],
    [
      "a client component loads the database on demand",
      "components/widget.tsx",
      '"use client";\nexport const load = () => import("@/lib/db");\n',
      "partner-sales/client-boundary",
    ],
    [
      "lib/validation imports the configuration",
      "lib/validation/widget.ts",
      'import { getConfig } from "@/lib/env";\nexport const x = getConfig;\n',
      "partner-sales/client-boundary",
    ],
    [
      "a page imports the database",
      "app/(sales)/widget/page.tsx",
      'import { getDb } from "@/lib/db";\nexport default async function Page() { await getDb(); return null; }\n',
      "@typescript-eslint/no-restricted-imports",
    ],
    [
      "a component imports a query",
      "components/widget.tsx",
      'import { listAgents } from "@/lib/db/queries/agents";\nexport const x = listAgents;\n',
      "@typescript-eslint/no-restricted-imports",
    ],
    [
      "lib imports a route of app/",
      "lib/widget.ts",
      'import Page from "@/app/(sales)/page";\nexport const x = Page;\n',
      "no-restricted-imports",
    ],
    [
      "a component imports app/ by a relative path",
      "components/widget.tsx",
      'import Page from "../app/(sales)/page";\nexport const x = Page;\n',
      "no-restricted-imports",
    ],
    [
      "lib/auth writes its own SQL",
      "lib/auth/widget.ts",
      'import { sql } from "drizzle-orm";\nexport const x = sql`select 1`;\n',
      "no-restricted-imports",
    ],
    [
      "a route writes its own SQL",
      "app/api/widget/route.ts",
      'import { eq } from "drizzle-orm";\nexport const x = eq;\n',
      "no-restricted-imports",
    ],
    [
      "lib/dal builds an HTTP answer",
      "lib/dal/widget.ts",
      'import { errorResponse } from "@/lib/http/json";\nexport const x = errorResponse;\n',
      "no-restricted-imports",
    ],
    [
      "lib/dal calls the sale use case above it",
      "lib/dal/widget.ts",
      'import { sellAsSignedInAgent } from "@/lib/sales/sell";\nexport const x = sellAsSignedInAgent;\n',
      "no-restricted-imports",
    ],
    [
      "lib/dal writes its own SQL (the rule repeated in its block)",
      "lib/dal/widget.ts",
      'import { sql } from "drizzle-orm";\nexport const x = sql`select 1`;\n',
      "no-restricted-imports",
    ],
    [
      "lib/dal calls the sale use case by a relative path",
      "lib/dal/widget.ts",
      'import { sellAsSignedInAgent } from "../sales/sell";\nexport const x = sellAsSignedInAgent;\n',
      "no-restricted-imports",
    ],
    [
      "lib/errors reads the configuration by a relative path",
      "lib/errors/widget.ts",
      'import { getConfig } from "../env";\nexport const x = getConfig;\n',
      "@typescript-eslint/no-restricted-imports",
    ],
    [
      "lib/errors reads the configuration",
      "lib/errors/widget.ts",
      'import { getConfig } from "@/lib/env";\nexport const x = getConfig;\n',
      "@typescript-eslint/no-restricted-imports",
    ],
  ])("fails when %s", async (_what, path, code, rule) => {
    expect(await rulesFiring(path, code)).toContain(rule);
  });

  it.each([
    [
      "a client component imports a server action and a server-only module's type",
      "components/widget.tsx",
      '"use client";\nimport { submitSaleAction } from "@/lib/actions/sales";\nimport type { PlanOption } from "@/lib/dal/plans";\nexport const action = submitSaleAction;\nexport const plan: PlanOption | null = null;\n',
    ],
    [
      "a page reads through lib/dal and names a database type",
      "app/(sales)/widget/page.tsx",
      'import { listPlans } from "@/lib/dal/plans";\nimport type { SaleStatus } from "@/lib/db/schema";\nexport default function Page() { const s: SaleStatus | null = null; return String(listPlans.length) + String(s); }\n',
    ],
    [
      "a client component names the error table's types and takes the frame's messages",
      "components/embed/widget.tsx",
      '"use client";\nimport type { ErrorBody } from "@/lib/errors";\nimport { FRAME_OWN_MESSAGES } from "@/lib/errors/embed-frame";\nexport const x: ErrorBody | string = FRAME_OWN_MESSAGES.token_unavailable;\n',
    ],
    [
      "a client component passes a server type on",
      "components/widget.ts",
      '"use client";\nexport type { ErrorBody } from "@/lib/errors";\n',
    ],
    [
      "lib/validation imports its own kind",
      "lib/validation/widget.ts",
      'import { SALE_FIELDS } from "@/lib/validation/sale";\nexport const x = SALE_FIELDS;\n',
    ],
    [
      "lib/dal reads through a query and names an HTTP-free refusal",
      "lib/dal/widget.ts",
      'import { findSale } from "@/lib/db/queries/sales";\nimport type { RequestErrorCode } from "@/lib/errors";\nexport const x = findSale;\nexport type Y = RequestErrorCode;\n',
    ],
    [
      "lib/errors names a database type",
      "lib/errors/widget.ts",
      'import type { SaleStatus } from "@/lib/db/schema";\nexport type X = SaleStatus;\n',
    ],
    [
      "a query writes SQL",
      "lib/db/queries/widget.ts",
      'import { sql } from "drizzle-orm";\nexport const x = sql`select 1`;\n',
    ],
  ])("passes when %s (the control)", async (_what, path, code) => {
    expect(await rulesFiring(path, code)).toEqual([]);
  });
});
