import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_PROGRAMS } from "../../scripts/debian-packages";

export interface IssuedCertificate {
  certificateFile: string;
  keyFile: string;
}

export interface TestCa {
  /** The CA's certificate (PEM): what a client is told to trust (sslrootcert, ca_file, OTEL_EXPORTER_OTLP_CERTIFICATE). */
  caFile: string;
  /** A server certificate signed by this CA for `altNames` ("DNS:localhost", "IP:127.0.0.1"). */
  issue(name: string, altNames: string[]): IssuedCertificate;
  remove(): void;
}

function openssl(args: string[]): void {
  const made = spawnSync(TEST_PROGRAMS.openssl.path, args, { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`openssl ${args[0]}: ${made.stderr}`);
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/**
 * A certificate authority made now, valid for a day, as an operator's internal CA would be: the servers get
 * certificates it signs, and the clients trust it alone, so a test that passes has verified chain and host name.
 */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "partner-sales-ca-"));
  const caFile = join(dir, "ca.pem");
  const caKey = join(dir, "ca.key");
  openssl(
    ["req", "-x509", ...EC_KEY, "-days", "1", "-subj", "/CN=Partner Sales test CA"].concat([
      "-keyout",
      caKey,
      "-out",
      caFile,
    ]),
  );
  return {
    caFile,
    issue(name, altNames) {
      const keyFile = join(dir, `${name}.key`);
      const request = join(dir, `${name}.csr`);
      const certificateFile = join(dir, `${name}.pem`);
      openssl(
        [
          "req",
          "-new",
          ...EC_KEY,
          "-subj",
          `/CN=${name}`,
          "-addext",
          `subjectAltName=${altNames.join(",")}`,
        ].concat(["-keyout", keyFile, "-out", request]),
      );
      openssl([
        "x509",
        "-req",
        "-in",
        request,
        "-CA",
        caFile,
        "-CAkey",
        caKey,
        "-days",
        "1",
        "-copy_extensions",
        "copy",
        "-out",
        certificateFile,
      ]);
      return { certificateFile, keyFile };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
