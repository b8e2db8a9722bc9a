import { describe, expect, it } from "vitest";
import { cpfCheckDigits, cpfProblem, isValidCpf, onlyDigits } from "./cpf";

describe("onlyDigits", () => {
  it("drops punctuation and spaces", () => {
    expect(onlyDigits(" 529.982.247-25 ")).toBe("52998224725");
    expect(onlyDigits("")).toBe("");
  });
});

describe("cpfCheckDigits", () => {
  it("computes both check digits", () => {
    expect(cpfCheckDigits("529982247")).toBe("25");
    expect(cpfCheckDigits("111444777")).toBe("35");
    expect(cpfCheckDigits("390533447")).toBe("05");
  });

  it("gives 0 when the remainder is 0 or 1", () => {
    // Weighted sums: 3·3 + 1·2 = 11 (remainder 0) and 4·3 = 12 (remainder 1).
    expect(cpfCheckDigits("000000031")).toBe("07");
    expect(cpfCheckDigits("000000040")).toBe("06");
  });

  it("rejects a base that is not 9 digits", () => {
    expect(() => cpfCheckDigits("12345678")).toThrow();
  });
});

describe("cpfProblem", () => {
  it.each(["52998224725", "11144477735", "39053344705", "00000000191"])("accepts %s", (cpf) => {
    expect(cpfProblem(cpf)).toBeNull();
    expect(isValidCpf(cpf)).toBe(true);
  });

  it.each([
    ["", "length"],
    ["5299822472", "length"],
    ["529982247250", "length"],
    ["529.982.247-25", "length"],
    ["5299822472a", "length"],
    ["00000000000", "repeated"],
    ["99999999999", "repeated"],
    ["52998224724", "check-digit"],
    ["52998224715", "check-digit"],
  ])("flags %j as %s", (cpf, problem) => {
    expect(cpfProblem(cpf)).toBe(problem);
    expect(isValidCpf(cpf)).toBe(false);
  });
});
