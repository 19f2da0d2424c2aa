//! `strata serve --tls-cert FILE --tls-key FILE`: HTTPS with rustls, the certificate read
//! again when its files change or on SIGHUP, and no listening beyond loopback without
//! TLS (or a configuration saying a proxy does it). The certificates are the test-only
//! ones in `tests/data/tls/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::util::{Server, Strata};

fn tls_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tls")
        .join(name)
}

/// An agent that trusts only the CA certificate in `cert` (PEM).
fn trusting(cert: &Path) -> ureq::Agent {
    let pem = std::fs::read(cert).expect("read cert");
    let root = ureq::tls::Certificate::from_pem(&pem)
        .expect("PEM")
        .to_owned();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::Specific(Arc::new(vec![root])))
                .build(),
        )
        .build()
        .into()
}

fn serve_tls(strata: &Strata, cert: &Path, key: &Path) -> Server {
    strata.serve(&[
        "--tls-cert",
        cert.to_str().expect("path"),
        "--tls-key",
        key.to_str().expect("path"),
    ])
}

/// The certificate subject a new connection sees: `Some("a")`/`Some("b")` by which
/// test certificate verifies it, `None` when neither does.
fn served_certificate(server: &Server) -> Option<&'static str> {
    for (name, ca) in [("a", "ca-a.pem"), ("b", "ca-b.pem")] {
        let answer = trusting(&tls_file(ca)).get(&server.url("/healthz")).call();
        if answer.is_ok_and(|r| r.status() == 200) {
            return Some(name);
        }
    }
    None
}

#[test]
fn https_is_served_with_the_given_certificate_and_plain_http_is_not() {
    let strata = Strata::new();
    let server = serve_tls(&strata, &tls_file("cert-a.pem"), &tls_file("key-a.pem"));
    assert!(server.base.starts_with("https://"), "{}", server.base);
    let mut answer = trusting(&tls_file("ca-a.pem"))
        .post(&server.url("/update"))
        .header("content-type", "application/sparql-update")
        .send("INSERT DATA { <http://example.org/s> <http://example.org/p> \"o\" }")
        .expect("HTTPS request");
    assert_eq!(
        answer.status(),
        200,
        "{:?}",
        answer.body_mut().read_to_string()
    );
    // A client that does not trust the certificate is refused by its own TLS check.
    assert!(
        trusting(&tls_file("ca-b.pem"))
            .get(&server.url("/healthz"))
            .call()
            .is_err()
    );
    // Plain HTTP to the TLS port gets no HTTP answer.
    let plain = server.base.replacen("https://", "http://", 1);
    let answer = crate::util::agent().get(&format!("{plain}/healthz")).call();
    assert!(answer.is_err() || answer.is_ok_and(|r| r.status() != 200));
    // The server keeps serving after those.
    assert_eq!(served_certificate(&server), Some("a"));
}

#[test]
fn a_renewed_certificate_is_served_without_a_restart() {
    let strata = Strata::new();
    let cert = strata.file(
        "cert.pem",
        std::fs::read(tls_file("cert-a.pem")).expect("a"),
    );
    let key = strata.file("key.pem", std::fs::read(tls_file("key-a.pem")).expect("a"));
    let server = serve_tls(&strata, &cert, &key);
    assert_eq!(served_certificate(&server), Some("a"));

    // A key that does not match the certificate (a renewal half written): the one in use stays.
    std::fs::write(&cert, std::fs::read(tls_file("cert-b.pem")).expect("b")).expect("write");
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(served_certificate(&server), Some("a"));

    // The key follows: the new certificate is served, found by the file check.
    std::fs::write(&key, std::fs::read(tls_file("key-b.pem")).expect("b")).expect("write");
    let deadline = Instant::now() + Duration::from_secs(10);
    while served_certificate(&server) != Some("b") {
        assert!(
            Instant::now() < deadline,
            "the renewed certificate was not picked up"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // SIGHUP reads the files again at once.
    std::fs::write(&cert, std::fs::read(tls_file("cert-a.pem")).expect("a")).expect("write");
    std::fs::write(&key, std::fs::read(tls_file("key-a.pem")).expect("a")).expect("write");
    let pid = server.child.id().to_string();
    let status = std::process::Command::new("kill")
        .args(["-HUP", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    while served_certificate(&server) != Some("a") {
        assert!(
            Instant::now() < deadline,
            "SIGHUP did not reload the certificate"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn serving_beyond_loopback_needs_tls_or_a_proxy_that_does_it() {
    let strata = Strata::new();
    let keys = json!({"api_keys": [{"name": "k", "sha256": "0".repeat(64), "scopes": ["read"]}]});
    let config = strata.file("keys.json", keys.to_string());
    let config = config.to_str().expect("path");
    let run = strata.run(&[
        "serve",
        "--http",
        "0.0.0.0:0",
        "--no-demo",
        "--config",
        config,
    ]);
    let stderr = run.fails_with(1);
    assert!(
        stderr.contains("without TLS") && stderr.contains("--tls-cert"),
        "{stderr}"
    );

    let mut proxied = keys.clone();
    proxied["tls_terminated_by_proxy"] = json!(true);
    let proxied = strata.file("proxied.json", proxied.to_string());
    let server = strata.serve_with(&[
        "serve",
        "--http",
        "0.0.0.0:0",
        "--no-demo",
        "--config",
        proxied.to_str().expect("path"),
    ]);
    assert!(
        server.base.starts_with("http://0.0.0.0:"),
        "{}",
        server.base
    );
    drop(server);

    let server = strata.serve_with(&[
        "serve",
        "--http",
        "0.0.0.0:0",
        "--no-demo",
        "--config",
        config,
        "--tls-cert",
        tls_file("cert-a.pem").to_str().expect("path"),
        "--tls-key",
        tls_file("key-a.pem").to_str().expect("path"),
    ]);
    assert!(
        server.base.starts_with("https://0.0.0.0:"),
        "{}",
        server.base
    );
}

#[test]
fn unreadable_certificates_are_refused_at_start_naming_the_file() {
    let strata = Strata::new();
    let junk = strata.file("junk.pem", "not a certificate");
    let run = strata.run(&[
        "serve",
        "--no-demo",
        "--tls-cert",
        junk.to_str().expect("path"),
        "--tls-key",
        tls_file("key-a.pem").to_str().expect("path"),
    ]);
    let stderr = run.fails_with(1);
    assert!(
        stderr.contains("--tls-cert") && stderr.contains("junk.pem"),
        "{stderr}"
    );
    let run = strata.run(&[
        "serve",
        "--no-demo",
        "--tls-cert",
        tls_file("cert-a.pem").to_str().expect("path"),
        "--tls-key",
        tls_file("key-b.pem").to_str().expect("path"),
    ]);
    let stderr = run.fails_with(1);
    assert!(stderr.contains("does not go with"), "{stderr}");
    let run = strata.run(&[
        "serve",
        "--no-demo",
        "--tls-cert",
        junk.to_str().expect("path"),
    ]);
    assert_ne!(run.code, 0);
}
