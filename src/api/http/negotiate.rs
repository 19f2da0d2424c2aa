//! Content negotiation: pick the best media type the server offers for an Accept header.

use crate::error::ErrorCode;
use axum::http::{HeaderMap, header};

use super::error::HttpError;

/// Result formats offered for solutions and booleans, in order of preference.
pub const SOLUTIONS: &[(&str, crate::sparql::ResultsFormat)] = &[
    (
        "application/sparql-results+json",
        crate::sparql::ResultsFormat::Json,
    ),
    (
        "application/sparql-results+xml",
        crate::sparql::ResultsFormat::Xml,
    ),
    ("text/csv", crate::sparql::ResultsFormat::Csv),
    (
        "text/tab-separated-values",
        crate::sparql::ResultsFormat::Tsv,
    ),
    ("application/json", crate::sparql::ResultsFormat::Json),
    ("application/xml", crate::sparql::ResultsFormat::Xml),
];

/// Formats offered for graphs (CONSTRUCT, DESCRIBE, Graph Store GET).
pub const GRAPHS: &[(&str, crate::sparql::ResultsFormat)] = &[
    ("text/turtle", crate::sparql::ResultsFormat::Turtle),
    (
        "application/n-triples",
        crate::sparql::ResultsFormat::NTriples,
    ),
    ("application/rdf+xml", crate::sparql::ResultsFormat::RdfXml),
    ("application/ld+json", crate::sparql::ResultsFormat::JsonLd),
    ("text/plain", crate::sparql::ResultsFormat::NTriples),
    ("application/x-turtle", crate::sparql::ResultsFormat::Turtle),
];

/// The offered type the client prefers; the first offer when there is no Accept header.
/// 406 when nothing offered is acceptable.
pub fn choose<T: Copy>(
    headers: &HeaderMap,
    offers: &[(&'static str, T)],
) -> Result<(&'static str, T), HttpError> {
    let accept = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    if accept.trim().is_empty() {
        return Ok(offers[0]);
    }
    let ranges: Vec<(String, f32)> = accept
        .split(',')
        .filter_map(|range| {
            let mut parts = range.split(';');
            let media = parts.next()?.trim().to_ascii_lowercase();
            if media.is_empty() {
                return None;
            }
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            Some((media, q))
        })
        .collect();
    let mut best: Option<((&'static str, T), f32, usize)> = None;
    for (rank, offer) in offers.iter().enumerate() {
        // The most specific matching range sets the quality.
        let quality = ranges
            .iter()
            .filter_map(|(media, q)| {
                let specificity = if media == offer.0 {
                    3
                } else if media.ends_with("/*") && offer.0.starts_with(&media[..media.len() - 1]) {
                    2
                } else if media == "*/*" {
                    1
                } else {
                    return None;
                };
                Some((specificity, *q))
            })
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, q)| q);
        if let Some(q) = quality
            && q > 0.0
            && best.as_ref().is_none_or(|(_, best_q, best_rank)| {
                q > *best_q || (q == *best_q && rank < *best_rank)
            })
        {
            best = Some((*offer, q, rank));
        }
    }
    best.map(|(offer, _, _)| offer).ok_or_else(|| {
        HttpError::new(
            ErrorCode::NotAcceptable,
            format!(
                "no acceptable format for Accept: {accept}; available: {}",
                offers.iter().map(|o| o.0).collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    fn pick(accept: &str) -> Result<&'static str, StatusCode> {
        let mut headers = HeaderMap::new();
        if !accept.is_empty() {
            headers.insert(header::ACCEPT, accept.parse().unwrap());
        }
        choose(&headers, SOLUTIONS)
            .map(|o| o.0)
            .map_err(|e| e.status)
    }

    #[test]
    fn accept_headers_pick_the_preferred_offer() {
        assert_eq!(pick(""), Ok("application/sparql-results+json"));
        assert_eq!(pick("*/*"), Ok("application/sparql-results+json"));
        assert_eq!(pick("text/csv"), Ok("text/csv"));
        assert_eq!(
            pick("text/*;q=0.5, application/sparql-results+xml"),
            Ok("application/sparql-results+xml")
        );
        assert_eq!(pick("text/*"), Ok("text/csv"));
        assert_eq!(
            pick("application/sparql-results+json;q=0.1, text/tab-separated-values;q=0.9"),
            Ok("text/tab-separated-values")
        );
        assert_eq!(pick("image/png"), Err(StatusCode::NOT_ACCEPTABLE));
        assert_eq!(pick("text/csv;q=0"), Err(StatusCode::NOT_ACCEPTABLE));
    }
}
