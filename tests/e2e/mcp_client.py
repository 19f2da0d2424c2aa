"""End-to-end checks of Strata's MCP server with the official Python MCP SDK as the client.

Usage:
    python3 mcp_client.py stdio STRATA_BINARY DATA_DIR
    python3 mcp_client.py http  BASE_URL          (the tools are at BASE_URL/mcp)

Works with the `mcp` package 1.x (camelCase attributes: `isError`, `structuredContent`)
and 2.x (snake_case: `is_error`, `structured_content`). Prints one `CHECK <name> ok` line
per passed check, `NOTE ...` lines for observed behaviour worth reporting, and
`ALL CHECKS PASSED <n>` at the end; the first failed check raises and exits non-zero.

Every scenario writes to its own graph, so the demo graph (if the server loaded one)
does not matter. Over stdio each session starts its own server process on DATA_DIR, one
at a time (the data directory is locked by the process that has it open).
"""

import asyncio
import contextlib
import importlib.metadata
import json
import os
import sys
import time

from mcp import ClientSession, types

SDK_VERSION = importlib.metadata.version("mcp")
EX = "http://example.org/desk/"
PASSED = []


def check(name, condition, detail=""):
    """Records a passed check or raises with the detail."""
    if not condition:
        raise AssertionError(f"CHECK {name} FAILED: {detail}")
    PASSED.append(name)
    print(f"CHECK {name} ok", flush=True)


def note(text):
    print(f"NOTE {text}", flush=True)


def attr(obj, snake, camel):
    """An attribute under its 2.x (snake_case) or 1.x (camelCase) name."""
    if hasattr(obj, snake):
        return getattr(obj, snake)
    return getattr(obj, camel)


def wire(model):
    """A pydantic model as it travels on the wire (camelCase keys, no nulls)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def is_protocol_error(error):
    return type(error).__name__ in ("McpError", "MCPError")


class Outcome:
    """What one tools/call produced: a tool result, or a JSON-RPC error."""

    def __init__(self, result=None, protocol_error=None):
        self.result = result
        self.protocol_error = protocol_error

    @property
    def is_error(self):
        return bool(attr(self.result, "is_error", "isError"))

    @property
    def sc(self):
        return attr(self.result, "structured_content", "structuredContent")

    @property
    def error(self):
        return (self.sc or {}).get("error") if self.result is not None else None

    def describe(self):
        if self.protocol_error is not None:
            return f"JSON-RPC error {self.protocol_error!r}"
        return json.dumps(
            {
                "isError": self.is_error,
                "structuredContent": self.sc,
                "content": [wire(c) for c in self.result.content],
            },
            indent=1,
        )[:3000]


async def call(session, tool, arguments):
    try:
        return Outcome(result=await session.call_tool(tool, arguments))
    except Exception as error:  # noqa: BLE001 - the SDK's McpError/MCPError
        if is_protocol_error(error):
            return Outcome(protocol_error=error)
        raise


async def call_with_progress(session, tool, arguments, callback):
    """A tool call with a progress callback (both SDK generations accept the keyword)."""
    return await session.call_tool(tool, arguments, progress_callback=callback)


async def ok(session, tool, arguments):
    """Calls a tool that must succeed; returns its envelope."""
    outcome = await call(session, tool, arguments)
    if outcome.protocol_error is not None or outcome.is_error:
        raise AssertionError(f"{tool} {json.dumps(arguments)[:300]} failed: {outcome.describe()}")
    envelope = outcome.sc
    for key in ("summary", "data", "served_at_seq"):
        if key not in envelope:
            raise AssertionError(f"{tool} envelope lacks {key!r}: {outcome.describe()}")
    # The text content carries the same envelope (for clients that ignore structuredContent).
    texts = [c.text for c in outcome.result.content if getattr(c, "type", None) == "text"]
    if not texts or json.loads(texts[0]) != envelope:
        raise AssertionError(f"{tool}: text content differs from structuredContent: {outcome.describe()}")
    return envelope


async def fails(session, tool, arguments, code):
    """Calls a tool that must fail with a tool error `code`; returns the error object."""
    outcome = await call(session, tool, arguments)
    if outcome.protocol_error is not None or not outcome.is_error:
        raise AssertionError(f"{tool} {json.dumps(arguments)[:300]}: expected error {code}, got {outcome.describe()}")
    error = outcome.error
    if not error or error.get("code") != code:
        raise AssertionError(f"{tool}: expected error code {code}, got {outcome.describe()}")
    for key in ("type", "message"):
        if not error.get(key):
            raise AssertionError(f"{tool}: error lacks {key!r}: {outcome.describe()}")
    return error


async def select(session, graph, sparql, **extra):
    envelope = await ok(session, "query", {"mode": "sparql", "graph": graph, "sparql": sparql, **extra})
    return envelope, envelope["data"]["rows"]


# --- elicitation -------------------------------------------------------------------------

class Approver:
    """The person behind the client: answers elicitation requests as told."""

    def __init__(self):
        self.answer = "decline"
        self.asked = []

    async def __call__(self, context, params):
        schema = attr(params, "requested_schema", "requestedSchema")
        if not isinstance(schema, dict):
            schema = wire(schema)
        self.asked.append({"message": params.message, "schema": schema})
        if self.answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        if self.answer == "accept-false":
            return types.ElicitResult(action="accept", content={"approve": False})
        if self.answer == "cancel":
            return types.ElicitResult(action="cancel")
        return types.ElicitResult(action="decline")


# --- transports ----------------------------------------------------------------------------

class Transport:
    def __init__(self, argv):
        self.kind = argv[1]
        if self.kind == "stdio":
            self.binary, self.data_dir = argv[2], argv[3]
        elif self.kind == "http":
            self.url = argv[2].rstrip("/") + "/mcp"
        else:
            raise SystemExit(f"unknown transport {self.kind!r}: use stdio or http")

    @contextlib.asynccontextmanager
    async def session(self, elicitation_callback=None, destructive_allowed=False):
        """An initialized ClientSession (with the callback, if any). `destructive_allowed`
        (stdio only) starts the server with STRATA_DESTRUCTIVE=allow."""
        kwargs = {}
        if elicitation_callback is not None:
            kwargs["elicitation_callback"] = elicitation_callback
        async with self._streams(destructive_allowed) as (read, write):
            async with ClientSession(read, write, **kwargs) as session:
                await session.initialize()
                yield session

    @contextlib.asynccontextmanager
    async def _streams(self, destructive_allowed=False):
        if self.kind == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            env = {k: v for k, v in os.environ.items() if k not in ("STRATA_DESTRUCTIVE", "STRATA_DATA")}
            if destructive_allowed:
                env["STRATA_DESTRUCTIVE"] = "allow"
            server = StdioServerParameters(
                command=self.binary, args=["--data", self.data_dir, "serve", "--stdio"], env=env
            )
            async with stdio_client(server) as streams:
                yield streams[0], streams[1]
        else:
            from mcp.client import streamable_http

            connect = getattr(streamable_http, "streamable_http_client", None) or getattr(
                streamable_http, "streamablehttp_client"
            )
            async with connect(self.url) as streams:
                yield streams[0], streams[1]


# --- scenarios -----------------------------------------------------------------------------

DESK = f"""
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:T-41 a ex:Ticket ; rdfs:label "Login page times out" ; ex:reportedAs ex:BUG-7 .
ex:T-42 a ex:Ticket ; rdfs:label "Export drops the last row" ; ex:reportedAs ex:BUG-9 .
ex:T-43 a ex:Ticket ; rdfs:label "Typo on invoice" .
ex:BUG-7 a ex:Bug ; rdfs:label "Session cookie expires early" ; ex:fixedIn ex:R-2.0 .
ex:BUG-9 a ex:Bug ; rdfs:label "Off-by-one in CSV writer" ; ex:fixedIn ex:R-2.1 .
ex:R-2.0 a ex:Release ; rdfs:label "2.0" .
ex:R-2.1 a ex:Release ; rdfs:label "2.1" .
ex:R-2.2 a ex:Release ; rdfs:label "2.2" .
"""

FIXED_IN_T42 = f"""PREFIX ex: <{EX}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?release ?label WHERE {{
  ex:T-42 ex:reportedAs ?bug .
  ?bug ex:fixedIn ?release .
  ?release rdfs:label ?label
}} ORDER BY ?release"""


async def tools_listed(session):
    listed = await session.list_tools()
    tools = {t.name: wire(t) for t in listed.tools}
    check("tools-listed", sorted(tools) == ["commit", "configure", "embeddings", "inspect", "query", "rdf"], sorted(tools))
    for name, tool in tools.items():
        check(f"tool-{name}-output-schema", isinstance(tool.get("outputSchema"), dict)
              and "served_at_seq" in json.dumps(tool["outputSchema"]), tool.get("outputSchema"))
        check(f"tool-{name}-input-schema", tool["inputSchema"].get("type") == "object", tool["inputSchema"])
        check(f"tool-{name}-description", len(tool.get("description", "")) > 40, tool.get("description"))
    ann = {name: tool.get("annotations", {}) for name, tool in tools.items()}
    check("inspect-read-only", ann["inspect"].get("readOnlyHint") is True
          and ann["inspect"].get("destructiveHint") is not True, ann["inspect"])
    check("query-read-only", ann["query"].get("readOnlyHint") is True
          and ann["query"].get("destructiveHint") is not True, ann["query"])
    check("rdf-destructive", ann["rdf"].get("destructiveHint") is True
          and ann["rdf"].get("readOnlyHint") is not True, ann["rdf"])
    check("commit-destructive-idempotent", ann["commit"].get("destructiveHint") is True
          and ann["commit"].get("idempotentHint") is True, ann["commit"])
    check("configure-annotations", ann["configure"].get("destructiveHint") is True
          and ann["configure"].get("readOnlyHint") is not True, ann["configure"])
    # Typed attribute access in this SDK version works too.
    tool = next(t for t in listed.tools if t.name == "rdf")
    check("tool-attributes", attr(tool, "output_schema", "outputSchema") is not None
          and attr(tool.annotations, "destructive_hint", "destructiveHint") is True)
    for name in ("inspect", "rdf"):
        required = tools[name]["inputSchema"].get("required", [])
        if "action" not in required:
            note(f"tool {name}: inputSchema does not list `action` as required: {required}")
    for name, tool in tools.items():
        if tool["inputSchema"].get("additionalProperties") is not False:
            note(f"tool {name}: inputSchema does not say additionalProperties: false, "
                 f"though unknown arguments are rejected")


async def desk(session):
    """Import, guide, the T-42 question, a pinned read, graph_not_found."""
    imported = await ok(session, "rdf", {"action": "import", "graph": "desk", "content": DESK,
                                         "format": "turtle", "message": "support desk"})
    seq = imported["data"]["commit_seq"]
    check("import-commits", isinstance(seq, int) and seq >= 1 and imported["served_at_seq"] == seq
          and imported["data"]["inserted"] == 20, imported)

    guide = await ok(session, "inspect", {"action": "guide", "graph": "desk"})
    data = guide["data"]
    types_seen = {row["type"]: row["count"] for row in data["types"]}
    check("guide-counts", data["quads"] == 20 and guide["served_at_seq"] == seq, guide)
    check("guide-types", types_seen == {f"{EX}Ticket": 3, f"{EX}Bug": 2, f"{EX}Release": 3},
          types_seen)
    properties = {row["property"] for row in data["properties"]}
    check("guide-properties", {f"{EX}reportedAs", f"{EX}fixedIn"} <= properties, properties)
    suggestion = data["suggested_next_calls"][0]
    check("guide-suggestion-runs", suggestion["tool"] == "query", suggestion)
    suggested = await ok(session, suggestion["tool"], suggestion["arguments"])
    check("guide-suggestion-answers", len(suggested["data"]["rows"]) >= 1, suggested)

    envelope, rows = await select(session, "desk", FIXED_IN_T42)
    check("t42-fixed-in-2.1", rows == [{"release": {"iri": f"{EX}R-2.1"}, "label": "2.1"}], envelope)
    check("t42-served-at-import", envelope["served_at_seq"] == seq, envelope)

    # A second fix lands later; the pinned read still gives the first answer.
    later = await ok(session, "rdf", {"action": "update", "graph": "desk",
                                      "sparql": f"PREFIX ex: <{EX}> INSERT DATA {{ ex:BUG-9 ex:fixedIn ex:R-2.2 }}"})
    check("update-commits", later["data"]["commit_seq"] == seq + 1 and later["served_at_seq"] == seq + 1, later)
    envelope, rows = await select(session, "desk", FIXED_IN_T42)
    check("head-sees-later-fix", [r["label"] for r in rows] == ["2.1", "2.2"]
          and envelope["served_at_seq"] == seq + 1, envelope)
    envelope, rows = await select(session, "desk", FIXED_IN_T42, as_of_commit_seq=seq)
    check("as-of-gives-earlier-answer", [r["label"] for r in rows] == ["2.1"]
          and envelope["served_at_seq"] == seq, envelope)
    entity = await ok(session, "inspect", {"action": "entity", "graph": "desk", "iri": f"{EX}BUG-9",
                                           "as_of_commit_seq": seq})
    check("entity-as-of", entity["data"]["properties"].get(f"{EX}fixedIn") == [{"iri": f"{EX}R-2.1"}]
          and entity["served_at_seq"] == seq, entity)
    log = await ok(session, "inspect", {"action": "log", "graph": "desk"})
    commits = log["data"]["commits"]
    check("log-newest-first", [c["commit_seq"] for c in commits] == [seq + 1, seq]
          and commits[1]["message"] == "support desk", log)

    error = await fails(session, "inspect", {"action": "guide", "graph": "nosuchgraph"}, "graph_not_found")
    check("graph-not-found-lists-graphs", "desk" in error["message"] and error.get("param") == "graph"
          and error.get("hint"), error)
    error = await fails(session, "query", {"mode": "sparql", "graph": "desk", "sparql": "ASK {}",
                                           "as_of_commit_seq": 9999}, "commit_not_found")
    check("as-of-missing-commit", "9999" in error["message"], error)
    if error.get("param") != "as_of_commit_seq":
        note(f"query with as_of_commit_seq=9999: commit_not_found names param "
             f"{error.get('param')!r}, not the tool argument 'as_of_commit_seq': {json.dumps(error)}")
    return seq


N_ROWS = 250


async def paging(session):
    """250 rows at row_limit 50 and at the default, with commits between pages."""
    lines = [f"@prefix ex: <{EX}> ."] + [f"ex:item{i:03d} ex:rank {i} ." for i in range(N_ROWS)]
    imported = await ok(session, "rdf", {"action": "import", "graph": "pages",
                                         "content": "\n".join(lines), "format": "turtle"})
    seq = imported["data"]["commit_seq"]
    expected = [{"item": {"iri": f"{EX}item{i:03d}"}, "rank": i} for i in range(N_ROWS)]
    sparql = f"PREFIX ex: <{EX}> SELECT ?item ?rank WHERE {{ ?item ex:rank ?rank }} ORDER BY ?rank"
    extra = 0
    # row_limit is capped by `detail` (compact: 20 rows), without a note saying so.
    capped = await ok(session, "query", {"mode": "sparql", "graph": "pages", "sparql": sparql, "row_limit": 50})
    check("paging-row-limit-capped-by-detail", len(capped["data"]["rows"]) == 20, capped["summary"])
    note(f"query row_limit=50 without detail returns {len(capped['data']['rows'])} rows "
         f"(capped by detail compact), notes={capped.get('notes')!r}")
    for label, limit, per_page in (("limit50", 50, 50), ("default", None, 20)):
        # The second run starts at the import's commit explicitly: the first added rows.
        arguments = {"mode": "sparql", "graph": "pages", "sparql": sparql}
        if limit is not None:
            arguments["row_limit"] = limit
            arguments["detail"] = "standard"
        else:
            arguments["as_of_commit_seq"] = seq
        rows, seqs, pages, first_next = [], [], 0, None
        while True:
            envelope = await ok(session, "query", arguments)
            pages += 1
            rows.extend(envelope["data"]["rows"])
            seqs.append(envelope["served_at_seq"])
            if "next" not in envelope:
                check(f"paging-{label}-last-page-not-truncated", not envelope.get("truncated"), envelope)
                break
            check(f"paging-{label}-page-{pages}-size", len(envelope["data"]["rows"]) == per_page
                  and envelope["truncated"] is True
                  and envelope["counts"] == {"returned": per_page, "offset": (pages - 1) * per_page},
                  envelope)
            arguments = envelope["next"]
            first_next = first_next or arguments
            # Matching rows land at both ends of the order before the next page is read.
            extra += 1
            await ok(session, "rdf", {"action": "update", "graph": "pages", "sparql":
                                      f"PREFIX ex: <{EX}> INSERT DATA {{ ex:early{extra} ex:rank {-extra} . "
                                      f"ex:late{extra} ex:rank {1000 + extra} }}"})
            if pages > 100:
                raise AssertionError("paging does not end")
        check(f"paging-{label}-page-count", pages == -(-N_ROWS // per_page), pages)
        check(f"paging-{label}-exact-rows", rows == expected,
              f"{len(rows)} rows; first differences: "
              f"{[(i, a, b) for i, (a, b) in enumerate(zip(rows, expected)) if a != b][:3]}")
        check(f"paging-{label}-pinned", set(seqs) == {seq}, seqs)

        # A cursor is bound to its query, its commit and this server.
        other = dict(first_next, sparql=sparql.replace("?rank }", "?rank . FILTER(?rank >= 0) }"))
        error = await fails(session, "query", other, "cursor_mismatch")
        check(f"paging-{label}-cursor-other-query", error.get("param") == "cursor", error)
        cursor = first_next["cursor"]
        flipped = cursor[:4] + ("1" if cursor[4] == "0" else "0") + cursor[5:]
        error = await fails(session, "query", dict(first_next, cursor=flipped), "cursor_mismatch")
        check(f"paging-{label}-cursor-tampered", error.get("param") == "cursor", error)
        error = await fails(session, "query", dict(first_next, cursor="garbage"), "cursor_mismatch")
        check(f"paging-{label}-cursor-garbage", error.get("param") == "cursor", error)
        error = await fails(session, "query", dict(first_next, graph="desk"), "cursor_mismatch")
        check(f"paging-{label}-cursor-other-graph", error.get("param") == "cursor", error)
        error = await fails(session, "query", dict(first_next, as_of_commit_seq=seq + 1), "cursor_mismatch")
        check(f"paging-{label}-cursor-other-commit", error.get("param") == "as_of_commit_seq", error)
        # The same cursor again gives the same page (cursors are not consumed).
        again = await ok(session, "query", first_next)
        check(f"paging-{label}-cursor-replay", again["served_at_seq"] == seq
              and again["data"]["rows"] == expected[per_page:2 * per_page], again)

    envelope, rows = await select(session, "pages", f"PREFIX ex: <{EX}> SELECT (COUNT(*) AS ?n) "
                                                    f"WHERE {{ ?item ex:rank ?rank }}")
    check("paging-head-has-new-rows", rows == [{"n": N_ROWS + 2 * extra}]
          and envelope["served_at_seq"] == seq + extra, envelope)


async def approval(transport, approver):
    """DELETE WHERE: declined, accepted (with approve false, then true), and cancelled."""
    delete = f"PREFIX ex: <{EX}> DELETE WHERE {{ ex:T-42 ?p ?o }}"
    ask_t42 = f"PREFIX ex: <{EX}> ASK {{ ex:T-42 ?p ?o }}"
    async with transport.session(elicitation_callback=approver) as session:
        head = (await ok(session, "inspect", {"action": "publication", "graph": "desk"}))["served_at_seq"]

        for answer, label in (("decline", "declined"), ("accept-false", "approve-false"), ("cancel", "cancelled")):
            approver.answer = answer
            asked = len(approver.asked)
            error = await fails(session, "rdf", {"action": "update", "graph": "desk", "sparql": delete},
                                "approval_declined")
            check(f"approval-{label}-asked-once", len(approver.asked) == asked + 1, approver.asked)
            check(f"approval-{label}-error", error["type"] == "approval" and "nothing was written" in error["message"],
                  error)
            still = await ok(session, "query", {"mode": "sparql", "graph": "desk", "sparql": ask_t42})
            check(f"approval-{label}-data-kept", still["data"]["boolean"] is True and still["served_at_seq"] == head,
                  still)

        question = approver.asked[0]
        check("approval-question-lists-quads", f"<{EX}T-42>" in question["message"]
              and "3 quad" in question["message"], question["message"])
        schema = question["schema"]
        check("approval-question-schema", schema.get("type") == "object"
              and schema.get("properties", {}).get("approve", {}).get("type") == "boolean", schema)

        approver.answer = "accept"
        done = await ok(session, "rdf", {"action": "update", "graph": "desk", "sparql": delete})
        check("approval-accepted-commits", done["data"]["commit_seq"] == head + 1
              and done["data"]["deleted"] == 3 and done["served_at_seq"] == head + 1, done)
        gone = await ok(session, "query", {"mode": "sparql", "graph": "desk", "sparql": ask_t42})
        check("approval-accepted-data-gone", gone["data"]["boolean"] is False
              and gone["served_at_seq"] == head + 1, gone)
        envelope, rows = await select(session, "desk", FIXED_IN_T42)
        check("approval-accepted-head-answer-empty", rows == [], envelope)
        envelope, rows = await select(session, "desk", FIXED_IN_T42, as_of_commit_seq=head)
        check("approval-earlier-commit-readable", [r["label"] for r in rows] == ["2.1", "2.2"]
              and envelope["served_at_seq"] == head, envelope)
        commit = await ok(session, "inspect", {"action": "commit", "graph": "desk", "commit_seq": head + 1})
        check("approval-commit-lists-deleted", len(commit["data"]["deleted"]) == 3
              and commit["data"]["inserted"] == [], commit)

        # The commit tool's retractions ask the same way.
        records_head = (await ok(session, "inspect", {"action": "publication", "graph": "records"}))["served_at_seq"]
        retract = {"graph": "records", "retract_edges": [{"source": {"type": "Bug", "name": "BUG-7"},
                   "relation": "FIXED_IN", "target": {"type": "Release", "name": "2.1"}}]}
        approver.answer = "decline"
        await fails(session, "commit", retract, "approval_declined")
        kept = await ok(session, "inspect", {"action": "publication", "graph": "records"})
        check("retract-declined-kept", kept["served_at_seq"] == records_head, kept)
        approver.answer = "accept"
        retracted = await ok(session, "commit", retract)
        check("retract-approved-commits", retracted["data"]["commit_seq"] == records_head + 1
              and retracted["data"]["deleted"] == 1, retracted)
        # Nothing left to delete: no question, no commit.
        asked = len(approver.asked)
        noop = await ok(session, "rdf", {"action": "update", "graph": "desk", "sparql": delete})
        check("approval-noop-not-asked", len(approver.asked) == asked and noop["data"]["commit_seq"] is None
              and noop["served_at_seq"] == head + 1, noop)
    return head + 1


async def no_elicitation(transport, head):
    """A client that cannot ask the person: approval_required, nothing written."""
    delete = f"PREFIX ex: <{EX}> DELETE WHERE {{ ex:T-41 ?p ?o }}"
    async with transport.session() as session:
        error = await fails(session, "rdf", {"action": "update", "graph": "desk", "sparql": delete},
                            "approval_required")
        check("approval-required-error", error["type"] == "approval" and error.get("hint")
              and "nothing was written" in error["message"], error)
        still = await ok(session, "query", {"mode": "sparql", "graph": "desk",
                                            "sparql": f"PREFIX ex: <{EX}> ASK {{ ex:T-41 ?p ?o }}"})
        check("approval-required-nothing-written", still["data"]["boolean"] is True
              and still["served_at_seq"] == head, still)
        # Inserts need no approval.
        added = await ok(session, "rdf", {"action": "update", "graph": "desk",
                                          "sparql": f"PREFIX ex: <{EX}> INSERT DATA {{ ex:T-44 a ex:Ticket }}"})
        check("approval-not-needed-for-insert", added["data"]["commit_seq"] == head + 1, added)


async def operator_allows(transport, head):
    """STRATA_DESTRUCTIVE=allow on the server (stdio only): removals need no question."""
    async with transport.session(destructive_allowed=True) as session:
        done = await ok(session, "rdf", {"action": "update", "graph": "desk",
                                         "sparql": f"PREFIX ex: <{EX}> DELETE WHERE {{ ex:T-44 ?p ?o }}"})
        check("destructive-allow-skips-question", done["data"]["commit_seq"] == head + 1
              and done["data"]["deleted"] == 1, done)


async def idempotency(session):
    arguments = {"action": "update", "graph": "desk", "idempotency_key": "retry-1",
                 "sparql": f"PREFIX ex: <{EX}> INSERT DATA {{ ex:T-45 a ex:Ticket }}"}
    first = await ok(session, "rdf", arguments)
    again = await ok(session, "rdf", arguments)
    check("idempotent-retry", again["data"]["commit_seq"] == first["data"]["commit_seq"]
          and again["data"]["idempotent_replay"] is True and first["data"]["idempotent_replay"] is False,
          [first, again])


async def bad_input(session):
    error = await fails(session, "query", {"mode": "sparql", "graph": "desk", "sparql": "SELEC ?x WHERE {"},
                        "invalid_sparql")
    check("invalid-sparql", error["type"] == "invalid_request" and error.get("hint"), error)
    error = await fails(session, "rdf", {"action": "update", "graph": "desk", "sparql": "INSERT DATUM {}"},
                        "invalid_sparql")
    check("invalid-sparql-update", bool(error["message"]), error)
    error = await fails(session, "rdf", {"action": "import", "graph": "desk", "content": "<a> <b> .",
                                         "format": "turtle"}, "invalid_rdf")
    check("invalid-rdf", bool(error["message"]), error)

    for tool, arguments, param in (
        ("query", {"mode": "sparql", "graph": "desk"}, "sparql"),
        ("rdf", {"action": "import", "graph": "desk", "format": "turtle"}, "content"),
        ("rdf", {"action": "import", "graph": "desk", "content": DESK}, "format"),
        ("rdf", {"action": "update", "graph": "desk"}, "sparql"),
        ("inspect", {"action": "commit", "graph": "desk"}, "commit_seq"),
        ("inspect", {"action": "entity", "graph": "desk"}, "iri"),
    ):
        error = await fails(session, tool, arguments, "invalid_argument")
        check(f"missing-{tool}-{param}", error.get("param") == param and param in error["message"], error)

    # Arguments the schema itself rejects: unknown ones, a missing `action`, a bad enum value.
    for label, tool, arguments, name in (
        ("unknown-argument", "inspect", {"action": "guide", "bogus": 1}, "bogus"),
        ("unknown-argument-query", "query", {"mode": "sparql", "sparql": "ASK {}", "limit": 5}, "limit"),
        ("missing-action", "inspect", {}, "action"),
        ("missing-mode", "query", {"sparql": "ASK {}"}, "mode"),
        ("unknown-action", "inspect", {"action": "explode"}, "explode"),
    ):
        outcome = await call(session, tool, arguments)
        if outcome.protocol_error is not None:
            error = outcome.protocol_error
            text = f"{getattr(error, 'message', error)} {getattr(error, 'data', '') or ''}"
            check(label, name in text, repr(error))
            note(f"{label}: {tool} {json.dumps(arguments)} -> JSON-RPC error "
                 f"code={getattr(error, 'code', '?')} message={getattr(error, 'message', str(error))!r} "
                 f"(a protocol error, not a tool result with isError/structuredContent.error)")
        else:
            text = " ".join(getattr(c, "text", "") for c in outcome.result.content)
            check(label, outcome.is_error and name in json.dumps(outcome.error) + text, outcome.describe())
            if outcome.error is None:
                note(f"{label}: {tool} {json.dumps(arguments)} -> isError result WITHOUT "
                     f"structuredContent.error (structuredContent={outcome.sc!r}); text: {text!r}")
            else:
                note(f"{label}: {tool} {json.dumps(arguments)} -> tool error {json.dumps(outcome.error)}")

    outcome = await call(session, "nosuchtool", {})
    check("unknown-tool", outcome.protocol_error is not None or outcome.is_error, outcome.describe())


RECORDS_ONTOLOGY = {
    "action": "define_ontology", "graph": "records",
    "types": [{"name": "Ticket"}, {"name": "Bug"}, {"name": "Release"}],
    "relations": [
        {"name": "REPORTED_AS", "domain": "Ticket", "range": "Bug"},
        {"name": "FIXED_IN", "domain": "Bug", "range": "Release", "cardinality": "one"},
    ],
    "fields": [
        {"name": "severity", "type": "Bug", "value_type": "i64"},
        {"name": "opened", "type": "Ticket", "value_type": "date_time"},
        {"name": "status", "type": "Ticket", "value_type": "keyword", "allowed_values": ["open", "closed"]},
    ],
}

RECORDS_BASE = "http://strata.local/graphs/records"

RECORDS_QUESTION = f"""SELECT ?release WHERE {{
  ?t <http://www.w3.org/2000/01/rdf-schema#label> "T-42" ; <{RECORDS_BASE}/rel/reported_as> ?b .
  ?b <{RECORDS_BASE}/rel/fixed_in> ?r . ?r <http://www.w3.org/2000/01/rdf-schema#label> ?release }}"""


async def records(session):
    """configure + commit: the ontology, typed records, annotations, errors, retraction."""
    first = await ok(session, "configure", RECORDS_ONTOLOGY)
    check("configure-defines", first["data"]["changed"] is True and first["data"]["commit_seq"] == 1, first)
    again = await ok(session, "configure", RECORDS_ONTOLOGY)
    check("configure-idempotent", again["data"]["changed"] is False and again["served_at_seq"] == 1, again)
    onto = await ok(session, "inspect", {"action": "ontology", "graph": "records"})
    check("inspect-ontology", len(onto["data"]["types"]) == 3 and len(onto["data"]["relations"]) == 2
          and len(onto["data"]["fields"]) == 3, onto["summary"])
    write = {"graph": "records",
             "triplets": [
                 {"source": {"type": "Ticket", "name": "T-42"}, "relation": "REPORTED_AS",
                  "target": {"type": "Bug", "name": "BUG-7"}, "evidence": "customer email",
                  "confidence": 0.8, "valid_time": {"start": "2026-06-01"}},
                 {"source": {"type": "Bug", "name": "BUG-7"}, "relation": "FIXED_IN",
                  "target": {"type": "Release", "name": "2.1"}}],
             "entity_properties": [
                 {"entity": {"type": "Bug", "name": "BUG-7"}, "properties": {"severity": "2"}},
                 {"entity": {"type": "Ticket", "name": "T-42"}, "properties": {"opened": "2026-06-26", "status": "open"}}]}
    # Imports report progress to a client that passes a progress token.
    progress = []
    async def on_progress(value, total, message):
        progress.append(value)
    lines = "".join(f"<http://e/bulk{i}> <http://e/p> \"{i}\" .\n" for i in range(25000))
    outcome = await call_with_progress(session, "rdf", {"action": "import", "graph": "bulk", "format": "ntriples",
                                                        "content": lines}, on_progress)
    check("import-progress", len(progress) >= 2 and progress[-1] == 25000, progress)
    committed = await ok(session, "commit", write)
    check("commit-records", committed["data"]["commit_seq"] == 2 and committed["data"]["inserted"] > 0, committed)
    bug = await ok(session, "inspect", {"action": "entity", "graph": "records", "type": "Bug", "name": "BUG-7"})
    check("entity-by-type-and-name", f"{RECORDS_BASE}/prop/severity" in bug["data"]["properties"]
          and bug["data"]["properties"][f"{RECORDS_BASE}/prop/severity"] == [2], bug["data"])
    replay = await ok(session, "commit", write)
    check("commit-replay", replay["data"]["idempotent_replay"] is True and replay["data"]["commit_seq"] == 2, replay)
    answer = await ok(session, "query", {"mode": "sparql", "graph": "records", "sparql": RECORDS_QUESTION})
    check("records-answer", answer["data"]["rows"] == [{"release": "2.1"}]
          and answer["served_at_seq"] == 2, answer)
    typed = await ok(session, "query", {"mode": "sparql", "graph": "records", "sparql":
        f"SELECT ?s ?o WHERE {{ ?b <{RECORDS_BASE}/prop/severity> ?s . ?t <{RECORDS_BASE}/prop/opened> ?o }}", "detail": "standard"})
    row = typed["data"]["rows"][0]
    check("field-values-typed", row["s"] == 2 and row["o"] == {
        "value": "2026-06-26T00:00:00Z", "datatype": "http://www.w3.org/2001/XMLSchema#dateTime"}, row)
    annotation = await ok(session, "query", {"mode": "sparql", "graph": "records", "sparql":
        "SELECT ?c ?e WHERE { ?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t ; "
        "<https://strata.dev/ns#confidence> ?c ; <https://strata.dev/ns#evidence> ?e }"})
    check("edge-annotations", annotation["data"]["rows"] == [{"c": 0.8, "e": "customer email"}], annotation)
    why = await ok(session, "inspect", {"action": "why", "graph": "records", "type": "Ticket", "name": "T-42",
                                        "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "BUG-7"}})
    annotations = {a["property"]: a["value"] for a in why["data"]["annotations"]}
    check("why-annotations", annotations.get("https://strata.dev/ns#confidence") == 0.8
          and annotations.get("https://strata.dev/ns#evidence") == "customer email"
          and why["data"]["versions"][0]["added"]["commit_seq"] == 2, why["data"])
    bad = [
        ({"triplets": [{"source": {"type": "Nope", "name": "x"}, "relation": "REPORTED_AS", "target": {"type": "Bug", "name": "y"}}]},
         "unknown_type", "triplets[0].source.type"),
        ({"triplets": [{"source": {"type": "Ticket", "name": "x"}, "relation": "NOPE", "target": {"type": "Bug", "name": "y"}}]},
         "unknown_relation", "triplets[0].relation"),
        ({"entity_properties": [{"entity": {"type": "Bug", "name": "BUG-7"}, "properties": {"colour": "red"}}]},
         "unknown_field", "entity_properties[0].properties.colour"),
        ({"entity_properties": [{"entity": {"type": "Bug", "name": "BUG-7"}, "properties": {"severity": "high"}}]},
         "value_type_mismatch", "entity_properties[0].properties.severity"),
        ({"triplets": [{"source": {"type": "Bug", "name": "BUG-7"}, "relation": "FIXED_IN", "target": {"type": "Release", "name": "3.0"}}]},
         "cardinality_violation", "triplets[0].target"),
    ]
    for arguments, code, param in bad:
        error = await fails(session, "commit", {"graph": "records", **arguments}, code)
        check(f"commit-error-{code}", error.get("param") == param, error)
    head = await ok(session, "inspect", {"action": "publication", "graph": "records"})
    check("commit-errors-change-nothing", head["data"]["head_seq"] == 2, head)
    dry = await ok(session, "commit", {"graph": "records", "retract_entities": [{"type": "Ticket", "name": "T-42"}], "dry_run": True})
    check("retract-dry-run", dry["data"]["would_delete"] > 0 and dry["served_at_seq"] == 2, dry)
    # evolve_ontology: a conflicting narrowing is reported by a dry run and refused.
    narrow = {"action": "evolve_ontology", "graph": "records",
              "changes": [{"op": "set_allowed_values", "field": "status", "allowed_values": ["closed"]}]}
    report = await ok(session, "configure", {**narrow, "dry_run": True})
    check("evolve-dry-run-conflicts", len(report["data"]["conflicts"]) == 1 and "T-42" in report["data"]["conflicts"][0], report["data"])
    await fails(session, "configure", narrow, "ontology_conflict")
    # A rename moves the data with it; the old answer stays readable at the old commit.
    renamed = await ok(session, "configure", {"action": "evolve_ontology", "graph": "records",
        "changes": [{"op": "rename", "kind": "relation", "from": "REPORTED_AS", "to": "FILED_AS"}]})
    check("evolve-rename", renamed["data"]["commit_seq"] == 3, renamed)
    moved = await ok(session, "query", {"mode": "sparql", "graph": "records",
        "sparql": RECORDS_QUESTION.replace("/rel/reported_as", "/rel/filed_as")})
    check("evolve-rename-moves-data", moved["data"]["rows"] == [{"release": "2.1"}]
          and moved["served_at_seq"] == 3, moved)
    old = await ok(session, "query", {"mode": "sparql", "graph": "records", "sparql": RECORDS_QUESTION})
    check("evolve-rename-old-iri-gone", old["data"]["rows"] == [], old)
    # Removing a field removes its values: the person must approve (this client cannot ask).
    await fails(session, "configure", {"action": "evolve_ontology", "graph": "records",
        "changes": [{"op": "remove", "kind": "field", "name": "severity"}]}, "approval_required")
    head = await ok(session, "inspect", {"action": "publication", "graph": "records"})
    check("evolve-remove-needs-approval", head["data"]["head_seq"] == 3, head)


async def search(session):
    """Declare a searchable class, search it in JSON and inside SPARQL."""
    await ok(session, "rdf", {"action": "import", "graph": "searchdesk", "content": DESK, "format": "turtle"})
    declared = await ok(session, "embeddings", {"action": "declare", "graph": "searchdesk", "class": f"{EX}Ticket",
                                                "from": ["http://www.w3.org/2000/01/rdf-schema#label", f"{EX}reportedAs"]})
    check("embeddings-declared", declared["data"]["records"] == 3 and declared["data"]["name"] == "ticket", declared)
    found = await ok(session, "query", {"mode": "search", "graph": "searchdesk", "text": "login", "lane": "sparse",
                                        "consistency": "strong", "top_k": 2})
    hits = found["data"]["hits"]
    check("search-sparse-finds-login", hits and hits[0]["iri"] == f"{EX}T-41" and hits[0]["label"] == "Login page times out", found)
    dense = await ok(session, "query", {"mode": "search", "graph": "searchdesk", "text": "cannot sign in",
                                        "lane": "hybrid", "top_k": 3})
    check("search-hybrid-has-lane-scores", len(dense["data"]["hits"]) == 3
          and all("lane_scores" in h for h in dense["data"]["hits"]), dense)
    listed = await ok(session, "embeddings", {"action": "list", "graph": "searchdesk"})
    index = listed["data"]["indexes"][0]
    check("embeddings-list-ready", index["lag"] == 0 and index["records"] == 3, listed)
    progress = index["progress"]
    check("embeddings-list-progress-and-rate", progress["done"] <= progress["total"]
          and isinstance(progress["records_per_second"], (int, float))
          and progress["records_per_second"] >= 0, listed)
    sparql = await ok(session, "query", {"mode": "sparql", "graph": "searchdesk", "sparql":
        "PREFIX search: <https://strata.dev/ns/search#> SELECT ?t WHERE { ?t search:nearest \"csv export\" ; search:lane \"sparse\" ; search:k 1 }"})
    check("search-in-sparql", sparql["data"]["rows"] == [{"t": {"iri": f"{EX}T-42"}}]
          and sparql["data"]["search"][0]["plan"] == "nearest", sparql)
    error = await fails(session, "query", {"mode": "search", "graph": "searchdesk", "text": "x", "top_k": 500}, "invalid_argument")
    check("search-top-k-bounded", error.get("param") == "top_k", error)


async def main():
    transport = Transport(sys.argv)
    started = time.monotonic()
    print(f"mcp SDK {SDK_VERSION}, transport {transport.kind}", flush=True)
    async with transport.session() as session:
        await tools_listed(session)
        await records(session)
        await desk(session)
        await paging(session)
        await search(session)
    approver = Approver()
    head = await approval(transport, approver)
    await no_elicitation(transport, head)
    head += 1
    if transport.kind == "stdio":
        await operator_allows(transport, head)
        head += 1
    async with transport.session() as session:
        await idempotency(session)
        await bad_input(session)
    print(f"ALL CHECKS PASSED {len(PASSED)} in {time.monotonic() - started:.1f}s", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
