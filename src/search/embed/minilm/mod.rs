//! Offline sentence embeddings with all-MiniLM-L6-v2 (sentence-transformers): a WordPiece
//! tokenizer, a hand-written f32 BERT forward pass (matrix products by the `gemm` crate,
//! element-wise steps vectorised in `kernels.rs`), mean pooling and L2 normalisation. Weights come from `scripts/fetch-model.sh`.
//!
//! Modules refer to each other through `super::`, so this file can become a `mod.rs`.

mod bert;
mod embedder;
mod error;
mod gemm;
mod kernels;
mod safetensors;
mod tokenizer;
mod unicode_tables;

pub use embedder::{DIM, MAX_TOKENS, MiniLm};
pub use error::EmbedError as MiniLmError;
pub use tokenizer::WordPiece;
