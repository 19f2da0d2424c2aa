//! The sentence embedder: tokenizer + BERT encoder + mean pooling + L2 normalisation, the
//! pipeline of sentence-transformers' all-MiniLM-L6-v2.

use std::path::Path;

use super::bert::{BertConfig, BertModel, Scratch};
use super::error::EmbedError;
use super::tokenizer::WordPiece;

/// Embedding width of all-MiniLM-L6-v2.
pub const DIM: usize = 384;

/// sentence-transformers' `max_seq_length` for this model (not the 128 in tokenizer.json).
pub const MAX_TOKENS: usize = 256;

/// Texts encoded together in one forward pass.
const BATCH_TEXTS: usize = 32;
/// Upper bound on tokens per forward pass (a text has at most `MAX_TOKENS`). At 512
/// the activations (0.75 MiB per hidden state, 3 MiB for the feed-forward one) stay in
/// cache between the matrix products: measured on the Cranfield abstracts, 2048 was 8 %
/// slower and 256 10 % slower.
const BATCH_TOKENS: usize = 512;

const EXPECTED_LAYERS: usize = 6;
const EXPECTED_HEADS: usize = 12;

/// all-MiniLM-L6-v2, loaded once and shared freely across threads (it is immutable).
pub struct MiniLm {
    tokenizer: WordPiece,
    model: BertModel,
}

impl MiniLm {
    /// Loads `model.safetensors`, `vocab.txt` and `config.json` from `dir`, checking that the
    /// config is the 384-wide, 6-layer, 12-head architecture this embedder is built for.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let config_path = dir.join("config.json");
        let config = BertConfig::from_file(&config_path)?;
        let found = (config.hidden_size, config.num_layers, config.num_heads);
        if found != (DIM, EXPECTED_LAYERS, EXPECTED_HEADS) {
            return Err(EmbedError::BadFile {
                path: config_path,
                reason: format!(
                    "expected hidden_size/num_hidden_layers/num_attention_heads = \
                     {DIM}/{EXPECTED_LAYERS}/{EXPECTED_HEADS}, found {}/{}/{}",
                    found.0, found.1, found.2
                ),
            });
        }
        if config.max_positions < MAX_TOKENS {
            return Err(EmbedError::BadFile {
                path: config_path,
                reason: format!(
                    "max_position_embeddings {} < {MAX_TOKENS}",
                    config.max_positions
                ),
            });
        }

        let vocab_path = dir.join("vocab.txt");
        let tokenizer = WordPiece::from_vocab_file(&vocab_path)?;
        if tokenizer.vocab_size() != config.vocab_size {
            return Err(EmbedError::BadFile {
                path: vocab_path,
                reason: format!(
                    "{} tokens, but config.json says vocab_size {}",
                    tokenizer.vocab_size(),
                    config.vocab_size
                ),
            });
        }

        let model = BertModel::load(&dir.join("model.safetensors"), config)?;
        Ok(Self { tokenizer, model })
    }

    /// The tokenizer, e.g. to count tokens.
    pub fn tokenizer(&self) -> &WordPiece {
        &self.tokenizer
    }

    /// One L2-normalised `DIM`-wide vector per text, in order. Texts are cut at `MAX_TOKENS`
    /// tokens; an empty text is embedded as `[CLS] [SEP]`. Never panics on any text.
    pub fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let mut embeddings = Vec::with_capacity(texts.len());
        let mut scratch = Scratch::default();
        let mut batch: Vec<Vec<u32>> = Vec::with_capacity(BATCH_TEXTS);
        let mut batch_tokens = 0;
        for text in texts {
            let ids = self.tokenizer.encode(text, MAX_TOKENS);
            let full = batch.len() == BATCH_TEXTS || batch_tokens + ids.len() > BATCH_TOKENS;
            if full && !batch.is_empty() {
                self.embed_batch(&batch, &mut scratch, &mut embeddings);
                batch.clear();
                batch_tokens = 0;
            }
            batch_tokens += ids.len();
            batch.push(ids);
        }
        if !batch.is_empty() {
            self.embed_batch(&batch, &mut scratch, &mut embeddings);
        }
        embeddings
    }

    fn embed_batch(
        &self,
        batch: &[Vec<u32>],
        scratch: &mut Scratch,
        embeddings: &mut Vec<Vec<f32>>,
    ) {
        for mut vector in self.model.mean_pooled(batch, scratch) {
            l2_normalize(&mut vector);
            embeddings.push(vector);
        }
    }
}

/// Scales `vector` to unit length (left as is if it is all zeros), like torch's F.normalize.
fn l2_normalize(vector: &mut [f32]) {
    let norm = vector
        .iter()
        .map(|&x| f64::from(x).powi(2))
        .sum::<f64>()
        .sqrt();
    let scale = (1.0 / norm.max(1e-12)) as f32;
    vector.iter_mut().for_each(|x| *x *= scale);
}
