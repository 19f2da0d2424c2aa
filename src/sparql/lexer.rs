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

/// The operations of an update text, split at each `;` outside braces, strings, comments
/// and IRIs; each with its words outside braces (keywords, prefixed names, variables and
/// IRIs) in order.
pub fn update_operation_words(text: &str) -> Vec<Vec<&str>> {
    let mut operations = vec![Vec::new()];
    let mut depth = 0usize;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some(len) = opaque_len(rest) {
            if depth == 0 && c == '<' {
                operations
                    .last_mut()
                    .expect("never empty")
                    .push(&rest[..len]);
            }
            rest = &rest[len..];
            continue;
        }
        let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | ':' | '?' | '$' | '-');
        let len = if is_word(c) {
            let len = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
            if depth == 0 {
                operations
                    .last_mut()
                    .expect("never empty")
                    .push(&rest[..len]);
            }
            len
        } else {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                ';' if depth == 0 => operations.push(Vec::new()),
                _ => {}
            }
            c.len_utf8()
        };
        rest = &rest[len..];
    }
    operations
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
        let ops = update_operation_words(
            "PREFIX e: <http://e/> INSERT DATA { e:a e:p 1 ; e:q \"x ; y\" } ; \
             # COPY ; MOVE\n copy silent <http://e/g> TO default ;",
        );
        assert_eq!(
            ops,
            vec![
                vec!["PREFIX", "e:", "<http://e/>", "INSERT", "DATA"],
                vec!["copy", "silent", "<http://e/g>", "TO", "default"],
                vec![],
            ]
        );
    }
}
