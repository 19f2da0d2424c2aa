//! BERT encoder forward pass (f32) over a packed batch of token sequences, with mean pooling.
//!
//! Sequences are concatenated row-wise into one `tokens × hidden` matrix instead of being padded
//! to a common length: every dense layer is per token, so the big matmuls see all tokens of the
//! batch at once, while attention runs per sequence over its own rows only. There are no padded
//! positions at all, so batching cannot change a result (beyond float reassociation inside the
//! matmul kernel, which is identical per row).

use std::path::Path;

use super::error::EmbedError;
use super::gemm::{MatRef, sgemm};
use super::kernels::{add_in_place, gelu_in_place, layer_norm_rows, softmax_rows};
use super::safetensors::SafeTensorsFile;

/// The architecture values read from `config.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct BertConfig {
    pub hidden_size: usize,
    pub num_layers: usize,
    pub num_heads: usize,
    pub intermediate_size: usize,
    pub vocab_size: usize,
    pub max_positions: usize,
    pub layer_norm_eps: f32,
}

impl BertConfig {
    /// Parses a Hugging Face BERT `config.json`.
    pub fn from_file(path: &Path) -> Result<Self, EmbedError> {
        let bad = |reason: String| EmbedError::BadFile {
            path: path.to_path_buf(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|source| EmbedError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
        let size = |key: &str| {
            json[key]
                .as_u64()
                .map(|v| v as usize)
                .ok_or_else(|| bad(format!("missing or non-integer \"{key}\"")))
        };
        if let Some(act) = json["hidden_act"].as_str()
            && act != "gelu"
        {
            return Err(bad(format!(
                "hidden_act is \"{act}\", only \"gelu\" (erf) is supported"
            )));
        }
        if let Some(kind) = json["position_embedding_type"].as_str()
            && kind != "absolute"
        {
            return Err(bad(format!(
                "position_embedding_type \"{kind}\" is not supported"
            )));
        }
        let config = Self {
            hidden_size: size("hidden_size")?,
            num_layers: size("num_hidden_layers")?,
            num_heads: size("num_attention_heads")?,
            intermediate_size: size("intermediate_size")?,
            vocab_size: size("vocab_size")?,
            max_positions: size("max_position_embeddings")?,
            layer_norm_eps: json["layer_norm_eps"].as_f64().unwrap_or(1e-12) as f32,
        };
        if config.num_heads == 0 || !config.hidden_size.is_multiple_of(config.num_heads) {
            return Err(bad(format!(
                "hidden_size {} is not divisible by num_attention_heads {}",
                config.hidden_size, config.num_heads
            )));
        }
        Ok(config)
    }

    fn head_dim(&self) -> usize {
        self.hidden_size / self.num_heads
    }
}

/// A linear layer `y = x·Wᵀ + b` with `W` stored as in PyTorch: `out × in`, row-major. The
/// matmul reads `W` through a transposed view; pre-transposing it at load measured no faster.
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    in_dim: usize,
    out_dim: usize,
}

impl Dense {
    fn load(
        tensors: &mut SafeTensorsFile,
        name: &str,
        out_dim: usize,
        in_dim: usize,
    ) -> Result<Self, EmbedError> {
        Ok(Self {
            weight: tensors.read_f32(&format!("{name}.weight"), &[out_dim, in_dim])?,
            bias: tensors.read_f32(&format!("{name}.bias"), &[out_dim])?,
            in_dim,
            out_dim,
        })
    }

    /// Stacks layers that read the same input into one wider layer (used for Q, K and V).
    fn concat(parts: Vec<Dense>) -> Self {
        let in_dim = parts[0].in_dim;
        let out_dim = parts.iter().map(|p| p.out_dim).sum();
        let mut weight = Vec::with_capacity(out_dim * in_dim);
        let mut bias = Vec::with_capacity(out_dim);
        for part in parts {
            weight.extend_from_slice(&part.weight);
            bias.extend_from_slice(&part.bias);
        }
        Self {
            weight,
            bias,
            in_dim,
            out_dim,
        }
    }

    /// `output[..rows × out] = input[..rows × in] · Wᵀ + b`.
    fn forward(&self, input: &[f32], rows: usize, output: &mut [f32]) {
        let output = &mut output[..rows * self.out_dim];
        for row in output.chunks_exact_mut(self.out_dim) {
            row.copy_from_slice(&self.bias);
        }
        sgemm(
            1.0,
            MatRef::row_major(&input[..rows * self.in_dim], rows, self.in_dim),
            MatRef::transposed(&self.weight, self.out_dim, self.in_dim),
            1.0,
            output,
            self.out_dim,
        );
    }
}

struct LayerNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

impl LayerNorm {
    fn load(
        tensors: &mut SafeTensorsFile,
        name: &str,
        dim: usize,
        eps: f32,
    ) -> Result<Self, EmbedError> {
        Ok(Self {
            gamma: tensors.read_f32(&format!("{name}.weight"), &[dim])?,
            beta: tensors.read_f32(&format!("{name}.bias"), &[dim])?,
            eps,
        })
    }

    /// Normalises each `dim`-wide row of `rows` in place.
    fn apply(&self, rows: &mut [f32]) {
        layer_norm_rows(rows, &self.gamma, &self.beta, self.eps);
    }
}

struct EncoderLayer {
    /// Query, key and value projections fused: each output row is `[q | k | v]`.
    qkv: Dense,
    attention_output: Dense,
    attention_norm: LayerNorm,
    intermediate: Dense,
    output: Dense,
    output_norm: LayerNorm,
}

/// The BERT encoder weights. Immutable after loading, hence `Send + Sync`.
pub struct BertModel {
    config: BertConfig,
    word_embeddings: Vec<f32>,
    position_embeddings: Vec<f32>,
    /// Row 0 of the token-type embeddings (every token is segment 0).
    token_type_embedding: Vec<f32>,
    embedding_norm: LayerNorm,
    layers: Vec<EncoderLayer>,
}

/// Working buffers for one forward pass, reused across batches to avoid reallocating.
#[derive(Default)]
pub struct Scratch {
    hidden: Vec<f32>,
    qkv: Vec<f32>,
    context: Vec<f32>,
    projected: Vec<f32>,
    intermediate: Vec<f32>,
    scores: Vec<f32>,
}

impl BertModel {
    /// Loads the encoder weights from `model.safetensors`, accepting names with or without a
    /// `bert.` prefix. The pooler is not needed (sentence-transformers mean-pools instead).
    pub fn load(weights_path: &Path, config: BertConfig) -> Result<Self, EmbedError> {
        let mut tensors = SafeTensorsFile::open(weights_path)?;
        let prefix = if tensors.contains("embeddings.word_embeddings.weight") {
            ""
        } else if tensors.contains("bert.embeddings.word_embeddings.weight") {
            "bert."
        } else {
            return Err(EmbedError::BadFile {
                path: weights_path.to_path_buf(),
                reason:
                    "no embeddings.word_embeddings.weight tensor (with or without a bert. prefix)"
                        .into(),
            });
        };
        let (hidden, eps) = (config.hidden_size, config.layer_norm_eps);
        let token_types = tensors.tensors()
            [&format!("{prefix}embeddings.token_type_embeddings.weight")]
            .shape
            .first()
            .copied()
            .unwrap_or(0);
        let token_type_table = tensors.read_f32(
            &format!("{prefix}embeddings.token_type_embeddings.weight"),
            &[token_types.max(1), hidden],
        )?;
        let embeddings = format!("{prefix}embeddings");
        let word_embeddings = tensors.read_f32(
            &format!("{embeddings}.word_embeddings.weight"),
            &[config.vocab_size, hidden],
        )?;
        let position_embeddings = tensors.read_f32(
            &format!("{embeddings}.position_embeddings.weight"),
            &[config.max_positions, hidden],
        )?;
        let embedding_norm = LayerNorm::load(
            &mut tensors,
            &format!("{embeddings}.LayerNorm"),
            hidden,
            eps,
        )?;

        let mut layers = Vec::with_capacity(config.num_layers);
        for index in 0..config.num_layers {
            let layer = format!("{prefix}encoder.layer.{index}");
            let attention = format!("{layer}.attention");
            let qkv = Dense::concat(vec![
                Dense::load(
                    &mut tensors,
                    &format!("{attention}.self.query"),
                    hidden,
                    hidden,
                )?,
                Dense::load(
                    &mut tensors,
                    &format!("{attention}.self.key"),
                    hidden,
                    hidden,
                )?,
                Dense::load(
                    &mut tensors,
                    &format!("{attention}.self.value"),
                    hidden,
                    hidden,
                )?,
            ]);
            layers.push(EncoderLayer {
                qkv,
                attention_output: Dense::load(
                    &mut tensors,
                    &format!("{attention}.output.dense"),
                    hidden,
                    hidden,
                )?,
                attention_norm: LayerNorm::load(
                    &mut tensors,
                    &format!("{attention}.output.LayerNorm"),
                    hidden,
                    eps,
                )?,
                intermediate: Dense::load(
                    &mut tensors,
                    &format!("{layer}.intermediate.dense"),
                    config.intermediate_size,
                    hidden,
                )?,
                output: Dense::load(
                    &mut tensors,
                    &format!("{layer}.output.dense"),
                    hidden,
                    config.intermediate_size,
                )?,
                output_norm: LayerNorm::load(
                    &mut tensors,
                    &format!("{layer}.output.LayerNorm"),
                    hidden,
                    eps,
                )?,
            });
        }
        Ok(Self {
            token_type_embedding: token_type_table[..hidden].to_vec(),
            config,
            word_embeddings,
            position_embeddings,
            embedding_norm,
            layers,
        })
    }

    /// Encodes each token sequence and returns its mean-pooled (not yet normalised) last hidden
    /// state, in order. Every sequence must be non-empty, no longer than `max_positions`, and hold
    /// ids below `vocab_size`.
    pub fn mean_pooled(&self, sequences: &[Vec<u32>], scratch: &mut Scratch) -> Vec<Vec<f32>> {
        let hidden = self.config.hidden_size;
        let tokens: usize = sequences.iter().map(Vec::len).sum();
        let longest = sequences.iter().map(Vec::len).max().unwrap_or(0);
        assert!(
            longest <= self.config.max_positions,
            "sequence longer than max_positions"
        );

        scratch.hidden.resize(tokens * hidden, 0.0);
        scratch.qkv.resize(tokens * 3 * hidden, 0.0);
        scratch.context.resize(tokens * hidden, 0.0);
        scratch.projected.resize(tokens * hidden, 0.0);
        scratch
            .intermediate
            .resize(tokens * self.config.intermediate_size, 0.0);
        scratch.scores.resize(longest * longest, 0.0);

        self.embed_tokens(sequences, &mut scratch.hidden[..tokens * hidden]);
        for layer in &self.layers {
            self.run_layer(layer, sequences, tokens, scratch);
        }

        let mut pooled = Vec::with_capacity(sequences.len());
        let mut start = 0;
        for sequence in sequences {
            let rows = &scratch.hidden[start * hidden..(start + sequence.len()) * hidden];
            let mut mean = vec![0.0f32; hidden];
            for row in rows.chunks_exact(hidden) {
                for (m, &x) in mean.iter_mut().zip(row) {
                    *m += x;
                }
            }
            let count = sequence.len().max(1) as f32;
            mean.iter_mut().for_each(|m| *m /= count);
            pooled.push(mean);
            start += sequence.len();
        }
        pooled
    }

    /// word + position + token-type embeddings, then LayerNorm.
    fn embed_tokens(&self, sequences: &[Vec<u32>], output: &mut [f32]) {
        let hidden = self.config.hidden_size;
        let mut rows = output.chunks_exact_mut(hidden);
        for sequence in sequences {
            for (position, (&id, row)) in sequence.iter().zip(&mut rows).enumerate() {
                let word = &self.word_embeddings[id as usize * hidden..][..hidden];
                let place = &self.position_embeddings[position * hidden..][..hidden];
                for (((out, &w), &p), &t) in row
                    .iter_mut()
                    .zip(word)
                    .zip(place)
                    .zip(&self.token_type_embedding)
                {
                    *out = w + p + t;
                }
            }
        }
        self.embedding_norm.apply(output);
    }

    fn run_layer(
        &self,
        layer: &EncoderLayer,
        sequences: &[Vec<u32>],
        tokens: usize,
        scratch: &mut Scratch,
    ) {
        let hidden = self.config.hidden_size;
        let hidden_rows = &mut scratch.hidden[..tokens * hidden];

        layer.qkv.forward(hidden_rows, tokens, &mut scratch.qkv);
        self.attend(
            sequences,
            &scratch.qkv,
            &mut scratch.scores,
            &mut scratch.context,
        );

        // Attention output projection, residual, LayerNorm.
        layer
            .attention_output
            .forward(&scratch.context, tokens, &mut scratch.projected);
        add_in_place(hidden_rows, &scratch.projected[..tokens * hidden]);
        layer.attention_norm.apply(hidden_rows);

        // Feed-forward: intermediate + GELU, output projection, residual, LayerNorm.
        let intermediate = &mut scratch.intermediate[..tokens * self.config.intermediate_size];
        layer
            .intermediate
            .forward(hidden_rows, tokens, intermediate);
        gelu_in_place(intermediate);
        layer
            .output
            .forward(intermediate, tokens, &mut scratch.projected);
        add_in_place(hidden_rows, &scratch.projected[..tokens * hidden]);
        layer.output_norm.apply(hidden_rows);
    }

    /// Multi-head self-attention per sequence: `context_h = softmax(Q_h·K_hᵀ/√d)·V_h` for each
    /// head `h`, written into the head's column block of `context`.
    fn attend(&self, sequences: &[Vec<u32>], qkv: &[f32], scores: &mut [f32], context: &mut [f32]) {
        let hidden = self.config.hidden_size;
        let head_dim = self.config.head_dim();
        let qkv_width = 3 * hidden;
        let scale = 1.0 / (head_dim as f32).sqrt();
        let mut start = 0;
        for sequence in sequences {
            let len = sequence.len();
            let rows = &qkv[start * qkv_width..(start + len) * qkv_width];
            let scores = &mut scores[..len * len];
            for head in 0..self.config.num_heads {
                let column = head * head_dim;
                let view = |offset: usize, transposed: bool| {
                    let data = &rows[offset + column..];
                    if transposed {
                        MatRef {
                            data,
                            rows: head_dim,
                            cols: len,
                            row_stride: 1,
                            col_stride: qkv_width,
                        }
                    } else {
                        MatRef {
                            data,
                            rows: len,
                            cols: head_dim,
                            row_stride: qkv_width,
                            col_stride: 1,
                        }
                    }
                };
                let (query, key_transposed, value) =
                    (view(0, false), view(hidden, true), view(2 * hidden, false));

                sgemm(scale, query, key_transposed, 0.0, scores, len);
                softmax_rows(scores, len);
                let output = &mut context[start * hidden + column..];
                sgemm(
                    1.0,
                    MatRef::row_major(scores, len, len),
                    value,
                    0.0,
                    output,
                    hidden,
                );
            }
            start += len;
        }
    }
}
