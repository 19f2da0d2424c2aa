// Signing in when Strata is an OAuth resource server: the console finds the authorization
// server in Strata's protected resource metadata (RFC 9728), signs the person in with the
// authorization code flow and PKCE (a public client: no secret in the page), and keeps
// the access token in this tab's session storage, where an API key typed in would go.

import { setApiKey } from "./api.js";

const FLOW = "strata.oauthFlow";

/** `{resource, issuer, scopes, clientId}` when the server accepts OAuth tokens, else null. */
export async function discover() {
  try {
    const response = await fetch("/.well-known/oauth-protected-resource");
    if (!response.ok) return null;
    const metadata = await response.json();
    const issuer = (metadata.authorization_servers || [])[0];
    if (!issuer) return null;
    return {
      resource: metadata.resource,
      issuer,
      scopes: metadata.scopes_supported || [],
      clientId: metadata.strata_console_client_id,
    };
  } catch {
    return null;
  }
}

async function issuerMetadata(issuer) {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
  ];
  const problems = [];
  for (const candidate of candidates) {
    try {
      const response = await fetch(candidate);
      if (response.ok) return await response.json();
      problems.push(`${candidate}: HTTP ${response.status}`);
    } catch (error) {
      // the next form of the metadata URL
      problems.push(`${candidate}: ${error.message}`);
    }
  }
  throw new Error(`cannot read the authorization server's metadata (${problems.join("; ")})`);
}

function base64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function redirectUri() {
  return `${location.origin}/`;
}

/** Leaves for the authorization server; `completeSignIn` takes over when it sends the person back. */
export async function signIn(settings) {
  const metadata = await issuerMetadata(settings.issuer);
  let clientId = settings.clientId;
  if (!clientId) {
    if (!metadata.registration_endpoint) {
      throw new Error("the authorization server registers no clients: set oauth.console_client_id");
    }
    const registered = await fetch(metadata.registration_endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        client_name: "Strata console",
        redirect_uris: [redirectUri()],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }),
    });
    if (!registered.ok) throw new Error(`client registration failed (HTTP ${registered.status})`);
    clientId = (await registered.json()).client_id;
  }
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(FLOW, JSON.stringify({
    verifier,
    state,
    clientId,
    tokenEndpoint: metadata.token_endpoint,
    resource: settings.resource,
    back: location.search,
  }));
  const url = new URL(metadata.authorization_endpoint);
  const params = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri(),
    scope: settings.scopes.join(" "),
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: settings.resource,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  location.assign(url.toString());
}

/**
 * When the page is the authorization server's answer (`?code=…&state=…`), exchanges the
 * code for a token and puts back the address the person left from. Returns the token
 * answer, or null when there was nothing to finish.
 */
export async function completeSignIn() {
  const params = new URLSearchParams(location.search);
  const flow = JSON.parse(sessionStorage.getItem(FLOW) || "null");
  if (!flow || !(params.has("code") || params.has("error"))) return null;
  sessionStorage.removeItem(FLOW);
  history.replaceState(null, "", `${location.pathname}${flow.back || ""}`);
  if (params.has("error")) {
    throw new Error(`sign-in refused: ${params.get("error_description") || params.get("error")}`);
  }
  if (params.get("state") !== flow.state) throw new Error("the sign-in answer does not match its request");
  const response = await fetch(flow.tokenEndpoint, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: params.get("code"),
      redirect_uri: redirectUri(),
      client_id: flow.clientId,
      code_verifier: flow.verifier,
      resource: flow.resource,
    }),
  });
  if (!response.ok) throw new Error(`the token request failed (HTTP ${response.status})`);
  const token = await response.json();
  setApiKey(token.access_token);
  return token;
}
