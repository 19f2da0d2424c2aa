// The official TypeScript MCP SDK's OAuth flow against Strata's `/mcp`, end to end.
//
// Usage (after `npm ci` next to this file):
//     node oauth_client.mjs BASE_URL
//
// The SDK meets the 401 challenge, reads Strata's protected resource metadata, discovers
// the authorization server from it, registers itself (dynamic client registration) and
// sends the person to the authorization endpoint with PKCE and the resource indicator.
// The test authorization server approves `alice` without a form, so "the person" here is
// one GET of that URL; its redirect carries the code, which `finishAuth` exchanges for a
// token before the client connects again and calls tools. Prints `CHECK <name> ok` lines
// and `ALL CHECKS PASSED`; the first failed check exits non-zero.

const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");

const base = process.argv[2];
if (!base) {
  console.error("usage: node oauth_client.mjs BASE_URL");
  process.exit(2);
}

function check(name, condition, detail = "") {
  if (!condition) {
    console.log(`CHECK ${name} FAILED: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`CHECK ${name} ok`);
}

const redirectUrl = "http://127.0.0.1:9/callback";
const stored = { client: undefined, tokens: undefined, verifier: undefined, authorizeAt: undefined };
const provider = {
  get redirectUrl() {
    return redirectUrl;
  },
  get clientMetadata() {
    return {
      client_name: "strata-e2e-ts",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: "strata:read strata:write",
      token_endpoint_auth_method: "none",
    };
  },
  clientInformation: () => stored.client,
  saveClientInformation: (info) => { stored.client = info; },
  tokens: () => stored.tokens,
  saveTokens: (tokens) => { stored.tokens = tokens; },
  redirectToAuthorization: (url) => { stored.authorizeAt = url; },
  saveCodeVerifier: (verifier) => { stored.verifier = verifier; },
  codeVerifier: () => stored.verifier,
};

const url = new URL(`${base}/mcp`);
const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
let refused;
try {
  await new Client({ name: "strata-e2e-ts", version: "1.0.0" }).connect(first);
} catch (error) {
  refused = error;
}
check("challenged", refused instanceof UnauthorizedError, String(refused));
check("registered", !!stored.client?.client_id, stored.client);
const authorizeAt = stored.authorizeAt;
check("sent-to-authorize", authorizeAt instanceof URL, String(authorizeAt));
check("pkce", authorizeAt.searchParams.get("code_challenge_method") === "S256", authorizeAt.href);
check("resource-indicator", (authorizeAt.searchParams.get("resource") || "").startsWith(base), authorizeAt.href);

// The person signs in: the authorization server answers with a redirect carrying the code.
const answer = await fetch(authorizeAt, { redirect: "manual" });
check("authorize-redirects", answer.status === 302 || answer.status === 303, `${answer.status} ${await answer.text()}`);
const back = new URL(answer.headers.get("location"));
const code = back.searchParams.get("code");
check("code-returned", !!code, back.href);
await first.finishAuth(code);
check("signed-in", !!stored.tokens?.access_token, stored.tokens);

const client = new Client({ name: "strata-e2e-ts", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
const names = (await client.listTools()).tools.map((t) => t.name).sort();
check("tools-listed", names.includes("query") && names.includes("commit"), names);
const read = await client.callTool({
  name: "query",
  arguments: { mode: "sparql", sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }" },
});
check("query-answered", read.isError !== true, read);
const write = await client.callTool({
  name: "rdf",
  arguments: { action: "import", content: "<http://example.org/ts> <http://example.org/b> \"c\" .", format: "ntriples" },
});
check("write-allowed", write.isError !== true, write);
const scopes = (stored.tokens.scope || "").split(" ");
check("token-scopes", scopes.includes("strata:read") && scopes.includes("strata:write"), scopes);
await client.close();
console.log("ALL CHECKS PASSED");
