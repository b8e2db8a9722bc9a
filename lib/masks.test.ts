import { describe, expect, it } from "vitest";
import { caretAfterDigits, cpfMask, dateMask, phoneMask } from "./masks";

describe("masks", () => {
  it.each([
    ["", ""],
    ["5", "5"],
    ["529", "529"],
    ["5299", "529.9"],
    ["529982247", "529.982.247"],
    ["5299822472", "529.982.247-2"],
    ["52998224725", "529.982.247-25"],
    ["529982247251", "529.982.247-25"],
  ])("CPF %j → %j", (digits, formatted) => expect(cpfMask(digits)).toBe(formatted));

  it.each([
    ["11", "(11"],
    ["113", "(11) 3"],
    ["1133334444", "(11) 3333-4444"],
    ["11987654321", "(11) 98765-4321"],
    ["119876543210", "(11) 98765-4321"],
  ])("phone %j → %j", (digits, formatted) => expect(phoneMask(digits)).toBe(formatted));

  it.each([
    ["1", "1"],
    ["170", "17/0"],
    ["17051990", "17/05/1990"],
    ["170519901", "17/05/1990"],
  ])("date %j → %j", (digits, formatted) => expect(dateMask(digits)).toBe(formatted));

  it.each([
    ["17/05/1990", "17/05/1990"],
    ["5/3/1990", "05/03/1990"],
    ["05.03.1990", "05/03/1990"],
    ["5-3-1990", "05/03/1990"],
    ["1990-03-05", "05/03/1990"],
    ["1990-3-5", "05/03/1990"],
    ["05031990", "05/03/1990"],
    [" 1990-03-05 ", "05/03/1990"],
    // Typing over the mask's own slashes is digits, as before.
    ["17/0", "17/0"],
    ["17/05/19", "17/05/19"],
  ])("date pasted as %j → %j", (pasted, formatted) => expect(dateMask(pasted)).toBe(formatted));

  it("keeps a date with no digit as it was, for the field's message to say what is wrong", () => {
    expect(dateMask("ontem")).toBe("ontem");
    expect(dateMask("n/d")).toBe("n/d");
    expect(dateMask("")).toBe("");
    expect(dateMask("   ")).toBe("");
    // A letter among digits is dropped, as typing over the mask always did.
    expect(dateMask("17a05")).toBe("17/05");
  });

  it("formats a CPF or phone pasted with its punctuation", () => {
    expect(cpfMask("529.982.247-25")).toBe("529.982.247-25");
    expect(phoneMask("+55 (11) 98765-4321")).toBe("(11) 98765-4321");
  });

  it("puts the caret after the same number of digits", () => {
    expect(caretAfterDigits("529.982.247-25", 3)).toBe(3);
    expect(caretAfterDigits("529.982.247-25", 4)).toBe(5);
    expect(caretAfterDigits("529.982.247-25", 11)).toBe(14);
    expect(caretAfterDigits("(11) 98765-4321", 0)).toBe(0);
    expect(caretAfterDigits("(11) 98765-4321", 2)).toBe(3);
  });
});

describe("phone numbers pasted with a country code or trunk prefix", () => {
  it.each([
    ["5591987654321", "(91) 98765-4321"],
    ["551133334444", "(11) 3333-4444"],
    ["011987654321", "(11) 98765-4321"],
  ])("%j → %j", (digits, formatted) => expect(phoneMask(digits)).toBe(formatted));
});
