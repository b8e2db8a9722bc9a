import { describe, expect, it } from "vitest";
import { formatProtocol, newProtocol, parseProtocol, PROTOCOL_ALPHABET, PROTOCOL_LENGTH } from "./protocol";

describe("sale protocol", () => {
  it("is ten characters of Crockford's base32 that check, shown in two groups", () => {
    for (let index = 0; index < 1_000; index++) {
      const protocol = newProtocol();
      expect(protocol).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
      expect(parseProtocol(protocol)).toBe(protocol);
      expect(parseProtocol(formatProtocol(protocol).toLowerCase())).toBe(protocol);
    }
    expect(formatProtocol("7KQ2MX9R4B")).toBe("7KQ2M-X9R4B");
  });

  it("reads O as 0 and I or L as 1, and refuses what is not a protocol", () => {
    const protocol = newProtocol();
    const typed = formatProtocol(protocol).replace(/0/g, "o").replace(/1/g, "l");
    expect(parseProtocol(` ${typed} `)).toBe(protocol);
    expect(parseProtocol(protocol.slice(1))).toBeNull();
    expect(parseProtocol(`${protocol}0`)).toBeNull();
    expect(parseProtocol(`${protocol.slice(0, 9)}U`)).toBeNull();
  });

  // Every position, every wrong character; every adjacent pair swapped: exhaustive over many protocols.
  it("catches every single mistyped character and every swap of two neighbours", () => {
    for (let sample = 0; sample < 200; sample++) {
      const protocol = newProtocol();
      for (let position = 0; position < PROTOCOL_LENGTH; position++) {
        for (const wrong of PROTOCOL_ALPHABET) {
          if (wrong === protocol[position]) continue;
          const mistyped = protocol.slice(0, position) + wrong + protocol.slice(position + 1);
          expect(parseProtocol(mistyped), mistyped).toBeNull();
        }
        if (position + 1 < PROTOCOL_LENGTH && protocol[position] !== protocol[position + 1]) {
          const swapped =
            protocol.slice(0, position) +
            protocol[position + 1] +
            protocol[position] +
            protocol.slice(position + 2);
          expect(parseProtocol(swapped), swapped).toBeNull();
        }
      }
    }
  });
});
