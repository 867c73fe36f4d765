import { describe, expect, it } from "vitest";
import { checkWebhookUrl, parseIpv6, runOptionUrls, uncallableUrls, webhookUrlModeOf } from "../../src/core/webhook-url";

const prod = (url: string) => checkWebhookUrl(url, "production");
const dev = (url: string) => checkWebhookUrl(url, "development");

describe("checkWebhookUrl in production", () => {
  it("accepts public https URLs, with ports, paths and queries", () => {
    for (const url of [
      "https://agent.example.com/verify",
      "https://example.com:8443/hooks?x=1#frag",
      "https://8.8.8.8/v",
      "https://[2606:4700:4700::1111]/v",
      "https://[::ffff:8.8.8.8]/v",
      "https://EXAMPLE.com./v",
    ]) {
      expect(prod(url), url).toBeNull();
    }
  });

  it("requires https", () => {
    expect(prod("http://agent.example.com/verify")).toMatch(/https/);
    expect(prod("ftp://agent.example.com/verify")).toMatch(/https/);
    expect(prod("javascript:alert(1)")).toMatch(/https/);
  });

  it("rejects what is not a URL and URLs with credentials", () => {
    expect(prod("not a url")).toMatch(/not a valid absolute URL/);
    expect(prod("/relative/path")).toMatch(/not a valid absolute URL/);
    expect(prod("https://user:pass@example.com/")).toMatch(/credentials/);
  });

  it.each([
    ["https://127.0.0.1/", /loopback/],
    ["https://127.8.9.10/", /loopback/],
    ["https://2130706433/", /loopback/],
    ["https://0x7f.1/", /loopback/],
    ["https://0x7f000001/", /loopback/],
    ["https://0177.0.0.1/", /loopback/],
    ["https://127.1/", /loopback/],
    ["https://0.0.0.0/", /unspecified/],
    ["https://0/", /unspecified/],
    ["https://10.1.2.3/", /private/],
    ["https://172.16.0.1/", /private/],
    ["https://172.31.255.255/", /private/],
    ["https://192.168.1.1/", /private/],
    ["https://100.64.0.1/", /carrier-grade NAT/],
    ["https://100.127.255.255/", /carrier-grade NAT/],
    ["https://169.254.1.1/", /link-local/],
    ["https://169.254.169.254/latest/meta-data/", /metadata/],
    ["https://224.0.0.1/", /multicast/],
    ["https://239.255.255.250/", /multicast/],
    ["https://255.255.255.255/", /broadcast/],
    ["https://192.0.2.1/", /documentation/],
  ])("refuses the IPv4 address in %s", (url, why) => {
    expect(prod(url)).toMatch(why);
  });

  it("accepts the public neighbours of private ranges", () => {
    for (const url of [
      "https://172.15.255.255/",
      "https://172.32.0.1/",
      "https://100.63.255.255/",
      "https://100.128.0.1/",
      "https://11.0.0.1/",
      "https://192.169.0.1/",
    ]) {
      expect(prod(url), url).toBeNull();
    }
  });

  it.each([
    ["https://[::1]/", /loopback/],
    ["https://[0:0:0:0:0:0:0:1]/", /loopback/],
    ["https://[::]/", /unspecified/],
    ["https://[::ffff:127.0.0.1]/", /loopback .*inside an IPv6/],
    ["https://[::ffff:7f00:1]/", /loopback/],
    ["https://[::ffff:10.0.0.1]/", /private/],
    ["https://[::127.0.0.1]/", /loopback/],
    ["https://[64:ff9b::192.168.0.1]/", /private/],
    ["https://[2002:c0a8:101::]/", /private/],
    ["https://[fc00::1]/", /unique-local/],
    ["https://[fd12:3456::1]/", /unique-local/],
    ["https://[fe80::1]/", /link-local/],
    ["https://[ff02::1]/", /multicast/],
    ["https://[2001:db8::1]/", /documentation/],
    ["https://[fd00:ec2::254]/", /metadata/],
    ["https://[::ffff:169.254.169.254]/", /metadata/],
  ])("refuses the IPv6 address in %s", (url, why) => {
    expect(prod(url)).toMatch(why);
  });

  it.each([
    "https://localhost/",
    "https://LOCALHOST./",
    "https://api.localhost/",
    "https://db.internal/",
    "https://printer.local/",
    "https://nas.home.arpa/",
  ])("refuses the local host name in %s", (url) => {
    expect(prod(url)).toMatch(/local host name/);
  });

  it("refuses metadata and single-label host names", () => {
    expect(prod("https://metadata.google.internal/computeMetadata/v1/")).toMatch(/metadata/);
    expect(prod("https://intranet/")).toMatch(/without a domain/);
  });
});

describe("checkWebhookUrl in development", () => {
  it("allows http, loopback and private hosts", () => {
    for (const url of [
      "http://localhost:8787/verify",
      "http://127.0.0.1:3000/",
      "http://[::1]:3000/",
      "http://172.17.0.2/",
      "https://example.com/",
    ]) {
      expect(dev(url), url).toBeNull();
    }
  });

  it("still refuses other schemes, credentials and cloud metadata", () => {
    expect(dev("file:///etc/passwd")).toMatch(/https/);
    expect(dev("http://u:p@localhost/")).toMatch(/credentials/);
    expect(dev("http://169.254.169.254/")).toMatch(/metadata/);
    expect(dev("http://metadata.google.internal/")).toMatch(/metadata/);
  });
});

describe("parseIpv6", () => {
  it("expands compressed forms and embedded IPv4", () => {
    expect(parseIpv6("[::1]")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("2001:db8::8a2e:370:7334")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0x8a2e, 0x370, 0x7334]);
    expect(parseIpv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIpv6("fe80::1%eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
  });

  it("rejects malformed addresses", () => {
    for (const bad of ["1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "::g", "::1.2.3.256", "12345::"]) {
      expect(parseIpv6(bad), bad).toBeNull();
    }
  });
});

describe("which rules apply, and to which fields", () => {
  it("production unless PRAXIS_ENV says development (or test): unset, empty, a typo or any other value is production", () => {
    for (const v of [undefined, "", "production", "prod", "Development", "staging", " development"])
      expect(webhookUrlModeOf(v), String(v)).toBe("production");
    expect(webhookUrlModeOf("development")).toBe("development");
    expect(webhookUrlModeOf("test")).toBe("development");
  });

  it("finds the webhook policy and verifier URLs of run options, under a prefix", () => {
    expect(runOptionUrls({ policy: { kind: "llm" } })).toEqual([]);
    expect(runOptionUrls(undefined)).toEqual([]);
    expect(
      runOptionUrls(
        { policy: { kind: "webhook", url: "https://a.example/p" }, verifier: { kind: "webhook", url: "https://a.example/v" } },
        "remedial.run",
      ),
    ).toEqual([
      { path: "remedial.run.policy.url", url: "https://a.example/p" },
      { path: "remedial.run.verifier.url", url: "https://a.example/v" },
    ]);
  });

  it("reports each URL that may not be called, with its field", () => {
    const urls = [
      { path: "policy.url", url: "https://ok.example.com/" },
      { path: "verifier.url", url: "https://10.1.2.3/" },
    ];
    expect(uncallableUrls(urls, "production")).toEqual([{ path: "verifier.url", message: expect.stringMatching(/private/) }]);
    expect(uncallableUrls(urls, "development")).toEqual([]);
  });
});
