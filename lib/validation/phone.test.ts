import { describe, expect, it } from "vitest";
import { isValidPhone, phoneProblem, VALID_DDDS } from "./phone";

describe("VALID_DDDS", () => {
  it("holds the 67 Brazilian area codes", () => {
    expect(VALID_DDDS.size).toBe(67);
    for (const ddd of ["11", "19", "21", "27", "38", "51", "55", "61", "79", "99"])
      expect(VALID_DDDS.has(ddd)).toBe(true);
    for (const ddd of [
      "10",
      "20",
      "23",
      "25",
      "26",
      "29",
      "30",
      "36",
      "39",
      "50",
      "52",
      "56",
      "60",
      "70",
      "72",
      "76",
      "78",
      "80",
      "90",
    ]) {
      expect(VALID_DDDS.has(ddd)).toBe(false);
    }
  });
});

describe("phoneProblem", () => {
  it.each(["11987654321", "21912345678", "1133334444", "4125551234", "5142223333", "9955554444"])(
    "accepts %s",
    (phone) => {
      expect(phoneProblem(phone)).toBeNull();
      expect(isValidPhone(phone)).toBe(true);
    },
  );

  it.each([
    ["", "length"],
    ["119876543", "length"],
    ["119876543210", "length"],
    ["(11) 98765-4321", "length"],
    ["5511987654321", "length"],
    ["20987654321", "ddd"],
    ["0198765432", "ddd"],
    ["11887654321", "mobile"],
    ["11187654321", "mobile"],
    ["1193334444", "landline"],
    ["1163334444", "landline"],
    ["1113334444", "landline"],
  ])("flags %j as %s", (phone, problem) => {
    expect(phoneProblem(phone)).toBe(problem);
    expect(isValidPhone(phone)).toBe(false);
  });
});
