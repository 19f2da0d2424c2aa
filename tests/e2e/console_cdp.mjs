// Drives the console in headless Chromium over the Chrome DevTools Protocol (Node's built-in
// WebSocket; no npm package): keys in session storage, typing and Ctrl-Enter, sorting.
//
//   node --experimental-websocket tests/e2e/console_cdp.mjs CHROMIUM BASE_URL READ_KEY WRITE_KEY
//   node --experimental-websocket tests/e2e/console_cdp.mjs CHROMIUM BASE_URL oauth
//
// The second form signs in through the authorization server the server names (OAuth:
// authorization code with PKCE; the test authorization server approves without a form).
//
// Prints one line per check and exits non-zero when one fails.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [browserPath, base, readKey, writeKey] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), "strata-cdp-"));
const browser = spawn(browserPath, [
  "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
  "--remote-debugging-port=0", `--user-data-dir=${profile}`, "--window-size=1200,800", "about:blank",
], { stdio: "ignore" });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failures = 0;
function check(name, ok, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : `: ${JSON.stringify(detail)}`}`);
  if (!ok) failures++;
}

async function devtoolsPort() {
  for (let i = 0; i < 200; i++) {
    // Chromium may create the file before it has written the port into it: an empty or
    // partial first line reads as 0, so wait for a real port.
    try {
      const port = Number(readFileSync(join(profile, "DevToolsActivePort"), "utf8").split("\n")[0]);
      if (port > 0) return port;
    } catch {
      // not written yet
    }
    await sleep(50);
  }
  throw new Error("Chromium did not open its DevTools port");
}

async function connect() {
  const port = await devtoolsPort();
  // The port file can appear before the browser answers on it, and the first page target
  // a moment later: ask again for up to ten seconds.
  let page;
  for (let i = 0; i < 200 && !page; i++) {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      page = targets.find((t) => t.type === "page");
    } catch {
      // not listening yet
    }
    if (!page) await sleep(50);
  }
  if (!page) throw new Error(`no page target on DevTools port ${port}`);
  const socket = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
  let id = 0;
  const pending = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(message.error.message));
      else resolve(message.result);
    }
  };
  const send = (method, params = {}) => new Promise((resolve, reject) => {
    id += 1;
    pending.set(id, { resolve, reject });
    socket.send(JSON.stringify({ id, method, params }));
  });
  return { send, close: () => socket.close() };
}

async function main() {
  const cdp = await connect();
  const evaluate = async (expression) => {
    const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
    if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.text}`);
    return result.value;
  };
  const waitFor = async (expression, what) => {
    for (let i = 0; i < 200; i++) {
      if (await evaluate(expression).catch(() => false)) return true;
      await sleep(50);
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const open = async (url) => {
    await cdp.send("Page.navigate", { url });
    await sleep(100);
    await waitFor(`document.body && document.body.dataset.ready === "true"`, `${url} to load`);
  };
  const key = async (type, keyName, code, modifiers = 0, text) => cdp.send("Input.dispatchKeyEvent", {
    type, key: keyName, code, modifiers, windowsVirtualKeyCode: keyName === "Enter" ? 13 : keyName.toUpperCase().charCodeAt(0), text,
  });
  await cdp.send("Page.enable");
  await cdp.send("Runtime.enable");
  if (readKey === "oauth") {
    await signInScenario(open, evaluate, waitFor);
    cdp.close();
    return;
  }

  // A read-only key: no update controls.
  await open(`${base}/?graph=main&view=query`);
  await evaluate(`sessionStorage.setItem("strata.apiKey", ${JSON.stringify(readKey)})`);
  await open(`${base}/?graph=main&view=query`);
  check("read key: page is read-only", await evaluate(`document.body.classList.contains("read-only")`));
  check("read key: no Update choice", await evaluate(`getComputedStyle(document.querySelector('#mode option[value="update"]')).display === "none"`));
  check("read key: graphs listed", await evaluate(`document.querySelector("#graph").options.length >= 1`));

  // Typing a query and running it with Ctrl-Enter.
  await evaluate(`document.querySelector(".cm-content").focus()`);
  await key("keyDown", "a", "KeyA", 2);
  await key("keyUp", "a", "KeyA", 2);
  await cdp.send("Input.insertText", { text: "SELECT ?label WHERE { ?t a <http://example.org/support/Ticket> ; <http://www.w3.org/2000/01/rdf-schema#label> ?label }" });
  await key("keyDown", "Enter", "Enter", 2);
  await key("keyUp", "Enter", "Enter", 2);
  await waitFor(`/rows? at commit/.test(document.querySelector("#status").textContent)`, "the answer");
  const status = await evaluate(`document.querySelector("#status").textContent`);
  check("Ctrl-Enter runs the typed query", /^4 rows at commit \d+/.test(status), status);
  check("the URL holds the query", await evaluate(`new URLSearchParams(location.search).get("query").includes("rdfs#label") || new URLSearchParams(location.search).get("query").includes("label")`));

  // Sorting by a column, both ways.
  await evaluate(`document.querySelector('th[data-var="label"]').click()`);
  const down = await evaluate(`[...document.querySelectorAll("table.results tbody tr td:nth-child(2)")].map((td) => td.textContent)`);
  await evaluate(`document.querySelector('th[data-var="label"]').click()`);
  const up = await evaluate(`[...document.querySelectorAll("table.results tbody tr td:nth-child(2)")].map((td) => td.textContent)`);
  check("sorting ascending", JSON.stringify(down) === JSON.stringify([...down].sort()), down);
  check("sorting descending", JSON.stringify(up) === JSON.stringify([...down].reverse()), up);

  // Pinning from the header: every read is then at that commit.
  await evaluate(`(() => { const input = document.querySelector("#as-of"); input.value = "1"; input.dispatchEvent(new Event("change")); })()`);
  await waitFor(`document.querySelector("#pin .pinned") !== null`, "the pin");
  check("header pin", (await evaluate(`document.querySelector("#pin .pinned").textContent`)).startsWith("pinned at commit 1 of"));
  check("the URL holds the pin", await evaluate(`new URLSearchParams(location.search).get("as_of") === "1"`));

  // A key with the write scope sees the update controls.
  await evaluate(`sessionStorage.setItem("strata.apiKey", ${JSON.stringify(writeKey)})`);
  await open(`${base}/?graph=main&view=query`);
  check("write key: update controls shown", !(await evaluate(`document.body.classList.contains("read-only")`)));
  check("write key: Update choice visible", await evaluate(`getComputedStyle(document.querySelector('#mode option[value="update"]')).display !== "none"`));

  // An update from the console is one commit; the header's head moves with it.
  await evaluate(`(() => { const mode = document.querySelector("#mode"); mode.value = "update"; mode.dispatchEvent(new Event("change")); })()`);
  await evaluate(`document.querySelector(".cm-content").focus()`);
  await key("keyDown", "a", "KeyA", 2);
  await key("keyUp", "a", "KeyA", 2);
  await cdp.send("Input.insertText", { text: 'INSERT DATA { <http://example.org/support/t-1002> <http://www.w3.org/2000/01/rdf-schema#comment> "seen in the console" }' });
  await key("keyDown", "Enter", "Enter", 2);
  await key("keyUp", "Enter", "Enter", 2);
  await waitFor(`/^commit \\d+: /.test(document.querySelector("#status").textContent)`, "the update's commit");
  const committed = await evaluate(`document.querySelector("#status").textContent`);
  check("Ctrl-Enter commits an update", /^commit 3: \+1 −0$/.test(committed), committed);
  await waitFor(`document.querySelector("#pin").textContent.includes("commit 3")`, "the header's new head").catch(() => {});
  check("the header shows the new head", (await evaluate(`document.querySelector("#pin").textContent`)).includes("commit 3"),
    await evaluate(`document.querySelector("#pin").textContent`));

  // No key at all on a server that needs one: the page says so.
  await evaluate(`sessionStorage.removeItem("strata.apiKey")`);
  await open(`${base}/?graph=main&view=query`);
  check("no key: asks for one", (await evaluate(`document.querySelector("#connection").textContent`)).includes("needs an API key"));
  cdp.close();
}

async function signInScenario(open, evaluate, waitFor) {
  await open(`${base}/?graph=main&view=query`);
  check("signed out: asks to sign in", (await evaluate(`document.querySelector("#connection").textContent`)).includes("sign in"),
    await evaluate(`document.querySelector("#connection").textContent`));
  check("signed out: the sign-in button is shown", await evaluate(`!document.querySelector("#signin").hidden`));
  check("signed out: no graphs", await evaluate(`document.querySelector("#graph").options.length === 0`));
  await evaluate(`document.querySelector("#signin").click()`);
  // Away to the authorization server and back with a code, exchanged for a token.
  await sleep(300);
  try {
    await waitFor(`document.body && document.body.dataset.ready === "true" && !!sessionStorage.getItem("strata.apiKey")`, "the sign-in to finish");
  } catch (error) {
    const where = await evaluate(`location.href + " | " + (document.querySelector("#connection") || {}).textContent + " | " + document.body.innerText.slice(0, 300)`).catch((e) => e.message);
    throw new Error(`${error.message} at ${where}`);
  }
  const token = await evaluate(`sessionStorage.getItem("strata.apiKey")`);
  check("signed in: a JWT access token in this tab's session storage", token.split(".").length === 3, token);
  check("signed in: the address is back to what it was", await evaluate(`location.search === "?graph=main&view=query"`),
    await evaluate(`location.href`));
  check("signed in: graphs listed", await evaluate(`document.querySelector("#graph").options.length >= 1`));
  check("signed in: nothing to complain about", (await evaluate(`document.querySelector("#connection").textContent`)) === "",
    await evaluate(`document.querySelector("#connection").textContent`));
  check("signed in: the token's scopes allow writes", !(await evaluate(`document.body.classList.contains("read-only")`)));
}

try {
  await main();
} catch (error) {
  console.log(`FAIL ${error.message}`);
  failures++;
} finally {
  browser.kill("SIGKILL");
  await sleep(200);
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
