import { describe, expect, it } from "vitest";
import { sellerParts } from "./seller";

const words = (parts: ReturnType<typeof sellerParts>) => parts.map((part) => part.text).join("");

describe("a sale's seller in the history", () => {
  it("names the agent, the integration that sold on their behalf, or the integration alone", () => {
    expect(words(sellerParts({ agentName: "Ana Souza", integrationName: null }))).toBe("Ana Souza");
    expect(words(sellerParts({ agentName: "Ana Souza", integrationName: "crm" }))).toBe(
      "Ana Souza · via crm",
    );
    expect(words(sellerParts({ agentName: null, integrationName: "crm" }))).toBe("crm (integração)");
  });

  it("marks the integration's name as a name, not the app's words", () => {
    expect(
      sellerParts({ agentName: "Ana Souza", integrationName: "crm-1" }).filter((part) => part.name),
    ).toEqual([{ text: "crm-1", name: true }]);
  });
});
