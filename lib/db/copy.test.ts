import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { inlined } from "./copy";

describe("a statement for COPY, its parameters written in", () => {
  it("dollar-quotes text with a tag the text does not hold, whatever quotes or backslashes it has", () => {
    expect(inlined(sql`select ${"a'b\\c"}`)).toBe("select $v$a'b\\c$v$");
    expect(inlined(sql`select ${"x $v$ y"}`)).toBe("select $v0$x $v$ y$v0$");
    expect(inlined(sql`select ${"ends in $v"}`)).toBe("select $v0$ends in $v$v0$");
    expect(inlined(sql`select ${"$v$ and $v0$"}, ${2}`)).toBe("select $v1$$v$ and $v0$$v1$, 2");
  });

  it("refuses what it cannot write as a literal, and a `$` that is not a parameter", () => {
    expect(() => inlined(sql`select ${new Date(0)}`)).toThrow(TypeError);
    expect(() => inlined(sql`select ${Number.NaN}`)).toThrow(TypeError);
    expect(() => inlined(sql`select '$1', ${"a"}`)).toThrow(/not a parameter/);
  });
});
