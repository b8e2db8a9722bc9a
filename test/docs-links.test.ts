import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const PAGES = ["README.md", "bench/NOTES.md", ...readdirSync("docs").map((name) => join("docs", name))];

/** Markdown outside fenced code blocks: a `#` or a `](` inside a shell example is not a heading or a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats numbered. */
function anchors(path: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(readFileSync(path, "utf8")).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Every link of a page to a file of this repository (not a URL), with its anchor. */
function links(path: string): { target: string; anchor: string | undefined; text: string }[] {
  return [...prose(readFileSync(path, "utf8")).matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)]
    .map(([, text, href]) => ({ text: text!, href: href! }))
    .filter(({ href }) => !/^[a-z]+:/i.test(href))
    .map(({ text, href }) => {
      const [file, anchor] = href.split("#") as [string, string | undefined];
      return { text, anchor, target: file === "" ? path : normalize(join(dirname(path), file)) };
    });
}

describe("the documentation's own links", () => {
  it.each(PAGES)("%s: every link reaches a file, and every anchor a heading of it", (page) => {
    const broken = links(page)
      .filter(({ target, anchor }) => {
        if (!existsSync(target)) return true;
        if (anchor === undefined) return false;
        return !(statSync(target).isFile() && target.endsWith(".md") && anchors(target).has(anchor));
      })
      .map(({ text, target, anchor }) => `[${text}] → ${target}${anchor === undefined ? "" : `#${anchor}`}`);
    expect(broken).toEqual([]);
  });

  it("the README's map reaches every page in docs/", () => {
    const mapped = new Set(links("README.md").map(({ target }) => target));
    const unmapped = readdirSync("docs")
      .map((name) => join("docs", name))
      .filter((page) => !mapped.has(page));
    expect(unmapped).toEqual([]);
  });

  it("finds a broken link and a missing anchor (the checker itself)", () => {
    expect(anchors("README.md")).toContain("documentation");
    expect(links("README.md").some(({ target }) => target === "docs/selling.md")).toBe(true);
    expect(anchors("docs/embedding.md")).toContain("events-and-error-codes");
    expect(anchors("docs/embedding.md")).not.toContain("no-such-heading");
  });
});
