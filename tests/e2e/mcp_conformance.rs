//! The MCP conformance suite (`@modelcontextprotocol/conformance`) against `/mcp`.
//!
//! `.ci/run` installs it with Node 22 under `target/mcp-conformance`. Most of its server
//! scenarios call the reference "everything" server's own test tools, prompts and
//! resources, which Strata does not have; the generic scenarios must pass.

use std::path::PathBuf;
use std::process::Command;

use crate::util::Strata;

/// Scenarios that test the protocol itself, not the reference server's fixtures.
const GENERIC: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
];

fn suite() -> Option<(PathBuf, PathBuf)> {
    let dir = std::env::var_os("STRATA_MCP_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/mcp-conformance")
        });
    let bin = dir.join("node_modules/.bin");
    let (node, conformance) = (bin.join("node"), bin.join("conformance"));
    (node.exists() && conformance.exists()).then_some((node, conformance))
}

fn run(node: &PathBuf, conformance: &PathBuf, url: &str, scenario: Option<&str>) -> (String, bool) {
    let mut command = Command::new(node);
    command.arg(conformance).args(["server", "--url", url]);
    if let Some(scenario) = scenario {
        command.args(["--scenario", scenario]);
    }
    let output = command.output().expect("run the conformance suite");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (text, output.status.success())
}

#[test]
fn mcp_conformance_generic_scenarios_pass() {
    let Some((node, conformance)) = suite() else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_MCP_CONFORMANCE").is_none(),
            "STRATA_REQUIRE_MCP_CONFORMANCE is set but target/mcp-conformance is missing; run .ci/run"
        );
        eprintln!(
            "SKIP mcp conformance: install it with `npm install --prefix target/mcp-conformance node@22 @modelcontextprotocol/conformance`"
        );
        return;
    };
    let strata = Strata::new();
    let server = strata.serve(&[]);
    let url = server.url("/mcp");
    let (full, _) = run(&node, &conformance, &url, None);
    let total = full
        .lines()
        .rev()
        .find(|l| l.starts_with("Total:"))
        .unwrap_or("Total: unknown")
        .to_owned();
    eprintln!(
        "MCP conformance, all active server scenarios: {total} (most need the reference server's own fixtures)"
    );
    for scenario in GENERIC {
        let (text, ok) = run(&node, &conformance, &url, Some(scenario));
        let passed = text
            .lines()
            .find(|l| l.contains("Passed:"))
            .unwrap_or("")
            .to_owned();
        eprintln!("  {scenario}: {passed}");
        assert!(
            ok && passed.contains(" 0 failed"),
            "scenario {scenario} failed:\n{text}"
        );
    }
}
