//! SPARQL 1.1 Service Description: a query or update endpoint fetched with `GET` and no
//! parameters describes itself (what it speaks, the result formats it writes, its
//! features), as the Service Description spec asks of Protocol services. Generic SPARQL
//! clients read it to find out what an endpoint can do before they send anything.

use axum::http::HeaderMap;
use axum::response::Response;
use oxrdf::vocab::rdf;
use oxrdf::{BlankNode, NamedNode, NamedOrBlankNode, Term, Triple};

use super::AppState;
use super::auth::{Caller, Right, authorize};
use super::error::HttpError;
use super::negotiate::{self, GRAPHS};
use super::request_base_iri;
use super::stream::{Head, stream};

const SD: &str = "http://www.w3.org/ns/sparql-service-description#";
const FORMATS: &str = "http://www.w3.org/ns/formats/";

/// Which endpoint is described.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Endpoint {
    Query,
    Update,
}

/// The description of `graph`'s query or update endpoint at `path`, in the format the
/// client accepts (Turtle first).
pub async fn respond(
    state: AppState,
    graph: String,
    path: &str,
    endpoint: Endpoint,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    super::check_graph_name(&graph)?;
    let right = match endpoint {
        Endpoint::Query => Right::Read,
        Endpoint::Update => Right::Write,
    };
    authorize(&caller, right, Some(&graph))?;
    let (content_type, format) = negotiate::choose(&headers, GRAPHS)?;
    let url = request_base_iri(&state, &headers, path);
    let federated = !state.config.service_allowlist.is_empty();
    let engine = state.engine.clone();
    Ok(stream(move |writer| {
        // An unknown graph is a 404 here as on every other route of it.
        engine.graph(&graph)?;
        writer.set_head(Head::ok(content_type).with("vary", "accept"));
        let triples = describe(&url, endpoint, federated).into_iter().map(Ok);
        let results = spareval::QueryResults::Graph(spareval::QueryTripleIter::new(triples));
        crate::sparql::write_results(results, format, &mut *writer)
            .map(|_| ())
            .map_err(|e| crate::engine::EngineError::from(e).into())
    })
    .await)
}

/// The triples that describe one endpoint.
fn describe(url: &str, endpoint: Endpoint, federated: bool) -> Vec<Triple> {
    let sd = |local: &str| NamedNode::new_unchecked(format!("{SD}{local}"));
    let service = NamedOrBlankNode::from(BlankNode::default());
    let mut triples = Vec::new();
    let mut add = |subject: &NamedOrBlankNode, predicate: NamedNode, object: Term| {
        triples.push(Triple::new(subject.clone(), predicate, object));
    };
    add(&service, rdf::TYPE.into_owned(), sd("Service").into());
    // Relative IRIs would resolve against the document, which is this endpoint too, but
    // a client that saves the description needs the absolute address.
    if let Ok(url) = NamedNode::new(url) {
        add(&service, sd("endpoint"), url.into());
    }
    let language = match endpoint {
        Endpoint::Query => "SPARQL11Query",
        Endpoint::Update => "SPARQL11Update",
    };
    add(&service, sd("supportedLanguage"), sd(language).into());
    if endpoint == Endpoint::Query {
        for format in [
            "SPARQL_Results_JSON",
            "SPARQL_Results_XML",
            "SPARQL_Results_CSV",
            "SPARQL_Results_TSV",
            "Turtle",
            "N-Triples",
            "RDF_XML",
            "JSON-LD",
        ] {
            let format = NamedNode::new_unchecked(format!("{FORMATS}{format}"));
            add(&service, sd("resultFormat"), format.into());
        }
        if federated {
            add(&service, sd("feature"), sd("BasicFederatedQuery").into());
        }
        for function in [crate::sparql::ISO_WEEK, crate::sparql::DATE_BUCKET] {
            let function = NamedNode::new_unchecked(function);
            add(&service, sd("extensionFunction"), function.into());
        }
    }
    // No `sd:EmptyGraphs`: a named graph exists while it holds a triple.
    let dataset = NamedOrBlankNode::from(BlankNode::default());
    let default_graph = NamedOrBlankNode::from(BlankNode::default());
    add(&service, sd("defaultDataset"), dataset.clone().into());
    add(&dataset, rdf::TYPE.into_owned(), sd("Dataset").into());
    add(&dataset, sd("defaultGraph"), default_graph.clone().into());
    add(&default_graph, rdf::TYPE.into_owned(), sd("Graph").into());
    if endpoint == Endpoint::Query {
        for function in [crate::sparql::ISO_WEEK, crate::sparql::DATE_BUCKET] {
            let function = NamedNode::new_unchecked(function);
            add(
                &function.into(),
                rdf::TYPE.into_owned(),
                sd("Function").into(),
            );
        }
    }
    triples
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects(triples: &[Triple], local: &str) -> Vec<String> {
        triples
            .iter()
            .filter(|t| t.predicate.as_str() == format!("{SD}{local}"))
            .map(|t| t.object.to_string())
            .collect()
    }

    #[test]
    fn a_query_endpoint_names_its_language_formats_and_features() {
        let triples = describe("http://h/graphs/main/sparql", Endpoint::Query, true);
        assert_eq!(
            objects(&triples, "endpoint"),
            ["<http://h/graphs/main/sparql>"]
        );
        assert_eq!(
            objects(&triples, "supportedLanguage"),
            [format!("<{SD}SPARQL11Query>")]
        );
        assert_eq!(objects(&triples, "resultFormat").len(), 8);
        assert_eq!(
            objects(&triples, "feature"),
            [format!("<{SD}BasicFederatedQuery>")]
        );
        let plain = describe("http://h/sparql", Endpoint::Query, false);
        assert!(objects(&plain, "feature").is_empty());
    }

    #[test]
    fn an_update_endpoint_names_only_update() {
        let triples = describe("http://h/update", Endpoint::Update, false);
        assert_eq!(
            objects(&triples, "supportedLanguage"),
            [format!("<{SD}SPARQL11Update>")]
        );
        assert!(objects(&triples, "resultFormat").is_empty());
        assert_eq!(objects(&triples, "defaultDataset").len(), 1);
    }
}
