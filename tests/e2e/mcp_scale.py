"""Agent query modes at scale, through the official MCP Python SDK over stdio.

Builds a graph of ~50,000 records with history over 200 commits (tickets reported as
bugs, bugs fixed in releases; statuses change), then checks that each mode gives the
same rows as a hand-written SPARQL query at the same commit. Prints `CHECK <name> ok`
per check and `ALL CHECKS PASSED <n>`.

Usage: python3 mcp_scale.py STRATA_BIN DATA_DIR
"""
import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EX = "http://example.org/scale/"
N_COMMITS = 200
PER_COMMIT = 250  # records per commit: 200 × 250 = 50,000
PASSED = []


def check(name, condition, detail=""):
    if not condition:
        raise AssertionError(f"CHECK {name} failed: {str(detail)[:600]}")
    PASSED.append(name)
    print(f"CHECK {name} ok", flush=True)


def sc(result):
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)


def batch(commit):
    """Turtle for one commit: tickets, bugs every 5th ticket, releases every 50th bug."""
    lines = [f"@prefix ex: <{EX}> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]
    for j in range(PER_COMMIT):
        i = commit * PER_COMMIT + j
        bug = i // 5
        lines.append(f'ex:t{i} a ex:Ticket ; rdfs:label "T-{i}" ; ex:status "open" ; ex:reportedAs ex:b{bug} .')
        if i % 5 == 0:
            lines.append(f'ex:b{bug} a ex:Bug ; rdfs:label "BUG-{bug}" ; ex:severity {1 + bug % 4} .')
            if bug % 3 == 0:
                lines.append(f"ex:b{bug} ex:fixedIn ex:r{bug // 50} .")
                lines.append(f'ex:r{bug // 50} a ex:Release ; rdfs:label "R-{bug // 50}" .')
    return "\n".join(lines)


async def main():
    binary, data_dir = sys.argv[1], sys.argv[2]
    started = time.monotonic()
    server = StdioServerParameters(command=binary, args=["--data", data_dir, "serve", "--stdio", "--no-demo"],
                                   env={**os.environ, "STRATA_DESTRUCTIVE": "allow"})
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(tool, arguments):
                result = await session.call_tool(tool, arguments)
                content = sc(result)
                if content is None or "error" in content:
                    raise AssertionError(f"{tool} {json.dumps(arguments)[:300]}: {content}")
                return content

            async def rows(sparql, seq, detail="full"):
                out, arguments = [], {"mode": "sparql", "graph": "scale", "sparql": sparql,
                                      "as_of_commit_seq": seq, "detail": detail}
                while True:
                    page = await call("query", arguments)
                    out.extend(page["data"]["rows"])
                    if not page.get("next"):
                        return out
                    arguments = page["next"]

            for commit in range(N_COMMITS):
                await call("rdf", {"action": "import", "graph": "scale", "format": "turtle", "content": batch(commit)})
                if commit % 20 == 19:
                    # History: close the tickets of some bugs.
                    await call("rdf", {"action": "update", "graph": "scale", "sparql":
                        f'PREFIX ex: <{EX}> DELETE {{ ?t ex:status "open" }} INSERT {{ ?t ex:status "closed" }} '
                        f'WHERE {{ ?t ex:reportedAs ?b ; ex:status "open" . ?b ex:severity {1 + commit % 4} }}'})
            head = (await call("inspect", {"action": "publication", "graph": "scale"}))["data"]["head_seq"]
            check("scale-history", head == N_COMMITS + N_COMMITS // 20, head)
            count = await rows(f"SELECT (COUNT(?t) AS ?n) WHERE {{ ?t a <{EX}Ticket> }}", head)
            check("scale-records", count[0]["n"] == N_COMMITS * PER_COMMIT, count)
            middle = head // 2

            # structured == SPARQL (grouped counts), at an old commit.
            structured = await call("query", {"mode": "structured", "graph": "scale", "as_of_commit_seq": middle,
                "detail": "full", "row_limit": 1000, "structured": {
                    "patterns": [{"subject": {"var": "t"}, "predicate": {"iri": EX + "status"}, "object": {"var": "status"}}],
                    "group_by": ["status"], "aggregates": [{"func": "count", "as": "n"}], "order_by": [{"var": "status"}]}})
            direct = await rows(f"SELECT ?status (COUNT(*) AS ?n) WHERE {{ ?t <{EX}status> ?status }} GROUP BY ?status ORDER BY ?status", middle)
            check("structured-equals-sparql", structured["data"]["rows"] == direct and structured["served_at_seq"] == middle,
                  (structured["data"]["rows"], direct))

            # traverse == SPARQL (count of open tickets whose bug is fixed).
            traverse = await call("query", {"mode": "traverse", "graph": "scale", "as_of_commit_seq": head, "traverse": {"steps": [
                {"from_type": EX + "Ticket"},
                {"filter": {"properties": [[{"field": EX + "status", "op": "==", "value": "open"}]]}},
                {"out": EX + "reportedAs"}, {"out": EX + "fixedIn"}, {"count": True}]}})
            direct = await rows(f'SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE {{ ?t a <{EX}Ticket> ; <{EX}status> "open" ; <{EX}reportedAs>/<{EX}fixedIn> ?r }}', head)
            check("traverse-equals-sparql", traverse["data"]["rows"][0]["count"] == direct[0]["n"],
                  (traverse["data"]["rows"], direct))

            # names finds the exact record among many similar labels.
            names = await call("query", {"mode": "names", "graph": "scale", "name": "T-4242"})
            check("names-exact-first", names["data"]["candidates"][0]["name"] == "T-4242"
                  and names["data"]["candidates"][0]["match"] == "exact", names["data"]["candidates"][:2])

            # compare == the difference of the two row sets.
            query = f'SELECT ?t WHERE {{ ?t <{EX}status> "closed" }}'
            compared = await call("query", {"mode": "compare", "graph": "scale", "sparql": query, "detail": "full",
                                            "from": {"as_of_commit_seq": middle}, "to": {"as_of_commit_seq": head}})
            before = {r["t"]["iri"] for r in await rows(query, middle)}
            after = {r["t"]["iri"] for r in await rows(query, head)}
            check("compare-equals-difference", compared["counts"]["added"] == len(after - before)
                  and compared["counts"]["removed"] == len(before - after), (compared["counts"], len(after - before)))
            # Its pages, followed to the end, list exactly those rows.
            listed_added, listed_removed, page = [], [], compared
            while True:
                listed_added += [r["t"]["iri"] for r in page["data"]["added"]]
                listed_removed += [r["t"]["iri"] for r in page["data"]["removed"]]
                if not page.get("next"):
                    break
                page = await call("query", page["next"])
            check("compare-pages", set(listed_added) == after - before and set(listed_removed) == before - after
                  and len(listed_added) == len(after - before), (len(listed_added), len(after - before)))

            # paging a pinned SELECT while nothing changes gives every row once.
            paged = await rows(f"SELECT ?r WHERE {{ ?r a <{EX}Release> }} ORDER BY ?r", head, detail="standard")
            check("pages-cover-all-rows", len(paged) == len({r["r"]["iri"] for r in paged}) and len(paged) > 100, len(paged))

            # paths respect their bounds on a graph with hubs (releases join many bugs).
            paths = await call("query", {"mode": "paths", "graph": "scale", "source": {"iri": EX + "t0"},
                                         "target": {"iri": EX + "t1"}, "max_depth": 4, "max_paths": 3})
            lengths = [p["length"] for p in paths["data"]["paths"]]
            check("paths-bounded", 1 <= len(lengths) <= 3 and all(n <= 4 for n in lengths) and lengths == sorted(lengths), lengths)
            hood = await call("query", {"mode": "neighborhood", "graph": "scale", "source": {"iri": EX + "r0"},
                                        "max_depth": 2, "max_nodes": 40})
            check("neighborhood-bounded", len(hood["data"]["nodes"]) <= 40 and hood.get("truncated") is True, len(hood["data"]["nodes"]))
    print(f"ALL CHECKS PASSED {len(PASSED)} in {time.monotonic() - started:.1f}s", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
