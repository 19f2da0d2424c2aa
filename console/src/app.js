// Strata's console: query, time travel, diff, records and validation over the public HTTP API.
// The page state (graph, pinned commit, view, query) lives in the URL, so a link reproduces
// an answer.

import { ApiError, apiKey, json, request, setApiKey, sparql, update } from "./api.js";
import { renderSpec, vegaLiteSpec } from "./chart.js";
import { createEditor } from "./editor.js";
import { completeSignIn, discover, signIn } from "./oauth.js";
import { readTsv } from "./tsv.js";

const PAGE_ROWS = 500;
/** Rows of a streamed answer kept for sorting and charts; the rest are only counted. */
const KEPT_ROWS = 100_000;
const HISTORY_PAGE = 25;
const DEMO_QUERY = `PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 100`;
const PREFIXES = [
  ["rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"],
  ["rdfs", "http://www.w3.org/2000/01/rdf-schema#"],
  ["xsd", "http://www.w3.org/2001/XMLSchema#"],
  ["owl", "http://www.w3.org/2002/07/owl#"],
  ["sh", "http://www.w3.org/ns/shacl#"],
  ["dcterms", "http://purl.org/dc/terms/"],
  ["schema", "http://schema.org/"],
  ["foaf", "http://xmlns.com/foaf/0.1/"],
  ["skos", "http://www.w3.org/2004/02/skos/core#"],
  ["search", "https://strata.dev/ns/search#"],
];

const state = {
  graph: "main",
  asOf: "",
  view: "query",
  headSeq: null,
  access: { read: true, write: false, admin: false },
  namespaces: PREFIXES.map(([prefix, namespace]) => ({ prefix, namespace })),
};

// ---- DOM helpers -------------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const $ = (id) => document.getElementById(id);

function showError(target, error) {
  target.replaceChildren(
    h("div", { class: "error", role: "alert" },
      h("strong", {}, error.code || "error"), ": ", error.message,
      error.param ? h("span", { class: "param" }, ` (argument: ${error.param})`) : null),
  );
}

// ---- URL state -----------------------------------------------------------------------------

function readUrl() {
  const params = new URLSearchParams(location.search);
  state.graph = params.get("graph") || "main";
  state.asOf = params.get("as_of") || "";
  state.view = params.get("view") || "query";
  return params;
}

function writeUrl(extra = {}) {
  const params = new URLSearchParams();
  params.set("graph", state.graph);
  if (state.asOf) params.set("as_of", state.asOf);
  params.set("view", state.view);
  for (const [name, value] of Object.entries(extra)) if (value) params.set(name, value);
  history.replaceState(null, "", `/?${params}`);
}

// ---- Header: graph, pin, key ----------------------------------------------------------------

async function loadGraphs() {
  const select = $("graph");
  try {
    const answer = await json("/graphs");
    state.access = answer.access || state.access;
    select.replaceChildren(...answer.graphs.map((g) => h("option", { value: g.name, selected: g.name === state.graph }, g.name)));
    const current = answer.graphs.find((g) => g.name === state.graph);
    state.headSeq = current ? current.head_seq : null;
    $("connection").textContent = "";
  } catch (error) {
    $("connection").textContent = error instanceof ApiError && error.status === 401
      ? (state.oauth ? "This server needs you to sign in (or an API key)." : "This server needs an API key: enter one above.")
      : `Cannot list graphs: ${error.message}`;
  }
  document.body.classList.toggle("read-only", !state.access.write);
  renderPin();
}

function renderPin() {
  const pin = $("pin");
  const head = state.headSeq === null ? "?" : state.headSeq;
  const input = h("input", {
    id: "as-of", type: "number", min: 0, max: state.headSeq ?? undefined, value: state.asOf,
    placeholder: String(head), "aria-label": "read as of commit",
    onchange: (e) => pinTo(e.target.value.trim()),
  });
  pin.replaceChildren(
    state.asOf
      ? h("span", { class: "pinned" }, `pinned at commit ${state.asOf} of ${head} `,
        h("button", { onclick: () => pinTo("") }, "back to head"))
      : h("span", {}, `reading the head (commit ${head})`),
    h("label", { class: "as-of" }, " as of ", input));
}

function pinTo(seq) {
  state.asOf = seq ? String(seq) : "";
  renderPin();
  writeUrl(currentExtras());
  show(state.view);
}

// ---- Query view ---------------------------------------------------------------------------

let editor;
let lastResult = null;

function queryView() {
  const mode = h("select", { id: "mode", "aria-label": "query or update" },
    h("option", { value: "query" }, "Query"),
    h("option", { value: "update", class: "write-only" }, "Update"));
  return h("section", { id: "query-view" },
    h("div", { class: "toolbar" },
      mode,
      h("button", { id: "run", class: "primary", onclick: run }, "Run"),
      h("span", { class: "hint" }, "Ctrl/Cmd-Enter"),
      h("span", { class: "spacer" }),
      h("span", { id: "downloads" })),
    h("div", { id: "editor" }),
    h("div", { id: "status", "aria-live": "polite" }),
    h("div", { id: "results" }));
}

async function run() {
  const text = editor.text();
  const status = $("status");
  const results = $("results");
  const isUpdate = $("mode").value === "update";
  writeUrl({ query: text, chart: new URLSearchParams(location.search).get("chart") });
  status.textContent = "running…";
  results.replaceChildren();
  const started = performance.now();
  try {
    if (isUpdate) {
      const answer = await update(state.graph, text);
      // The header's head first, so the page is settled when the status says it is done.
      await loadGraphs();
      status.textContent = answer.commit_seq
        ? `commit ${answer.commit_seq}: +${answer.inserted} −${answer.deleted}`
        : "nothing changed";
      return;
    }
    const response = await sparql(state.graph, text, state.asOf,
      "text/tab-separated-values, text/turtle;q=0.9, application/sparql-results+json;q=0.8");
    const commit = response.headers.get("Strata-Commit");
    const type = response.headers.get("Content-Type") || "";
    const took = () => `${Math.round(performance.now() - started)} ms`;
    if (type.includes("turtle")) {
      const body = await response.text();
      lastResult = { kind: "graph", text };
      status.textContent = `graph answer at commit ${commit} in ${took()}`;
      results.replaceChildren(h("pre", { class: "turtle" }, body));
    } else {
      lastResult = { kind: "table", text };
      let table = null;
      let shownStatus = 0;
      const count = await readTsv(response, {
        onBoolean(value) {
          lastResult.kind = "boolean";
          results.replaceChildren(h("div", { class: "boolean" }, String(value)));
        },
        onHead(vars) {
          table = resultTable(vars);
          results.replaceChildren(table.element);
        },
        onRows(rows) {
          table.add(rows);
          if (performance.now() - shownStatus > 250) {
            shownStatus = performance.now();
            status.textContent = `${table.count()} rows so far…`;
          }
        },
      });
      if (lastResult.kind === "boolean") {
        status.textContent = `answer at commit ${commit} in ${took()}`;
      } else {
        table.finish();
        status.textContent = `${count} row${count === 1 ? "" : "s"} at commit ${commit} in ${took()}`;
      }
    }
    renderDownloads();
  } catch (error) {
    status.textContent = "";
    showError(results, error);
    const place = error instanceof ApiError ? error.position() : null;
    if (place) {
      results.querySelector(".error").append(h("div", { class: "position" }, `line ${place.line}, column ${place.column}`));
      editor.focusAt(place.line, place.column);
    }
  }
}

function renderDownloads() {
  const box = $("downloads");
  const formats = lastResult.kind === "graph"
    ? [["Turtle", "text/turtle", "ttl"], ["N-Triples", "application/n-triples", "nt"]]
    : [["CSV", "text/csv", "csv"], ["TSV", "text/tab-separated-values", "tsv"], ["JSON", "application/sparql-results+json", "json"]];
  box.replaceChildren("download: ", ...formats.map(([label, accept, ext]) =>
    h("button", { class: "link", onclick: () => download(accept, ext) }, label)));
}

async function download(accept, ext) {
  try {
    const response = await sparql(state.graph, lastResult.text, state.asOf, accept);
    const blob = await response.blob();
    const link = h("a", { href: URL.createObjectURL(blob), download: `${state.graph}-${response.headers.get("Strata-Commit")}.${ext}` });
    document.body.append(link);
    link.click();
    link.remove();
  } catch (error) {
    showError($("results"), error);
  }
}

function termText(term) {
  if (!term) return "";
  if (term.type === "uri") return term.value;
  if (term.type === "bnode") return `_:${term.value}`;
  if (term.type === "triple-text") return term.value;
  if (term.type === "triple") return `<< ${termText(term.value.subject)} ${termText(term.value.predicate)} ${termText(term.value.object)} >>`;
  return term.value;
}

function termCell(term) {
  if (!term) return h("td", { class: "unbound" });
  if (term.type === "uri") {
    return h("td", {}, h("a", { href: recordHref(term.value), class: "iri", onclick: (e) => { e.preventDefault(); openRecord(term.value); } }, shorten(term.value)));
  }
  const cell = h("td", {}, termText(term));
  if (term["xml:lang"]) cell.append(h("span", { class: "lang" }, `@${term["xml:lang"]}`));
  else if (term.datatype && !term.datatype.endsWith("#string")) cell.title = term.datatype;
  return cell;
}

function shorten(iri) {
  for (const { prefix, namespace } of state.namespaces) {
    if (iri.startsWith(namespace) && /^[\w-]*$/.test(iri.slice(namespace.length))) return `${prefix}:${iri.slice(namespace.length)}`;
  }
  return iri;
}

/**
 * A sortable table that renders PAGE_ROWS rows at a time (a large answer never builds its
 * whole DOM) and keeps at most KEPT_ROWS rows (the rest are counted). `add` appends rows as
 * they stream in; `finish` offers a chart when the answer is a label and a number.
 */
function resultTable(vars) {
  let rows = [];
  let sorted = rows;
  let total = 0;
  let shown = 0;
  let sortBy = null;
  const body = h("tbody");
  const more = h("button", { class: "more", hidden: true, onclick: () => renderMore() }, "");
  const note = h("p", { class: "hint" });
  const chart = h("div", { class: "chart-box" });
  const renderMore = () => {
    const end = Math.min(shown + PAGE_ROWS, sorted.length);
    for (let i = shown; i < end; i++) body.append(h("tr", {}, h("td", { class: "n" }, i + 1), ...vars.map((v) => termCell(sorted[i][v]))));
    shown = end;
    more.hidden = shown >= sorted.length;
    more.textContent = `show ${Math.min(PAGE_ROWS, sorted.length - shown)} more of ${sorted.length - shown}`;
  };
  const sort = (name) => {
    const direction = sortBy && sortBy.name === name && sortBy.direction === 1 ? -1 : 1;
    sortBy = { name, direction };
    const key = (row) => termText(row[name]);
    sorted = [...rows].sort((a, b) => direction * key(a).localeCompare(key(b), undefined, { numeric: true }));
    body.replaceChildren();
    shown = 0;
    head.querySelectorAll("th").forEach((th) => th.removeAttribute("aria-sort"));
    head.querySelector(`th[data-var="${name}"]`).setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
    renderMore();
  };
  const head = h("thead", {}, h("tr", {}, h("th", {}, "#"), ...vars.map((v) => h("th", { "data-var": v, onclick: () => sort(v) }, `?${v}`))));
  const offerChart = () => {
    if (state.view !== "query" || vars.length !== 2 || rows.length < 1 || rows.length > 1000) return;
    const [label, measure] = vars;
    const numeric = rows.every((r) => r[measure] && r[measure].type === "literal" && r[measure].value !== "" && !Number.isNaN(Number(r[measure].value)));
    if (!numeric) return;
    const values = rows.map((r) => ({ category: termText(r[label]) && shorten(termText(r[label])), value: Number(r[measure].value) }));
    const draw = (kind) => {
      chart.replaceChildren(renderSpec(vegaLiteSpec(kind, values, measure)));
      if (state.view === "query") writeUrl({ ...currentExtras(), chart: kind });
    };
    note.replaceChildren("chart: ",
      h("button", { class: "link", id: "chart-bar", onclick: () => draw("bar") }, "bar"),
      h("button", { class: "link", id: "chart-pie", onclick: () => draw("pie") }, "pie"));
    const wanted = new URLSearchParams(location.search).get("chart");
    if (state.view === "query" && (wanted === "bar" || wanted === "pie")) draw(wanted);
  };
  return {
    element: h("div", {}, note, chart, h("table", { class: "results" }, head, body), more),
    add(batch) {
      total += batch.length;
      const room = KEPT_ROWS - rows.length;
      if (room > 0) rows.push(...batch.slice(0, room));
      sorted = rows;
      if (shown < PAGE_ROWS && !sortBy) renderMore();
      else more.hidden = shown >= sorted.length;
      if (!more.hidden) more.textContent = `show ${Math.min(PAGE_ROWS, sorted.length - shown)} more of ${sorted.length - shown}`;
    },
    count: () => total,
    finish() {
      if (total > rows.length) note.textContent = `${total} rows; the first ${rows.length} are kept for sorting (download the whole answer)`;
      else offerChart();
    },
  };
}

/** A whole (non-streamed) SPARQL JSON answer as a table. */
function staticTable(vars, bindings) {
  const table = resultTable(vars);
  table.add(bindings);
  table.finish();
  return table.element;
}

// ---- Records ------------------------------------------------------------------------------

function recordHref(iri) {
  const params = new URLSearchParams({ graph: state.graph, view: "record", iri });
  if (state.asOf) params.set("as_of", state.asOf);
  return `/?${params}`;
}

function openRecord(iri) {
  state.view = "record";
  writeUrl({ iri });
  show("record");
}

async function recordView(iri) {
  const out = h("section", { id: "record-view" }, h("h2", {}, shorten(iri)), h("div", { class: "iri-full" }, iri));
  const safe = iri.replace(/[<>"{}|^`\\\s]/g, "");
  const tables = [
    ["Properties", `SELECT ?property ?value WHERE { <${safe}> ?property ?value } ORDER BY ?property`],
    ["Incoming links", `SELECT ?from ?property WHERE { ?from ?property <${safe}> } ORDER BY ?property LIMIT 1000`],
  ];
  for (const [title, query] of tables) {
    const box = h("div", { class: "record-part" }, h("h3", {}, title));
    out.append(box);
    try {
      const body = await (await sparql(state.graph, query, state.asOf)).json();
      box.append(body.results.bindings.length ? staticTable(body.head.vars, body.results.bindings) : h("p", { class: "empty" }, "none"));
    } catch (error) {
      const message = h("div");
      showError(message, error);
      box.append(message);
    }
  }
  const history = h("div", { class: "record-part" }, h("h3", {}, "History"));
  out.append(history);
  const older = h("button", { class: "more", hidden: true }, "older changes");
  const showChanges = (answer) => {
    for (const change of answer.changes) {
      older.before(h("div", { class: "record-change" },
        h("div", { class: "change-head" },
          h("button", { class: "link pin", onclick: () => pinTo(change.commit_seq) }, `commit ${change.commit_seq}`),
          ` ${change.committed_at.replace("T", " ").replace(/\.\d+Z$/, "Z")} · ${change.author || ""} · ${change.message || ""}`),
        h("div", { class: "diff-lines" },
          ...change.removed.map((q) => h("div", { class: "removed" }, `− ${q}`)),
          ...change.added.map((q) => h("div", { class: "added" }, `+ ${q}`)))));
    }
    older.hidden = !answer.next;
    older.onclick = async () => {
      try {
        showChanges(await json(answer.next));
      } catch (error) {
        showError(history, error);
      }
    };
  };
  try {
    const answer = await json(`/graphs/${encodeURIComponent(state.graph)}/history`, { params: { iri, as_of: state.asOf, limit: HISTORY_PAGE } });
    history.append(h("p", { class: "hint" }, `changed in ${answer.commit_count} commit${answer.commit_count === 1 ? "" : "s"} up to commit ${answer.served_at_seq}`), older);
    showChanges(answer);
  } catch (error) {
    const message = h("div");
    showError(message, error);
    history.append(message);
  }
  return out;
}

// ---- Search -------------------------------------------------------------------------------

function sparqlString(text) {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r")}"`;
}

async function searchView() {
  const params = new URLSearchParams(location.search);
  const out = h("section", { id: "search-view" });
  let indexes;
  try {
    indexes = (await json(`/graphs/${encodeURIComponent(state.graph)}/indexes`)).indexes;
  } catch (error) {
    showError(out, error);
    return out;
  }
  if (!indexes.length) {
    out.append(h("p", { class: "empty" }, "This graph has no search index yet. Declare one with the MCP ",
      h("code", {}, "embeddings"), " tool (action ", h("code", {}, "declare"), "); it builds in the background."));
    return out;
  }
  const text = h("input", { id: "search-text", type: "search", placeholder: "search by meaning and keywords", value: params.get("text") || "", "aria-label": "search text" });
  const index = h("select", { id: "search-index", "aria-label": "index" }, indexes.map((i) => h("option", { value: i.name, selected: i.name === params.get("index") }, i.name)));
  const lane = h("select", { id: "search-lane", "aria-label": "lane" }, ["hybrid", "dense", "sparse"].map((l) => h("option", { value: l, selected: l === (params.get("lane") || "hybrid") }, l)));
  const classFilter = h("input", { id: "search-class", type: "text", placeholder: "only records of class (IRI, optional)", value: params.get("class") || "", "aria-label": "class filter" });
  const status = h("div", { id: "index-status", class: "hint" });
  const hits = h("div", { id: "hits" });
  const describe = () => {
    const i = indexes.find((x) => x.name === index.value) || indexes[0];
    status.textContent = `index ${i.name}: ${i.records} records of ${shorten(i.class)}, ${i.state}, at commit ${i.published_seq} of ${i.head_seq} (lag ${i.lag})`;
  };
  const go = async () => {
    writeUrl({ text: text.value, index: index.value, lane: lane.value, class: classFilter.value });
    if (!text.value.trim()) return;
    const cls = classFilter.value.trim().replace(/[<>"{}|^`\\\s]/g, "");
    const query = `PREFIX search: <https://strata.dev/ns/search#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?record ?score ?label WHERE {
  ?record search:nearest ${sparqlString(text.value)} ; search:index ${sparqlString(index.value)} ;
          search:lane "${lane.value}" ; search:k 20 ; search:score ?score .
  ${cls ? `?record a <${cls}> .` : ""}
  OPTIONAL { ?record rdfs:label ?label }
} ORDER BY DESC(?score)`;
    hits.replaceChildren(h("p", {}, "searching…"));
    const started = performance.now();
    try {
      const response = await sparql(state.graph, query, state.asOf);
      const body = await response.json();
      const rows = body.results.bindings;
      hits.replaceChildren(
        h("p", { class: "hint", id: "search-status" }, `${rows.length} hit${rows.length === 1 ? "" : "s"} at commit ${response.headers.get("Strata-Commit")} in ${Math.round(performance.now() - started)} ms`),
        staticTable(body.head.vars, rows));
    } catch (error) {
      showError(hits, error);
    }
  };
  index.addEventListener("change", describe);
  text.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
  describe();
  out.append(h("div", { class: "toolbar" }, text, index, lane, classFilter, h("button", { class: "primary", id: "search-run", onclick: go }, "Search")), status, hits);
  if (text.value) go();
  return out;
}

// ---- History and diff ----------------------------------------------------------------------

function historyView() {
  const list = h("tbody", { id: "commits" });
  const more = h("button", { class: "more", hidden: true }, "older commits");
  const from = h("input", { id: "diff-from", type: "number", min: 0, placeholder: "from", "aria-label": "diff from commit" });
  const to = h("input", { id: "diff-to", type: "number", min: 1, placeholder: "to", "aria-label": "diff to commit" });
  const diff = h("div", { id: "diff" });
  const section = h("section", { id: "history-view" },
    h("div", { class: "toolbar" }, "diff ", from, " → ", to,
      h("button", { id: "show-diff", onclick: () => showDiff(from.value, to.value, diff) }, "show diff")),
    diff,
    h("table", { class: "commits" },
      h("thead", {}, h("tr", {}, ...["seq", "time", "author", "message", "+", "−", ""].map((t) => h("th", {}, t)))),
      list),
    more);
  let next = `/graphs/${encodeURIComponent(state.graph)}/commits?limit=${HISTORY_PAGE}`;
  const loadPage = async () => {
    try {
      const page = await json(next);
      for (const c of page.commits) {
        list.append(h("tr", { class: String(c.commit_seq) === state.asOf ? "current" : "" },
          h("td", { class: "n" }, c.commit_seq),
          h("td", {}, c.committed_at.replace("T", " ").replace(/\.\d+Z$/, "Z")),
          h("td", {}, c.author || ""),
          h("td", {}, c.message || ""),
          h("td", { class: "plus" }, c.inserted),
          h("td", { class: "minus" }, c.deleted),
          h("td", {},
            h("button", { class: "link pin", onclick: () => pinTo(c.commit_seq) }, "pin"),
            h("button", { class: "link", onclick: () => { from.value = c.commit_seq - 1; to.value = c.commit_seq; showDiff(c.commit_seq - 1, c.commit_seq, diff); } }, "changes"))));
      }
      next = page.next;
      more.hidden = !next;
    } catch (error) {
      showError(diff, error);
    }
  };
  more.addEventListener("click", loadPage);
  loadPage();
  const params = new URLSearchParams(location.search);
  if (params.get("from") && params.get("to")) {
    from.value = params.get("from");
    to.value = params.get("to");
    showDiff(from.value, to.value, diff);
  }
  return section;
}

async function showDiff(fromSeq, toSeq, target) {
  writeUrl({ from: fromSeq, to: toSeq });
  target.replaceChildren(h("p", {}, "loading…"));
  try {
    const answer = await json(`/graphs/${encodeURIComponent(state.graph)}/diff`, { params: { from: fromSeq, to: toSeq, limit: 1000 } });
    const lines = [
      ...answer.removed.map((q) => h("div", { class: "removed" }, `− ${q}`)),
      ...answer.added.map((q) => h("div", { class: "added" }, `+ ${q}`)),
    ];
    target.replaceChildren(
      h("h3", {}, `commit ${answer.from} → ${answer.to}: +${answer.counts.added} −${answer.counts.removed}`),
      h("div", { class: "diff-lines" }, lines.length ? lines : "no change"),
      ...(answer.next ? [h("p", { class: "hint" }, "first 1,000 changes shown")] : []));
  } catch (error) {
    showError(target, error);
  }
}

// ---- Validation ------------------------------------------------------------------------------

async function validationView() {
  const out = h("section", { id: "validation-view" });
  try {
    const report = await json(`/graphs/${encodeURIComponent(state.graph)}/conformance`, { params: { limit: 1000 } });
    const groups = new Map();
    for (const result of report.results) {
      const shape = result.node_shape || result.source_shape || "(no shape)";
      if (!groups.has(shape)) groups.set(shape, []);
      groups.get(shape).push(result);
    }
    out.append(h("h2", { class: report.conforms ? "conforms" : "violates" },
      report.conforms ? "The graph conforms to its shapes" : `${report.result_count} violation${report.result_count === 1 ? "" : "s"}`),
    h("p", { class: "hint" }, `validated at commit ${report.validated_at_seq}`));
    for (const [shape, results] of groups) {
      out.append(h("h3", {}, shorten(shape), ` (${results.length})`),
        h("table", { class: "results" },
          h("thead", {}, h("tr", {}, ...["focus", "path", "message"].map((t) => h("th", {}, t)))),
          h("tbody", {}, results.map((r) => h("tr", {},
            termCell(/^_:/.test(r.focus_node) ? { type: "literal", value: r.focus_node } : { type: "uri", value: r.focus_node }),
            h("td", {}, r.path ? shorten(r.path) : ""),
            h("td", {}, r.message || r.constraint || ""))))));
    }
  } catch (error) {
    showError(out, error);
  }
  return out;
}

// ---- Navigation ----------------------------------------------------------------------------

function currentExtras() {
  const params = new URLSearchParams(location.search);
  const keep = {};
  for (const name of ["query", "chart", "iri", "from", "to", "text", "index", "lane", "class"]) if (params.get(name)) keep[name] = params.get(name);
  return keep;
}

async function show(view) {
  state.view = view;
  document.querySelectorAll("nav button").forEach((b) => b.setAttribute("aria-current", b.dataset.view === view ? "page" : "false"));
  const main = $("main");
  const params = new URLSearchParams(location.search);
  if (view === "query") {
    main.replaceChildren(queryView());
    editor = createEditor($("editor"), {
      doc: params.get("query") || DEMO_QUERY,
      onRun: run,
      prefixes: () => state.namespaces,
    });
    // The graph's own namespaces are looked up once, when someone starts typing (a
    // DISTINCT over every predicate is not free on a large graph).
    editor.view.contentDOM.addEventListener("focus", () => loadNamespaces(), { once: true });
    if (params.get("query")) run();
  } else if (view === "history") {
    main.replaceChildren(historyView());
  } else if (view === "record") {
    main.replaceChildren(await recordView(params.get("iri") || ""));
  } else if (view === "validation") {
    main.replaceChildren(await validationView());
  } else if (view === "search") {
    main.replaceChildren(await searchView());
  }
}

let namespacesLoaded = false;

async function loadNamespaces() {
  if (namespacesLoaded) return;
  namespacesLoaded = true;
  // Prefixes the graph's own IRIs use: namespaces of its predicates and classes.
  try {
    const body = await (await sparql(state.graph,
      "SELECT DISTINCT ?p WHERE { { ?s ?p ?o } UNION { ?s a ?p } } LIMIT 500", state.asOf)).json();
    const known = new Set(state.namespaces.map((n) => n.namespace));
    for (const { p } of body.results.bindings) {
      const m = /^(.*[/#])([^/#]*)$/.exec(p.value);
      if (!m || known.has(m[1])) continue;
      known.add(m[1]);
      const name = (/([a-z][a-z0-9]*)\/?[#/]?$/i.exec(m[1].replace(/[/#]$/, "")) || [, "ns"])[1].toLowerCase();
      const prefix = state.namespaces.some((n) => n.prefix === name) ? `${name}${state.namespaces.length}` : name;
      state.namespaces.push({ prefix, namespace: m[1] });
    }
  } catch {
    // completion only offers the well-known prefixes then
  }
}

async function start() {
  // Back from the authorization server: take the token, then read the address as it was.
  let signInProblem = null;
  try {
    await completeSignIn();
  } catch (error) {
    signInProblem = error.message;
  }
  readUrl();
  state.oauth = await discover();
  const signin = $("signin");
  if (state.oauth) {
    signin.hidden = false;
    signin.addEventListener("click", () => signIn(state.oauth).catch((error) => {
      $("connection").textContent = `Cannot sign in: ${error.message}`;
    }));
  }
  const key = $("key");
  key.value = apiKey();
  key.addEventListener("change", async () => {
    setApiKey(key.value.trim());
    await loadGraphs();
    show(state.view);
  });
  $("graph").addEventListener("change", async (e) => {
    state.graph = e.target.value;
    namespacesLoaded = false;
    state.namespaces = PREFIXES.map(([prefix, namespace]) => ({ prefix, namespace }));
    state.asOf = "";
    writeUrl();
    await loadGraphs();
    show(state.view === "record" ? "query" : state.view);
  });
  document.querySelectorAll("nav button").forEach((b) => b.addEventListener("click", () => {
    state.view = b.dataset.view;
    writeUrl(b.dataset.view === "query" ? { query: new URLSearchParams(location.search).get("query") } : {});
    show(b.dataset.view);
  }));
  await loadGraphs();
  if (signInProblem) $("connection").textContent = signInProblem;
  await show(state.view);
  document.body.dataset.ready = "true";
}

start();
