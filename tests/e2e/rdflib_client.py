#!/usr/bin/env python3
"""rdflib as an analyst's client of `strata serve`.

Usage: rdflib_client.py BASE_URL   (e.g. http://127.0.0.1:7878)

Talks to BASE/sparql and BASE/update through rdflib's SPARQLUpdateStore and SPARQLStore:
inserts triples with an update, reads them back with SELECT, ASK and CONSTRUCT, deletes
one, then reads the earlier commit with `as_of` and checks the deleted triple is there
but not at the head. Prints one `CHECK <name> ok` line per check and `ALL CHECKS PASSED`
at the end; exits non-zero on the first failure.

Expects graph `main` not to exist or to be empty when it starts: the first request is the
insert (`/update` creates `main`).
"""

import json
import sys
import urllib.parse
import urllib.request

from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore, SPARQLUpdateStore

EX = Namespace("http://example.org/people/")
FOAF = Namespace("http://xmlns.com/foaf/0.1/")

CHECKS = 0


def check(name, condition, detail=""):
    global CHECKS
    if not condition:
        print(f"CHECK {name} FAILED {detail}", flush=True)
        sys.exit(1)
    CHECKS += 1
    print(f"CHECK {name} ok", flush=True)


def raw_get(base, params):
    """A plain SPARQL Protocol GET; returns (Strata-Commit header, parsed JSON body)."""
    url = f"{base}/sparql?" + urllib.parse.urlencode(params)
    request = urllib.request.Request(
        url, headers={"Accept": "application/sparql-results+json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.headers.get("Strata-Commit"), json.load(response)


def head_seq(base):
    seq, body = raw_get(base, {"query": "ASK {}"})
    if seq is None:
        print("CHECK strata-commit-header FAILED no Strata-Commit header", flush=True)
        sys.exit(1)
    return int(seq)


def main():
    base = sys.argv[1].rstrip("/")
    query_endpoint = f"{base}/sparql"
    update_endpoint = f"{base}/update"

    # context_aware=False: the endpoint's default graph is the graph, no GRAPH wrapping.
    store = SPARQLUpdateStore(
        query_endpoint=query_endpoint,
        update_endpoint=update_endpoint,
        context_aware=False,
    )
    graph = Graph(store)
    graph.bind("ex", EX)
    graph.bind("foaf", FOAF)

    # 1. An update that inserts four triples: one commit.
    graph.update(
        """
        PREFIX ex: <http://example.org/people/>
        PREFIX foaf: <http://xmlns.com/foaf/0.1/>
        INSERT DATA {
            ex:alice foaf:name "Alice" ; foaf:knows ex:bob , ex:carol .
            ex:bob foaf:name "Bob" .
        }
        """
    )
    first = head_seq(base)
    check("insert-created-commit", first >= 1, f"head {first}")

    # 2. SELECT, ASK, CONSTRUCT through rdflib's Graph over the store.
    rows = graph.query(
        """
        PREFIX foaf: <http://xmlns.com/foaf/0.1/>
        SELECT ?person ?name WHERE { ?person foaf:name ?name } ORDER BY ?name
        """
    )
    names = [(row.person, row.name) for row in rows]
    check(
        "select-names",
        names == [(EX.alice, Literal("Alice")), (EX.bob, Literal("Bob"))],
        repr(names),
    )
    check(
        "ask-knows-carol",
        graph.query(
            "ASK { <http://example.org/people/alice> "
            "<http://xmlns.com/foaf/0.1/knows> <http://example.org/people/carol> }"
        ).askAnswer,
    )
    constructed = graph.query(
        """
        PREFIX foaf: <http://xmlns.com/foaf/0.1/>
        CONSTRUCT { ?a foaf:knows ?b } WHERE { ?a foaf:knows ?b }
        """
    ).graph
    check(
        "construct-knows",
        set(constructed) == {(EX.alice, FOAF.knows, EX.bob), (EX.alice, FOAF.knows, EX.carol)},
        repr(sorted(constructed)),
    )
    check("store-triples", len(list(graph.triples((None, None, None)))) == 4)
    check("store-contains", (EX.bob, FOAF.name, Literal("Bob")) in graph)

    # 3. A second commit that deletes one triple, through rdflib's store API (DELETE DATA).
    graph.remove((EX.alice, FOAF.knows, EX.carol))
    second = head_seq(base)
    check("delete-created-commit", second == first + 1, f"{first} then {second}")
    check(
        "head-lacks-deleted",
        (EX.alice, FOAF.knows, EX.carol) not in graph
        and not graph.query(
            "ASK { <http://example.org/people/alice> "
            "<http://xmlns.com/foaf/0.1/knows> <http://example.org/people/carol> }"
        ).askAnswer,
    )
    check("head-triples", len(list(graph.triples((None, None, None)))) == 3)

    # 4. The earlier commit, pinned with as_of: rdflib adds extra URL parameters through
    # its connector's `params` keyword, for GET, POST (query in the body) and POST_FORM.
    for method in ("GET", "POST", "POST_FORM"):
        pinned = Graph(
            SPARQLStore(
                query_endpoint=query_endpoint,
                context_aware=False,
                method=method,
                params={"as_of": str(first)},
            )
        )
        check(
            f"as_of-{method}-has-deleted",
            pinned.query(
                "ASK { <http://example.org/people/alice> "
                "<http://xmlns.com/foaf/0.1/knows> <http://example.org/people/carol> }"
            ).askAnswer,
        )
        count = list(pinned.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"))[0].n
        check(f"as_of-{method}-count", int(count) == 4, repr(count))
        constructed = pinned.query(
            "CONSTRUCT { ?a <http://xmlns.com/foaf/0.1/knows> ?b } "
            "WHERE { ?a <http://xmlns.com/foaf/0.1/knows> ?b }"
        ).graph
        check(
            f"as_of-{method}-construct",
            (EX.alice, FOAF.knows, EX.carol) in set(constructed) and len(constructed) == 2,
            repr(sorted(constructed)),
        )

    # 5. The same pin over plain GET: the Strata-Commit header names the pinned commit.
    served, body = raw_get(
        base,
        {
            "query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
            "as_of": str(first),
        },
    )
    count = int(body["results"]["bindings"][0]["n"]["value"])
    check("as_of-header", served == str(first) and count == 4, f"{served} {count}")
    served, body = raw_get(base, {"query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"})
    count = int(body["results"]["bindings"][0]["n"]["value"])
    check("head-header", served == str(second) and count == 3, f"{served} {count}")

    print(f"ALL CHECKS PASSED {CHECKS}", flush=True)


if __name__ == "__main__":
    main()
