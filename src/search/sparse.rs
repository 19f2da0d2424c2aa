//! The sparse lane: BM25 over the same texts, with tantivy (English stemming). The index
//! lives on disk next to the vectors; each tantivy commit carries the Strata commit it
//! reflects as its payload, so a restart knows where it stopped.

use std::path::Path;
use std::sync::Arc;

use tantivy::collector::TopDocs;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::{
    Bm25StatisticsProvider, Bm25Weight, BooleanQuery, Occur, Query, QueryParser, TermSetQuery,
};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term, doc};

use super::dense::{Scored, sort_scored};

/// What can go wrong in the BM25 index.
#[derive(Debug, thiserror::Error)]
#[error("BM25 index: {0}")]
pub struct SparseError(String);

impl From<tantivy::TantivyError> for SparseError {
    fn from(e: tantivy::TantivyError) -> Self {
        Self(e.to_string())
    }
}

pub struct SparseIndex {
    index: Index,
    writer: IndexWriter,
    reader: IndexReader,
    record: Field,
    body: Field,
}

fn schema() -> (Schema, Field, Field) {
    let mut builder = Schema::builder();
    let record = builder.add_text_field("record", STRING | STORED);
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("en_stem")
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let body = builder.add_text_field(
        "body",
        TextOptions::default().set_indexing_options(indexing),
    );
    (builder.build(), record, body)
}

impl SparseIndex {
    /// Opens the index in `dir` (creating it), or an in-memory one when `dir` is `None`.
    pub fn open(dir: Option<&Path>) -> Result<Self, SparseError> {
        let (schema, record, body) = schema();
        let index = match dir {
            None => Index::create_in_ram(schema),
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| SparseError(e.to_string()))?;
                let directory = tantivy::directory::MmapDirectory::open(dir)
                    .map_err(|e| SparseError(e.to_string()))?;
                Index::open_or_create(directory, schema)?
            }
        };
        let writer = index.writer_with_num_threads(1, 32 * 1024 * 1024)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(Self {
            index,
            writer,
            reader,
            record,
            body,
        })
    }

    /// The payload of the last commit (the Strata commit it reflects).
    pub fn payload(&self) -> Option<String> {
        self.index.load_metas().ok()?.payload
    }

    pub fn upsert(&mut self, record: &str, text: &str) -> Result<(), SparseError> {
        self.writer
            .delete_term(Term::from_field_text(self.record, record));
        self.writer
            .add_document(doc!(self.record => record, self.body => text))?;
        Ok(())
    }

    pub fn remove(&mut self, record: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.record, record));
    }

    /// Makes the changes durable and visible, recording `payload`.
    pub fn commit(&mut self, payload: &str) -> Result<(), SparseError> {
        let mut prepared = self.writer.prepare_commit()?;
        prepared.set_payload(payload);
        prepared.commit()?;
        self.reader.reload()?;
        Ok(())
    }

    /// Removes every document (a rebuild).
    pub fn clear(&mut self) -> Result<(), SparseError> {
        self.writer.delete_all_documents()?;
        Ok(())
    }

    /// The best `k` records for `text`, restricted to `only` when given.
    pub fn search(
        &self,
        text: &str,
        k: usize,
        only: Option<&[Arc<str>]>,
    ) -> Result<Vec<Scored>, SparseError> {
        if k == 0 || text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let parser = QueryParser::for_index(&self.index, vec![self.body]);
        let (text_query, _) = parser.parse_query_lenient(&query_words(text));
        let query: Box<dyn Query> = match only {
            None => text_query,
            Some(records) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, text_query),
                (
                    Occur::Must,
                    Box::new(TermSetQuery::new(
                        records
                            .iter()
                            .map(|r| Term::from_field_text(self.record, r)),
                    )),
                ),
            ])),
        };
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(k).order_by_score())?;
        let mut out = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            if let Some(record) = doc.get_first(self.record).and_then(|v| v.as_str()) {
                out.push(Scored {
                    record: Arc::from(record),
                    score,
                });
            }
        }
        sort_scored(&mut out);
        Ok(out)
    }

    /// The BM25 score `body` would get for `text` if it were in the index, with the
    /// index's statistics (document count, average length, document frequencies): a
    /// text the index does not hold (a record as it was at an older commit) ranks among
    /// the indexed ones. 0 when no word of the query is in `body`.
    pub fn score_text(&self, text: &str, body: &str) -> Result<f32, SparseError> {
        let mut analyzer = self.index.tokenizer_for_field(self.body)?;
        let mut tokens = |s: &str| -> Vec<String> {
            let mut out = Vec::new();
            let mut stream = analyzer.token_stream(s);
            while stream.advance() {
                out.push(stream.token().text.clone());
            }
            out
        };
        let body_tokens = tokens(body);
        let mut query_tokens = tokens(&query_words(text));
        // A word said twice counts once, as in the index's own scoring.
        query_tokens.sort_unstable();
        query_tokens.dedup();
        if body_tokens.is_empty() || query_tokens.is_empty() {
            return Ok(0.0);
        }
        let mut freqs: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        for t in &body_tokens {
            *freqs.entry(t).or_default() += 1;
        }
        let fieldnorm_id = FieldNormReader::fieldnorm_to_id(body_tokens.len() as u32);
        let searcher = self.reader.searcher();
        let indexed_docs = searcher.total_num_docs()?;
        let mut score = 0.0;
        for word in &query_tokens {
            let Some(&tf) = freqs.get(word.as_str()) else {
                continue;
            };
            let term = Term::from_field_text(self.body, word);
            let weight = if indexed_docs == 0 {
                Bm25Weight::for_one_term(0, 1, body_tokens.len() as f32)
            } else {
                Bm25Weight::for_terms(&searcher, std::slice::from_ref(&term))?
            };
            score += weight.score(fieldnorm_id, tf);
        }
        Ok(score)
    }
}

/// Free text as the query parser should read it: every word an optional clause, no
/// query syntax. Lowercased, so the words AND, OR, NOT and IN stay words and never
/// become the parser's operators (the body's tokenizer lowercases anyway).
fn query_words(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_bm25_with_stemming_updates_and_restrictions() {
        let mut index = SparseIndex::open(None).unwrap();
        index
            .upsert("a", "users cannot sign in after the upgrade")
            .unwrap();
        index.upsert("b", "invoice PDF is blank").unwrap();
        index
            .upsert("c", "signing is broken: nobody signs in")
            .unwrap();
        index.commit("3").unwrap();
        assert_eq!(index.payload().as_deref(), Some("3"));
        let hits = index.search("user signs in", 10, None).unwrap();
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert!(hits.iter().all(|h| &*h.record != "b"));
        // Stemming: "invoices" finds "invoice".
        assert_eq!(&*index.search("invoices", 10, None).unwrap()[0].record, "b");
        let only: Vec<Arc<str>> = vec![Arc::from("c")];
        let hits = index.search("sign in", 10, Some(&only)).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(&*hits[0].record, "c");
        index.remove("a");
        index.upsert("b", "sign in page").unwrap();
        index.commit("4").unwrap();
        let hits = index.search("sign", 10, None).unwrap();
        assert!(hits.iter().all(|h| &*h.record != "a"));
        assert!(hits.iter().any(|h| &*h.record == "b"));
        // Query syntax in user text is just text.
        assert!(index.search("title:(( AND", 5, None).is_ok());
        // Operator words are words: "NOT page" still finds b (it has "page").
        let hits = index.search("blank NOT page", 10, None).unwrap();
        assert!(hits.iter().any(|h| &*h.record == "b"), "{hits:?}");
        let hits = index.search("nobody AND page", 10, None).unwrap();
        assert_eq!(hits.len(), 2, "{hits:?}");
    }

    #[test]
    fn scores_a_text_it_does_not_hold_as_if_it_did() {
        let mut index = SparseIndex::open(None).unwrap();
        for (r, t) in [
            ("a", "users cannot sign in after the upgrade"),
            ("b", "invoice PDF is blank"),
            ("c", "signing is broken: nobody signs in, signs everywhere"),
            ("d", "the export button does nothing"),
        ] {
            index.upsert(r, t).unwrap();
        }
        index.commit("1").unwrap();
        for query in ["sign in", "blank invoices", "signs signs nobody"] {
            for hit in index.search(query, 10, None).unwrap() {
                let body = match &*hit.record {
                    "a" => "users cannot sign in after the upgrade",
                    "b" => "invoice PDF is blank",
                    "c" => "signing is broken: nobody signs in, signs everywhere",
                    _ => "the export button does nothing",
                };
                let own = index.score_text(query, body).unwrap();
                assert!(
                    (own - hit.score).abs() < 1e-4,
                    "{query:?} on {}: {own} vs {}",
                    hit.record,
                    hit.score
                );
            }
        }
        assert_eq!(index.score_text("sign in", "invoice PDF").unwrap(), 0.0);
        assert!(index.score_text("zebra", "a zebra crossing").unwrap() > 0.0);
        let empty = SparseIndex::open(None).unwrap();
        assert!(empty.score_text("zebra", "a zebra").unwrap() > 0.0);
    }
}
