//! Signing in with OAuth (issue 26): a real authorization server (Authlib on Flask,
//! `oauth_server.py`, started here) issues JWT and opaque access tokens; the real
//! `strata serve` checks them as an OAuth 2.1 resource server. Every refusal is a coded
//! 401 or 403 with the challenge the MCP spec asks for, and changes nothing.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Server, Strata, agent};

/// The test authorization server, stopped when dropped.
pub struct AuthServer {
    child: Child,
    pub issuer: String,
}

impl AuthServer {
    /// Starts `oauth_server.py` (needs Python with `authlib`, `flask`, `PyJWT`,
    /// `cryptography`; `.ci/run` installs them).
    pub fn start() -> Self {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/oauth_server.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start python3 tests/e2e/oauth_server.py");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the authorization server's address");
        let issuer = line
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| {
                panic!("the authorization server did not start (is authlib installed? `pip install authlib`): {line:?}")
            })
            .to_owned();
        Self { child, issuer }
    }

    fn post_json(&self, path: &str, body: Value) -> Value {
        let mut response = agent()
            .post(&format!("{}{path}", self.issuer))
            .header("content-type", "application/json")
            .send(body.to_string())
            .expect("authorization server request");
        assert_eq!(response.status().as_u16(), 200, "{path}");
        serde_json::from_str(&response.body_mut().read_to_string().expect("body")).expect("JSON")
    }

    /// A token from the client credentials grant.
    pub fn token(&self, client: &str, secret: &str, scope: &str, resource: Option<&str>) -> String {
        let mut form = vec![("grant_type", "client_credentials"), ("scope", scope)];
        if let Some(resource) = resource {
            form.push(("resource", resource));
        }
        let basic = base64_encode(&format!("{client}:{secret}"));
        let mut response = agent()
            .post(&format!("{}/token", self.issuer))
            .header("authorization", &format!("Basic {basic}"))
            .send_form(form)
            .expect("token request");
        let text = response.body_mut().read_to_string().expect("body");
        let body: Value = serde_json::from_str(&text).expect("token JSON");
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access token: {text}"))
            .to_owned()
    }

    /// A JWT signed with the server's current key (`foreign`: a key it never published).
    pub fn mint(&self, claims: Value, header: Value, foreign: bool) -> String {
        let key = if foreign { "foreign" } else { "current" };
        self.post_json(
            "/test/mint",
            json!({"claims": claims, "header": header, "key": key}),
        )["access_token"]
            .as_str()
            .expect("minted")
            .to_owned()
    }

    pub fn revoke(&self, client: &str, secret: &str, token: &str) {
        let basic = base64_encode(&format!("{client}:{secret}"));
        let response = agent()
            .post(&format!("{}/revoke", self.issuer))
            .header("authorization", &format!("Basic {basic}"))
            .send_form([("token", token)])
            .expect("revoke");
        assert_eq!(response.status().as_u16(), 200);
    }

    pub fn jwks_mode(&self, mode: &str) {
        self.post_json("/test/jwks", json!({"mode": mode}));
    }

    pub fn rotate(&self, drop_old: bool) {
        self.post_json("/test/rotate", json!({"drop_old": drop_old}));
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn base64_encode(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A free loopback port (the resource URL must be known before the server starts).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// `strata serve` with OAuth against `auth` (and one API key, `admin-key`), on a port
/// chosen beforehand so the resource URL is its own; `extra` goes into `oauth`.
pub fn serve_with_oauth(auth: &AuthServer, extra: Value) -> (Strata, Server, String) {
    let strata = Strata::new();
    let file = strata.file(
        "people.ttl",
        "@prefix ex: <http://example.org/> . ex:ada a ex:Person ; ex:name \"Ada\" .",
    );
    strata.run(&["import", file.to_str().expect("path")]).ok();
    let (server, resource) = serve_oauth_on(&strata, auth, extra, &[]);
    (strata, server, resource)
}

/// `strata serve` on `strata`'s data, taking tokens from `auth` (plus `extra` in the
/// `oauth` configuration) and the API key `admin-key`, with `env` set. Returns the server
/// and its resource URL.
pub fn serve_oauth_on(
    strata: &Strata,
    auth: &AuthServer,
    extra: Value,
    env: &[(&str, &str)],
) -> (Server, String) {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}");
    let mut oauth = json!({"issuer": auth.issuer, "resource": resource});
    if let (Some(target), Some(extra)) = (oauth.as_object_mut(), extra.as_object()) {
        target.extend(extra.clone());
    }
    let config = strata.file(
        "config.json",
        json!({
            "oauth": oauth,
            "api_keys": [{"name": "admin", "sha256": sha256_hex("admin-key"), "scopes": ["read", "write", "admin"]}],
        })
        .to_string(),
    );
    let address = format!("127.0.0.1:{port}");
    let mut env = env.to_vec();
    env.push(("STRATA_DESTRUCTIVE", "allow"));
    let server = strata.serve_with_env(
        &[
            "serve",
            "--http",
            &address,
            "--no-demo",
            "--config",
            config.to_str().expect("path"),
        ],
        &env,
    );
    (server, resource)
}

fn sha256_hex(key: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One request: status, `WWW-Authenticate`, body.
pub fn call(
    server: &Server,
    bearer: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, String, String) {
    let url = server.url(path);
    let mut response = match body {
        None => {
            let mut request = agent().get(&url);
            if method == "DELETE" {
                request = agent().delete(&url);
            }
            if let Some(bearer) = bearer {
                request = request.header("authorization", &format!("Bearer {bearer}"));
            }
            request.call().expect("request")
        }
        Some(body) => {
            let mut request = agent()
                .post(&url)
                .header("content-type", "application/sparql-update");
            if let Some(bearer) = bearer {
                request = request.header("authorization", &format!("Bearer {bearer}"));
            }
            request.send(body).expect("request")
        }
    };
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().expect("ASCII").to_owned())
        .unwrap_or_default();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, challenge, text)
}

fn head(server: &Server) -> u64 {
    let (status, _, body) = call(server, Some("admin-key"), "GET", "/graphs", None);
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    body["graphs"]
        .as_array()
        .expect("graphs")
        .iter()
        .find(|g| g["name"] == "main")
        .and_then(|g| g["head_seq"].as_u64())
        .expect("main's head")
}

const READ: &str = "/sparql?query=ASK%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D";
const INSERT: &str = "INSERT DATA { <http://example.org/x> <http://example.org/p> \"1\" }";

#[test]
fn metadata_and_challenges_point_clients_to_the_authorization_server() {
    let auth = AuthServer::start();
    let (_strata, server, resource) = serve_with_oauth(&auth, json!({}));
    let (status, _, body) = call(
        &server,
        None,
        "GET",
        "/.well-known/oauth-protected-resource",
        None,
    );
    assert_eq!(status, 200, "{body}");
    let metadata: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(metadata["resource"], resource.as_str());
    assert_eq!(metadata["authorization_servers"], json!([auth.issuer]));
    assert!(
        metadata["scopes_supported"]
            .as_array()
            .expect("scopes")
            .contains(&json!("strata:write"))
    );
    assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    let (status, _, body) = call(
        &server,
        None,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        None,
    );
    assert_eq!(status, 200, "{body}");
    let mcp: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(mcp["resource"], format!("{resource}/mcp"));

    // No token: 401 with the metadata to sign in from, on a route and on /mcp.
    let (status, challenge, body) = call(&server, None, "GET", READ, None);
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("\"unauthorized\""), "{body}");
    assert!(
        challenge.starts_with("Bearer ")
            && challenge.contains(&format!(
                "resource_metadata=\"{resource}/.well-known/oauth-protected-resource\""
            )),
        "{challenge}"
    );
    assert!(
        !challenge.contains("invalid_token"),
        "no token was sent: {challenge}"
    );
    let response = agent()
        .post(server.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string())
        .expect("POST /mcp");
    assert_eq!(response.status().as_u16(), 401);
    let challenge = response
        .headers()
        .get("www-authenticate")
        .expect("challenge")
        .to_str()
        .expect("ASCII");
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{resource}/.well-known/oauth-protected-resource/mcp\""
        )),
        "{challenge}"
    );

    // Malformed Authorization headers and junk: coded 401s.
    for header in [
        "Basic YTpi",
        "Bearer",
        "Bearer ",
        "bearer not-a-key",
        "Token x",
    ] {
        let response = agent()
            .get(server.url(READ))
            .header("authorization", header)
            .call()
            .expect("request");
        assert_eq!(response.status().as_u16(), 401, "{header:?}");
    }
    // The API key still works beside OAuth.
    assert_eq!(call(&server, Some("admin-key"), "GET", READ, None).0, 200);
}

#[test]
fn jwt_access_tokens_are_checked_and_scopes_decide_what_they_may_do() {
    let auth = AuthServer::start();
    let (_strata, server, resource) = serve_with_oauth(&auth, json!({}));
    let before = head(&server);

    let reader = auth.token("jwt-client", "jwt-secret", "strata:read", Some(&resource));
    let (status, _, body) = call(&server, Some(&reader), "GET", READ, None);
    assert_eq!(status, 200, "{body}");
    // Reading is not writing: 403 with the scope to ask for (step-up), nothing changed.
    let (status, challenge, body) = call(&server, Some(&reader), "POST", "/update", Some(INSERT));
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("\"forbidden\""), "{body}");
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("scope=\"strata:write:main\""),
        "{challenge}"
    );
    assert_eq!(head(&server), before);

    // A token for the resource's /mcp is for this server too; graph-limited write works.
    let writer = auth.token(
        "jwt-client",
        "jwt-secret",
        "strata:write:main",
        Some(&format!("{resource}/mcp")),
    );
    let (status, _, body) = call(&server, Some(&writer), "POST", "/update", Some(INSERT));
    assert_eq!(status, 200, "{body}");
    let after_write = head(&server);
    assert_eq!(after_write, before + 1);

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let good = json!({"aud": resource, "scope": "strata:write", "sub": "mallory"});
    let with = |change: Value| {
        let mut claims = good.clone();
        for (k, v) in change.as_object().expect("object") {
            claims[k] = v.clone();
        }
        claims
    };
    // Control: the same claims, well formed, are accepted.
    let ok = auth.mint(good.clone(), json!({}), false);
    assert_eq!(call(&server, Some(&ok), "GET", READ, None).0, 200);
    let refused = [
        (
            "wrong audience",
            auth.token(
                "jwt-client",
                "jwt-secret",
                "strata:write",
                Some("https://other.example.com"),
            ),
        ),
        (
            "no audience",
            auth.mint(with(json!({"aud": null})), json!({}), false),
        ),
        (
            "expired",
            auth.mint(
                with(json!({"exp": now - 600, "iat": now - 4000})),
                json!({}),
                false,
            ),
        ),
        (
            "not yet valid",
            auth.mint(with(json!({"nbf": now + 600})), json!({}), false),
        ),
        (
            "wrong issuer",
            auth.mint(
                with(json!({"iss": "https://evil.example.com"})),
                json!({}),
                false,
            ),
        ),
        (
            "unknown signing key",
            auth.mint(good.clone(), json!({}), true),
        ),
        (
            "alg none",
            auth.mint(good.clone(), json!({"alg": "none"}), false),
        ),
        (
            "HS256",
            auth.mint(good.clone(), json!({"alg": "HS256"}), false),
        ),
        ("huge", "a".repeat(20_000)),
        ("garbage", "eyJ.eyJ.sig".to_owned()),
    ];
    for (what, token) in &refused {
        let (status, challenge, body) = call(&server, Some(token), "POST", "/update", Some(INSERT));
        assert_eq!(status, 401, "{what}: {body}");
        assert!(body.contains("\"unauthorized\""), "{what}: {body}");
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{what}: {challenge}"
        );
    }
    assert_eq!(
        head(&server),
        after_write,
        "a refused token changed the graph"
    );
}

#[test]
fn opaque_tokens_are_introspected_and_a_revoked_one_is_refused() {
    let auth = AuthServer::start();
    let (_strata, server, resource) = serve_with_oauth(
        &auth,
        json!({"introspection": {"client_id": "strata", "client_secret": "strata-secret", "cache_secs": 0}}),
    );
    let token = auth.token(
        "opaque-client",
        "opaque-secret",
        "strata:read",
        Some(&resource),
    );
    assert!(!token.contains('.'), "an opaque token: {token}");
    let (status, _, body) = call(&server, Some(&token), "GET", READ, None);
    assert_eq!(status, 200, "{body}");
    let other = auth.token(
        "opaque-client",
        "opaque-secret",
        "strata:read",
        Some("https://other.example.com"),
    );
    assert_eq!(call(&server, Some(&other), "GET", READ, None).0, 401);
    // One issued for no audience at all is not known to be for this server either.
    let anyone = auth.token("opaque-client", "opaque-secret", "strata:read", None);
    let (status, _, body) = call(&server, Some(&anyone), "GET", READ, None);
    assert_eq!(status, 401, "a token for no audience was accepted: {body}");
    auth.revoke("opaque-client", "opaque-secret", &token);
    let (status, challenge, body) = call(&server, Some(&token), "GET", READ, None);
    assert_eq!(status, 401, "a revoked token was accepted: {body}");
    assert!(challenge.contains("invalid_token"), "{challenge}");
    assert_eq!(
        call(&server, Some("never-issued"), "GET", READ, None).0,
        401
    );
}

#[test]
fn rotated_keys_are_fetched_and_a_broken_key_endpoint_costs_a_401_not_the_server() {
    let auth = AuthServer::start();
    let (_strata, server, resource) = serve_with_oauth(&auth, json!({}));
    let first = auth.token("jwt-client", "jwt-secret", "strata:read", Some(&resource));
    assert_eq!(call(&server, Some(&first), "GET", READ, None).0, 200);
    // The issuer rotates: a token signed with the new key is accepted (the keys are
    // fetched again for the unknown key id), the old key's token no longer.
    std::thread::sleep(Duration::from_millis(2100));
    auth.rotate(true);
    let second = auth.token("jwt-client", "jwt-secret", "strata:read", Some(&resource));
    assert_eq!(call(&server, Some(&second), "GET", READ, None).0, 200);

    for mode in ["garbage", "hang"] {
        std::thread::sleep(Duration::from_millis(2100));
        auth.jwks_mode(mode);
        auth.rotate(false);
        let unknown = auth.token("jwt-client", "jwt-secret", "strata:read", Some(&resource));
        let started = Instant::now();
        let asking = std::thread::spawn({
            let url = server.url(READ);
            move || {
                agent()
                    .get(&url)
                    .header("authorization", &format!("Bearer {unknown}"))
                    .call()
                    .expect("request")
                    .status()
                    .as_u16()
            }
        });
        // Meanwhile the server answers others.
        std::thread::sleep(Duration::from_millis(200));
        let quick = Instant::now();
        assert_eq!(call(&server, Some("admin-key"), "GET", READ, None).0, 200);
        assert!(
            quick.elapsed() < Duration::from_secs(2),
            "{mode}: the server stalled"
        );
        assert_eq!(asking.join().expect("thread"), 401, "{mode}");
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{mode}: {:?}",
            started.elapsed()
        );
        // Keys fetched before still serve the tokens they sign.
        assert_eq!(
            call(&server, Some(&second), "GET", READ, None).0,
            200,
            "{mode}"
        );
    }
    auth.jwks_mode("ok");
}

/// The official Python MCP SDK's OAuth client, as a hosted connector would sign in:
/// discovery from the 401, dynamic registration, authorization code with PKCE, the
/// token, tool calls (`mcp_oauth_client.py`).
#[test]
fn the_python_mcp_sdk_signs_in_through_the_challenge_and_calls_tools() {
    let auth = AuthServer::start();
    let (_strata, server, _resource) = serve_with_oauth(&auth, json!({}));
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mcp_oauth_client.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&server.base)
        .output()
        .expect("run python3 mcp_oauth_client.py (needs the mcp package)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("ALL CHECKS PASSED"),
        "the SDK's OAuth flow failed:\n{stdout}\n{stderr}"
    );
}

/// The same sign-in with the official TypeScript MCP SDK (`mcp_ts/oauth_client.mjs`): its
/// transport meets the 401, discovers and registers, hands over the authorization URL,
/// exchanges the code in `finishAuth` and connects again with the token.
#[test]
fn the_typescript_mcp_sdk_signs_in_through_the_challenge_and_calls_tools() {
    let script = crate::mcp::typescript_script("oauth_client.mjs").expect("the TypeScript SDK");
    let auth = AuthServer::start();
    let (_strata, server, _resource) = serve_with_oauth(&auth, json!({}));
    let out = Command::new("node")
        .arg(&script)
        .arg(&server.base)
        .current_dir(script.parent().expect("the SDK's directory"))
        .output()
        .expect("run node oauth_client.mjs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("ALL CHECKS PASSED"),
        "the SDK's OAuth flow failed:\n{stdout}\n{stderr}"
    );
}
