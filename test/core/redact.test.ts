import { describe, expect, it } from "vitest";
import { containsSecret, REDACTED, redactSecrets } from "../../src/core/redact";

// Built at runtime so the fixtures themselves do not look like leaked credentials to scanners.
const rep = (unit: string, n: number) => unit.repeat(n);

describe("redactSecrets", () => {
  const cases: Array<[string, string, string]> = [
    ["Bearer token", `Authorization: Bearer abc123DEF456ghi789`, `Authorization: Bearer ${REDACTED}`],
    ["OpenAI key", `key is sk-${rep("aB3", 16)} ok`, `key is ${REDACTED} ok`],
    ["OpenAI project key", `sk-proj-${rep("Xy9_", 12)}`, REDACTED],
    ["GitHub classic token", `token ghp_${rep("a1B2", 9)} end`, `token ${REDACTED} end`],
    ["GitHub OAuth token", `gho_${rep("Z9y8", 9)}`, REDACTED],
    ["GitHub fine-grained PAT", `github_pat_11ABCDEFG0${rep("x_Y1", 10)}`, REDACTED],
    ["AWS access key id", `aws_access_key_id AKIAIOSFODNN7EXAMPLE here`, `aws_access_key_id ${REDACTED} here`],
    ["Slack token", `xoxb-123456789012-${rep("AbC1", 6)}`, REDACTED],
    ["Google API key", `?key=AIza${rep("Sy_9-", 7)}`, `?key=${REDACTED}`],
    ["JWT", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U.", `jwt ${REDACTED}.`],
    ["Praxis key", `use pxk_0123456789ab_${rep("Qw-_9", 9)} now`, `use ${REDACTED} now`],
    ["URL password", "postgres://app:s3cr3t-pw@db.internal:5432/app", `postgres://app:${REDACTED}@db.internal:5432/app`],
  ];
  for (const [name, input, expected] of cases) {
    it(`masks ${name}`, () => {
      expect(redactSecrets(input)).toBe(expected);
      expect(containsSecret(input)).toBe(true);
    });
  }

  it("keeps the key name of assignments and masks only the value", () => {
    expect(redactSecrets("api_key=abc123 next")).toBe(`api_key=${REDACTED} next`);
    expect(redactSecrets("apikey: 9f8e7d6c")).toBe(`apikey: ${REDACTED}`);
    expect(redactSecrets("password=hunter2&user=bob")).toBe(`password=${REDACTED}&user=bob`);
    expect(redactSecrets("SECRET = 'two words'")).toBe(`SECRET = '${REDACTED}'`);
    expect(redactSecrets('{"token": "t-1", "user": "bob"}')).toBe(`{"token": "${REDACTED}", "user": "bob"}`);
    expect(redactSecrets("export DB_PASSWORD=correcthorse")).toBe(`export DB_PASSWORD=${REDACTED}`);
    expect(redactSecrets("GITHUB_TOKEN: ghs_x1")).toBe(`GITHUB_TOKEN: ${REDACTED}`);
  });

  it("masks a whole PEM private key block", () => {
    const pem = [
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEAx1b2c3d4e5f6g7h8i9j0",
      "k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6==",
      "-----END RSA PRIVATE KEY-----",
    ].join("\n");
    expect(redactSecrets(`before\n${pem}\nafter`)).toBe(`before\n${REDACTED}\nafter`);
    expect(containsSecret(`-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----`)).toBe(true);
  });

  it("masks every occurrence, not only the first", () => {
    const a = `sk-${rep("a1", 12)}`;
    expect(redactSecrets(`${a} and ${a}`)).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it("leaves ordinary text unchanged", () => {
    const benign = [
      "Retry the API call with exponential backoff when the server returns 429.",
      "Use Bearer authentication and read the token from the environment.",
      "Set max_tokens=4096 for long answers; token_count: 12 is a metric.",
      "The secret: always read the error message before retrying.",
      "password=$DB_PASSWORD and api_key=<your key> are placeholders, as is token={{token}}.",
      "Check the file path before reading config.json; see docs at /api/keys.",
      "git commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it",
      "Ask the user for their password instead of guessing.",
      "postgres://localhost:5432/app and https://example.com:8443/x@y",
    ];
    for (const text of benign) {
      expect(redactSecrets(text)).toBe(text);
      expect(containsSecret(text)).toBe(false);
    }
  });

  it("is idempotent", () => {
    const once = redactSecrets(`OPENAI_API_KEY=sk-${rep("Q1w2", 8)} password: "p4ss"`);
    expect(once).toBe(`OPENAI_API_KEY=${REDACTED} password: "${REDACTED}"`);
    expect(redactSecrets(once)).toBe(once);
    expect(containsSecret(once)).toBe(false);
  });
});
