import { expect, test } from "./fixtures";
import { ADDED_SCRIPT_BUDGET_BYTES, BASELINE_PATH, measurePageScripts } from "./support/page-weight";

// Bytes, not time: the same build always loads the same files, so this budget is a test and not a benchmark.
test("each page adds at most 40 kB of gzipped JavaScript over the framework baseline", async ({
  browser,
  signedIn,
}, testInfo) => {
  const signedOut = await (await browser.newContext()).newPage();
  const baseline = await measurePageScripts(signedOut, BASELINE_PATH);
  const signInPage = await measurePageScripts(signedOut, "/sign-in");
  await signedOut.context().close();
  const formPage = await measurePageScripts(signedIn, "/");
  const embedPage = await measurePageScripts(signedIn, "/embed");

  const report = [signInPage, formPage, embedPage].map((measured) => ({
    path: measured.path,
    gzipBytes: measured.gzipBytes,
    addedGzipBytes: measured.gzipBytes - baseline.gzipBytes,
  }));
  await testInfo.attach("page-weight.json", {
    body: JSON.stringify({ baseline: baseline.gzipBytes, pages: report }, null, 2),
    contentType: "application/json",
  });

  // The baseline is the framework's runtime only: if it loaded nothing, the comparison would prove nothing.
  expect(baseline.scripts.length).toBeGreaterThan(0);
  expect(baseline.gzipBytes).toBeGreaterThan(50_000);
  // The form's own code is really there, so the budget is checked against the page it is about.
  await expect(signedIn.getByRole("button", { name: "Enviar venda" })).toBeVisible();
  for (const page of report) {
    expect(page.addedGzipBytes, `${page.path} adds ${page.addedGzipBytes} bytes`).toBeLessThanOrEqual(
      ADDED_SCRIPT_BUDGET_BYTES,
    );
  }
  // Every page loads the framework's files too: the difference is code of ours, not a different runtime.
  const baselineFiles = baseline.scripts.map((script) => script.url);
  expect(formPage.scripts.map((script) => script.url)).toEqual(expect.arrayContaining(baselineFiles));
});
