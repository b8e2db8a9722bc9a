import { describe, expect, it } from "vitest";
import { sellerName } from "./seller";

describe("a sale's seller in the history", () => {
  it("names the agent, the integration that sold on their behalf, or the integration alone", () => {
    expect(sellerName({ agentName: "Ana Souza", integrationName: null })).toBe("Ana Souza");
    expect(sellerName({ agentName: "Ana Souza", integrationName: "crm" })).toBe("Ana Souza · via crm");
    expect(sellerName({ agentName: null, integrationName: "crm" })).toBe("crm (integração)");
  });
});
