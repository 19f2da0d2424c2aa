//! The zero-download fallback: words and character trigrams hashed into a fixed number of
//! signed buckets (feature hashing). It matches shared words and spellings, not meaning:
//! reported as `semantic: false` wherever it is used.

use super::{EmbedError, Embedder, normalize};

pub struct HashedEmbedder {
    dim: usize,
    id: String,
}

impl Default for HashedEmbedder {
    fn default() -> Self {
        Self::new(384)
    }
}

impl HashedEmbedder {
    pub fn new(dim: usize) -> Self {
        Self {
            dim,
            id: format!("hashed-words-trigrams-{dim}"),
        }
    }

    fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dim];
        let lower = text.to_lowercase();
        let mut add = |feature: &str, weight: f32| {
            let h = fnv1a(feature.as_bytes());
            let bucket = (h % self.dim as u64) as usize;
            let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
            v[bucket] += sign * weight;
        };
        for word in lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            add(&format!("w:{word}"), 1.0);
            let chars: Vec<char> = format!(" {word} ").chars().collect();
            for gram in chars.windows(3) {
                add(&format!("c:{}", gram.iter().collect::<String>()), 0.3);
            }
        }
        normalize(&mut v);
        v
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

impl Embedder for HashedEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn semantic(&self) -> bool {
        false
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn shared_words_score_higher_than_unrelated_text() {
        let e = HashedEmbedder::default();
        let v = e
            .embed(&[
                "users cannot sign in",
                "sign in fails for users",
                "invoice PDF is blank",
                "",
            ])
            .unwrap();
        assert!((cos(&v[0], &v[0]) - 1.0).abs() < 1e-5);
        assert!(cos(&v[0], &v[1]) > cos(&v[0], &v[2]) + 0.2);
        assert!(
            v[3].iter().all(|x| *x == 0.0),
            "empty text is the zero vector"
        );
    }
}
