//! An OpenAI-compatible `/v1/embeddings` endpoint: `STRATA_EMBEDDINGS_URL` (the base, e.g.
//! `http://127.0.0.1:8080`), `STRATA_EMBEDDINGS_MODEL`, and the bearer key from
//! `STRATA_EMBEDDINGS_KEY` (never logged).

use super::{EmbedError, Embedder, normalize};

pub struct RemoteEmbedder {
    url: String,
    model: String,
    key: Option<String>,
    dim: usize,
    id: String,
    agent: ureq::Agent,
}

impl RemoteEmbedder {
    /// Reads the configuration and asks the endpoint once to learn the dimension.
    pub fn from_env() -> Result<Self, EmbedError> {
        let url = std::env::var("STRATA_EMBEDDINGS_URL")
            .map_err(|_| EmbedError::Remote("set STRATA_EMBEDDINGS_URL".into()))?;
        let model = std::env::var("STRATA_EMBEDDINGS_MODEL")
            .map_err(|_| EmbedError::Remote("set STRATA_EMBEDDINGS_MODEL".into()))?;
        let key = std::env::var("STRATA_EMBEDDINGS_KEY").ok();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(std::time::Duration::from_secs(120)))
            .build()
            .into();
        let mut embedder = Self {
            url: format!(
                "{}/v1/embeddings",
                url.trim_end_matches('/').trim_end_matches("/v1")
            ),
            id: String::new(),
            model,
            key,
            dim: 0,
            agent,
        };
        let probe = embedder.call(&["dimension probe"])?;
        embedder.dim = probe.first().map_or(0, Vec::len);
        if embedder.dim == 0 {
            return Err(EmbedError::Remote(
                "the endpoint returned an empty vector".into(),
            ));
        }
        embedder.id = format!("remote:{}:{}", embedder.model, embedder.dim);
        Ok(embedder)
    }

    fn call(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = serde_json::json!({ "model": self.model, "input": texts });
        let mut request = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json");
        if let Some(key) = &self.key {
            request = request.header("authorization", &format!("Bearer {key}"));
        }
        let mut response = request
            .send(body.to_string())
            .map_err(|e| EmbedError::Remote(format!("{}: {e}", self.url)))?;
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| EmbedError::Remote(e.to_string()))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| EmbedError::Remote(format!("bad JSON: {e}")))?;
        let data = value["data"]
            .as_array()
            .ok_or_else(|| EmbedError::Remote("no `data` array in the answer".into()))?;
        let mut out = vec![Vec::new(); texts.len()];
        for (position, item) in data.iter().enumerate() {
            let index = item["index"].as_u64().map_or(position, |i| i as usize);
            let mut vector: Vec<f32> = item["embedding"]
                .as_array()
                .ok_or_else(|| EmbedError::Remote("an item has no `embedding`".into()))?
                .iter()
                .map(|x| x.as_f64().unwrap_or(0.0) as f32)
                .collect();
            normalize(&mut vector);
            if let Some(slot) = out.get_mut(index) {
                *slot = vector;
            }
        }
        if out.iter().any(Vec::is_empty) {
            return Err(EmbedError::Remote("the answer lacks some inputs".into()));
        }
        Ok(out)
    }
}

impl Embedder for RemoteEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn semantic(&self) -> bool {
        true
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(64) {
            out.extend(self.call(chunk)?);
        }
        Ok(out)
    }
}
