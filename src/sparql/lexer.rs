//! Just enough of SPARQL's lexical grammar to walk a query or update text without
//! parsing it: where a string literal, a comment or an IRI starts and ends, so that a scan
//! for keywords or for IRIs never looks inside one of them.

/// The length in bytes of the string literal, comment or IRI that `text` starts with, or
/// `None` when it starts with none of them (a `<` that is an operator is none).
pub fn opaque_len(text: &str) -> Option<usize> {
    match text.chars().next()? {
        '"' | '\'' => Some(string_len(text)),
        '#' => Some(text.find('\n').unwrap_or(text.len())),
        // An IRI may hold `#`, never a space or `"`. A `<` that is an operator meets a
        // space, a variable or a number before any `>`.
        '<' => text[1..]
            .find(|c: char| c == '>' || c.is_whitespace() || c == '<' || c == '"')
            .filter(|&i| text[1 + i..].starts_with('>'))
            .map(|i| i + 2),
        _ => None,
    }
}

/// The length of the SPARQL string literal `text` starts with (`"…"`, `'…'`, `"""…"""` or
/// `'''…'''`, with backslash escapes); all of `text` if it never ends.
fn string_len(text: &str) -> usize {
    let quote = &text[..1];
    let long = quote.repeat(3);
    let (delimiter, start) = if text.starts_with(&long) {
        (long.as_str(), 3)
    } else {
        (quote, 1)
    };
    let mut i = start;
    while i < text.len() {
        if text[i..].starts_with('\\') {
            i += 1;
        } else if text[i..].starts_with(delimiter) {
            return i + delimiter.len();
        }
        i += text[i..].chars().next().map_or(1, char::len_utf8);
    }
    text.len()
}

/// One operation of an update text, with its prologue (`PREFIX`, `BASE`) if it has one.
#[derive(Debug, PartialEq)]
pub struct Operation<'a> {
    /// Its text, from the end of the `;` before it to the `;` after it.
    pub text: &'a str,
    /// Its words outside braces (keywords, prefixed names, variables and IRIs), in order:
    /// slices of `text`.
    pub words: Vec<&'a str>,
}

/// The operations of an update text, split at each `;` outside braces, strings, comments
/// and IRIs.
pub fn update_operations(text: &str) -> Vec<Operation<'_>> {
    let mut operations = Vec::new();
    let mut words = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        let rest = &text[at..];
        if let Some(len) = opaque_len(rest) {
            if depth == 0 && c == '<' {
                words.push(&rest[..len]);
            }
            at += len;
            continue;
        }
        let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | ':' | '?' | '$' | '-');
        if is_word(c) {
            let len = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
            if depth == 0 {
                words.push(&rest[..len]);
            }
            at += len;
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => {
                operations.push(Operation {
                    text: &text[start..at],
                    words: std::mem::take(&mut words),
                });
                start = at + 1;
            }
            _ => {}
        }
        at += c.len_utf8();
    }
    operations.push(Operation {
        text: &text[start..],
        words,
    });
    operations
}

impl<'a> Operation<'a> {
    /// Its words after its prologue: the operation's keyword first.
    pub fn body_words(&self) -> &[&'a str] {
        let mut i = 0;
        while let Some(word) = self.words.get(i) {
            if word.eq_ignore_ascii_case("PREFIX") {
                i += 3;
            } else if word.eq_ignore_ascii_case("BASE") {
                i += 2;
            } else {
                break;
            }
        }
        self.words.get(i..).unwrap_or_default()
    }

    /// Its prologue's text (empty without one).
    pub fn prologue(&self) -> &'a str {
        match self.body_words().first() {
            Some(first) => &self.text[..first.as_ptr() as usize - self.text.as_ptr() as usize],
            None => self.text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_comments_and_iris_are_opaque() {
        assert_eq!(opaque_len(r#""a\"b" x"#), Some(6));
        assert_eq!(opaque_len("'''a ' b''' x"), Some(11));
        assert_eq!(opaque_len("# a ; b\nc"), Some(7));
        assert_eq!(opaque_len("<http://e/a#b> x"), Some(14));
        assert_eq!(opaque_len("< 3"), None);
        assert_eq!(opaque_len("x"), None);
    }

    #[test]
    fn operations_split_at_top_level_semicolons_only() {
        let text = "PREFIX e: <http://e/> INSERT DATA { e:a e:p 1 ; e:q \"x ; y\" } ; \
             # COPY ; MOVE\n BASE <http://b/> copy silent <g> TO default ;";
        let ops = update_operations(text);
        let words: Vec<&[&str]> = ops.iter().map(|o| o.words.as_slice()).collect();
        assert_eq!(
            words,
            [
                &["PREFIX", "e:", "<http://e/>", "INSERT", "DATA"][..],
                &[
                    "BASE",
                    "<http://b/>",
                    "copy",
                    "silent",
                    "<g>",
                    "TO",
                    "default"
                ],
                &[],
            ]
        );
        assert_eq!(ops[0].body_words(), ["INSERT", "DATA"]);
        assert_eq!(ops[0].prologue(), "PREFIX e: <http://e/> ");
        assert_eq!(ops[1].body_words()[0], "copy");
        assert_eq!(ops[1].prologue(), " # COPY ; MOVE\n BASE <http://b/> ");
        assert_eq!(ops[2].prologue(), "");
    }
}
