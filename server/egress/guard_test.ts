import assert from "node:assert/strict";
import { blockedRange } from "./address_rules.ts";
import {
  checkEgress,
  EgressBlocked,
  EgressFailure,
  type EgressPolicy,
  hostAllowed,
  type Resolver,
  STRICT_POLICY,
  systemResolver,
} from "./guard.ts";

/** A resolver over a fixed table (no DNS). */
const table = (entries: Record<string, string[]>): Resolver => (host) => {
  const found = entries[host];
  return found
    ? Promise.resolve(found)
    : Promise.reject(new EgressFailure(`dns: cannot resolve host '${host}'`));
};
const dns = table({
  "public.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "rebind.example": ["93.184.216.34", "127.0.0.1"],
  "internal.example": ["10.1.2.3"],
});

async function refusal(url: string, policy: EgressPolicy = STRICT_POLICY): Promise<string> {
  try {
    await checkEgress(url, policy, dns);
  } catch (err) {
    assert.ok(err instanceof EgressBlocked, String(err));
    return err.message;
  }
  throw new Error(`${url} was allowed`);
}

Deno.test("every blocked range and numeric host form is refused by default, naming the rule", async () => {
  const cases: [string, RegExp][] = [
    ["https://127.0.0.1/", /127\.0\.0\.1 is loopback/],
    ["https://2130706433/", /127\.0\.0\.1 is loopback/],
    ["https://0x7f.1/", /127\.0\.0\.1 is loopback/],
    ["https://017700000001/", /loopback/],
    ["https://127.1/", /loopback/],
    ["https://[::1]/", /::1 is loopback/],
    ["https://[::ffff:127.0.0.1]/", /loopback \(embedded IPv4 127\.0\.0\.1\)/],
    ["https://[::ffff:10.0.0.1]/", /private \(embedded IPv4/],
    ["https://[64:ff9b::7f00:1]/", /loopback \(embedded IPv4 127\.0\.0\.1\)/],
    ["https://[2002:c0a8:101::1]/", /private \(embedded IPv4 192\.168\.1\.1\)/],
    ["https://0.0.0.0/", /unspecified/],
    ["https://[::]/", /unspecified/],
    ["https://10.9.8.7/", /private/],
    ["https://172.16.0.1/", /private/],
    ["https://172.31.255.255/", /private/],
    ["https://192.168.0.1/", /private/],
    ["https://169.254.169.254/", /link-local/],
    ["https://[fe80::1]/", /link-local/],
    ["https://224.0.0.1/", /multicast/],
    ["https://[ff02::1]/", /multicast/],
    ["https://100.64.0.1/", /shared address space/],
    ["https://198.18.0.1/", /benchmarking/],
    ["https://240.0.0.1/", /reserved/],
    ["https://255.255.255.255/", /reserved/],
    ["https://[fc00::1]/", /unique-local/],
    ["https://[fd12::1]/", /unique-local/],
    ["https://[fec0::1]/", /site-local/],
    ["https://internal.example/", /'internal\.example' resolves to 10\.1\.2\.3, which is private/],
    ["https://rebind.example/", /resolves to 127\.0\.0\.1, which is loopback/],
  ];
  for (const [url, expected] of cases) assert.match(await refusal(url), expected, url);
});

Deno.test("scheme, host and allow-list rules come first; allow-private-ips never allows cleartext", async () => {
  assert.match(
    await refusal("http://public.example/"),
    /cleartext http is not allowed \(svc\.effects\.allow-insecure-http\)/,
  );
  const privateOk = { ...STRICT_POLICY, allowPrivateIps: true };
  assert.match(await refusal("http://127.0.0.1/", privateOk), /cleartext http/);
  assert.match(await refusal("ftp://public.example/"), /scheme 'ftp'/);
  assert.match(await refusal("/relative"), /not an absolute URL/);
  const allowList = { ...STRICT_POLICY, allowedHosts: ["api.example.com", "*.partner.example"] };
  assert.match(await refusal("https://public.example/", allowList), /not in svc\.effects\.allowed-hosts/);
  assert.ok(hostAllowed("API.example.com", ["api.example.com"]));
  assert.ok(hostAllowed("a.b.partner.example", ["*.partner.example"]));
  assert.ok(!hostAllowed("partner.example", ["*.partner.example"]));
  assert.ok(!hostAllowed("evilpartner.example", ["*.partner.example"]));
});

Deno.test("public names pass with every address they resolve to; private ones with the relaxation", async () => {
  const checked = await checkEgress("https://public.example:8443/x?y=1", STRICT_POLICY, dns);
  assert.deepEqual(checked.addresses, ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]);
  assert.equal(checked.hostname, "public.example");
  const relaxed = { allowPrivateIps: true, allowInsecureHttp: true, allowedHosts: null };
  assert.deepEqual((await checkEgress("http://internal.example/", relaxed, dns)).addresses, ["10.1.2.3"]);
  for (const ip of ["8.8.8.8", "198.17.255.255", "198.20.0.1", "2001:4860::8888", "[64:ff9b::808:808]"]) {
    assert.equal(blockedRange(ip), null, ip);
  }
});

Deno.test("a name that does not resolve is a failure worth a retry, not a refusal", async () => {
  await assert.rejects(
    checkEgress("https://nonexistent.invalid/", STRICT_POLICY, systemResolver),
    (err) =>
      err instanceof EgressFailure && !(err instanceof EgressBlocked) &&
      /^dns: cannot resolve host 'nonexistent\.invalid': (no A or AAAA record|the lookup)/.test(err.message),
  );
  await assert.rejects(
    checkEgress("https://nowhere.example/", STRICT_POLICY, dns),
    (err) => err instanceof EgressFailure && /cannot resolve host 'nowhere\.example'/.test(err.message),
  );
  // The allow-list is judged before any lookup: an unlisted name is refused, resolvable or not.
  const allowList = { ...STRICT_POLICY, allowedHosts: ["api.example.com"] };
  assert.match(
    await refusal("https://nonexistent.invalid/", allowList),
    /not in svc\.effects\.allowed-hosts/,
  );
});
