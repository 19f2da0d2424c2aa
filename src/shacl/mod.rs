//! SHACL Core validation. Shapes are compiled and validated by rudof's `shacl` crate (its
//! native engine, over an in-memory oxrdf graph); this module turns Strata's triples into
//! its input and its report into ours, and knows nothing of commits or stores.
//!
//! Where shapes live (the `strata:shapes` named graph), which focus nodes a commit can
//! affect, and what `reject` does with a report are the engine's business
//! (`engine/validation.rs`).

mod report;
mod shapes;
mod validate;

pub use report::{Report, Severity, ShaclResult};
pub use shapes::{Shapes, ValidationMode};
pub use validate::validate;

/// The named graph of a Strata graph that holds its published shapes.
pub const SHAPES_GRAPH: &str = "https://strata.dev/ns#shapes";
/// `<SHAPES_GRAPH> strata:validationMode "off" | "warn" | "reject"` (default `warn`).
pub const VALIDATION_MODE: &str = "https://strata.dev/ns#validationMode";

/// What can go wrong when compiling shapes or validating.
#[derive(Debug, thiserror::Error)]
pub enum ShaclError {
    #[error("invalid shapes: {0}")]
    InvalidShapes(String),
    #[error("validation failed: {0}")]
    Validation(String),
}

/// Runs rudof code so that a panic inside it (on input it did not expect) becomes an
/// error instead of taking the server down.
fn guard<T>(work: impl FnOnce() -> T) -> Result<T, ShaclError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|panic| {
        let detail = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "internal error".to_owned());
        ShaclError::Validation(format!("the SHACL engine stopped: {detail}"))
    })
}
