import { describe, expect, it } from "vitest";
import { checkEndpointUrl } from "./endpoint-url";

const live = { allowHttp: false, allowedNetworks: [] };
const sandbox = { allowHttp: true, allowedNetworks: ["127.0.0.0/8", "::1/128"] };

describe("an endpoint's URL", () => {
  it("in live mode is https:// to a public address, without credentials", () => {
    expect(checkEndpointUrl("https://crm.example/hooks?x=1", live)).toEqual({
      url: "https://crm.example/hooks?x=1",
    });
    expect(checkEndpointUrl("https://200.147.67.142/hooks", live)).toEqual({
      url: "https://200.147.67.142/hooks",
    });
    for (const [url, problem] of [
      [undefined, /--url is required/],
      ["crm.example/hooks", /--url is not a URL/],
      ["http://crm.example/hooks", /--url must be https:\/\/ \(got http:\/\/\)/],
      ["ftp://crm.example/hooks", /--url must be https:\/\//],
      ["https://user:pw@crm.example/hooks", /may not carry a user or password/],
      ["https://127.0.0.1/hooks", /points at 127\.0\.0\.1/],
      ["https://10.1.2.3/hooks", /points at 10\.1\.2\.3/],
      ["https://169.254.169.254/latest/meta-data", /points at 169\.254\.169\.254/],
      ["https://[::1]/hooks", /points at ::1/],
      ["https://[::ffff:10.1.2.3]/hooks", /points at ::ffff:a01:203/],
      ["https://0x7f.1/hooks", /points at 127\.0\.0\.1/],
      ["https://192.168.0.10/hooks", /points at 192\.168\.0\.10/],
    ] as const) {
      const checked = checkEndpointUrl(url, live);
      expect(checked, String(url)).toHaveProperty("problem");
      expect((checked as { problem: string }).problem, String(url)).toMatch(problem);
    }
  });

  it("lets through only the networks the operator lists, never the metadata service", () => {
    const onPremises = { allowHttp: false, allowedNetworks: ["10.1.0.0/16", "169.254.0.0/16"] };
    expect(checkEndpointUrl("https://10.1.2.3/hooks", onPremises)).toEqual({ url: "https://10.1.2.3/hooks" });
    expect(checkEndpointUrl("https://10.2.0.1/hooks", onPremises)).toHaveProperty("problem");
    expect(checkEndpointUrl("https://169.254.169.254/", onPremises)).toHaveProperty("problem");
  });

  it("in the sandbox also takes http:// and this host, for webhooks listen", () => {
    expect(checkEndpointUrl("http://127.0.0.1:4100/", sandbox)).toEqual({ url: "http://127.0.0.1:4100/" });
    expect(checkEndpointUrl("http://[::1]:4100/", sandbox)).toEqual({ url: "http://[::1]:4100/" });
    expect(checkEndpointUrl("http://10.0.0.1/", sandbox)).toHaveProperty("problem");
  });
});
