//! Embedders: text to unit vectors. The default runs in-process and offline
//! (all-MiniLM-L6-v2, when its weights were fetched with `scripts/fetch-model.sh`); a
//! zero-download hashed embedder is the fallback; an OpenAI-compatible `/v1/embeddings`
//! endpoint can be configured instead; callers may also supply vectors themselves.
//!
//! Every embedder has an id (recorded with each index, so a change of embedder forces a
//! re-index) and a dimension.

mod hashed;
pub mod minilm;
mod remote;

pub use hashed::HashedEmbedder;
pub use remote::RemoteEmbedder;

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What can go wrong while embedding.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("embedding model: {0}")]
    Model(String),
    #[error("embedding endpoint: {0}")]
    Remote(String),
}

/// Text to L2-normalised vectors.
pub trait Embedder: Send + Sync {
    /// Identifies the model (and its dimension): indexes built with another id are rebuilt.
    fn id(&self) -> &str;
    fn dim(&self) -> usize;
    /// True when the embedder captures meaning (a real model), false for the fallback.
    fn semantic(&self) -> bool;
    /// One unit vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Embeds texts on up to `threads` threads (contiguous shares, results in order): each
/// embedder is immutable and shared, so the shares run side by side. Few texts stay on
/// the calling thread.
pub fn embed_parallel(
    embedder: &dyn Embedder,
    texts: &[&str],
    threads: usize,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    const MIN_SHARE: usize = 4;
    let threads = threads.clamp(1, texts.len().div_ceil(MIN_SHARE).max(1));
    if threads == 1 {
        return embedder.embed(texts);
    }
    // Contiguous shares of about equal length in bytes (the work grows with the tokens,
    // not the number of texts), each at least one text.
    let total: usize = texts.iter().map(|t| t.len() + 1).sum();
    let mut bounds = vec![0];
    let mut running = 0;
    for (i, text) in texts.iter().enumerate() {
        running += text.len() + 1;
        let share_end = total * bounds.len() / threads;
        if running >= share_end && bounds.len() < threads && i + 1 < texts.len() {
            bounds.push(i + 1);
        }
    }
    bounds.push(texts.len());
    let parts: Vec<Result<Vec<Vec<f32>>, EmbedError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .windows(2)
            .map(|w| &texts[w[0]..w[1]])
            .map(|part| scope.spawn(move || embedder.embed(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(EmbedError::Model("an embedding thread panicked".into()))
                })
            })
            .collect()
    });
    let mut vectors = Vec::with_capacity(texts.len());
    for part in parts {
        vectors.extend(part?);
    }
    Ok(vectors)
}

/// Where the default model's files live: `$STRATA_MODEL_DIR`, else
/// `models/all-MiniLM-L6-v2` under the current directory.
pub fn default_model_dir() -> PathBuf {
    std::env::var_os("STRATA_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("models/all-MiniLM-L6-v2"))
}

/// The command that fetches the default model (printed when it is missing).
pub const FETCH_MODEL_COMMAND: &str = "scripts/fetch-model.sh";

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in vector {
            *x /= norm;
        }
    }
}

/// The embedder to use: `STRATA_EMBEDDER=remote` (with `STRATA_EMBEDDINGS_URL`,
/// `STRATA_EMBEDDINGS_MODEL`, `STRATA_EMBEDDINGS_KEY`), `hashed`, or the default MiniLM
/// from `model_dir`, falling back to the hashed embedder (with a warning naming the fetch
/// command) when its files are missing.
pub fn choose(model_dir: &Path) -> Arc<dyn Embedder> {
    match std::env::var("STRATA_EMBEDDER").as_deref() {
        Ok("hashed") => return Arc::new(HashedEmbedder::default()),
        Ok("remote") => match RemoteEmbedder::from_env() {
            Ok(remote) => return Arc::new(remote),
            Err(e) => {
                tracing::warn!(error = %e, "remote embedder not configured; using the default")
            }
        },
        _ => {}
    }
    match load_minilm(model_dir) {
        Ok(model) => model,
        Err(e) => {
            tracing::warn!(
                error = %e,
                dir = %model_dir.display(),
                "the default embedding model is missing: run `{FETCH_MODEL_COMMAND}` to fetch it; using the lower-quality hashed embedder meanwhile"
            );
            Arc::new(HashedEmbedder::default())
        }
    }
}

fn load_minilm(dir: &Path) -> Result<Arc<dyn Embedder>, EmbedError> {
    let model = minilm::MiniLm::load(dir).map_err(|e| EmbedError::Model(e.to_string()))?;
    Ok(Arc::new(MiniLmEmbedder(model)))
}

/// all-MiniLM-L6-v2, in process.
pub struct MiniLmEmbedder(minilm::MiniLm);

impl MiniLmEmbedder {
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        minilm::MiniLm::load(dir)
            .map(Self)
            .map_err(|e| EmbedError::Model(e.to_string()))
    }

    /// The tokenizer, e.g. to count the tokens a text costs.
    pub fn tokenizer(&self) -> &minilm::WordPiece {
        self.0.tokenizer()
    }
}

impl Embedder for MiniLmEmbedder {
    fn id(&self) -> &str {
        "all-MiniLM-L6-v2"
    }

    fn dim(&self) -> usize {
        minilm::DIM
    }

    fn semantic(&self) -> bool {
        true
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(self.0.embed(texts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default model against the golden vectors of `tests/data/embeddings`
    /// (float64 reference forward pass). Skips when the model was not fetched, unless
    /// `STRATA_REQUIRE_MODEL=1` (CI fetches it).
    #[test]
    fn parallel_embedding_keeps_the_order_and_the_vectors() {
        let embedder = HashedEmbedder::default();
        let texts: Vec<String> = (0..37).map(|i| format!("text number {i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let one = embedder.embed(&refs).unwrap();
        for threads in [1, 2, 3, 8, 100] {
            assert_eq!(
                embed_parallel(&embedder, &refs, threads).unwrap(),
                one,
                "{threads}"
            );
        }
        assert!(embed_parallel(&embedder, &[], 4).unwrap().is_empty());
    }

    #[test]
    fn minilm_matches_the_golden_vectors() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = std::env::var_os("STRATA_MODEL_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("models/all-MiniLM-L6-v2"));
        let model = match MiniLmEmbedder::load(&dir) {
            Ok(model) => model,
            Err(e) => {
                assert!(
                    std::env::var("STRATA_REQUIRE_MODEL").as_deref() != Ok("1"),
                    "the model must be present: {e}"
                );
                println!("SKIP: {e} (run {FETCH_MODEL_COMMAND})");
                return;
            }
        };
        let path = root.join("tests/data/embeddings/minilm-golden.json");
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("the golden vectors {}: {e}", path.display()));
        let golden: serde_json::Value = serde_json::from_str(&golden).unwrap();
        let golden = golden.as_object().unwrap();
        let texts: Vec<&str> = golden.keys().map(String::as_str).collect();
        let vectors = model.embed(&texts).unwrap();
        let mut worst = 0.0f64;
        for (text, vector) in texts.iter().zip(&vectors) {
            let expected: Vec<f64> = golden[*text]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            assert_eq!(vector.len(), 384);
            for (a, b) in vector.iter().zip(&expected) {
                worst = worst.max((f64::from(*a) - b).abs());
            }
        }
        println!("worst difference from the golden vectors: {worst:e}");
        assert!(worst < 1e-5, "worst difference {worst}");
        let v = model
            .embed(&[
                "users cannot sign in",
                "authentication is broken for everyone",
            ])
            .unwrap();
        let cos: f32 = v[0].iter().zip(&v[1]).map(|(a, b)| a * b).sum();
        assert!((cos - 0.6822).abs() < 1e-3, "cosine {cos}");
    }
}
