import { expect, it } from "vitest";
import { MAX_RECORDED_REQUESTS, SandboxState } from "./state";

it("keeps only the last 1000 sale requests", () => {
  const state = new SandboxState(3600);
  for (let index = 0; index < MAX_RECORDED_REQUESTS + 5; index++) {
    state.recordRequest({ receivedAt: "", method: "POST", path: "/", headers: {}, rawBody: String(index) });
  }
  expect(MAX_RECORDED_REQUESTS).toBe(1000);
  expect(state.requests).toHaveLength(1000);
  expect(state.requests[0]!.rawBody).toBe("5");
  expect(state.requests.at(-1)!.rawBody).toBe("1004");
});
