// End-to-end checks of Strata's MCP server with the official TypeScript MCP SDK as the client.
//
// Usage (after `npm ci` next to this file):
//     node client.mjs stdio STRATA_BINARY DATA_DIR
//     node client.mjs http  BASE_URL          (the tools are at BASE_URL/mcp)
//
// The same scenario as ../mcp_client.py (the Python SDK client), with the same check names,
// plus checks only this SDK makes meaningful: it validates every structuredContent (error
// results included) against the tool's outputSchema with Ajv, and Ajv warns on the console
// about JSON Schema formats it does not know. Prints one `CHECK <name> ok` line per passed
// check, `NOTE ...` lines for observed behaviour worth reporting, and `ALL CHECKS PASSED <n>`
// at the end; the first failed check throws and exits non-zero.
//
// Every scenario writes to its own graph, so the demo graph (if the server loaded one)
// does not matter. Over stdio each session starts its own server process on DATA_DIR, one
// at a time (the data directory is locked by the process that has it open).

import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { performance } from "node:perf_hooks";

// Ajv (inside the SDK) reports schema problems through console.warn/console.error, e.g.
// `unknown format "uint64" ignored in schema at path ...`. Capture them from the very start,
// before the SDK is even loaded, so `no-unknown-formats` sees everything; pass them through.
const CONSOLE_OUTPUT = [];
for (const level of ["warn", "error"]) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    CONSOLE_OUTPUT.push({ level, text: args.map((a) => (typeof a === "string" ? a : String(a))).join(" ") });
    original(...args);
  };
}

const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema, McpError } = await import("@modelcontextprotocol/sdk/types.js");

/** The installed SDK's version, from its package.json (found from where Node resolves it). */
function sdkVersion() {
  let dir = dirname(fileURLToPath(import.meta.resolve("@modelcontextprotocol/sdk/types.js")));
  while (dir !== dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8"));
      if (pkg.name === "@modelcontextprotocol/sdk") return pkg.version;
    }
    dir = dirname(dir);
  }
  throw new Error("cannot find @modelcontextprotocol/sdk/package.json");
}

const SDK_VERSION = sdkVersion();
const EX = "http://example.org/desk/";
const PASSED = [];

class CheckFailed extends Error {}

function say(line) {
  process.stdout.write(line + "\n");
}

/** Records a passed check or throws with the detail. */
function check(name, condition, detail = "") {
  if (!condition) {
    const text = typeof detail === "string" ? detail : JSON.stringify(detail, null, 1);
    throw new CheckFailed(`CHECK ${name} FAILED: ${text}`);
  }
  PASSED.push(name);
  say(`CHECK ${name} ok`);
}

function note(text) {
  say(`NOTE ${text}`);
}

const eq = isDeepStrictEqual; // Python's == on JSON values (key order does not matter)
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const dumps = (value) => JSON.stringify(value);

// The SDK throws McpError both for a JSON-RPC error from the server and for a result it
// rejects itself (structuredContent that does not match the tool's outputSchema). The second
// is never a legitimate outcome here, so it fails the run wherever it happens.
const LOCAL_VALIDATION = [
  "Structured content does not match the tool's output schema",
  "Failed to validate structured content",
  "has an output schema but did not return structured content",
];

/** What one tools/call produced: a tool result, or a JSON-RPC error. */
class Outcome {
  constructor({ result = null, protocolError = null } = {}) {
    this.result = result;
    this.protocolError = protocolError;
  }

  get isError() {
    return Boolean(this.result?.isError);
  }

  get sc() {
    return this.result?.structuredContent;
  }

  get error() {
    return this.result ? (this.sc ?? {}).error : undefined;
  }

  describe() {
    if (this.protocolError) {
      return `JSON-RPC error code=${this.protocolError.code} message=${dumps(this.protocolError.message)}`;
    }
    return JSON.stringify(
      { isError: this.isError, structuredContent: this.sc, content: this.result.content },
      null,
      1,
    ).slice(0, 3000);
  }
}

async function call(session, tool, args) {
  try {
    session.lastOutcome = new Outcome({ result: await session.client.callTool({ name: tool, arguments: args }) });
    return session.lastOutcome;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    if (LOCAL_VALIDATION.some((text) => error.message.includes(text))) {
      throw new CheckFailed(
        `the SDK rejected the result of ${tool} ${dumps(args).slice(0, 300)}: ${error.message}\n` +
          `raw response: ${dumps(session.lastResponse).slice(0, 3000)}`,
      );
    }
    return new Outcome({ protocolError: error });
  }
}

/** Calls a tool that must succeed; returns its envelope. */
async function ok(session, tool, args) {
  const outcome = await call(session, tool, args);
  if (outcome.protocolError || outcome.isError) {
    throw new CheckFailed(`${tool} ${dumps(args).slice(0, 300)} failed: ${outcome.describe()}`);
  }
  const envelope = outcome.sc;
  for (const key of ["summary", "data", "served_at_seq"]) {
    if (!isObject(envelope) || !(key in envelope)) {
      throw new CheckFailed(`${tool} envelope lacks ${dumps(key)}: ${outcome.describe()}`);
    }
  }
  // The text content carries the same envelope (for clients that ignore structuredContent).
  const texts = outcome.result.content.filter((c) => c.type === "text").map((c) => c.text);
  if (!texts.length || !eq(JSON.parse(texts[0]), envelope)) {
    throw new CheckFailed(`${tool}: text content differs from structuredContent: ${outcome.describe()}`);
  }
  return envelope;
}

/** Calls a tool that must fail with a tool error `code`; returns the error object. */
async function fails(session, tool, args, code) {
  const outcome = await call(session, tool, args);
  if (outcome.protocolError || !outcome.isError) {
    throw new CheckFailed(`${tool} ${dumps(args).slice(0, 300)}: expected error ${code}, got ${outcome.describe()}`);
  }
  const error = outcome.error;
  if (!error || error.code !== code) {
    throw new CheckFailed(`${tool}: expected error code ${code}, got ${outcome.describe()}`);
  }
  for (const key of ["type", "message"]) {
    if (!error[key]) throw new CheckFailed(`${tool}: error lacks ${dumps(key)}: ${outcome.describe()}`);
  }
  return error;
}

async function select(session, graph, sparql, extra = {}) {
  const envelope = await ok(session, "query", { mode: "sparql", graph, sparql, ...extra });
  return [envelope, envelope.data.rows];
}

// --- elicitation -------------------------------------------------------------------------

/** The person behind the client: answers elicitation requests as told. */
class Approver {
  constructor() {
    this.answer = "decline";
    this.asked = [];
    // Runs while the question is open (before answering), once: what happens meanwhile.
    this.meanwhile = null;
  }

  async handle(request) {
    const { message, requestedSchema } = request.params;
    this.asked.push({ message, schema: requestedSchema });
    if (this.meanwhile) {
      const meanwhile = this.meanwhile;
      this.meanwhile = null;
      await meanwhile();
    }
    if (this.answer === "accept") return { action: "accept", content: { approve: true } };
    if (this.answer === "accept-false") return { action: "accept", content: { approve: false } };
    if (this.answer === "cancel") return { action: "cancel" };
    return { action: "decline" };
  }
}

// --- transports ----------------------------------------------------------------------------

class Transport {
  constructor(argv) {
    this.kind = argv[0];
    if (this.kind === "stdio" && argv.length === 3) {
      [this.binary, this.dataDir] = argv.slice(1);
    } else if (this.kind === "http" && argv.length === 2) {
      this.url = argv[1].replace(/\/+$/, "") + "/mcp";
    } else {
      process.stderr.write("usage: node client.mjs stdio STRATA_BINARY DATA_DIR | node client.mjs http BASE_URL\n");
      process.exit(2);
    }
  }

  /** Runs `body(session)` in an initialized session and closes it afterwards. `approver`
   * declares the elicitation capability and answers; `destructiveAllowed` (stdio only)
   * starts the server with STRATA_DESTRUCTIVE=allow. */
  async session({ approver = null, destructiveAllowed = false } = {}, body) {
    const capabilities = approver ? { elicitation: {} } : {};
    const client = new Client({ name: "strata-e2e-ts", version: "1.0.0" }, { capabilities });
    if (approver) client.setRequestHandler(ElicitRequestSchema, async (request) => approver.handle(request));
    const transport = this._transport(destructiveAllowed);
    await client.connect(transport);
    // Keep the last raw JSON-RPC response, to show what the SDK rejected if it rejects one.
    const session = { client, lastResponse: null, lastOutcome: null };
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (message.id !== undefined && !("method" in message)) session.lastResponse = message;
      deliver(message, extra);
    };
    try {
      // The SDK validates structuredContent only for tools it has listed (listTools caches one
      // Ajv validator per outputSchema), as the Python SDK does by listing on first call.
      session.tools = (await client.listTools()).tools;
      return await body(session);
    } finally {
      if (this.kind === "http") {
        // Like the Python client: end the server-side session (DELETE) before closing.
        await transport.terminateSession().catch(() => {});
      }
      await client.close();
    }
  }

  _transport(destructiveAllowed) {
    if (this.kind === "stdio") {
      const env = {};
      for (const [key, value] of Object.entries(process.env)) {
        if (key !== "STRATA_DESTRUCTIVE" && key !== "STRATA_DATA") env[key] = value;
      }
      if (destructiveAllowed) env.STRATA_DESTRUCTIVE = "allow";
      return new StdioClientTransport({
        command: this.binary,
        args: ["--data", this.dataDir, "serve", "--stdio"],
        env,
        stderr: "ignore", // the server's logs would bury the CHECK lines
      });
    }
    return new StreamableHTTPClientTransport(new URL(this.url));
  }
}

// --- scenarios -----------------------------------------------------------------------------

const DESK = `
@prefix ex: <${EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:T-41 a ex:Ticket ; rdfs:label "Login page times out" ; ex:reportedAs ex:BUG-7 .
ex:T-42 a ex:Ticket ; rdfs:label "Export drops the last row" ; ex:reportedAs ex:BUG-9 .
ex:T-43 a ex:Ticket ; rdfs:label "Typo on invoice" .
ex:BUG-7 a ex:Bug ; rdfs:label "Session cookie expires early" ; ex:fixedIn ex:R-2.0 .
ex:BUG-9 a ex:Bug ; rdfs:label "Off-by-one in CSV writer" ; ex:fixedIn ex:R-2.1 .
ex:R-2.0 a ex:Release ; rdfs:label "2.0" .
ex:R-2.1 a ex:Release ; rdfs:label "2.1" .
ex:R-2.2 a ex:Release ; rdfs:label "2.2" .
`;

const FIXED_IN_T42 = `PREFIX ex: <${EX}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?release ?label WHERE {
  ex:T-42 ex:reportedAs ?bug .
  ?bug ex:fixedIn ?release .
  ?release rdfs:label ?label
} ORDER BY ?release`;

// What the tools/list answer may cost a client's context, in UTF-8 bytes of the tools array.
const TOOLS_LIST_BUDGET = 24000;

async function toolsListed(session) {
  const listed = session.tools;
  const tools = Object.fromEntries(listed.map((t) => [t.name, t]));
  const names = Object.keys(tools).sort();
  check("tools-listed", eq(names, ["commit", "configure", "embeddings", "inspect", "query", "rdf"]), names);
  const bytes = Buffer.byteLength(JSON.stringify(listed), "utf8");
  check("tools-list-under-budget", bytes <= TOOLS_LIST_BUDGET, `${bytes} bytes > ${TOOLS_LIST_BUDGET}`);
  note(`tools/list: ${bytes} bytes of tools (budget ${TOOLS_LIST_BUDGET})`);
  for (const [name, tool] of Object.entries(tools)) {
    check(`tool-${name}-output-schema`, isObject(tool.outputSchema)
      && JSON.stringify(tool.outputSchema).includes("served_at_seq"), tool.outputSchema);
    check(`tool-${name}-input-schema`, tool.inputSchema.type === "object", tool.inputSchema);
    check(`tool-${name}-description`, (tool.description ?? "").length > 40, tool.description);
  }
  const ann = Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.annotations ?? {}]));
  check("inspect-read-only", ann.inspect.readOnlyHint === true
    && ann.inspect.destructiveHint !== true, ann.inspect);
  check("query-read-only", ann.query.readOnlyHint === true
    && ann.query.destructiveHint !== true, ann.query);
  check("rdf-destructive", ann.rdf.destructiveHint === true
    && ann.rdf.readOnlyHint !== true, ann.rdf);
  check("commit-destructive-idempotent", ann.commit.destructiveHint === true
    && ann.commit.idempotentHint === true, ann.commit);
  check("configure-annotations", ann.configure.destructiveHint === true
    && ann.configure.readOnlyHint !== true, ann.configure);
  // The SDK's parsed Tool objects carry the fields under their wire names.
  const tool = listed.find((t) => t.name === "rdf");
  check("tool-attributes", tool.outputSchema != null && tool.annotations?.destructiveHint === true);
  for (const name of ["inspect", "rdf"]) {
    const required = tools[name].inputSchema.required ?? [];
    if (!required.includes("action")) {
      note(`tool ${name}: inputSchema does not list \`action\` as required: ${dumps(required)}`);
    }
  }
  for (const [name, tool] of Object.entries(tools)) {
    if (tool.inputSchema.additionalProperties !== false) {
      note(`tool ${name}: inputSchema does not say additionalProperties: false, `
        + `though unknown arguments are rejected`);
    }
  }
}

/** Import, guide, the T-42 question, a pinned read, graph_not_found. */
async function desk(session) {
  const imported = await ok(session, "rdf", { action: "import", graph: "desk", content: DESK,
    format: "turtle", message: "support desk" });
  const seq = imported.data.commit_seq;
  check("import-commits", Number.isInteger(seq) && seq >= 1 && imported.served_at_seq === seq
    && imported.data.inserted === 20, imported);

  const guide = await ok(session, "inspect", { action: "guide", graph: "desk" });
  const data = guide.data;
  const typesSeen = Object.fromEntries(data.types.map((row) => [row.type, row.count]));
  check("guide-counts", data.quads === 20 && guide.served_at_seq === seq, guide);
  check("guide-types", eq(typesSeen, { [`${EX}Ticket`]: 3, [`${EX}Bug`]: 2, [`${EX}Release`]: 3 }),
    typesSeen);
  const properties = new Set(data.properties.map((row) => row.property));
  check("guide-properties", properties.has(`${EX}reportedAs`) && properties.has(`${EX}fixedIn`),
    [...properties]);
  const suggestion = data.suggested_next_calls[0];
  check("guide-suggestion-runs", suggestion.tool === "query", suggestion);
  const suggested = await ok(session, suggestion.tool, suggestion.arguments);
  check("guide-suggestion-answers", suggested.data.rows.length >= 1, suggested);

  let [envelope, rows] = await select(session, "desk", FIXED_IN_T42);
  check("t42-fixed-in-2.1", eq(rows, [{ release: { iri: `${EX}R-2.1` }, label: "2.1" }]), envelope);
  check("t42-served-at-import", envelope.served_at_seq === seq, envelope);

  // A second fix lands later; the pinned read still gives the first answer.
  const later = await ok(session, "rdf", { action: "update", graph: "desk",
    sparql: `PREFIX ex: <${EX}> INSERT DATA { ex:BUG-9 ex:fixedIn ex:R-2.2 }` });
  check("update-commits", later.data.commit_seq === seq + 1 && later.served_at_seq === seq + 1, later);
  [envelope, rows] = await select(session, "desk", FIXED_IN_T42);
  check("head-sees-later-fix", eq(rows.map((r) => r.label), ["2.1", "2.2"])
    && envelope.served_at_seq === seq + 1, envelope);
  [envelope, rows] = await select(session, "desk", FIXED_IN_T42, { as_of_commit_seq: seq });
  check("as-of-gives-earlier-answer", eq(rows.map((r) => r.label), ["2.1"])
    && envelope.served_at_seq === seq, envelope);
  const entity = await ok(session, "inspect", { action: "entity", graph: "desk", iri: `${EX}BUG-9`,
    as_of_commit_seq: seq });
  check("entity-as-of", eq(entity.data.properties[`${EX}fixedIn`], [{ iri: `${EX}R-2.1` }])
    && entity.served_at_seq === seq, entity);
  const log = await ok(session, "inspect", { action: "log", graph: "desk" });
  const commits = log.data.commits;
  check("log-newest-first", eq(commits.map((c) => c.commit_seq), [seq + 1, seq])
    && commits[1].message === "support desk", log);

  let error = await fails(session, "inspect", { action: "guide", graph: "nosuchgraph" }, "graph_not_found");
  check("graph-not-found-lists-graphs", error.message.includes("desk") && error.param === "graph"
    && Boolean(error.hint), error);
  // That error result came back through callTool, which validated its structuredContent
  // against inspect's outputSchema (it throws when that fails); the validator agrees.
  const validator = session.client.getToolOutputValidator("inspect");
  const verdict = validator?.(session.lastOutcome.sc);
  check("error-result-validated", validator !== undefined && verdict?.valid === true,
    verdict?.errorMessage ?? "the SDK has no outputSchema validator for inspect");
  error = await fails(session, "query", { mode: "sparql", graph: "desk", sparql: "ASK {}",
    as_of_commit_seq: 9999 }, "commit_not_found");
  check("as-of-missing-commit", error.message.includes("9999"), error);
  if (error.param !== "as_of_commit_seq") {
    note(`query with as_of_commit_seq=9999: commit_not_found names param `
      + `${dumps(error.param ?? null)}, not the tool argument 'as_of_commit_seq': ${dumps(error)}`);
  }
  return seq;
}

const N_ROWS = 250;

/** 250 rows at row_limit 50 and at the default, with commits between pages. */
async function paging(session) {
  const item = (i) => String(i).padStart(3, "0");
  const lines = [`@prefix ex: <${EX}> .`];
  for (let i = 0; i < N_ROWS; i++) lines.push(`ex:item${item(i)} ex:rank ${i} .`);
  const imported = await ok(session, "rdf", { action: "import", graph: "pages",
    content: lines.join("\n"), format: "turtle" });
  const seq = imported.data.commit_seq;
  const expected = [];
  for (let i = 0; i < N_ROWS; i++) expected.push({ item: { iri: `${EX}item${item(i)}` }, rank: i });
  const sparql = `PREFIX ex: <${EX}> SELECT ?item ?rank WHERE { ?item ex:rank ?rank } ORDER BY ?rank`;
  let extra = 0;
  // row_limit is capped by `detail` (compact: 20 rows), without a note saying so.
  const capped = await ok(session, "query", { mode: "sparql", graph: "pages", sparql, row_limit: 50 });
  check("paging-row-limit-capped-by-detail", capped.data.rows.length === 20, capped.summary);
  note(`query row_limit=50 without detail returns ${capped.data.rows.length} rows `
    + `(capped by detail compact), notes=${dumps(capped.notes ?? null)}`);
  for (const [label, limit, perPage] of [["limit50", 50, 50], ["default", null, 20]]) {
    // The second run starts at the import's commit explicitly: the first added rows.
    let args = { mode: "sparql", graph: "pages", sparql };
    if (limit !== null) {
      args.row_limit = limit;
      args.detail = "standard";
    } else {
      args.as_of_commit_seq = seq;
    }
    const rows = [];
    const seqs = [];
    let pages = 0;
    let firstNext = null;
    for (;;) {
      const envelope = await ok(session, "query", args);
      pages += 1;
      rows.push(...envelope.data.rows);
      seqs.push(envelope.served_at_seq);
      if (!("next" in envelope)) {
        check(`paging-${label}-last-page-not-truncated`, !envelope.truncated, envelope);
        break;
      }
      check(`paging-${label}-page-${pages}-size`, envelope.data.rows.length === perPage
        && envelope.truncated === true
        && eq(envelope.counts, { returned: perPage, offset: (pages - 1) * perPage }),
      envelope);
      args = envelope.next;
      firstNext = firstNext ?? args;
      // Matching rows land at both ends of the order before the next page is read.
      extra += 1;
      await ok(session, "rdf", { action: "update", graph: "pages", sparql:
        `PREFIX ex: <${EX}> INSERT DATA { ex:early${extra} ex:rank ${-extra} . `
        + `ex:late${extra} ex:rank ${1000 + extra} }` });
      if (pages > 100) throw new CheckFailed("paging does not end");
    }
    check(`paging-${label}-page-count`, pages === Math.ceil(N_ROWS / perPage), pages);
    const differences = [];
    rows.forEach((row, i) => {
      if (i < expected.length && !eq(row, expected[i])) differences.push([i, row, expected[i]]);
    });
    check(`paging-${label}-exact-rows`, eq(rows, expected),
      `${rows.length} rows; first differences: ${dumps(differences.slice(0, 3))}`);
    check(`paging-${label}-pinned`, new Set(seqs).size === 1 && seqs[0] === seq, seqs);

    // A cursor is bound to its query, its commit and this server.
    const other = { ...firstNext, sparql: sparql.replace("?rank }", "?rank . FILTER(?rank >= 0) }") };
    let error = await fails(session, "query", other, "cursor_mismatch");
    check(`paging-${label}-cursor-other-query`, error.param === "cursor", error);
    const cursor = firstNext.cursor;
    const flipped = cursor.slice(0, 4) + (cursor[4] === "0" ? "1" : "0") + cursor.slice(5);
    error = await fails(session, "query", { ...firstNext, cursor: flipped }, "cursor_mismatch");
    check(`paging-${label}-cursor-tampered`, error.param === "cursor", error);
    error = await fails(session, "query", { ...firstNext, cursor: "garbage" }, "cursor_mismatch");
    check(`paging-${label}-cursor-garbage`, error.param === "cursor", error);
    error = await fails(session, "query", { ...firstNext, graph: "desk" }, "cursor_mismatch");
    check(`paging-${label}-cursor-other-graph`, error.param === "cursor", error);
    error = await fails(session, "query", { ...firstNext, as_of_commit_seq: seq + 1 }, "cursor_mismatch");
    check(`paging-${label}-cursor-other-commit`, error.param === "as_of_commit_seq", error);
    // The same cursor again gives the same page (cursors are not consumed).
    const again = await ok(session, "query", firstNext);
    check(`paging-${label}-cursor-replay`, again.served_at_seq === seq
      && eq(again.data.rows, expected.slice(perPage, 2 * perPage)), again);
  }

  const [envelope, rows] = await select(session, "pages", `PREFIX ex: <${EX}> SELECT (COUNT(*) AS ?n) `
    + `WHERE { ?item ex:rank ?rank }`);
  check("paging-head-has-new-rows", eq(rows, [{ n: N_ROWS + 2 * extra }])
    && envelope.served_at_seq === seq + extra, envelope);
}

/** DELETE WHERE: declined, accepted (with approve false, then true), and cancelled. */
async function approval(transport, approver) {
  const del = `PREFIX ex: <${EX}> DELETE WHERE { ex:T-42 ?p ?o }`;
  const askT42 = `PREFIX ex: <${EX}> ASK { ex:T-42 ?p ?o }`;
  return transport.session({ approver }, async (session) => {
    const head = (await ok(session, "inspect", { action: "publication", graph: "desk" })).served_at_seq;

    for (const [answer, label] of [["decline", "declined"], ["accept-false", "approve-false"], ["cancel", "cancelled"]]) {
      approver.answer = answer;
      const asked = approver.asked.length;
      const error = await fails(session, "rdf", { action: "update", graph: "desk", sparql: del },
        "approval_declined");
      check(`approval-${label}-asked-once`, approver.asked.length === asked + 1, approver.asked);
      check(`approval-${label}-error`, error.type === "approval" && error.message.includes("nothing was written"),
        error);
      const still = await ok(session, "query", { mode: "sparql", graph: "desk", sparql: askT42 });
      check(`approval-${label}-data-kept`, still.data.boolean === true && still.served_at_seq === head,
        still);
    }

    const question = approver.asked[0];
    check("approval-question-lists-quads", question.message.includes(`<${EX}T-42>`)
      && question.message.includes("3 quad"), question.message);
    const schema = question.schema;
    check("approval-question-schema", schema?.type === "object"
      && schema?.properties?.approve?.type === "boolean", schema);

    approver.answer = "accept";
    const done = await ok(session, "rdf", { action: "update", graph: "desk", sparql: del });
    check("approval-accepted-commits", done.data.commit_seq === head + 1
      && done.data.deleted === 3 && done.served_at_seq === head + 1, done);
    const gone = await ok(session, "query", { mode: "sparql", graph: "desk", sparql: askT42 });
    check("approval-accepted-data-gone", gone.data.boolean === false
      && gone.served_at_seq === head + 1, gone);
    let [envelope, rows] = await select(session, "desk", FIXED_IN_T42);
    check("approval-accepted-head-answer-empty", eq(rows, []), envelope);
    [envelope, rows] = await select(session, "desk", FIXED_IN_T42, { as_of_commit_seq: head });
    check("approval-earlier-commit-readable", eq(rows.map((r) => r.label), ["2.1", "2.2"])
      && envelope.served_at_seq === head, envelope);
    const commit = await ok(session, "inspect", { action: "commit", graph: "desk", commit_seq: head + 1 });
    check("approval-commit-lists-deleted", commit.data.deleted.length === 3
      && eq(commit.data.inserted, []), commit);

    // The commit tool's retractions ask the same way.
    const recordsHead = (await ok(session, "inspect", { action: "publication", graph: "records" })).served_at_seq;
    const retract = { graph: "records", retract_edges: [{ source: { type: "Bug", name: "BUG-7" },
      relation: "FIXED_IN", target: { type: "Release", name: "2.1" } }] };
    approver.answer = "decline";
    await fails(session, "commit", retract, "approval_declined");
    const kept = await ok(session, "inspect", { action: "publication", graph: "records" });
    check("retract-declined-kept", kept.served_at_seq === recordsHead, kept);
    approver.answer = "accept";
    const retracted = await ok(session, "commit", retract);
    check("retract-approved-commits", retracted.data.commit_seq === recordsHead + 1
      && retracted.data.deleted === 1, retracted);
    // Nothing left to delete: no question, no commit.
    const asked = approver.asked.length;
    const noop = await ok(session, "rdf", { action: "update", graph: "desk", sparql: del });
    check("approval-noop-not-asked", approver.asked.length === asked && noop.data.commit_seq === null
      && noop.served_at_seq === head + 1, noop);
    return head + 1;
  });
}

/** A client that cannot ask the person: approval_required, nothing written. */
async function noElicitation(transport, head) {
  const del = `PREFIX ex: <${EX}> DELETE WHERE { ex:T-41 ?p ?o }`;
  await transport.session({}, async (session) => {
    const error = await fails(session, "rdf", { action: "update", graph: "desk", sparql: del },
      "approval_required");
    check("approval-required-error", error.type === "approval" && Boolean(error.hint)
      && error.message.includes("nothing was written"), error);
    const still = await ok(session, "query", { mode: "sparql", graph: "desk",
      sparql: `PREFIX ex: <${EX}> ASK { ex:T-41 ?p ?o }` });
    check("approval-required-nothing-written", still.data.boolean === true
      && still.served_at_seq === head, still);
    // Inserts need no approval.
    const added = await ok(session, "rdf", { action: "update", graph: "desk",
      sparql: `PREFIX ex: <${EX}> INSERT DATA { ex:T-44 a ex:Ticket }` });
    check("approval-not-needed-for-insert", added.data.commit_seq === head + 1, added);
  });
}

/** STRATA_DESTRUCTIVE=allow on the server (stdio only): removals need no question. */
async function operatorAllows(transport, head) {
  await transport.session({ destructiveAllowed: true }, async (session) => {
    const done = await ok(session, "rdf", { action: "update", graph: "desk",
      sparql: `PREFIX ex: <${EX}> DELETE WHERE { ex:T-44 ?p ?o }` });
    check("destructive-allow-skips-question", done.data.commit_seq === head + 1
      && done.data.deleted === 1, done);
  });
}

async function idempotency(session) {
  const args = { action: "update", graph: "desk", idempotency_key: "retry-1",
    sparql: `PREFIX ex: <${EX}> INSERT DATA { ex:T-45 a ex:Ticket }` };
  const first = await ok(session, "rdf", args);
  const again = await ok(session, "rdf", args);
  check("idempotent-retry", again.data.commit_seq === first.data.commit_seq
    && again.data.idempotent_replay === true && first.data.idempotent_replay === false,
  [first, again]);
}

async function badInput(session) {
  let error = await fails(session, "query", { mode: "sparql", graph: "desk", sparql: "SELEC ?x WHERE {" },
    "invalid_sparql");
  check("invalid-sparql", error.type === "invalid_request" && Boolean(error.hint), error);
  error = await fails(session, "rdf", { action: "update", graph: "desk", sparql: "INSERT DATUM {}" },
    "invalid_sparql");
  check("invalid-sparql-update", Boolean(error.message), error);
  error = await fails(session, "rdf", { action: "import", graph: "desk", content: "<a> <b> .",
    format: "turtle" }, "invalid_rdf");
  check("invalid-rdf", Boolean(error.message), error);

  for (const [tool, args, param] of [
    ["query", { mode: "sparql", graph: "desk" }, "sparql"],
    ["rdf", { action: "import", graph: "desk", format: "turtle" }, "content"],
    ["rdf", { action: "import", graph: "desk", content: DESK }, "format"],
    ["rdf", { action: "update", graph: "desk" }, "sparql"],
    ["inspect", { action: "commit", graph: "desk" }, "commit_seq"],
    ["inspect", { action: "entity", graph: "desk" }, "iri"],
  ]) {
    error = await fails(session, tool, args, "invalid_argument");
    check(`missing-${tool}-${param}`, error.param === param && error.message.includes(param), error);
  }

  // Arguments the schema itself rejects: unknown ones, a missing `action`, a bad enum value.
  for (const [label, tool, args, name] of [
    ["unknown-argument", "inspect", { action: "guide", bogus: 1 }, "bogus"],
    ["unknown-argument-query", "query", { mode: "sparql", sparql: "ASK {}", limit: 5 }, "limit"],
    ["missing-action", "inspect", {}, "action"],
    ["missing-mode", "query", { sparql: "ASK {}" }, "mode"],
    ["unknown-action", "inspect", { action: "explode" }, "explode"],
  ]) {
    const outcome = await call(session, tool, args);
    if (outcome.protocolError) {
      const protocolError = outcome.protocolError;
      const data = protocolError.data;
      const text = `${protocolError.message} ${typeof data === "string" ? data : data == null ? "" : dumps(data)}`;
      check(label, text.includes(name), outcome.describe());
      note(`${label}: ${tool} ${dumps(args)} -> JSON-RPC error `
        + `code=${protocolError.code} message=${dumps(protocolError.message)} `
        + `(a protocol error, not a tool result with isError/structuredContent.error)`);
    } else {
      const text = outcome.result.content.map((c) => c.text ?? "").join(" ");
      check(label, outcome.isError && (dumps(outcome.error ?? null) + text).includes(name), outcome.describe());
      if (outcome.error == null) {
        note(`${label}: ${tool} ${dumps(args)} -> isError result WITHOUT `
          + `structuredContent.error (structuredContent=${dumps(outcome.sc ?? null)}); text: ${dumps(text)}`);
      } else {
        note(`${label}: ${tool} ${dumps(args)} -> tool error ${dumps(outcome.error)}`);
      }
    }
  }

  const outcome = await call(session, "nosuchtool", {});
  check("unknown-tool", outcome.protocolError !== null || outcome.isError, outcome.describe());
}

const RECORDS_ONTOLOGY = {
  action: "define_ontology", graph: "records",
  types: [{ name: "Ticket" }, { name: "Bug" }, { name: "Release" }],
  relations: [
    { name: "REPORTED_AS", domain: "Ticket", range: "Bug" },
    { name: "FIXED_IN", domain: "Bug", range: "Release", cardinality: "one" },
  ],
  fields: [
    { name: "severity", type: "Bug", value_type: "i64" },
    { name: "opened", type: "Ticket", value_type: "date_time" },
    { name: "status", type: "Ticket", value_type: "keyword", allowed_values: ["open", "closed"] },
  ],
};

const RECORDS_BASE = "http://strata.local/graphs/records";

const RECORDS_QUESTION = `SELECT ?release WHERE {
  ?t <http://www.w3.org/2000/01/rdf-schema#label> "T-42" ; <${RECORDS_BASE}/rel/reported_as> ?b .
  ?b <${RECORDS_BASE}/rel/fixed_in> ?r . ?r <http://www.w3.org/2000/01/rdf-schema#label> ?release }`;

/** configure + commit: the ontology, typed records, annotations, errors, retraction. */
async function records(session) {
  const first = await ok(session, "configure", RECORDS_ONTOLOGY);
  check("configure-defines", first.data.changed === true && first.data.commit_seq === 1, first);
  const again = await ok(session, "configure", RECORDS_ONTOLOGY);
  check("configure-idempotent", again.data.changed === false && again.served_at_seq === 1, again);
  const onto = await ok(session, "inspect", { action: "ontology", graph: "records" });
  check("inspect-ontology", onto.data.types.length === 3 && onto.data.relations.length === 2
    && onto.data.fields.length === 3, onto.summary);
  const write = { graph: "records",
    triplets: [
      { source: { type: "Ticket", name: "T-42" }, relation: "REPORTED_AS",
        target: { type: "Bug", name: "BUG-7" }, evidence: "customer email",
        confidence: 0.8, valid_time: { start: "2026-06-01" } },
      { source: { type: "Bug", name: "BUG-7" }, relation: "FIXED_IN",
        target: { type: "Release", name: "2.1" } }],
    entity_properties: [
      { entity: { type: "Bug", name: "BUG-7" }, properties: { severity: "2" } },
      { entity: { type: "Ticket", name: "T-42" }, properties: { opened: "2026-06-26", status: "open" } }] };
  // Imports report progress to a client that passes a progress token (the SDK sends one
  // when onprogress is given).
  const progress = [];
  let lines = "";
  for (let i = 0; i < 25000; i++) lines += `<http://e/bulk${i}> <http://e/p> "${i}" .\n`;
  const bulk = await session.client.callTool(
    { name: "rdf", arguments: { action: "import", graph: "bulk", format: "ntriples", content: lines } },
    undefined,
    { onprogress: (p) => progress.push(p.progress) },
  );
  // The SDK handles a notification a turn after it reads it but a response at once, so
  // progress read together with the result is dropped (the server pauses 25 ms before the
  // result, which nearly always keeps them apart): at least one report, counts rising.
  check("import-progress", !bulk.isError && progress.length >= 1 && progress[0] > 0
    && progress.every((p, i) => i === 0 || p > progress[i - 1]) && progress.at(-1) <= 25000,
    { progress, isError: bulk.isError });
  const committed = await ok(session, "commit", write);
  check("commit-records", committed.data.commit_seq === 2 && committed.data.inserted > 0, committed);
  const bug = await ok(session, "inspect", { action: "entity", graph: "records", type: "Bug", name: "BUG-7" });
  check("entity-by-type-and-name", `${RECORDS_BASE}/prop/severity` in bug.data.properties
    && eq(bug.data.properties[`${RECORDS_BASE}/prop/severity`], [2]), bug.data);
  const replay = await ok(session, "commit", write);
  check("commit-replay", replay.data.idempotent_replay === true && replay.data.commit_seq === 2, replay);
  const answer = await ok(session, "query", { mode: "sparql", graph: "records", sparql: RECORDS_QUESTION });
  check("records-answer", eq(answer.data.rows, [{ release: "2.1" }])
    && answer.served_at_seq === 2, answer);
  const typed = await ok(session, "query", { mode: "sparql", graph: "records", sparql:
    `SELECT ?s ?o WHERE { ?b <${RECORDS_BASE}/prop/severity> ?s . ?t <${RECORDS_BASE}/prop/opened> ?o }`, detail: "standard" });
  const row = typed.data.rows[0];
  check("field-values-typed", row.s === 2 && eq(row.o, {
    value: "2026-06-26T00:00:00Z", datatype: "http://www.w3.org/2001/XMLSchema#dateTime" }), row);
  const annotation = await ok(session, "query", { mode: "sparql", graph: "records", sparql:
    "SELECT ?c ?e WHERE { ?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t ; "
    + "<https://strata.dev/ns#confidence> ?c ; <https://strata.dev/ns#evidence> ?e }" });
  check("edge-annotations", eq(annotation.data.rows, [{ c: 0.8, e: "customer email" }]), annotation);
  const why = await ok(session, "inspect", { action: "why", graph: "records", type: "Ticket", name: "T-42",
    relation: "REPORTED_AS", target: { type: "Bug", name: "BUG-7" } });
  const annotations = Object.fromEntries(why.data.annotations.map((a) => [a.property, a.value]));
  check("why-annotations", annotations["https://strata.dev/ns#confidence"] === 0.8
    && annotations["https://strata.dev/ns#evidence"] === "customer email"
    && why.data.versions[0].added.commit_seq === 2, why.data);
  await validAtAlias(session);
  const bad = [
    [{ triplets: [{ source: { type: "Nope", name: "x" }, relation: "REPORTED_AS", target: { type: "Bug", name: "y" } }] },
      "unknown_type", "triplets[0].source.type"],
    [{ triplets: [{ source: { type: "Ticket", name: "x" }, relation: "NOPE", target: { type: "Bug", name: "y" } }] },
      "unknown_relation", "triplets[0].relation"],
    [{ entity_properties: [{ entity: { type: "Bug", name: "BUG-7" }, properties: { colour: "red" } }] },
      "unknown_field", "entity_properties[0].properties.colour"],
    [{ entity_properties: [{ entity: { type: "Bug", name: "BUG-7" }, properties: { severity: "high" } }] },
      "value_type_mismatch", "entity_properties[0].properties.severity"],
    [{ triplets: [{ source: { type: "Bug", name: "BUG-7" }, relation: "FIXED_IN", target: { type: "Release", name: "3.0" } }] },
      "cardinality_violation", "triplets[0].target"],
  ];
  for (const [args, code, param] of bad) {
    const error = await fails(session, "commit", { graph: "records", ...args }, code);
    check(`commit-error-${code}`, error.param === param, error);
  }
  let head = await ok(session, "inspect", { action: "publication", graph: "records" });
  check("commit-errors-change-nothing", head.data.head_seq === 2, head);
  const dry = await ok(session, "commit", { graph: "records", retract_entities: [{ type: "Ticket", name: "T-42" }], dry_run: true });
  check("retract-dry-run", dry.data.would_delete > 0 && dry.served_at_seq === 2, dry);
  // evolve_ontology: a conflicting narrowing is reported by a dry run and refused.
  const narrow = { action: "evolve_ontology", graph: "records",
    changes: [{ op: "set_allowed_values", field: "status", allowed_values: ["closed"] }] };
  const report = await ok(session, "configure", { ...narrow, dry_run: true });
  check("evolve-dry-run-conflicts", report.data.conflicts.length === 1 && report.data.conflicts[0].includes("T-42"), report.data);
  await fails(session, "configure", narrow, "ontology_conflict");
  // A rename moves the data with it; the old answer stays readable at the old commit.
  const renamed = await ok(session, "configure", { action: "evolve_ontology", graph: "records",
    changes: [{ op: "rename", kind: "relation", from: "REPORTED_AS", to: "FILED_AS" }] });
  check("evolve-rename", renamed.data.commit_seq === 3, renamed);
  const moved = await ok(session, "query", { mode: "sparql", graph: "records",
    sparql: RECORDS_QUESTION.replace("/rel/reported_as", "/rel/filed_as") });
  check("evolve-rename-moves-data", eq(moved.data.rows, [{ release: "2.1" }])
    && moved.served_at_seq === 3, moved);
  const old = await ok(session, "query", { mode: "sparql", graph: "records", sparql: RECORDS_QUESTION });
  check("evolve-rename-old-iri-gone", eq(old.data.rows, []), old);
  // Removing a field removes its values: the person must approve (this client cannot ask).
  await fails(session, "configure", { action: "evolve_ontology", graph: "records",
    changes: [{ op: "remove", kind: "field", name: "severity" }] }, "approval_required");
  head = await ok(session, "inspect", { action: "publication", graph: "records" });
  check("evolve-remove-needs-approval", head.data.head_seq === 3, head);
}

/** query mode traverse: `as_of` is an alias of `valid_at`; both at once is an error. */
async function validAtAlias(session) {
  const base = { mode: "traverse", graph: "records", traverse: { steps: [{ from_type: "Ticket" }] } };
  const validAt = await ok(session, "query", { ...base, valid_at: "2026-07-01" });
  const asOf = await ok(session, "query", { ...base, as_of: "2026-07-01" });
  const error = await fails(session, "query", { ...base, valid_at: "2026-07-01", as_of: "2026-07-01" },
    "invalid_argument");
  check("valid-at-alias", validAt.data.rows?.length >= 1 && eq(asOf.data, validAt.data)
    && asOf.served_at_seq === validAt.served_at_seq,
    [validAt, asOf, error]);
}

/** Declare a searchable class, search it in JSON and inside SPARQL. */
async function search(session) {
  await ok(session, "rdf", { action: "import", graph: "searchdesk", content: DESK, format: "turtle" });
  const declared = await ok(session, "embeddings", { action: "declare", graph: "searchdesk", class: `${EX}Ticket`,
    from: ["http://www.w3.org/2000/01/rdf-schema#label", `${EX}reportedAs`] });
  check("embeddings-declared", declared.data.records === 3 && declared.data.name === "ticket", declared);
  const found = await ok(session, "query", { mode: "search", graph: "searchdesk", text: "login", lane: "sparse",
    consistency: "strong", top_k: 2 });
  const hits = found.data.hits;
  check("search-sparse-finds-login", hits.length > 0 && hits[0].iri === `${EX}T-41`
    && hits[0].label === "Login page times out", found);
  const dense = await ok(session, "query", { mode: "search", graph: "searchdesk", text: "cannot sign in",
    lane: "hybrid", top_k: 3 });
  check("search-hybrid-has-lane-scores", dense.data.hits.length === 3
    && dense.data.hits.every((h) => "lane_scores" in h), dense);
  const listed = await ok(session, "embeddings", { action: "list", graph: "searchdesk" });
  const index = listed.data.indexes[0];
  check("embeddings-list-ready", index.lag === 0 && index.records === 3, listed);
  const progress = index.progress;
  check("embeddings-list-progress-and-rate", progress.done <= progress.total
    && typeof progress.records_per_second === "number"
    && progress.records_per_second >= 0, listed);
  const sparql = await ok(session, "query", { mode: "sparql", graph: "searchdesk", sparql:
    "PREFIX search: <https://strata.dev/ns/search#> SELECT ?t WHERE { ?t search:nearest \"csv export\" ; search:lane \"sparse\" ; search:k 1 }" });
  check("search-in-sparql", eq(sparql.data.rows, [{ t: { iri: `${EX}T-42` } }])
    && sparql.data.search[0].plan === "nearest", sparql);
  const error = await fails(session, "query", { mode: "search", graph: "searchdesk", text: "x", top_k: 500 }, "invalid_argument");
  check("search-top-k-bounded", error.param === "top_k", error);
}

/** HTTP only (a second session writes while the first one's question is open): a removal
 * approved for the data as it was shown must not remove what was added meanwhile. */
async function staleApproval(transport, approver) {
  const ontology = { action: "define_ontology", graph: "stale", types: [{ name: "Ticket" }, { name: "Bug" }],
    relations: [{ name: "REPORTED_AS", domain: "Ticket", range: "Bug" }] };
  const link = (bug) => ({ graph: "stale", triplets: [{ source: { type: "Ticket", name: "T-1" },
    relation: "REPORTED_AS", target: { type: "Bug", name: bug } }] });
  const retract = { graph: "stale", retract_entities: [{ type: "Ticket", name: "T-1" }] };
  const links = async (session) => (await ok(session, "query", { mode: "sparql", graph: "stale",
    sparql: "SELECT (COUNT(*) AS ?n) WHERE { ?t <http://strata.local/graphs/stale/rel/reported_as> ?b }" })).data.rows[0].n;
  await transport.session({ approver }, async (session) => {
    await ok(session, "configure", ontology);
    await ok(session, "commit", link("B-1"));
    const head = (await ok(session, "inspect", { action: "publication", graph: "stale" })).served_at_seq;
    approver.answer = "accept";
    approver.meanwhile = () => transport.session({}, (other) => ok(other, "commit", link("B-2")));
    const error = await fails(session, "commit", retract, "approval_declined");
    check("approval-stale-refused", error.message.includes("changed since"), error);
    const now = await ok(session, "inspect", { action: "publication", graph: "stale" });
    check("approval-stale-nothing-removed", now.served_at_seq === head + 1 && await links(session) === 2, now);
    const done = await ok(session, "commit", retract);
    check("approval-stale-retry-removes-all", done.data.commit_seq === head + 2 && await links(session) === 0, done);
  });
}

async function main() {
  const transport = new Transport(process.argv.slice(2));
  const started = performance.now();
  say(`mcp SDK ${SDK_VERSION}, transport ${transport.kind}`);
  await transport.session({}, async (session) => {
    await toolsListed(session);
    await records(session);
    await desk(session);
    await paging(session);
    await search(session);
  });
  const approver = new Approver();
  let head = await approval(transport, approver);
  await noElicitation(transport, head);
  head += 1;
  if (transport.kind === "http") await staleApproval(transport, approver);
  if (transport.kind === "stdio") {
    await operatorAllows(transport, head);
    head += 1;
  }
  await transport.session({}, async (session) => {
    await idempotency(session);
    await badInput(session);
  });
  // Ajv compiled every outputSchema at each listTools(); an unknown `format` keyword would
  // have been reported (and then not validated) on the console.
  const unknownFormats = CONSOLE_OUTPUT.filter((line) => line.text.includes("unknown format"));
  check("no-unknown-formats", unknownFormats.length === 0, unknownFormats.map((line) => line.text));
  for (const line of CONSOLE_OUTPUT) note(`console.${line.level} during the run: ${line.text.slice(0, 300)}`);
  say(`ALL CHECKS PASSED ${PASSED.length} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
}

try {
  await main();
} catch (error) {
  // Not console.error: that is captured for no-unknown-formats.
  process.stderr.write(`${error instanceof CheckFailed ? error.message : error?.stack ?? error}\n`);
  process.exitCode = 1;
}
