#!/usr/bin/env python3
"""Analytic SPARQL over HTTP: Strata, the oxigraph server and Virtuoso, same machine, same run.

Each engine is a real server process answering the SPARQL 1.1 Protocol on loopback; the
driver is one client with one keep-alive connection (a `requests.Session`) per engine,
sending every query as a form-encoded POST with `Accept: application/sparql-results+json`
(`application/n-triples` for CONSTRUCT and DESCRIBE) and reading the whole answer. Times
are wall-clock on the client.

    python3 benches/peers/analytic_http.py                       # 1M triples, all engines
    python3 benches/peers/analytic_http.py --scale 5m --engines strata,virtuoso --passes 5
    python3 benches/peers/analytic_http.py --only bi1,a01 --json /tmp/analytic-http.json
    python3 benches/peers/analytic_http.py --mix explore         # the BSBM explore mix only
    python3 benches/peers/analytic_http.py --mix both --scale 5m # analytic, then explore

Options: `--scale 1m|5m|50m`, `--engines strata,oxigraph,virtuoso` (any subset),
`--mix analytic|explore|both` (the analytic queries, the BSBM explore mix, or the first
then the second; default analytic), `--passes N` (timed runs per query after one warm-up,
best kept; default 3; for the explore mix, timed passes over the whole mix after one
warm-up pass), `--timeout SECONDS` (per query, default 300; a query past it is reported as
timed out), `--only bi1,a05` (some analytic queries; the explore mix always runs whole),
`--strata BIN` (default target/release/strata),
`--work DIR` (data cache and server directories; default /tmp/strata-analytic-http),
`--json FILE` (raw figures), `--keep` (keep the loaded stores), `--virtuoso-buffers N`.
`--data FILE` queries another N-Triples file (gzip too; not for Virtuoso, whose loader
reads a directory) instead of one the driver writes, e.g. the 200M file of
`scripts/bsbm-scale.py --copies 200 … | gzip -1`, whose plain text would not fit on disk;
`--strata-data DIR` and `--oxigraph-store DIR` serve stores already loaded there (by
`strata --data DIR import` and `oxigraph load --location DIR`, e.g. under
`/usr/bin/time -v` for their peak memory): the driver skips that engine's load and never
deletes the directory.
Strata's server takes its settings from the environment too: `STRATA_QUERY_THREADS=1`
runs it on one thread per query (default: every core).

What it needs:
- Python 3.11 with `requests`.
- Strata: a release build (`cargo build --release`; the driver never builds it).
- oxigraph server (Rust CLI) from PyPI: `python3 -m pip install oxigraph==0.5.13` gives
  the `oxigraph` command; the driver installs it when missing (the newest 0.5.x when
  0.5.13 is not to be had) and prints the version used.
- Virtuoso 7.2.5 from Debian (`apt-get install virtuoso-opensource`, as root or through
  `sudo -n`); the driver installs it when missing. The Debian system instance is never
  used: the driver writes its own `virtuoso.ini` in a fresh directory (its own database
  files, ports and memory settings) and runs its own `virtuoso-t +foreground`.
- BSBM data: `../shared/data/bsbm/bsbm-1m.nt.gz` (1,000,312 triples); the driver writes the
  uncompressed file, and for 5m / 50m the output of `scripts/bsbm-scale.py --copies 5|50`,
  into the work directory once and reuses it.

Loads (`strata import`, `oxigraph load` + `oxigraph optimize`, Virtuoso's bulk loader
`ld_dir` + `rdf_loader_run` + `checkpoint`) run under `nice -n 10`, one after another;
then each server is (re)started at normal priority on its loaded store and queried
(Strata as `strata serve --no-demo --timeout T --query-memory-mb 0`, oxigraph as
`oxigraph serve-read-only --timeout-s T`, Virtuoso without a server-side limit).
Virtuoso reads the data as the graph <http://example.org/bsbm>, given to it as the
`default-graph-uri` protocol parameter (without it a Virtuoso query would also see its
system graphs).

Queries: the eight BSBM 3.1 Business Intelligence templates (bi1..bi8, the texts of the
BSBM tools v0.2 `queries/bi/queryN.txt`, parameters chosen from the 1M data; copy 0 of a
scaled file keeps the 1M IRIs, so they stay valid at every scale), the whole-graph
aggregates a01..a03 and the queries a05..a11 of benches/analytic.rs (same texts; two
minimal adaptations for Virtuoso, bi5 and a05, are explained where they are written). Every
query is checked for the same rows in every engine (numbers by value whatever their
datatype, to a relative difference of 1e-5; IRIs and other literals exactly; order-insensitive,
except that an ORDER BY query must also give the same sequence of sort-key values); a
difference is printed and the query marked MISMATCH, and does not stop the run.

The explore mix (`--mix explore|both`): the 220 concrete BSBM explore queries of
`../shared/data/bsbm/queries-1m/` (templates q01..q05, q07..q12, 20 instances each, listed in
its `manifest.tsv`; see its REFERENCE.md). Their IRIs come from the 1M data, which copy 0 of
a scaled file keeps, so they are valid at every scale. Each engine in turn runs the whole
mix once as a warm-up, then `--passes` timed passes; each query keeps its best time, and a
query that times out counts as the time limit (and is marked, and not run again). The
report gives per template the sum of its 20 best times, the total, and the Strata/peer
ratios of the totals and the geometric mean of the per-query ratios. Answers are checked
across engines: SELECT as for the analytic queries (ORDER BY keys included), CONSTRUCT
(q12) by the number of triples; DESCRIBE (q09) only has its triple counts recorded, since
what a description holds is up to each engine (Virtuoso's is not oxigraph's).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

try:
    import requests
except ImportError:  # pragma: no cover
    sys.exit("analytic_http.py needs the requests library (python3 -m pip install requests)")

REPO = Path(__file__).resolve().parents[2]
BSBM_1M = (REPO / ".." / "shared" / "data" / "bsbm" / "bsbm-1m.nt.gz").resolve()
if not BSBM_1M.exists():
    BSBM_1M = Path("/work/shared/data/bsbm/bsbm-1m.nt.gz")
EXPLORE_DIR = (REPO / ".." / "shared" / "data" / "bsbm" / "queries-1m").resolve()
if not EXPLORE_DIR.exists():
    EXPLORE_DIR = Path("/work/shared/data/bsbm/queries-1m")
OXIGRAPH_VERSION = "0.5.13"
VIRTUOSO_GRAPH = "http://example.org/bsbm"
ACCEPT = "application/sparql-results+json"
GRAPH_ACCEPT = "application/n-triples"  # CONSTRUCT and DESCRIBE answers
GRAPH_FORMS = ("CONSTRUCT", "DESCRIBE")
XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = {
    XSD + t
    for t in (
        "integer decimal double float int long short byte nonNegativeInteger "
        "nonPositiveInteger negativeInteger positiveInteger unsignedLong unsignedInt "
        "unsignedShort unsignedByte"
    ).split()
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------

INST = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/"
# Parameters for the BI templates, chosen from the 1M data (all give non-empty answers).
BI_PARAMS = {
    # bi1: producers from GB, reviewers from US (1,311 reviews at 1M).
    "Country1": "<http://downlode.org/rdf/iso-3166/countries#GB>",
    "Country2": "<http://downlode.org/rdf/iso-3166/countries#US>",
    # bi2: a product with 20 features (the 1M mean is 20.5).
    "Product": f"<{INST}dataFromProducer1/Product14>",
    # bi3: two consecutive 28-day windows of review dates (dc:date is an xsd:date).
    "ConsecutiveMonth_0": "2008-02-06",
    "ConsecutiveMonth_1": "2008-03-05",
    "ConsecutiveMonth_2": "2008-04-02",
    # bi6
    "Producer": f"<{INST}dataFromProducer6/Producer6>",
    # bi7: vendors from KR (3 of the 29 vendors at 1M).
    "Country": "<http://downlode.org/rdf/iso-3166/countries#KR>",
}
# At 50m, ProductType71 has about 2,950 products, so bi7's inner `Order By
# desc(?offerCount) Limit 1000` cuts through ties and engines may legitimately keep
# different products (at 1m and 5m the type has fewer than 1,000 products: no cut).
# bi4 and bi5 take a product type one level above the leaves (the driver's
# ProductTypeRangeURI_1_0_lvleq: ProductType10, 103 products at 1M), bi7 and bi8 a leaf
# type (ProductTypeRangeURI_0_0_lvleq: ProductType71, 59 products at 1M).
PT_LEVEL1 = f"<{INST}ProductType10>"
PT_LEAF = f"<{INST}ProductType71>"

# The BSBM 3.1 Business Intelligence query templates, as in the BSBM tools v0.2
# (queries/bi/query1.txt .. query8.txt), whitespace aside, with one adaptation: bi5's
# average-price subquery reads `Select ?country ?product (avg(..)) .. Group By ?country
# ?product` in the template, though ?country is never bound in it. In SPARQL that
# projects ?country unbound, which joins with any ?country, and so it is the same query
# without ?country there (as written here); Virtuoso 7.2.5 instead joins on the unbound
# ?country and answers no rows at all, so the template's form would not compare engines.
BI_TEMPLATES = {
    "bi1": (
        "top 10 product types by reviews: producers in one country, reviewers in another",
        PT_LEAF,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
prefix rev: <http://purl.org/stuff/rev#>

Select ?productType ?reviewCount
{
 { Select ?productType (count(?review) As ?reviewCount)
  {
   ?productType a bsbm:ProductType .
   ?product a ?productType .
   ?product bsbm:producer ?producer .
   ?producer bsbm:country %Country1% .
   ?review bsbm:reviewFor ?product .
   ?review rev:reviewer ?reviewer .
   ?reviewer bsbm:country %Country2% .
  }
  Group By ?productType
 }
}
Order By desc(?reviewCount) ?productType
Limit 10
""",
    ),
    "bi2": (
        "top 10 products sharing the most features with one product",
        PT_LEAF,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>

SELECT ?otherProduct ?sameFeatures
{
  ?otherProduct a bsbm:Product .
  FILTER(?otherProduct != %Product%)
  {
    SELECT ?otherProduct (count(?otherFeature) As ?sameFeatures)
    {
      %Product% bsbm:productFeature ?feature .
      ?otherProduct bsbm:productFeature ?otherFeature .
      FILTER(?feature=?otherFeature)
    }
    Group By ?otherProduct
  }
}
Order By desc(?sameFeatures) ?otherProduct
Limit 10
""",
    ),
    "bi3": (
        "products with the largest rise in reviews from one month to the next",
        PT_LEAF,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
prefix bsbm-inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
prefix rev: <http://purl.org/stuff/rev#>
prefix dc: <http://purl.org/dc/elements/1.1/>
prefix xsd: <http://www.w3.org/2001/XMLSchema#>

Select ?product (xsd:float(?monthCount)/?monthBeforeCount As ?ratio)
{
  { Select ?product (count(?review) As ?monthCount)
    {
      ?review bsbm:reviewFor ?product .
      ?review dc:date ?date .
      Filter(?date >= "%ConsecutiveMonth_1%"^^<http://www.w3.org/2001/XMLSchema#date> && ?date < "%ConsecutiveMonth_2%"^^<http://www.w3.org/2001/XMLSchema#date>)
    }
    Group By ?product
  }  {
    Select ?product (count(?review) As ?monthBeforeCount)
    {
      ?review bsbm:reviewFor ?product .
      ?review dc:date ?date .
      Filter(?date >= "%ConsecutiveMonth_0%"^^<http://www.w3.org/2001/XMLSchema#date> && ?date < "%ConsecutiveMonth_1%"^^<http://www.w3.org/2001/XMLSchema#date>) #
    }
    Group By ?product
    Having (count(?review)>0)
  }
}
Order By desc(xsd:float(?monthCount) / ?monthBeforeCount) ?product
Limit 10
""",
    ),
    "bi4": (
        "features with the highest price ratio with/without the feature, in one type",
        PT_LEVEL1,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
prefix bsbm-inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
prefix xsd: <http://www.w3.org/2001/XMLSchema#>

Select ?feature (?withFeaturePrice/?withoutFeaturePrice As ?priceRatio)
{
  { Select ?feature (avg(xsd:float(xsd:string(?price))) As ?withFeaturePrice)
    {
      ?product a %ProductType% ;
               bsbm:productFeature ?feature .
      ?offer bsbm:product ?product ;
             bsbm:price ?price .
    }
    Group By ?feature
  }
  { Select ?feature (avg(xsd:float(xsd:string(?price))) As ?withoutFeaturePrice)
    {
      { Select distinct ?feature {
        ?p a %ProductType% ;
           bsbm:productFeature ?feature .
      } }
      ?product a %ProductType% .
      ?offer bsbm:product ?product ;
             bsbm:price ?price .
      FILTER NOT EXISTS { ?product bsbm:productFeature ?feature }
    }
    Group By ?feature
  }
}
Order By desc(?withFeaturePrice/?withoutFeaturePrice) ?feature
Limit 10
""",
    ),
    "bi5": (
        "per reviewer country, the most reviewed products of one type and their mean price",
        PT_LEVEL1,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
prefix bsbm-inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
prefix rev: <http://purl.org/stuff/rev#>
prefix xsd: <http://www.w3.org/2001/XMLSchema#>

Select ?country ?product ?nrOfReviews ?avgPrice
{
  { Select ?country (max(?nrOfReviews) As ?maxReviews)
    {
      { Select ?country ?product (count(?review) As ?nrOfReviews)
        {
          ?product a %ProductType% .
          ?review bsbm:reviewFor ?product ;
                  rev:reviewer ?reviewer .
          ?reviewer bsbm:country ?country .
        }
        Group By ?country ?product
      }
    }
    Group By ?country
  }
  { Select ?product (avg(xsd:float(xsd:string(?price))) As ?avgPrice)
    {
      ?product a %ProductType% .
      ?offer bsbm:product ?product .
      ?offer bsbm:price ?price .
    }
    Group By ?product
  }
  { Select ?country ?product (count(?review) As ?nrOfReviews)
    {
      ?product a %ProductType% .
      ?review bsbm:reviewFor ?product .
      ?review rev:reviewer ?reviewer .
      ?reviewer bsbm:country ?country .
    }
    Group By ?country ?product
  }
  FILTER(?nrOfReviews=?maxReviews)
}
Order By desc(?nrOfReviews) ?country ?product
""",
    ),
    "bi6": (
        "reviewers rating one producer's products 1.5 times above its mean (UNION, HAVING)",
        PT_LEAF,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
prefix bsbm-inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
prefix rev: <http://purl.org/stuff/rev#>
prefix xsd: <http://www.w3.org/2001/XMLSchema#>

Select ?reviewer (avg(xsd:float(?score)) As ?reviewerAvgScore)
{
  { Select (avg(xsd:float(?score)) As ?avgScore)
    {
      ?product bsbm:producer %Producer% .
      ?review bsbm:reviewFor ?product .
      { ?review bsbm:rating1 ?score . } UNION
      { ?review bsbm:rating2 ?score . } UNION
      { ?review bsbm:rating3 ?score . } UNION
      { ?review bsbm:rating4 ?score . }
    }
  }
  ?product bsbm:producer %Producer% .
  ?review bsbm:reviewFor ?product .
  ?review rev:reviewer ?reviewer .
  { ?review bsbm:rating1 ?score . } UNION
  { ?review bsbm:rating2 ?score . } UNION
  { ?review bsbm:rating3 ?score . } UNION
  { ?review bsbm:rating4 ?score . }
}
Group By ?reviewer
Having (avg(xsd:float(?score)) > min(?avgScore) * 1.5)
""",
    ),
    "bi7": (
        "most offered products of one type that no vendor of one country offers",
        PT_LEAF,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
prefix bsbm-inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
prefix xsd: <http://www.w3.org/2001/XMLSchema#>

Select ?product
{
  { Select ?product
    {
      { Select ?product (count(?offer) As ?offerCount)
        {
          ?product a %ProductType% .
          ?offer bsbm:product ?product .
        }
        Group By ?product
      }
    }
    Order By desc(?offerCount)
    Limit 1000
  }
  FILTER NOT EXISTS
  {
    ?offer bsbm:product ?product .
    ?offer bsbm:vendor ?vendor .
    ?vendor bsbm:country ?country .
    FILTER(?country=%Country%)
  }
}
""",
    ),
    "bi8": (
        "vendors with the largest share of offers below the product's mean price, one type",
        PT_LEAF,
        """prefix bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
prefix bsbm-inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
prefix xsd: <http://www.w3.org/2001/XMLSchema#>

Select ?vendor (xsd:float(?belowAvg)/?offerCount As ?cheapExpensiveRatio)
{
  { Select ?vendor (count(?offer) As ?belowAvg)
    {
      { ?product a %ProductType% .
        ?offer bsbm:product ?product .
        ?offer bsbm:vendor ?vendor .
        ?offer bsbm:price ?price .
        { Select ?product (avg(xsd:float(xsd:string(?price))) As ?avgPrice)
          {
            ?product a %ProductType% .
            ?offer bsbm:product ?product .
            ?offer bsbm:vendor ?vendor .
            ?offer bsbm:price ?price .
          }
          Group By ?product
        }
      } .
      FILTER (xsd:float(xsd:string(?price)) < ?avgPrice)
    }
    Group By ?vendor
  }
  { Select ?vendor (count(?offer) As ?offerCount)
    {
      ?product a %ProductType% .
      ?offer bsbm:product ?product .
      ?offer bsbm:vendor ?vendor .
    }
    Group By ?vendor
  }
}
Order by desc(xsd:float(?belowAvg)/?offerCount) ?vendor
limit 10
""",
    ),
}

# benches/analytic.rs, the same texts (a04 is BI 1's shape, measured here as bi1 itself),
# except that a05 names its product by a full IRI: analytic.rs writes the prefixed name
# inst:dataFromProducer1\/Product1 (SPARQL 1.1's escaped "/"), which Virtuoso 7.2.5 does
# not parse ("Bad character '\'").
ANALYTIC_PREFIXES = """PREFIX bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
PREFIX inst: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/>
PREFIX rev: <http://purl.org/stuff/rev#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX country: <http://downlode.org/rdf/iso-3166/countries#>
"""
ANALYTIC = {
    "a01": (
        "count per predicate (full scan, GROUP BY)",
        "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p",
    ),
    "a02": (
        "instances per class",
        "SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c",
    ),
    "a03": (
        "distinct subjects",
        "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }",
    ),
    "a05": (
        "BI 2-shaped: products sharing features with one product (self-join)",
        """SELECT ?other (COUNT(?f) AS ?same) WHERE {
           <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/dataFromProducer1/Product1> bsbm:productFeature ?f . ?other bsbm:productFeature ?f
           FILTER(?other != <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/dataFromProducer1/Product1>) }
         GROUP BY ?other ORDER BY DESC(?same) ?other LIMIT 10""",
    ),
    "a06": (
        "average offer price per product type (typed values, join)",
        """SELECT ?type (AVG(xsd:double(STR(?price))) AS ?avg) (COUNT(?offer) AS ?n) WHERE {
           ?offer bsbm:product ?product ; bsbm:price ?price . ?product a ?type }
         GROUP BY ?type ORDER BY DESC(?avg) ?type LIMIT 10""",
    ),
    "a07": (
        "offers filtered on dates and days, MIN/MAX price per vendor",
        """SELECT ?vendor (MIN(xsd:double(STR(?price))) AS ?min) (MAX(xsd:double(STR(?price))) AS ?max) (COUNT(?offer) AS ?n) WHERE {
           ?offer bsbm:vendor ?vendor ; bsbm:price ?price ; bsbm:validTo ?to ; bsbm:deliveryDays ?days
           FILTER(?to > "2008-06-20T00:00:00"^^xsd:dateTime && ?days <= 3) }
         GROUP BY ?vendor ORDER BY ?vendor""",
    ),
    "a08": (
        "offers per producer and vendor (two-key group)",
        """SELECT ?producer ?vendor (COUNT(*) AS ?n) WHERE {
           ?offer bsbm:product ?product ; bsbm:vendor ?vendor . ?product bsbm:producer ?producer }
         GROUP BY ?producer ?vendor ORDER BY DESC(?n) ?producer ?vendor LIMIT 20""",
    ),
    "a09": (
        "average rating per producer, HAVING",
        """SELECT ?producer (AVG(?r) AS ?avg) (COUNT(?review) AS ?n) WHERE {
           ?review bsbm:reviewFor ?product ; bsbm:rating1 ?r . ?product bsbm:producer ?producer }
         GROUP BY ?producer HAVING (COUNT(?review) > 10) ORDER BY DESC(?avg) ?producer""",
    ),
    "a10": (
        "reviews per month (computed group key)",
        """SELECT ?month (COUNT(*) AS ?n) WHERE { ?review bsbm:reviewDate ?d }
         GROUP BY (SUBSTR(STR(?d), 1, 7) AS ?month) ORDER BY ?month""",
    ),
    "a11": (
        "products without reviews per producer (NOT EXISTS)",
        """SELECT ?producer (COUNT(?product) AS ?n) WHERE {
           ?product bsbm:producer ?producer FILTER NOT EXISTS { ?review bsbm:reviewFor ?product } }
         GROUP BY ?producer ORDER BY DESC(?n) ?producer""",
    ),
}

# For an ORDER BY query: the result columns (0-based) whose sequence of values must be the
# same in every engine. Only the leading sort keys are listed, not the IRI tie-breakers:
# floats computed in single precision by one engine and double by another may swap two
# nearly equal rows, and the multiset check still catches any other difference.
ORDER_KEYS = {
    "bi1": [1],
    "bi2": [1],
    "bi3": [1],
    "bi4": [1],
    "bi5": [2],
    "a05": [1],
    "a06": [1],
    "a07": [0],
    "a08": [2],
    "a09": [1],
    "a10": [0],
    "a11": [1],
}


@dataclass
class Query:
    name: str
    what: str
    text: str
    order_keys: list[int] = field(default_factory=list)
    form: str = "SELECT"  # SELECT, CONSTRUCT or DESCRIBE
    template: str = ""  # explore mix: q01..q12


# The explore templates with ORDER BY: the result columns (0-based) of their sort key.
EXPLORE_ORDER_KEYS = {
    "q01": [1],  # ?label
    "q03": [1],  # ?label
    "q04": [1],  # ?label
    "q05": [1],  # ?productLabel
    "q08": [2],  # DESC(?reviewDate)
    "q10": [1],  # xsd:double(str(?price)), the same order as the ?price literals
}


def explore_queries(directory: Path = EXPLORE_DIR) -> list[Query]:
    """The 220 explore-mix instances, in the manifest's order."""
    manifest = directory / "manifest.tsv"
    if not manifest.exists():
        raise RuntimeError(f"no explore queries: {manifest} is missing")
    lines = manifest.read_text().splitlines()
    header = lines[0].split("\t")
    out = []
    for line in lines[1:]:
        if not line.strip():
            continue
        row = dict(zip(header, line.split("\t")))
        template = f"q{int(row['template']):02d}"
        ordered = row.get("ordered") == "yes"
        if ordered and template not in EXPLORE_ORDER_KEYS:
            raise RuntimeError(f"{row['query']}: ORDER BY template {template} has no sort-key column")
        out.append(Query(
            name=row["query"].removesuffix(".rq"),
            what=f"explore template {template} ({row['form']})",
            text=(directory / row["query"]).read_text(),
            order_keys=EXPLORE_ORDER_KEYS.get(template, []) if ordered else [],
            form=row["form"].upper(),
            template=template,
        ))
    return out


def all_queries() -> list[Query]:
    out = []
    for name, (what, product_type, template) in BI_TEMPLATES.items():
        text = template.replace("%ProductType%", product_type)
        for key, value in BI_PARAMS.items():
            text = text.replace(f"%{key}%", value)
        assert "%" not in text.replace("%20", ""), f"{name}: a parameter is left: {text}"
        out.append(Query(name, what, text, ORDER_KEYS.get(name, [])))
    for name, (what, body) in ANALYTIC.items():
        out.append(Query(name, what, ANALYTIC_PREFIXES + body, ORDER_KEYS.get(name, [])))
    return out


# ---------------------------------------------------------------------------------------
# Results: normalization and comparison
# ---------------------------------------------------------------------------------------


def norm_term(term: dict | None):
    """A JSON result term as a comparable value: numbers as floats, the rest as tuples."""
    if term is None:
        return None
    kind = term.get("type")
    value = term.get("value", "")
    if kind == "uri":
        return ("I", value)
    if kind == "bnode":
        return ("B", value)
    datatype = term.get("datatype")
    lang = term.get("xml:lang")
    if datatype in NUMERIC:
        try:
            return float(value)
        except ValueError:
            return ("T", value, datatype)
    if lang:
        return ("L", value, lang.lower())
    if datatype is None or datatype == XSD + "string":
        return ("L", value, "")
    return ("T", value, datatype)


def sig(x: float, digits: int = 6) -> float:
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


# Numbers agree when within this relative difference (about 5-6 significant digits): an
# xsd:float average summed in single precision by one engine and in double by another
# differs in the 6th or 7th digit.
REL_TOLERANCE = 1e-5


def same_value(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (math.isnan(a) and math.isnan(b)):
            return True
        return abs(a - b) <= REL_TOLERANCE * max(abs(a), abs(b))
    return a == b


def same_row(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))


def sort_key(row: tuple):
    # None < numbers < tuples, numbers rounded so that nearly equal values sort together.
    return [(0,) if v is None else (1, sig(v, 5)) if isinstance(v, float) else (2,) + v for v in row]


def show_row(row: tuple) -> str:
    def one(v):
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.7g}"
        if v[0] == "I":
            return f"<{v[1]}>"
        if v[0] == "L":
            return json.dumps(v[1]) + (f"@{v[2]}" if v[2] else "")
        return json.dumps(v[1]) + f"^^<{v[2]}>"

    return " | ".join(one(v) for v in row)


def limited(text: str) -> bool:
    """Whether the query's outermost solution modifier has a LIMIT (its last clause)."""
    tail = text.strip().rsplit("}", 1)[-1].lower()
    return "limit" in tail


def compare(ref: list[tuple], other: list[tuple], order_keys: list[int],
            cut: bool = False) -> list[str]:
    """Differences between two answers (empty when they agree). `cut`: an ORDER BY ..
    LIMIT answer, where rows tied on the ORDER BY keys with the last row may legitimately
    differ (which of the tied rows make it past the LIMIT is up to each engine: at 5m and
    50m the copies of the data make such ties)."""
    problems = []
    if len(ref) != len(other):
        problems.append(f"{len(ref)} rows against {len(other)}")
    a = sorted(ref, key=sort_key)
    b = sorted(other, key=sort_key)
    if not (len(a) == len(b) and all(same_row(x, y) for x, y in zip(a, b))):
        # Pairing after sorting can fail on rounding at a boundary: match greedily.
        left = list(b)
        only_ref = []
        for row in a:
            for i, cand in enumerate(left):
                if same_row(row, cand):
                    del left[i]
                    break
            else:
                only_ref.append(row)
        boundary = tuple(ref[-1][k] for k in order_keys) if ref and order_keys else None
        tied = (
            cut
            and boundary is not None
            and len(ref) == len(other)
            and all(same_row(tuple(r[k] for k in order_keys), boundary) for r in only_ref + left)
        )
        if (only_ref or left) and not tied:
            problems.append(f"rows only in the first: {len(only_ref)}, only in the second: {len(left)}")
            problems += ["  < " + show_row(r) for r in only_ref[:5]]
            problems += ["  > " + show_row(r) for r in left[:5]]
    if order_keys and not problems:
        keys_a = [tuple(r[k] for k in order_keys) for r in ref]
        keys_b = [tuple(r[k] for k in order_keys) for r in other]
        for i, (x, y) in enumerate(zip(keys_a, keys_b)):
            if not same_row(x, y):
                problems.append(f"the ORDER BY keys differ from row {i + 1}:")
                problems += [f"  < {show_row(r)}" for r in ref[i : i + 3]]
                problems += [f"  > {show_row(r)}" for r in other[i : i + 3]]
                break
    return problems


# ---------------------------------------------------------------------------------------
# Processes and engines
# ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd: list[str], what: str, nice: bool = True, log_file: Path | None = None, env=None) -> float:
    """Runs a command to its end (under nice -n 10), returns its wall time; fails loudly."""
    full = (["nice", "-n", "10"] if nice else []) + [str(c) for c in cmd]
    log(f"  $ {' '.join(full)}")
    started = time.perf_counter()
    out = open(log_file, "ab") if log_file else subprocess.PIPE
    try:
        proc = subprocess.run(full, stdout=out, stderr=subprocess.STDOUT, env=env)
    finally:
        if log_file:
            out.close()
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        tail = log_file.read_text(errors="replace")[-3000:] if log_file else (proc.stdout or b"").decode(errors="replace")[-3000:]
        raise RuntimeError(f"{what} failed (exit {proc.returncode}):\n{tail}")
    return elapsed


class Server:
    """A server process in its own process group (stopped by its id, never by name)."""

    def __init__(self, name: str, cmd: list[str], log_file: Path, env=None, nice: bool = False):
        full = (["nice", "-n", "10"] if nice else []) + [str(c) for c in cmd]
        log(f"  $ {' '.join(full)} &")
        self.name = name
        self.log_file = log_file
        self.out = open(log_file, "ab")
        self.proc = subprocess.Popen(
            full, stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, env=env,
        )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, grace: float = 30.0) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                log(f"  {self.name} did not stop in {grace:.0f} s: SIGKILL")
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(10)
        self.out.close()

    def tail(self, n: int = 2000) -> str:
        try:
            return self.log_file.read_text(errors="replace")[-n:]
        except OSError:
            return ""


class QueryTimeout(Exception):
    pass


def parse_ntriples(body: bytes) -> list[tuple]:
    """An N-Triples answer as a list of one-element rows (the triples' lines, stripped).
    Raises ValueError when the answer is not N-Triples or is cut off."""
    text = body.decode("utf-8")
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not line.endswith(".") or not line.startswith(("<", "_:")):
            raise ValueError(f"not an N-Triples line: {line[:200]!r}")
        rows.append((line,))
    if text.strip() and not text.endswith("\n"):
        raise ValueError("the answer ends in the middle of a line")
    return rows


class Engine:
    label = "?"
    key = "?"
    client_margin = 30.0

    def __init__(self, args, work: Path, data_file: Path):
        self.args = args
        self.work = work
        self.data_file = data_file
        self.server: Server | None = None
        self.session: requests.Session | None = None
        self.endpoint = ""
        self.extra_params: dict[str, str] = {}
        self.load_seconds: dict[str, float] = {}
        self.version = "?"
        self.dir = Path(tempfile.mkdtemp(prefix=f"{self.key}-", dir=work))

    # subclasses: prepare(), load(), start()
    def new_session(self) -> None:
        if self.session:
            self.session.close()
        self.session = requests.Session()
        self.session.headers.update({"Accept": ACCEPT})

    def wait_http(self, url: str, seconds: float = 120.0, params=None) -> None:
        deadline = time.monotonic() + seconds
        while True:
            if self.server and not self.server.alive():
                raise RuntimeError(f"{self.label} exited:\n{self.server.tail()}")
            try:
                r = requests.get(url, params=params, timeout=5, headers={"Accept": ACCEPT})
                if r.status_code < 500:
                    return
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.label} did not answer {url} within {seconds:.0f} s:\n"
                                   + (self.server.tail() if self.server else ""))
            time.sleep(0.2)

    def query(self, text: str, timeout: float, form: str = "SELECT") -> tuple[float, list[str], list[tuple]]:
        """Runs one query; returns (seconds, variables, rows). Raises QueryTimeout.

        `form` is the query form: for CONSTRUCT and DESCRIBE the answer is asked for as
        N-Triples, and the rows are the triples (one N-Triples line each, not parsed)."""
        assert self.session is not None
        graph = form.upper() in GRAPH_FORMS
        data = {"query": text, **self.extra_params}
        headers = {"Accept": GRAPH_ACCEPT} if graph else None
        # The servers' own limits are the time limit; the client's is a backstop after it
        # (Virtuoso has none that stops a query without answering a partial result).
        client_timeout = timeout + self.client_margin
        started = time.perf_counter()
        try:
            r = self.session.post(self.endpoint, data=data, timeout=client_timeout, headers=headers)
            body = r.content
        except requests.Timeout as e:
            self.after_client_timeout()
            raise QueryTimeout(f"no answer in {client_timeout:g} s") from e
        elapsed = time.perf_counter() - started
        self.check_answer(r, elapsed, timeout)
        if r.status_code != 200:
            raise RuntimeError(f"HTTP {r.status_code}: {body[:500].decode(errors='replace')}")
        if graph:
            content_type = r.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if content_type not in (GRAPH_ACCEPT, "text/plain"):
                raise RuntimeError(f"asked for {GRAPH_ACCEPT}, got {content_type or 'no Content-Type'}: "
                                   + body[:300].decode(errors="replace"))
        try:
            if graph:
                return elapsed, ["triple"], parse_ntriples(body)
            doc = json.loads(body)
        except ValueError as e:
            # A streamed answer cut off by the server's time limit (HTTP 200 already sent).
            if elapsed >= 0.9 * timeout:
                raise QueryTimeout(f"answer cut off after {elapsed:.1f} s") from e
            what = "N-Triples" if graph else "SPARQL JSON"
            raise RuntimeError(f"not {what} ({e}): {body[-300:].decode(errors='replace')}") from e
        variables = doc["head"]["vars"]
        rows = [tuple(norm_term(b.get(v)) for v in variables) for b in doc["results"]["bindings"]]
        return elapsed, variables, rows

    def check_answer(self, r, elapsed: float, timeout: float) -> None:
        if elapsed >= timeout * 0.98 and r.status_code != 200:
            raise QueryTimeout(f"HTTP {r.status_code} at the time limit")

    def after_client_timeout(self) -> None:
        self.new_session()

    def stop(self) -> None:
        if self.session:
            self.session.close()
            self.session = None
        if self.server:
            self.server.stop()
            self.server = None

    def cleanup(self) -> None:
        if not self.args.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


class Strata(Engine):
    label = "Strata"
    key = "strata"

    def prepare(self) -> None:
        self.bin = Path(self.args.strata).resolve()
        if not self.bin.exists():
            raise RuntimeError(f"no Strata binary at {self.bin} (build it with cargo build --release)")
        out = subprocess.run([self.bin, "--version"], capture_output=True, text=True)
        built = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.bin.stat().st_mtime))
        version = (out.stdout or out.stderr).strip().removeprefix("strata").strip() or "?"
        self.version = f"{version} (binary of {built})"

    def data_dir(self) -> Path:
        return Path(self.args.strata_data) if self.args.strata_data else self.dir / "data"

    def load(self) -> None:
        if self.args.strata_data:
            log(f"  serving the store already in {self.args.strata_data}")
            return
        data = self.dir / "data"
        self.load_seconds["import"] = run(
            [self.bin, "--data", data, "import", self.data_file], "strata import",
            log_file=self.dir / "import.log",
        )

    def start(self) -> None:
        port = free_port()
        config = self.dir / "strata.json"
        config.write_text(json.dumps({
            "query_timeout_secs": int(self.args.timeout),
            "request_timeout_secs": int(self.args.timeout) + 60,
        }))
        self.server = Server("strata", [
            self.bin, "--data", self.data_dir(), "--timeout", int(self.args.timeout),
            "--query-memory-mb", "0", "serve", "--no-demo", "--http", f"127.0.0.1:{port}", "--config", config,
        ], self.dir / "serve.log")
        self.wait_http(f"http://127.0.0.1:{port}/healthz")
        self.endpoint = f"http://127.0.0.1:{port}/sparql"
        self.new_session()

    def check_answer(self, r, elapsed, timeout):
        if r.status_code in (503, 408) and b"timeout" in r.content:
            raise QueryTimeout(f"HTTP {r.status_code} (query_timeout)")


class Oxigraph(Engine):
    label = "oxigraph"
    key = "oxigraph"

    def prepare(self) -> None:
        exe = shutil.which("oxigraph")
        if exe is None or self.installed_version() is None:
            install_oxigraph()
            exe = shutil.which("oxigraph")
            if exe is None:
                raise RuntimeError("the oxigraph command is not on PATH after pip install")
        self.exe = exe
        self.version = self.installed_version() or "?"
        if not self.version.endswith(OXIGRAPH_VERSION):
            log(f"  note: oxigraph {self.version} is installed, not {OXIGRAPH_VERSION}")

    def installed_version(self) -> str | None:
        exe = shutil.which("oxigraph")
        if not exe:
            return None
        out = subprocess.run([exe, "--version"], capture_output=True, text=True)
        text = out.stdout.strip()
        return text.removeprefix("oxigraph").strip() or None

    def store_dir(self) -> Path:
        return Path(self.args.oxigraph_store) if self.args.oxigraph_store else self.dir / "store"

    def load(self) -> None:
        if self.args.oxigraph_store:
            log(f"  serving the store already in {self.args.oxigraph_store}")
            return
        store = self.dir / "store"
        self.load_seconds["load"] = run(
            [self.exe, "load", "--location", store, "--file", self.data_file], "oxigraph load",
            log_file=self.dir / "load.log",
        )
        # As oxigraph advises after a bulk load for a read-heavy workload.
        self.load_seconds["optimize"] = run(
            [self.exe, "optimize", "--location", store], "oxigraph optimize",
            log_file=self.dir / "load.log",
        )

    def start(self) -> None:
        port = free_port()
        self.server = Server("oxigraph", [
            self.exe, "serve-read-only", "--location", self.store_dir(),
            "--bind", f"127.0.0.1:{port}", "--timeout-s", int(self.args.timeout),
        ], self.dir / "serve.log")
        self.endpoint = f"http://127.0.0.1:{port}/query"
        self.wait_http(self.endpoint, params={"query": "ASK {}"})
        self.new_session()

    def check_answer(self, r, elapsed, timeout):
        if r.status_code != 200 and b"timeout" in r.content.lower():
            raise QueryTimeout(f"HTTP {r.status_code} (timeout)")


def install_oxigraph() -> None:
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    log(f"  installing oxigraph {OXIGRAPH_VERSION} from PyPI")
    if subprocess.run(pip + [f"oxigraph=={OXIGRAPH_VERSION}"]).returncode != 0:
        log(f"  oxigraph {OXIGRAPH_VERSION} is not to be had: the newest 0.5.x")
        if subprocess.run(pip + ["oxigraph>=0.5,<0.6"]).returncode != 0:
            raise RuntimeError("pip could not install oxigraph")


def root_cmd(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return cmd
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n", "env", "DEBIAN_FRONTEND=noninteractive"] + cmd
    raise RuntimeError(f"{' '.join(cmd)} needs root (or sudo -n); install Virtuoso by hand")


VIRTUOSO_INI = """; written by benches/peers/analytic_http.py: a private instance, not the system one
[Database]
DatabaseFile       = {dir}/virtuoso.db
ErrorLogFile       = {dir}/virtuoso.log
LockFile           = {dir}/virtuoso.lck
TransactionFile    = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
ErrorLogLevel      = 7
FileExtend         = 200
MaxCheckpointRemap = 2000
Striping           = 0
TempStorage        = TempDatabase

[TempDatabase]
DatabaseFile       = {dir}/virtuoso-temp.db
TransactionFile    = {dir}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping           = 0

[Parameters]
ServerPort               = 127.0.0.1:{sql_port}
LiteMode                 = 0
DisableUnixSocket        = 1
DisableTcpSocket         = 0
MaxClientConnections     = 10
CheckpointInterval       = 60
O_DIRECT                 = 0
CaseMode                 = 2
MaxStaticCursorRows      = 5000
CheckpointAuditTrail     = 0
AllowOSCalls             = 0
SchedulerInterval        = 10
DirsAllowed              = ., {data_dir}, /usr/share/virtuoso-opensource-7/vad
ThreadCleanupInterval    = 0
ThreadThreshold          = 10
ResourcesCleanupInterval = 0
FreeTextBatchSize        = 100000
SingleCPU                = 0
VADInstallDir            = /usr/share/virtuoso-opensource-7/vad/
PrefixResultNames        = 0
RdfFreeTextRulesSize     = 100
IndexTreeMaps            = 64
MaxMemPoolSize           = 200000000
MaxQueryMem              = 4G
VectorSize               = 1000
MaxVectorSize            = 1000000
AdjustVectorSize         = 0
ThreadsPerQuery          = {threads}
AsyncQueueMaxThreads     = 10
; 8 KiB pages: {buffers} buffers is {buffer_gib:.1f} GiB of page cache
NumberOfBuffers          = {buffers}
MaxDirtyBuffers          = {dirty}

[HTTPServer]
ServerPort                  = 127.0.0.1:{http_port}
ServerRoot                  = {dir}/vsp
MaxClientConnections        = 10
DavRoot                     = DAV
EnabledDavVSP               = 0
HTTPProxyEnabled            = 0
TempASPXDir                 = 0
ServerThreads               = 10
MaxKeepAlives               = 10
KeepAliveTimeout            = 600
HTTPThreadSize              = 280000
HttpPrintWarningsInOutput   = 0
Charset                     = UTF-8
EnabledGzipContent          = 0

[Client]
SQL_PREFETCH_ROWS  = 100
SQL_PREFETCH_BYTES = 16000
SQL_QUERY_TIMEOUT  = 0
SQL_TXN_TIMEOUT    = 0

[SPARQL]
; no row cap, no cost-estimate refusals and no "anytime" cut-off (which would answer
; partial results with HTTP 200): the driver's client time limit is the only limit
ResultSetMaxRows           = 100000000
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime      = 0
DeferInferenceRulesInit    = 0
"""


class Virtuoso(Engine):
    label = "Virtuoso"
    key = "virtuoso"
    client_margin = 0.0

    def prepare(self) -> None:
        if not (shutil.which("virtuoso-t") and shutil.which("isql-vt")):
            log("  installing virtuoso-opensource from Debian")
            env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
            subprocess.run(root_cmd(["apt-get", "update"]), env=env, check=False)
            subprocess.run(root_cmd(["apt-get", "install", "-y", "virtuoso-opensource"]), env=env, check=True)
        self.exe = shutil.which("virtuoso-t") or "/usr/bin/virtuoso-t"
        self.isql_exe = shutil.which("isql-vt") or "/usr/bin/isql-vt"
        out = subprocess.run([self.exe, "-?"], capture_output=True, text=True)
        text = out.stdout + out.stderr
        version = next((line.split()[1] for line in text.splitlines() if line.startswith("Version ")), "?")
        self.version = version
        self.sql_port = free_port()
        self.http_port = free_port()
        (self.dir / "vsp").mkdir(exist_ok=True)
        buffers = int(self.args.virtuoso_buffers)
        (self.dir / "virtuoso.ini").write_text(VIRTUOSO_INI.format(
            dir=self.dir, data_dir=self.data_file.parent, sql_port=self.sql_port,
            http_port=self.http_port, buffers=buffers, dirty=buffers * 3 // 4,
            buffer_gib=buffers * 8192 / 2**30, threads=os.cpu_count() or 2,
        ))

    def env(self):
        # Virtuoso keeps dateTimes in UTC, converting from the server's time zone.
        return dict(os.environ, TZ="UTC")

    def launch(self, nice: bool) -> None:
        self.server = Server("virtuoso", [
            self.exe, "+foreground", "+configfile", self.dir / "virtuoso.ini",
        ], self.dir / "virtuoso-t.out", env=self.env(), nice=nice)
        deadline = time.monotonic() + 300
        while True:
            if not self.server.alive():
                raise RuntimeError(f"virtuoso-t exited:\n{self.server.tail()}\n"
                                   + (self.dir / "virtuoso.log").read_text(errors="replace")[-2000:])
            ok = subprocess.run(
                [self.isql_exe, f"127.0.0.1:{self.sql_port}", "dba", "dba", "exec=select 1;"],
                capture_output=True, timeout=60,
            )
            if ok.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("virtuoso-t did not accept isql connections in 300 s")
            time.sleep(0.5)

    def isql(self, statement: str, nice: bool = False) -> str:
        cmd = (["nice", "-n", "10"] if nice else []) + [
            self.isql_exe, f"127.0.0.1:{self.sql_port}", "dba", "dba", f"exec={statement}",
        ]
        out = subprocess.run(cmd, capture_output=True, text=True)
        text = out.stdout + out.stderr
        if out.returncode != 0 or "*** Error" in text:
            raise RuntimeError(f"isql {statement!r} failed:\n{text[-2000:]}")
        return text

    def load(self) -> None:
        # The loader runs inside the server: the server runs niced while it loads, then is
        # restarted at normal priority for the queries.
        self.launch(nice=True)
        started = time.perf_counter()
        self.isql(f"ld_dir('{self.data_file.parent}', '{self.data_file.name}', '{VIRTUOSO_GRAPH}');")
        t0 = time.perf_counter()
        self.isql("rdf_loader_run();")
        t1 = time.perf_counter()
        self.isql("checkpoint;")
        t2 = time.perf_counter()
        self.load_seconds["rdf_loader_run"] = t1 - t0
        self.load_seconds["checkpoint"] = t2 - t1
        self.load_seconds["total"] = t2 - started
        bad = self.isql("select 'BAD=' || cast(count(*) as varchar) from DB.DBA.load_list "
                        "where ll_state <> 2 or ll_error is not null;")
        if "BAD=0" not in bad:
            listing = self.isql("select ll_file, ll_state, ll_error from DB.DBA.load_list;")
            raise RuntimeError(f"Virtuoso's bulk load did not finish cleanly:\n{listing}")
        self.server.stop(120)
        self.server = None

    def start(self) -> None:
        self.launch(nice=False)
        self.endpoint = f"http://127.0.0.1:{self.http_port}/sparql"
        self.extra_params = {"default-graph-uri": VIRTUOSO_GRAPH}
        self.wait_http(self.endpoint, params={"query": "ASK {}", **self.extra_params})
        self.new_session()

    def check_answer(self, r, elapsed, timeout):
        state = r.headers.get("X-SQL-State", "")
        if state == "S1TAT":
            raise QueryTimeout("partial answer (anytime query, X-SQL-State S1TAT)")
        if r.status_code != 200 and b"timeout" in r.content.lower():
            raise QueryTimeout(f"HTTP {r.status_code} (timeout)")

    def after_client_timeout(self) -> None:
        # Virtuoso goes on with a query whose client left: restart it to free the cores.
        log("  Virtuoso: restarting after a client-side time-out")
        self.stop()
        self.start()


ENGINES = {"strata": Strata, "oxigraph": Oxigraph, "virtuoso": Virtuoso}


# ---------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------


def prepare_data(scale: str, work: Path) -> Path:
    """The N-Triples file for a scale, in its own directory (Virtuoso's ld_dir reads it)."""
    folder = work / f"data-{scale}"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"bsbm-{scale}.nt"
    if target.exists():
        return target
    partial = folder / f"bsbm-{scale}.nt.partial"
    started = time.perf_counter()
    if scale == "1m":
        log(f"writing {target} from {BSBM_1M}")
        with gzip.open(BSBM_1M, "rb") as src, open(partial, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 22)
    else:
        copies = {"5m": 5, "50m": 50}[scale]
        log(f"writing {target}: scripts/bsbm-scale.py --copies {copies}")
        with open(partial, "wb") as dst:
            proc = subprocess.run(
                ["nice", "-n", "10", sys.executable, str(REPO / "scripts" / "bsbm-scale.py"),
                 "--copies", str(copies), str(BSBM_1M)], stdout=dst,
            )
        if proc.returncode != 0:
            partial.unlink(missing_ok=True)
            raise RuntimeError("scripts/bsbm-scale.py failed")
    partial.rename(target)
    log(f"  {target.stat().st_size / 1e6:.0f} MB in {time.perf_counter() - started:.1f} s")
    return target


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------


def fmt_s(t: float | None) -> str:
    if t is None:
        return ""
    return f"{t:.4f}" if t < 10 else f"{t:.2f}"


def geomean(values: list[float]) -> float | None:
    if not values:
        return None
    return math.exp(sum(math.log(max(v, 1e-12)) for v in values) / len(values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=["1m", "5m", "50m"], default="1m")
    parser.add_argument("--engines", default="strata,oxigraph,virtuoso")
    parser.add_argument("--mix", choices=["analytic", "explore", "both"], default="analytic",
                        help="the analytic queries, the BSBM explore mix, or both (default analytic)")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--only", default="")
    parser.add_argument("--strata", default=str(REPO / "target" / "release" / "strata"))
    parser.add_argument("--work", default="/tmp/strata-analytic-http")
    parser.add_argument("--json", default="")
    parser.add_argument("--keep", action="store_true", help="keep the loaded stores")
    parser.add_argument("--data", default="", help="an N-Triples file (gzip too) to load instead")
    parser.add_argument("--strata-data", default="", help="serve this loaded Strata data directory")
    parser.add_argument("--oxigraph-store", default="", help="serve this loaded oxigraph store")
    parser.add_argument("--virtuoso-buffers", type=int, default=220000,
                        help="Virtuoso NumberOfBuffers (8 KiB pages; default 220000, 1.7 GiB)")
    args = parser.parse_args()

    names = [e.strip() for e in args.engines.split(",") if e.strip()]
    for n in names:
        if n not in ENGINES:
            parser.error(f"unknown engine {n!r} (strata, oxigraph, virtuoso)")
    names = [n for n in ENGINES if n in names]  # fixed order
    queries = all_queries() if args.mix != "explore" else []
    if args.only and args.mix == "explore":
        parser.error("--only selects analytic queries; the explore mix always runs whole")
    explore = explore_queries() if args.mix != "analytic" else []
    if args.only:
        wanted = [q.strip() for q in args.only.split(",") if q.strip()]
        unknown = set(wanted) - {q.name for q in queries}
        if unknown:
            parser.error(f"unknown queries: {', '.join(sorted(unknown))}")
        queries = [q for q in queries if q.name in wanted]
    passes = max(1, args.passes)

    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    engines: list[Engine] = []

    def on_signal(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    report = {}
    try:
        if args.data:
            if "virtuoso" in names:
                parser.error("--data is for strata and oxigraph (Virtuoso's loader reads a directory)")
            data_file = Path(args.data).resolve()
            if not data_file.exists():
                parser.error(f"--data {args.data}: no such file")
        else:
            data_file = prepare_data(args.scale, work)
        for n in names:
            engines.append(ENGINES[n](args, work, data_file))
        for e in engines:
            log(f"{e.label}: prepare")
            e.prepare()
        for e in engines:
            log(f"{e.label}: load {data_file.name}")
            e.load()
            log(f"  {e.label} load: " + ", ".join(f"{k} {v:.1f} s" for k, v in e.load_seconds.items()))
        for e in engines:
            log(f"{e.label}: start")
            e.start()
        triples = {}
        for e in engines:
            _, _, rows = e.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", args.timeout)
            triples[e.key] = int(rows[0][0])
        log("triples: " + ", ".join(f"{e.label} {triples[e.key]:,}" for e in engines))
        if len(set(triples.values())) != 1:
            log("WARNING: the engines hold different numbers of triples")

        load_avg_start = load_average()
        log(f"load average before the queries: {load_avg_start}")
        results = []
        for q in queries:
            entry = {"query": q.name, "what": q.what, "text": q.text, "engines": {}}
            answers = {}
            for e in engines:
                res = {"status": "ok", "times": [], "rows": None, "best": None}
                try:
                    _, _, rows = e.query(q.text, args.timeout)  # warm-up, and the rows to check
                    res["rows"] = len(rows)
                    answers[e.key] = rows
                    for _ in range(passes):
                        t, _, _ = e.query(q.text, args.timeout)
                        res["times"].append(t)
                    res["best"] = min(res["times"])
                except QueryTimeout as ex:
                    res["status"] = "timeout"
                    res["error"] = str(ex)
                except (RuntimeError, requests.RequestException, ValueError, KeyError) as ex:
                    res["status"] = "error"
                    res["error"] = str(ex)[:2000]
                    if e.server and not e.server.alive():
                        log(f"  {e.label} died; restarting it")
                        e.stop()
                        e.start()
                entry["engines"][e.key] = res
                shown = f"{fmt_s(res['best'])} s" if res["best"] is not None else res["status"]
                log(f"{q.name} {e.label}: {shown}, {res['rows']} rows"
                    + (f" ({res.get('error', '')[:300]})" if res["status"] != "ok" else ""))
            # The check: every engine against the first that answered.
            mismatched = []
            ref_key = next((e.key for e in engines if e.key in answers), None)
            for e in engines:
                if e.key == ref_key or e.key not in answers:
                    continue
                problems = compare(answers[ref_key], answers[e.key], q.order_keys, limited(q.text))
                if problems:
                    mismatched.append(e.key)
                    ref_label = next(x.label for x in engines if x.key == ref_key)
                    print(f"\n{q.name}: MISMATCH, {ref_label} (<) against {e.label} (>):")
                    for line in problems:
                        print("  " + line)
            entry["mismatch"] = mismatched
            entry["agreed"] = not mismatched and all(
                entry["engines"][e.key]["status"] == "ok" for e in engines)
            results.append(entry)

        explore_report = None
        if explore:
            explore_report = run_explore(engines, explore, passes, args.timeout)

        report = {
            "scale": Path(args.data).name if args.data else args.scale,
            "data": str(data_file),
            "triples": triples,
            "passes": passes,
            "timeout_s": args.timeout,
            "load_average_start": load_avg_start,
            "load_average_end": load_average(),
            "versions": {e.key: e.version for e in engines},
            "load_seconds": {e.key: e.load_seconds for e in engines},
            "queries": results,
        }
        if explore_report is not None:
            report["mix"] = args.mix
            report["explore"] = explore_report
        if queries:
            print_report(report, engines, queries)
        if explore_report is not None:
            print_explore_report(report, engines, standalone=not queries)
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2))
            log(f"wrote {args.json}")
        return 0
    except KeyboardInterrupt:
        log("interrupted: stopping the servers")
        return 130
    finally:
        for e in engines:
            try:
                e.stop()
            except Exception as ex:  # noqa: BLE001 - stop every server whatever happens
                log(f"stopping {e.label}: {ex}")
            e.cleanup()


def print_report(report: dict, engines: list[Engine], queries: list[Query]) -> None:
    keys = [e.key for e in engines]
    has = set(keys)
    print()
    print(f"# Analytic queries over HTTP, BSBM {report['scale']} "
          f"({next(iter(report['triples'].values()), 0):,} triples), best of {report['passes']} "
          f"after a warm-up; load average {report['load_average_start']} at start, "
          f"{report['load_average_end']} at the end")
    print()
    print("versions: " + ", ".join(f"{e.label} {e.version}" for e in engines))
    print()
    header = ["query", "rows", "Strata s", "oxigraph s", "Virtuoso s", "Strata/Virtuoso", "Strata/oxigraph"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    ratios_v, ratios_o = [], []
    totals = {k: 0.0 for k in keys}
    for entry in report["queries"]:
        res = entry["engines"]

        def cell(k):
            if k not in res:
                return ""
            r = res[k]
            if r["status"] != "ok":
                return r["status"]
            return fmt_s(r["best"])

        rows = next((res[k]["rows"] for k in keys if res[k]["rows"] is not None), None)
        rows_cell = "" if rows is None else str(rows)
        if entry["mismatch"]:
            rows_cell += " MISMATCH (" + ", ".join(entry["mismatch"]) + ")"

        def ratio(a, b, sink):
            if a not in has or b not in has:
                return ""
            ra, rb = res[a], res[b]
            if ra["status"] != "ok" or rb["status"] != "ok":
                return ""
            x = ra["best"] / max(rb["best"], 1e-9)
            if entry["agreed"]:
                sink.append(x)
            return f"{x:.2f}"

        if entry["agreed"]:
            for k in keys:
                totals[k] += res[k]["best"]
        lines.append("| " + " | ".join([
            entry["query"], rows_cell, cell("strata"), cell("oxigraph"), cell("virtuoso"),
            ratio("strata", "virtuoso", ratios_v), ratio("strata", "oxigraph", ratios_o),
        ]) + " |")
    agreed = sum(1 for e in report["queries"] if e["agreed"])

    def total_ratio(a, b):
        if a in has and b in has and totals[b] > 0:
            return f"{totals[a] / totals[b]:.2f}"
        return ""

    lines.append("| " + " | ".join([
        f"total ({agreed} queries all finished and agreed on)", "",
        fmt_s(totals.get("strata")) if "strata" in has else "",
        fmt_s(totals.get("oxigraph")) if "oxigraph" in has else "",
        fmt_s(totals.get("virtuoso")) if "virtuoso" in has else "",
        total_ratio("strata", "virtuoso"), total_ratio("strata", "oxigraph"),
    ]) + " |")
    gv, go = geomean(ratios_v), geomean(ratios_o)
    lines.append("| " + " | ".join([
        "geometric mean of the per-query ratios", "", "", "", "",
        f"{gv:.2f}" if gv is not None else "", f"{go:.2f}" if go is not None else "",
    ]) + " |")
    print("\n".join(lines))
    failures = [(entry["query"], k, r) for entry in report["queries"]
                for k, r in entry["engines"].items() if r["status"] != "ok"]
    if failures:
        print()
        print("not answered:")
        for name, k, r in failures:
            label = next(e.label for e in engines if e.key == k)
            print(f"- {name} {label}: {r['status']}: {r.get('error', '')[:400]}")
    print()
    print("load times (wall, under nice -n 10):")
    for e in engines:
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in e.load_seconds.items())
        print(f"- {e.label}: {parts}")
    print()
    print("queries:")
    for q in queries:
        print(f"- {q.name}: {q.what}")
    if "virtuoso" in has:
        print(f"\nVirtuoso reads graph <{VIRTUOSO_GRAPH}> as its default graph (default-graph-uri).")


# ---------------------------------------------------------------------------------------
# The explore mix
# ---------------------------------------------------------------------------------------


def explore_seconds(res: dict) -> float | None:
    """A query's figure in the sums: its best time, the time limit when it timed out, none
    when it failed."""
    return res["best"] if res["status"] in ("ok", "timeout") else None


def run_explore(engines: list[Engine], queries: list[Query], passes: int, timeout: float) -> dict:
    """Each engine in turn: the whole mix once as a warm-up (its answers are the ones
    checked), then `passes` timed passes; per query the best time. A query that times out
    counts as the time limit and is not run again."""
    entries = [{"query": q.name, "template": q.template, "form": q.form, "engines": {}}
               for q in queries]
    answers: dict[str, dict[str, list[tuple]]] = {q.name: {} for q in queries}
    pass_seconds: dict[str, list[float]] = {}
    log(f"explore mix: {len(queries)} queries, a warm-up pass and {passes} timed, per engine; "
        f"load average {load_average()}")
    for e in engines:
        results = {q.name: {"status": "ok", "times": [], "rows": None, "best": None} for q in queries}
        pass_seconds[e.key] = []
        for p in range(passes + 1):
            started = time.perf_counter()
            for q in queries:
                res = results[q.name]
                if res["status"] != "ok":
                    continue
                try:
                    t, _, rows = e.query(q.text, timeout, q.form)
                except QueryTimeout as ex:
                    res.update(status="timeout", error=str(ex), best=timeout)
                    log(f"  {q.name} {e.label}: timeout ({ex})")
                    continue
                except (RuntimeError, requests.RequestException, ValueError, KeyError) as ex:
                    res.update(status="error", error=str(ex)[:2000])
                    log(f"  {q.name} {e.label}: error ({str(ex)[:300]})")
                    if e.server and not e.server.alive():
                        log(f"  {e.label} died; restarting it")
                        e.stop()
                        e.start()
                    continue
                if p == 0:
                    res["rows"] = len(rows)
                    answers[q.name][e.key] = rows
                else:
                    res["times"].append(t)
            pass_seconds[e.key].append(time.perf_counter() - started)
            what = "warm-up pass" if p == 0 else f"pass {p}/{passes}"
            log(f"{e.label} explore {what}: {pass_seconds[e.key][-1]:.2f} s")
        for q, entry in zip(queries, entries):
            res = results[q.name]
            if res["status"] == "ok":
                res["best"] = min(res["times"])
            entry["engines"][e.key] = res

    # The check: every engine against the first that answered. DESCRIBE is not checked.
    for q, entry in zip(queries, entries):
        got = answers[q.name]
        ref_key = next((e.key for e in engines if e.key in got), None)
        entry["checked"] = q.form != "DESCRIBE"
        mismatched = []
        for e in engines:
            if not entry["checked"] or e.key == ref_key or e.key not in got:
                continue
            if q.form == "CONSTRUCT":
                a, b = len(got[ref_key]), len(got[e.key])
                problems = [] if a == b else [f"{a} triples against {b}"]
            else:
                problems = compare(got[ref_key], got[e.key], q.order_keys, limited(q.text))
            if problems:
                mismatched.append(e.key)
                ref_label = next(x.label for x in engines if x.key == ref_key)
                print(f"\n{q.name}: MISMATCH, {ref_label} (<) against {e.label} (>):")
                for line in problems:
                    print("  " + line)
        entry["mismatch"] = mismatched
        entry["agreed"] = not mismatched and all(
            entry["engines"][e.key]["status"] == "ok" for e in engines)

    keys = [e.key for e in engines]
    templates = {}
    for t in sorted({q.template for q in queries}):
        mine = [en for en in entries if en["template"] == t]
        row = {"queries": len(mine), "form": mine[0]["form"],
               "mismatch": [en["query"] for en in mine if en["mismatch"]], "engines": {}}
        for k in keys:
            rs = [en["engines"][k] for en in mine]
            row["engines"][k] = {
                "seconds": sum(explore_seconds(r) for r in rs if explore_seconds(r) is not None),
                "timeouts": sum(r["status"] == "timeout" for r in rs),
                "errors": sum(r["status"] == "error" for r in rs),
                "results": sum(r["rows"] or 0 for r in rs),
            }
        templates[t] = row
    totals = {}
    for k in keys:
        rs = [en["engines"][k] for en in entries]
        totals[k] = {
            "seconds": sum(explore_seconds(r) for r in rs if explore_seconds(r) is not None),
            "timeouts": sum(r["status"] == "timeout" for r in rs),
            "errors": sum(r["status"] == "error" for r in rs),
        }
    # Strata against each peer, over the queries both have a figure for.
    ratios = {}
    if "strata" in keys:
        for peer in keys:
            if peer == "strata":
                continue
            pairs = [(en["template"], explore_seconds(en["engines"]["strata"]),
                      explore_seconds(en["engines"][peer])) for en in entries]
            pairs = [(t, a, b) for t, a, b in pairs if a is not None and b is not None]
            a_sum, b_sum = sum(a for _, a, _ in pairs), sum(b for _, _, b in pairs)
            per_template = {}
            for t in templates:
                ta = sum(a for tt, a, _ in pairs if tt == t)
                tb = sum(b for tt, _, b in pairs if tt == t)
                per_template[t] = ta / tb if tb > 0 else None
            ratios[f"strata/{peer}"] = {
                "queries": len(pairs),
                "total": a_sum / b_sum if b_sum > 0 else None,
                "geomean": geomean([a / max(b, 1e-9) for _, a, b in pairs]),
                "templates": per_template,
            }
    return {
        "source": str(EXPLORE_DIR),
        "passes": passes,
        "timeout_s": timeout,
        "pass_seconds": pass_seconds,
        "templates": templates,
        "totals": totals,
        "ratios": ratios,
        "mismatches": [en["query"] for en in entries if en["mismatch"]],
        "queries": entries,
    }


def print_explore_report(report: dict, engines: list[Engine], standalone: bool) -> None:
    ex = report["explore"]
    keys = [e.key for e in engines]
    has = set(keys)
    label = {e.key: e.label for e in engines}
    n = len(ex["queries"])
    print()
    title = (f"BSBM explore mix over HTTP ({n} queries), BSBM {report['scale']} "
             f"({next(iter(report['triples'].values()), 0):,} triples), best of {ex['passes']} "
             f"after a warm-up pass")
    if standalone:
        print(f"# {title}; load average {report['load_average_start']} at start, "
              f"{report['load_average_end']} at the end")
        print()
        print("versions: " + ", ".join(f"{e.label} {e.version}" for e in engines))
    else:
        print(f"## {title}")
    print()
    print("Per template, the sum of the best times of its instances; a timed-out query counts "
          f"as the time limit ({ex['timeout_s']:g} s). Ratios over the queries both engines have "
          "a time for; mismatched queries count too (listed below).")
    print()
    header = ["template", "form", "results", "Strata s", "oxigraph s", "Virtuoso s",
              "Strata/Virtuoso", "Strata/oxigraph"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def cell(k, figures):
        if k not in has:
            return ""
        f = figures[k]
        text = fmt_s(f["seconds"])
        if f["timeouts"]:
            text += f" ({f['timeouts']} timeout)"
        if f["errors"]:
            text += f" ({f['errors']} error)"
        return text

    def ratio(peer, value):
        if "strata" not in has or peer not in has or value is None:
            return ""
        return f"{value:.2f}"

    for t, row in ex["templates"].items():
        counts = {k: row["engines"][k]["results"] for k in keys}
        if len(set(counts.values())) <= 1:
            results = str(next(iter(counts.values()), ""))
        else:
            results = ", ".join(f"{label[k]} {c}" for k, c in counts.items())
        if row["mismatch"]:
            results += f" MISMATCH ({len(row['mismatch'])})"
        lines.append("| " + " | ".join([
            t, row["form"] + (" (not checked)" if row["form"] == "DESCRIBE" else ""), results,
            cell("strata", row["engines"]), cell("oxigraph", row["engines"]),
            cell("virtuoso", row["engines"]),
            ratio("virtuoso", ex["ratios"].get("strata/virtuoso", {}).get("templates", {}).get(t)),
            ratio("oxigraph", ex["ratios"].get("strata/oxigraph", {}).get("templates", {}).get(t)),
        ]) + " |")
    lines.append("| " + " | ".join([
        f"total ({n} queries)", "", "",
        cell("strata", ex["totals"]), cell("oxigraph", ex["totals"]), cell("virtuoso", ex["totals"]),
        ratio("virtuoso", ex["ratios"].get("strata/virtuoso", {}).get("total")),
        ratio("oxigraph", ex["ratios"].get("strata/oxigraph", {}).get("total")),
    ]) + " |")
    lines.append("| " + " | ".join([
        "geometric mean of the per-query ratios", "", "", "", "", "",
        ratio("virtuoso", ex["ratios"].get("strata/virtuoso", {}).get("geomean")),
        ratio("oxigraph", ex["ratios"].get("strata/oxigraph", {}).get("geomean")),
    ]) + " |")
    print("\n".join(lines))
    print()
    print("explore passes (s, warm-up first): " + "; ".join(
        f"{label[k]} " + ", ".join(f"{x:.2f}" for x in ex["pass_seconds"][k]) for k in keys))
    if ex["mismatches"]:
        print()
        print("explore mismatches (answers printed above): " + ", ".join(
            f"{en['query']} ({', '.join(label[k] for k in en['mismatch'])})"
            for en in ex["queries"] if en["mismatch"]))
    failures = [(en["query"], k, r) for en in ex["queries"]
                for k, r in en["engines"].items() if r["status"] != "ok"]
    if failures:
        print()
        print("explore queries not answered:")
        for name, k, r in failures:
            print(f"- {name} {label[k]}: {r['status']}: {r.get('error', '')[:400]}")
    if standalone:
        print()
        print("load times (wall, under nice -n 10):")
        for e in engines:
            parts = ", ".join(f"{k} {v:.1f} s" for k, v in e.load_seconds.items())
            print(f"- {e.label}: {parts}")
        if "virtuoso" in has:
            print(f"\nVirtuoso reads graph <{VIRTUOSO_GRAPH}> as its default graph (default-graph-uri).")


if __name__ == "__main__":
    sys.exit(main())
