//! `SERVICE` calls to remote SPARQL endpoints, for the endpoints an operator allows.
//!
//! Every other `SERVICE` is refused: evaluating it would let any reader make the server
//! fetch arbitrary URLs, internal ones included.

use std::time::Duration;

use oxiri::Iri;
use sparesults::{QueryResultsFormat, QueryResultsParser, ReaderQueryResultsParserOutput};
use spareval::{QueryEvaluationError, QuerySolutionIter, ServiceHandler};
use spargebra::Query;
use spargebra::algebra::GraphPattern;

/// Calls one remote endpoint with the `SERVICE` body as a SELECT query.
pub struct RemoteService {
    endpoint: String,
    agent: ureq::Agent,
}

impl RemoteService {
    pub fn new(endpoint: &str, timeout: Duration) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .user_agent(concat!("strata/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Self {
            endpoint: endpoint.to_owned(),
            agent,
        }
    }
}

/// A failed remote call.
#[derive(Debug, thiserror::Error)]
#[error("SERVICE <{endpoint}> failed: {message}")]
pub struct ServiceError {
    endpoint: String,
    message: String,
}

impl ServiceHandler for RemoteService {
    type Error = ServiceError;

    fn handle(
        &self,
        pattern: &GraphPattern,
        base_iri: Option<&Iri<String>>,
    ) -> Result<QuerySolutionIter<'static>, ServiceError> {
        let error = |message: String| ServiceError {
            endpoint: self.endpoint.clone(),
            message,
        };
        let query = Query::Select {
            dataset: None,
            pattern: pattern.clone(),
            base_iri: base_iri.cloned(),
        };
        let response = self
            .agent
            .post(&self.endpoint)
            .header("content-type", "application/sparql-query")
            .header("accept", "application/sparql-results+json")
            .send(query.to_string())
            .map_err(|e| error(e.to_string()))?;
        if !response.status().is_success() {
            return Err(error(format!(
                "the endpoint answered {}",
                response.status()
            )));
        }
        let reader = response.into_body().into_reader();
        match QueryResultsParser::from_format(QueryResultsFormat::Json)
            .for_reader(reader)
            .map_err(|e| error(e.to_string()))?
        {
            ReaderQueryResultsParserOutput::Solutions(solutions) => {
                let variables = solutions.variables().to_vec().into();
                Ok(QuerySolutionIter::new(
                    variables,
                    solutions.map(|s| s.map_err(|e| QueryEvaluationError::Service(Box::new(e)))),
                ))
            }
            ReaderQueryResultsParserOutput::Boolean(_) => {
                Err(error("the endpoint answered a boolean to a SELECT".into()))
            }
        }
    }
}
