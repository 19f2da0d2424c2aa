mod regex;

pub use regex::{RDFRegex, RDFRegexError};
