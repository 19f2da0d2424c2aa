//! Runs one W3C test against a fresh Strata engine, twice: at the head, and pinned to the
//! commit that held the test's state after unrelated commits changed everything.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use oxrdf::{Dataset, GraphName, NamedNode, Quad};
use spargebra::Query;
use spargebra::algebra::{Expression, GraphPattern, OrderExpression};
use strata::engine::{CommitRequest, Graph, ImportFormat, ImportOptions, ReadOptions};
use strata::sparql::{QueryResults, UpdateOptions};
use strata::{Engine, EngineConfig};

use crate::manifest::{Test, TestKind, iri_to_path, rdf_format_of, read_iri_to_string};
use crate::results::{Answer, Order, compare_answers, compare_datasets, load_expected};

/// The result of one run of a test.
#[derive(Clone, Debug)]
pub enum Outcome {
    Pass,
    /// One line of reason, then optional details.
    Fail(String),
    Skip(String),
}

/// Outcomes of a test at the head and pinned to its commit (`None`: no pinned variant, as
/// for syntax tests).
pub struct TestOutcome {
    pub head: Outcome,
    pub pinned: Option<Outcome>,
}

impl TestOutcome {
    fn both_fail(reason: String) -> Self {
        Self {
            head: Outcome::Fail(reason.clone()),
            pinned: Some(Outcome::Fail(reason)),
        }
    }
}

/// Where the per-test data directories go: tmpfs when there is one (commits fsync).
fn temp_root() -> Option<PathBuf> {
    let shm = PathBuf::from("/dev/shm");
    (shm.is_dir() && tempfile::tempdir_in(&shm).is_ok()).then_some(shm)
}

/// A fresh engine with one graph (a Strata "graph" is a whole RDF dataset).
pub struct TestStore {
    // Dropped last: the engine holds files in it.
    _dir: tempfile::TempDir,
    graph: Arc<Graph>,
    _engine: Engine,
}

const SCRATCH_GRAPH: &str = "urn:strata-w3c:scratch";
const DISTURB: &str = "urn:strata-w3c:disturb";

impl TestStore {
    pub fn new() -> Result<Self, String> {
        let dir = match temp_root() {
            Some(root) => tempfile::tempdir_in(root),
            None => tempfile::tempdir(),
        }
        .map_err(|e| format!("temp dir: {e}"))?;
        let engine = Engine::open(dir.path().join("data"), EngineConfig::default())
            .map_err(|e| format!("Engine::open: {e}"))?;
        let graph = engine
            .graph_or_create("main")
            .map_err(|e| format!("graph_or_create: {e}"))?;
        Ok(Self {
            _dir: dir,
            graph,
            _engine: engine,
        })
    }

    /// Loads files (`None`: the default graph) in one commit and returns the commit that
    /// holds exactly that state. With no data, a scratch quad is inserted and deleted, so
    /// there is always a commit (≥ 1) to pin to.
    pub fn load(&self, files: &[(Option<NamedNode>, String)]) -> Result<u64, String> {
        let mut documents = Vec::new();
        for (graph_name, iri) in files {
            let path = iri_to_path(iri)?;
            let file =
                std::fs::File::open(&path).map_err(|e| format!("open {}: {e}", path.display()))?;
            let options = ImportOptions {
                format: ImportFormat(rdf_format_of(iri)?),
                base_iri: Some(iri.clone()),
                into_graph: graph_name.clone(),
                one_graph: false,
                source_name: iri.clone(),
            };
            documents.push(
                self.graph
                    .parse_document(std::io::BufReader::new(file), &options, |_| {})
                    .map_err(|e| format!("import {iri}: {e}"))?,
            );
        }
        let outcome = self
            .graph
            .commit_documents(documents, &CommitRequest::default())
            .map_err(|e| format!("commit of the test data: {e}"))?;
        if outcome.commit_seq.is_some() {
            return Ok(outcome.head_seq);
        }
        let quad = format!("<{SCRATCH_GRAPH}#s> <{SCRATCH_GRAPH}#p> <{SCRATCH_GRAPH}#o>");
        self.update(&format!(
            "INSERT DATA {{ GRAPH <{SCRATCH_GRAPH}> {{ {quad} }} }}"
        ))?;
        self.update(&format!(
            "DELETE DATA {{ GRAPH <{SCRATCH_GRAPH}> {{ {quad} }} }}"
        ))?;
        Ok(self.graph.head_seq())
    }

    fn update(&self, text: &str) -> Result<strata::engine::CommitOutcome, String> {
        self.graph
            .update(
                text,
                None,
                &UpdateOptions::default(),
                &CommitRequest::default(),
            )
            .map_err(|e| format!("update {text:?}: {e}"))
    }

    /// Commits that change everything: delete the default graph, drop every graph, then
    /// insert unrelated quads in the default graph, a new named graph and the test's
    /// graphs. Fails unless the head moved past `pinned`.
    pub fn disturb(&self, graphs: &[NamedNode], pinned: u64) -> Result<(), String> {
        self.update("DELETE WHERE { ?s ?p ?o }")?;
        self.update("DROP ALL")?;
        let mut data = format!(
            "<{DISTURB}#s> <{DISTURB}#p> \"disturbance\" . <{DISTURB}#s> <{DISTURB}#p> _:b . \
             GRAPH <{DISTURB}#g> {{ <{DISTURB}#s> <{DISTURB}#q> 42 }}"
        );
        for graph in graphs {
            data.push_str(&format!(
                " GRAPH <{}> {{ <{DISTURB}#s> <{DISTURB}#in> \"disturbance\" }}",
                graph.as_str()
            ));
        }
        self.update(&format!("INSERT DATA {{ {data} }}"))?;
        let head = self.graph.head_seq();
        if head <= pinned {
            return Err(format!(
                "disturbance made no commit: head {head}, pinned commit {pinned}"
            ));
        }
        Ok(())
    }

    /// Runs a query at the head or at `as_of`, and collects its answer.
    pub fn query(&self, text: &str, base: &str, as_of: Option<u64>) -> Result<Answer, String> {
        let answer = self
            .graph
            .reader(strata::engine::ReadAt {
                commit: as_of,
                moment: None,
            })
            .and_then(|reader| {
                reader.query(
                    text,
                    &ReadOptions {
                        base_iri: Some(base.to_owned()),
                        timeout: Some(Duration::from_secs(30)),
                        ..Default::default()
                    },
                )
            })
            .map_err(|e| format!("query failed: {e}"))?;
        if let Some(seq) = as_of
            && answer.served_at_seq != seq
        {
            return Err(format!(
                "asked for commit {seq}, served at {}",
                answer.served_at_seq
            ));
        }
        Ok(match answer.results {
            QueryResults::Boolean(value) => Answer::Boolean(value),
            QueryResults::Solutions(solutions) => {
                let variables: Vec<String> = solutions
                    .variables()
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect();
                let mut rows = Vec::new();
                for solution in solutions {
                    let solution = solution.map_err(|e| format!("query evaluation failed: {e}"))?;
                    rows.push(
                        solution
                            .iter()
                            .map(|(v, t)| (v.as_str().to_owned(), t.clone()))
                            .collect(),
                    );
                }
                Answer::from_rows(variables, rows)
            }
            QueryResults::Graph(triples) => Answer::Graph(
                triples
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("query evaluation failed: {e}"))?,
            ),
        })
    }

    /// Every quad visible at `seq`.
    pub fn export(&self, seq: u64) -> Result<Dataset, String> {
        let mut out = Vec::new();
        self.graph
            .read_at(seq)
            .export(oxrdfio::RdfFormat::NQuads, &mut out)
            .map_err(|e| format!("export at {seq}: {e}"))?;
        oxttl::NQuadsParser::new()
            .for_slice(&out)
            .collect::<Result<Dataset, _>>()
            .map_err(|e| format!("export at {seq} is not valid N-Quads: {e}"))
    }
}

/// Runs a syntax test.
pub fn run_syntax_test(test: &Test) -> TestOutcome {
    let Some(file) = test.action.as_deref().or(test.query.as_deref()) else {
        return TestOutcome {
            head: Outcome::Fail("syntax test without mf:action".into()),
            pinned: None,
        };
    };
    let text = match read_iri_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            return TestOutcome {
                head: Outcome::Fail(e),
                pinned: None,
            };
        }
    };
    let is_update = matches!(
        test.kind,
        TestKind::PositiveUpdateSyntax | TestKind::NegativeUpdateSyntax
    );
    let parsed = if is_update {
        strata::sparql::parse_update(&text, Some(file)).map(|_| ())
    } else {
        strata::sparql::parse_query(&text, Some(file)).map(|_| ())
    };
    let positive = matches!(
        test.kind,
        TestKind::PositiveQuerySyntax | TestKind::PositiveUpdateSyntax
    );
    let head = match (positive, parsed) {
        (true, Ok(())) | (false, Err(_)) => Outcome::Pass,
        (true, Err(e)) => Outcome::Fail(format!("valid text rejected: {e}")),
        (false, Ok(())) => Outcome::Fail("invalid text accepted".into()),
    };
    TestOutcome { head, pinned: None }
}

/// How the solutions of a query are ordered: through Slice, Distinct, Reduced and Project,
/// the top ORDER BY, if any.
fn order_of(query: &Query) -> Order {
    let Query::Select { pattern, .. } = query else {
        return Order::Unordered;
    };
    let mut pattern = pattern;
    let mut projected: Option<&Vec<oxrdf::Variable>> = None;
    loop {
        pattern = match pattern {
            GraphPattern::Slice { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner } => inner,
            GraphPattern::Project { inner, variables } => {
                projected = Some(variables);
                inner
            }
            GraphPattern::OrderBy { expression, .. } => {
                let mut keys = Vec::new();
                for condition in expression {
                    let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = condition;
                    match e {
                        Expression::Variable(v) if projected.is_none_or(|p| p.contains(v)) => {
                            keys.push(v.as_str().to_owned())
                        }
                        // A key the rows do not show: keys before it still order the rows,
                        // and rows tied on them may come in any order we cannot check.
                        _ => {
                            return if keys.is_empty() {
                                Order::Rows
                            } else {
                                Order::Keys(keys)
                            };
                        }
                    }
                }
                return Order::Keys(keys);
            }
            _ => return Order::Unordered,
        };
    }
}

/// Runs a query evaluation test.
pub fn run_query_test(test: &Test) -> TestOutcome {
    match try_query_test(test) {
        Ok(outcome) => outcome,
        Err(reason) => TestOutcome::both_fail(reason),
    }
}

fn try_query_test(test: &Test) -> Result<TestOutcome, String> {
    let query_iri = test.query.as_deref().ok_or("no qt:query")?;
    let text = read_iri_to_string(query_iri)?;
    let query = strata::sparql::parse_query(&text, Some(query_iri))
        .map_err(|e| format!("query does not parse: {e}"))?;
    let result_iri = test.result.as_deref().ok_or("no mf:result")?;
    let (expected, csv) = load_expected(result_iri).map_err(|e| format!("expected result: {e}"))?;
    let order = order_of(&query);

    // qt:data → default graph; qt:graphData → a named graph named by the file's IRI; files
    // named by FROM / FROM NAMED but not listed → named graphs too.
    let mut files: Vec<(Option<NamedNode>, String)> = Vec::new();
    if let Some(data) = &test.data {
        files.push((None, data.clone()));
    }
    for (name, file) in &test.graph_data {
        files.push((Some(name.clone()), file.clone()));
    }
    if let Some(dataset) = query.dataset() {
        for name in dataset.default.iter().chain(dataset.named.iter().flatten()) {
            let listed = files.iter().any(|(g, _)| g.as_ref() == Some(name));
            let exists = iri_to_path(name.as_str()).is_ok_and(|p| p.is_file());
            if !listed && exists {
                files.push((Some(name.clone()), name.as_str().to_owned()));
            }
        }
    }
    let graph_names: Vec<NamedNode> = files.iter().filter_map(|(g, _)| g.clone()).collect();

    let store = TestStore::new()?;
    let k = store.load(&files)?;

    let check = |as_of: Option<u64>| -> Outcome {
        let actual = match store.query(&text, query_iri, as_of) {
            Ok(actual) => actual,
            Err(e) => return Outcome::Fail(e),
        };
        let actual = if csv { actual.to_csv_form() } else { actual };
        match compare_answers(&expected, &actual, &order) {
            Ok(()) => Outcome::Pass,
            Err(e) => Outcome::Fail(e),
        }
    };
    let head = check(None);
    let pinned = match store.disturb(&graph_names, k) {
        Ok(()) => check(Some(k)),
        Err(e) => Outcome::Fail(e),
    };
    Ok(TestOutcome {
        head,
        pinned: Some(pinned),
    })
}

/// Runs an update evaluation test.
pub fn run_update_test(test: &Test) -> TestOutcome {
    match try_update_test(test) {
        Ok(outcome) => outcome,
        Err(reason) => TestOutcome::both_fail(reason),
    }
}

fn load_dataset(files: &[(Option<NamedNode>, String)]) -> Result<Dataset, String> {
    let mut dataset = Dataset::new();
    for (name, iri) in files {
        let graph = crate::manifest::load_graph(iri)?;
        let graph_name: GraphName = name.clone().map_or(GraphName::DefaultGraph, Into::into);
        for triple in graph.iter() {
            let t = triple.into_owned();
            dataset.insert(&Quad::new(
                t.subject,
                t.predicate,
                t.object,
                graph_name.clone(),
            ));
        }
    }
    Ok(dataset)
}

fn try_update_test(test: &Test) -> Result<TestOutcome, String> {
    let update_iri = test.query.as_deref().ok_or("no ut:request")?;
    let text = read_iri_to_string(update_iri)?;

    let mut files: Vec<(Option<NamedNode>, String)> = Vec::new();
    if let Some(data) = &test.data {
        files.push((None, data.clone()));
    }
    for (name, file) in &test.graph_data {
        files.push((Some(name.clone()), file.clone()));
    }
    let mut expected_files: Vec<(Option<NamedNode>, String)> = Vec::new();
    if let Some(data) = &test.result_data {
        expected_files.push((None, data.clone()));
    }
    for (name, file) in &test.result_graph_data {
        expected_files.push((Some(name.clone()), file.clone()));
    }
    let expected = load_dataset(&expected_files).map_err(|e| format!("expected data: {e}"))?;
    let mut graph_names: Vec<NamedNode> = files
        .iter()
        .chain(&expected_files)
        .filter_map(|(g, _)| g.clone())
        .collect();
    graph_names.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    graph_names.dedup();

    let store = TestStore::new()?;
    let k = store.load(&files)?;
    let outcome = store
        .graph
        .update(
            &text,
            Some(update_iri),
            &UpdateOptions::default(),
            &CommitRequest::default(),
        )
        .map_err(|e| format!("update failed: {e}"))?;
    let u = outcome.head_seq;
    if u < k || outcome.commit_seq.is_some_and(|seq| seq != u) {
        return Err(format!(
            "odd commit outcome: data at {k}, update outcome {outcome:?}"
        ));
    }
    let check = |seq: u64| -> Outcome {
        match store
            .export(seq)
            .and_then(|actual| compare_datasets(&expected, &actual, "quads"))
        {
            Ok(()) => Outcome::Pass,
            Err(e) => Outcome::Fail(e),
        }
    };
    let head = check(store.graph.head_seq());
    // Pinned: the dataset as of the update's commit, and (when the update changed
    // something) as of the data commit before it, must survive later commits.
    let before = load_dataset(&files).map_err(|e| format!("test data: {e}"))?;
    let pinned = match store.disturb(&graph_names, u) {
        Ok(()) => match check(u) {
            Outcome::Pass if k < u => match store
                .export(k)
                .and_then(|actual| compare_datasets(&before, &actual, "quads before the update"))
            {
                Ok(()) => Outcome::Pass,
                Err(e) => Outcome::Fail(format!("as of the data commit {k}: {e}")),
            },
            other => other,
        },
        Err(e) => Outcome::Fail(e),
    };
    Ok(TestOutcome {
        head,
        pinned: Some(pinned),
    })
}
