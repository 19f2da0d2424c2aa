//! Minimal reader for the safetensors format: an 8-byte little-endian header length, a JSON
//! header mapping tensor names to `{dtype, shape, data_offsets}`, then the raw tensor bytes
//! (offsets are relative to the end of the header). Only F32 tensors are decoded.
//!
//! Tensors are read one at a time straight from the file, so loading never holds the whole
//! file and the decoded weights in memory at once.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::error::EmbedError;

/// Refuse absurd header sizes instead of allocating them (real headers are a few KiB).
const MAX_HEADER_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct TensorInfo {
    pub dtype: String,
    pub shape: Vec<usize>,
    /// Absolute byte range in the file.
    pub start: u64,
    pub end: u64,
}

/// An open safetensors file with its parsed header.
pub struct SafeTensorsFile {
    path: PathBuf,
    file: File,
    tensors: HashMap<String, TensorInfo>,
}

impl SafeTensorsFile {
    pub fn open(path: &Path) -> Result<Self, EmbedError> {
        let io_error = |source| EmbedError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bad = |reason: String| EmbedError::BadFile {
            path: path.to_path_buf(),
            reason,
        };
        let mut file = File::open(path).map_err(io_error)?;
        let file_len = file.metadata().map_err(io_error)?.len();

        let mut len_bytes = [0u8; 8];
        file.read_exact(&mut len_bytes)
            .map_err(|e| bad(format!("cannot read the header length: {e}")))?;
        let header_len = u64::from_le_bytes(len_bytes);
        if header_len > MAX_HEADER_BYTES || 8 + header_len > file_len {
            return Err(bad(format!(
                "header length {header_len} does not fit a {file_len}-byte file"
            )));
        }
        let mut header_bytes = vec![0u8; header_len as usize];
        file.read_exact(&mut header_bytes).map_err(io_error)?;
        let header: serde_json::Value = serde_json::from_slice(&header_bytes)
            .map_err(|e| bad(format!("header is not valid JSON: {e}")))?;
        let entries = header
            .as_object()
            .ok_or_else(|| bad("header is not a JSON object".into()))?;

        let data_start = 8 + header_len;
        let mut tensors = HashMap::new();
        for (name, entry) in entries {
            if name == "__metadata__" {
                continue;
            }
            let info = parse_entry(entry, data_start, file_len)
                .map_err(|reason| bad(format!("tensor {name}: {reason}")))?;
            tensors.insert(name.clone(), info);
        }
        Ok(Self {
            path: path.to_path_buf(),
            file,
            tensors,
        })
    }

    pub fn tensors(&self) -> &HashMap<String, TensorInfo> {
        &self.tensors
    }

    pub fn contains(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    /// Reads the F32 tensor `name`, checking that its shape is `expected_shape`.
    pub fn read_f32(
        &mut self,
        name: &str,
        expected_shape: &[usize],
    ) -> Result<Vec<f32>, EmbedError> {
        let bad = |reason: String| EmbedError::BadFile {
            path: self.path.clone(),
            reason,
        };
        let info = self
            .tensors
            .get(name)
            .ok_or_else(|| bad(format!("missing tensor {name}")))?;
        if info.dtype != "F32" {
            return Err(bad(format!(
                "tensor {name} has dtype {}, expected F32",
                info.dtype
            )));
        }
        if info.shape != expected_shape {
            return Err(bad(format!(
                "tensor {name} has shape {:?}, expected {expected_shape:?}",
                info.shape
            )));
        }
        let (start, end) = (info.start, info.end);
        let mut bytes = vec![0u8; (end - start) as usize];
        let path = self.path.clone();
        let io_error = |source| EmbedError::Io {
            path: path.clone(),
            source,
        };
        self.file.seek(SeekFrom::Start(start)).map_err(io_error)?;
        self.file.read_exact(&mut bytes).map_err(io_error)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
            .collect())
    }
}

fn parse_entry(
    entry: &serde_json::Value,
    data_start: u64,
    file_len: u64,
) -> Result<TensorInfo, String> {
    let dtype = entry["dtype"].as_str().ok_or("no dtype")?.to_string();
    let shape = entry["shape"]
        .as_array()
        .ok_or("no shape")?
        .iter()
        .map(|d| {
            d.as_u64()
                .map(|d| d as usize)
                .ok_or("non-integer dimension")
        })
        .collect::<Result<Vec<usize>, _>>()?;
    let offsets = entry["data_offsets"].as_array().ok_or("no data_offsets")?;
    let [begin, end] = offsets.as_slice() else {
        return Err("data_offsets is not a pair".into());
    };
    let (begin, end) = (
        begin.as_u64().ok_or("bad data offset")?,
        end.as_u64().ok_or("bad data offset")?,
    );
    if begin > end || data_start + end > file_len {
        return Err(format!(
            "data_offsets [{begin}, {end}] fall outside the file"
        ));
    }
    let element_bytes = match dtype.as_str() {
        "F64" | "I64" | "U64" => 8,
        "F32" | "I32" | "U32" => 4,
        "F16" | "BF16" | "I16" | "U16" => 2,
        _ => 1,
    };
    let elements = shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
        .ok_or("shape overflows")?;
    if elements.checked_mul(element_bytes) != Some(end - begin) {
        return Err(format!(
            "{} bytes of data do not match shape {shape:?} of {dtype}",
            end - begin
        ));
    }
    Ok(TensorInfo {
        dtype,
        shape,
        start: data_start + begin,
        end: data_start + end,
    })
}
