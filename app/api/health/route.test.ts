import { afterEach, describe, expect, it } from "vitest";
import { setStarting } from "@/lib/lifecycle";
import { GET } from "./route";

describe("GET /api/health while the server starts", () => {
  afterEach(() => setStarting(false));

  it("answers 503 starting, with a Retry-After, before reading the database", async () => {
    setStarting(true);
    const response = await GET(new Request("http://localhost/api/health"));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).not.toBeNull();
    expect(await response.json()).toEqual({ status: "starting" });
  });
});
